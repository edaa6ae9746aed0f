"""``TensorArray``: a list of same-shaped tensors that loops write one element at a time.

Two implementations, chosen when the array is made, as in TensorFlow 2:

* at the top level in eager mode, a Python list of tensors (TF's ``_EagerTensorArray``):
  ``write`` stores the tensor and returns the same array; ``stack`` is one ``Pack``, so a
  tape differentiates through it like any other eager ops.  As in TF, a read clears the
  element unless ``clear_after_read=False``;
* in a graph (a ``Graph``, a ``function`` trace, a loop body), a value over one dense
  buffer ``[size, *element_shape]`` (``ops.list_ops``): ``write`` and ``scatter`` return
  a new array, the old one is unchanged.  The buffer is made by the first write, which
  fixes the element shape.  A ``while_loop`` carries the buffer as a loop variable
  (``ops.tensor_array_loop``), so the loop's gradient machinery covers arrays unchanged.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.errors import InvalidArgumentError, OutOfRangeError
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.core.op_registry import constant_value
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.ops.array import joining, shape
from symgrad.ops.array import structure as array
from symgrad.ops.array.list_ops import gather_items, get_item, scatter_items, set_item
from symgrad.ops.core import constant, convert_to_tensor


class TensorArray:
    """``tf.TensorArray(dtype, size, dynamic_size, clear_after_read, ..., element_shape)``.

    >>> import symgrad as tf
    >>> ta = tf.TensorArray(tf.float32, size=2)
    >>> ta = ta.write(0, [1.0, 2.0]).write(1, [3.0, 4.0])
    >>> print(ta.stack().numpy().tolist(), int(ta.size()))
    [[1.0, 2.0], [3.0, 4.0]] 2
    """

    _dtype: dt.DType
    _dynamic_size: bool
    _infer_shape: bool

    def __new__(cls, *args: Any, **kwargs: Any) -> TensorArray:
        if cls is TensorArray:
            g = get_default_graph()
            eager = g.eager and not g.building_function
            cls = _EagerTensorArray if eager else _GraphTensorArray
        return object.__new__(cls)

    @property
    def dtype(self) -> dt.DType:
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def handle(self) -> None:
        return None

    @property
    def element_shape(self) -> TensorShape:
        raise NotImplementedError

    def identity(self) -> TensorArray:
        return self

    # The interface (TF's); each implementation below fills it.
    def read(self, index: Any, name: str | None = None) -> Tensor:
        raise NotImplementedError

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        raise NotImplementedError

    def stack(self, name: str | None = None) -> Tensor:
        raise NotImplementedError

    def gather(self, indices: Any, name: str | None = None) -> Tensor:
        raise NotImplementedError

    def concat(self, name: str | None = None) -> Tensor:
        raise NotImplementedError

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        raise NotImplementedError

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        raise NotImplementedError

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        """Element i is the next ``lengths[i]`` rows of ``value``."""
        value = self._convert(value)
        known = constant_value(convert_to_tensor(lengths, dt.int64))
        if known is None:
            raise NotImplementedError("TensorArray.split needs lengths known when it is built.")
        sizes = [int(n) for n in np.ravel(known)]
        rows = value.shape.dims[0] if value.shape.rank else None
        if rows is not None and sum(sizes) != rows:
            raise InvalidArgumentError(
                f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths "
                f"is {sum(sizes)} and value's shape is: {value.shape.as_list()} "
            )
        return self._split(value, sizes)

    def _split(self, value: Tensor, sizes: list[int]) -> TensorArray:
        raise NotImplementedError

    def size(self, name: str | None = None) -> Tensor:
        raise NotImplementedError

    def close(self, name: str | None = None) -> None:
        """Nothing to release: the elements are ordinary tensors."""

    def grad(self, source: Any, flow: Any = None, name: str | None = None) -> Any:
        raise NotImplementedError(
            "TensorArray.grad is not supported: gradients flow through the array's "
            "reads and writes (tf.gradients / GradientTape) without it."
        )

    def _convert(self, value: Any) -> Tensor:
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype is not self._dtype:
            raise InvalidArgumentError(
                f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                f"{value.dtype.name} "
            )
        return value


# --------------------------------------------------------------------------------------
# Eager: a Python list of tensors


class _EagerTensorArray(TensorArray):
    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: Any = None,
        clear_after_read: Any = None,
        tensor_array_name: Any = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: str | None = None,
    ) -> None:
        if handle is not None:
            raise ValueError(
                "TensorArray handles are not supported when eager execution is enabled."
            )
        if size is None:
            raise ValueError(
                "Size must be declared for TensorArrays when eager execution is enabled."
            )
        self._dtype = dt.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._shape = as_shape(element_shape)
        self._items: list[Tensor | None] = [None] * int(size)
        self._cleared: set[int] = set()

    @property
    def element_shape(self) -> TensorShape:
        return self._shape

    @property
    def flow(self) -> Tensor:
        return constant(0, dt.int32)

    def read(self, index: Any, name: str | None = None) -> Tensor:
        i = int(index)
        if i < 0:
            raise OutOfRangeError(f"Reading from negative indices (index {i}) is not allowed.")
        if i >= len(self._items):
            raise OutOfRangeError(
                f"Tried to read from index {i} but array size is: {len(self._items)} "
            )
        if self._items[i] is None and i in self._cleared:
            raise InvalidArgumentError(
                f"Could not read index {i} twice because it was cleared after a previous "
                "read (perhaps try setting clear_after_read = false?)"
            )
        value = self._zero_if_unset(i)
        if self._clear:
            self._items[i] = None
            self._cleared.add(i)
        return value

    def _zero_if_unset(self, i: int) -> Tensor:
        value = self._items[i]
        if value is None:
            if not self._shape.is_fully_defined():
                raise ValueError(
                    f"Cannot convert a partially known TensorShape {self._shape} to a Tensor."
                )
            value = self._items[i] = array.zeros(self._shape.as_list(), self._dtype)
        return value

    def _write(self, index: Any, value: Any) -> None:
        i, n = int(index), len(self._items)
        if i < 0:
            raise OutOfRangeError(f"Writing to negative indices (index {i}) is not allowed.")
        if i >= n:
            if not self._dynamic_size:
                raise OutOfRangeError(
                    f"Tried to write to index {i} but array is not resizeable and size is: {n} "
                )
            self._items.extend([None] * (i - n + 1))
        value = self._convert(value)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(
                f"Incompatible shape for value ({value.shape}), expected ({self._shape})"
            )
        if self._infer_shape:
            self._shape = self._shape.merge_with(value.shape)
        self._items[i] = value

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        self._write(index, value)
        return self

    def stack(self, name: str | None = None) -> Tensor:
        if not self._items:
            dims = self._shape.as_list() if self._shape.is_fully_defined() else []
            return array.zeros([0, *dims], self._dtype)
        return joining.stack([self._zero_if_unset(i) for i in range(len(self._items))])

    def gather(self, indices: Any, name: str | None = None) -> Tensor:
        idx = [int(i) for i in convert_to_tensor(indices).numpy().reshape(-1)]
        return joining.stack([self._zero_if_unset(i) for i in idx])

    def concat(self, name: str | None = None) -> Tensor:
        return joining.concat([self._zero_if_unset(i) for i in range(len(self._items))], 0)

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        items = joining.unstack(self._convert(value))
        if len(items) > len(self._items) and not self._dynamic_size:
            raise ValueError(
                f"Cannot unstack {len(items)} tensors into a TensorArray of static size "
                f"{len(self._items)} "
            )
        self._items = list(items)
        return self

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        idx = convert_to_tensor(indices).numpy().reshape(-1)
        for i, v in zip(idx, joining.unstack(self._convert(value)), strict=False):
            self._write(i, v)
        return self

    def size(self, name: str | None = None) -> Tensor:
        return constant(len(self._items), dt.int32)

    def _split(self, value: Tensor, sizes: list[int]) -> TensorArray:
        if len(sizes) != len(self._items) and not self._dynamic_size:
            raise InvalidArgumentError(
                f"TensorArray's size is not equal to the size of lengths ({len(self._items)} "
                f"vs. {len(sizes)}), and the TensorArray is not marked as dynamically resizeable."
            )
        self._items = list(joining.split(value, sizes)) if sizes else []
        return self


# --------------------------------------------------------------------------------------
# Graph: a value over one dense buffer


def _debug(s: TensorShape) -> str:
    """A shape as TF's kernels print it: ``<unknown>``, ``[?,3]``."""
    if s.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in s.as_list()) + "]"


class _GraphTensorArray(TensorArray):
    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: Any = None,
        clear_after_read: Any = None,
        tensor_array_name: Any = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: str | None = None,
    ) -> None:
        if flow is not None:
            raise TypeError(
                "TensorArray(flow=...) is not supported: symgrad has no variant tensors; "
                "make the array from `size`, or `unstack` a tensor into it."
            )
        if size is None:
            raise ValueError("Argument `size` must be provided if argument `flow` is not provided.")
        self._dtype = dt.as_dtype(dtype)
        self._size = array.int_tensor(size, "size")
        if self._size.shape.rank not in (None, 0):
            raise ValueError(f"TensorArray size must be a scalar, got shape {self._size.shape}")
        self._dynamic_size = bool(dynamic_size)
        self._dynamic_arg = dynamic_size  # as given: TF's error texts print it
        self._infer_shape = infer_shape
        self._cell = [as_shape(element_shape)]  # shared by the arrays made from this one
        self._buffer: Tensor | None = None

    def _new(self, buffer: Tensor) -> _GraphTensorArray:
        ta = object.__new__(_GraphTensorArray)
        ta.__dict__.update(self.__dict__)
        ta._buffer = buffer
        return ta

    @property
    def element_shape(self) -> TensorShape:
        return self._cell[0]

    @property
    def flow(self) -> Tensor:
        return self._buffer if self._buffer is not None else constant(0, dt.int32)

    def _merge(self, s: TensorShape) -> None:
        if not s.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {s} but expected {self.element_shape} ")
        if self._infer_shape:
            self._cell[0] = self.element_shape.merge_with(s)

    def _reserve(self, element: Tensor | None = None, known: TensorShape | None = None) -> Tensor:
        """A zero buffer of ``size`` elements of shape ``element`` (a shape tensor, whose
        static shape is ``known``), or of the known element shape."""
        if element is None and not self.element_shape.is_fully_defined():
            raise InvalidArgumentError(
                "Tried to stack list which only contains uninitialized tensors and has a "
                f"non-fully-defined element_shape: {_debug(self.element_shape)}"
            )
        n = constant_value(self._size)
        if element is None:
            if n is not None:
                return array.zeros([int(n), *self.element_shape.as_list()], self._dtype)
            element = constant(self.element_shape.as_list(), dt.int32)
        dims = joining.concat([array.reshape(self._size, [1]), element], 0)
        buf = array.zeros(dims, self._dtype)
        known = self.element_shape if known is None else self.element_shape.merge_with(known)
        if known.rank is not None:  # infer_shape=False learns none from the writes
            buf.set_shape([None if n is None else int(n), *known])
        return buf

    def read(self, index: Any, name: str | None = None) -> Tensor:
        if self._buffer is None and not self.element_shape.is_fully_defined():
            raise InvalidArgumentError(
                "Trying to read an uninitialized tensor but element_shape is not fully "
                f"defined: {_debug(self.element_shape)} and no list element is set."
            )
        return get_item(self.stack(), index, name=name)

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        value = self._convert(value)
        self._merge(value.shape)
        buf = (
            self._buffer
            if self._buffer is not None
            else self._reserve(shape.shape(value), value.shape)
        )
        return self._new(set_item(buf, index, value, self._dynamic_size))

    def stack(self, name: str | None = None) -> Tensor:
        return self._buffer if self._buffer is not None else self._reserve()

    def gather(self, indices: Any, name: str | None = None) -> Tensor:
        return gather_items(self.stack(), indices, name=name)

    def concat(self, name: str | None = None) -> Tensor:
        st = self.stack()
        return array.reshape(st, joining.concat([[-1], shape.shape(st)[2:]], 0))

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        value = self._convert(value)
        if value.shape.rank is not None:
            self._merge(TensorShape(value.shape.dims[1:]))  # type: ignore[index]
        rows = value.shape.dims[0] if value.shape.rank else None
        n = constant_value(self._size)
        if rows is not None and n is not None and rows > int(n) and not self._dynamic_size:
            raise ValueError(
                f"Cannot unstack {rows} tensors into a TensorArray of static size {int(n)} "
            )
        return self._new(value)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        value = self._convert(value)
        if value.shape.rank is not None:
            self._merge(TensorShape(value.shape.dims[1:]))  # type: ignore[index]
        buf = self._buffer
        if buf is None:
            buf = self._reserve(shape.shape(value)[1:])
        return self._new(scatter_items(buf, value, indices, self._dynamic_size))

    def _split(self, value: Tensor, sizes: list[int]) -> TensorArray:
        """The buffer holds elements of one shape: equal lengths only."""
        if len(set(sizes)) > 1:
            raise NotImplementedError(
                f"TensorArray.split into lengths {sizes} in a graph: symgrad's graph arrays "
                "hold elements of one shape (split into equal lengths, or use tf.split)."
            )
        rest = shape.shape(value)[1:]
        return self.unstack(array.reshape(value, joining.concat([[len(sizes), sizes[0]], rest], 0)))

    def size(self, name: str | None = None) -> Tensor:
        if self._dynamic_size and self._buffer is not None:
            return shape.shape(self._buffer)[0]
        return self._size

    def _invariant(self) -> TensorShape:
        """The buffer's shape in a loop: its rows may change when the array grows."""
        buf = self._buffer
        assert buf is not None
        if buf.shape.rank is None:
            return TensorShape(None)
        rows = None if self._dynamic_size else buf.shape.dims[0]  # type: ignore[index]
        return TensorShape([rows, *buf.shape.dims[1:]])  # type: ignore[index]


def _constructor_signature() -> inspect.Signature:
    """``tf.TensorArray(...)``'s signature: its implementations' ``__init__`` (``__new__``
    picks one), for ``inspect.signature`` and help()."""
    sig = inspect.signature(_GraphTensorArray.__init__)
    return sig.replace(parameters=list(sig.parameters.values())[1:])


setattr(TensorArray, "__signature__", _constructor_signature())  # noqa: B010
