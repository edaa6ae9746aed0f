"""``IndexedSlices``: the sparse gradient of a gather, as TensorFlow represents it.

A gather along axis 0 reads a few rows of a (possibly huge) params tensor; its gradient
is those rows only: ``values`` (one slice per index), ``indices`` (which row each slice
belongs to, duplicates allowed) and ``dense_shape`` (the shape of params).  Keeping the
gradient in this form lets an optimizer update only the touched rows.

The engine (``autodiff.backprop``) moves these objects between rules as TF does:

* ``aggregate``: several gradients of one tensor -- all dense: the given dense sum
  (AddN; a gradient that is zeros but for a list's row or a slice, the gradient of a
  read, is added to the others as that part: ``ops.partial_sums``); some dense: AddN,
  which densifies the slices; all sparse: the values and the indices concatenated
  (duplicates are not summed; int32 indices become int64 when mixed with int64 ones).
* ``rule_input``: a rule of the package gets a dense gradient (what TF's rules get by
  converting it), except the rules that pass slices through (Identity, IdentityN, Cast,
  as TF's do); a user's rule gets the IndexedSlices itself, as in TF.

``convert_to_tensor(slices)`` densifies with an UnsortedSegmentSum (differentiable),
warning in a graph, as TF does, when the dense shape has 100,000,000 elements or more.
"""

from __future__ import annotations

import collections
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core import hooks
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.core.op_registry import constant_value
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import gather as gather_ops
from symgrad.ops.array import joining, slicing
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as math_ops
from symgrad.ops.math.add_n import add_n
from symgrad.ops.sparse import partial_sums

IndexedSlicesValue = collections.namedtuple(
    "IndexedSlicesValue", ["values", "indices", "dense_shape"]
)
IndexedSlicesValue.__doc__ = "What ``Session.run`` returns for an IndexedSlices: three arrays."

_LARGE_SPARSE_NUM_ELEMENTS = 100000000


class IndexedSlices:
    """Rows ``values[i]`` of a dense tensor of shape ``dense_shape`` at ``indices[i]``.

    >>> import symgrad as tf
    >>> v = tf.Variable([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    >>> with tf.GradientTape() as tape:
    ...     r = tf.gather(v, [2, 0])
    >>> g = tape.gradient(r, v)
    >>> g.indices.numpy(), g.values.numpy().tolist()
    (array([2, 0], dtype=int32), [[1.0, 1.0], [1.0, 1.0]])
    >>> tf.convert_to_tensor(g).numpy().tolist()
    [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
    """

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None) -> None:
        self._values = _as_tensor(values, integers=False)
        self._indices = _as_tensor(indices, integers=True)
        self._dense_shape = None if dense_shape is None else _as_tensor(dense_shape, integers=True)

    @classmethod
    def from_parts(cls, values: Any, indices: Any, dense_shape: Any) -> IndexedSlices:
        """An IndexedSlices of these objects as they are (a traced function's output
        template holds slots where its tensors go)."""
        new = cls.__new__(cls)
        new._values, new._indices, new._dense_shape = values, indices, dense_shape
        return new

    def parts(self) -> list[Any]:
        """values, indices, dense_shape."""
        return [self._values, self._indices, self._dense_shape]

    @property
    def values(self) -> Tensor:
        """The slices: ``[len(indices), *dense_shape[1:]]``."""
        return self._values

    @property
    def indices(self) -> Tensor:
        """The row of the dense tensor each slice belongs to (1-D)."""
        return self._indices

    @property
    def dense_shape(self) -> Tensor | None:
        """The shape of the dense tensor (1-D), or None when not known."""
        return self._dense_shape

    @property
    def shape(self) -> TensorShape:
        """The dense tensor's static shape (as far as ``dense_shape`` is known)."""
        if self._dense_shape is None:
            return TensorShape(None)
        known = constant_value(self._dense_shape)
        if known is not None:
            return TensorShape([int(d) for d in np.asarray(known).reshape(-1)])
        rank = self._dense_shape.shape.dims
        return TensorShape(None if not rank or rank[0] is None else [None] * rank[0])

    @property
    def dtype(self) -> dt.DType:
        return self._values.dtype

    @property
    def name(self) -> str:
        return self._values.name

    @property
    def op(self) -> Operation:
        return self._values.op

    @property
    def graph(self) -> Any:
        return self._values.graph

    @property
    def device(self) -> str:
        return getattr(self._values, "device", "")

    def __str__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape}"
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"

    __repr__ = object.__repr__  # TF shows ``<...IndexedSlices object at 0x...>``

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(math_ops.negative(self._values), self._indices, self._dense_shape)

    def _dense_tensor(self, dtype: dt.DType | None = None, name: str | None = None) -> Tensor:
        """``convert_to_tensor``'s hook: the dense tensor (zeros where no slice is)."""
        if dtype is not None and dtype is not self.dtype:
            raise ValueError(
                f"Incompatible tensor conversion requested to `dtype` {dtype.name} for "
                f"IndexedSlices ({self}) with dtype {self.dtype.name}"
            )
        if self._dense_shape is None:
            raise ValueError(
                "Tensor conversion requested for IndexedSlices for argument `value` "
                f"without dense_shape: {self!s}"
            )
        known = constant_value(self._dense_shape)
        if known is not None and not get_default_graph().eager:
            n = int(np.prod(known))
            if n >= _LARGE_SPARSE_NUM_ELEMENTS:
                warnings.warn(
                    f"Converting sparse IndexedSlices to a dense Tensor with {n} elements. "
                    "This may consume a large amount of memory.",
                    stacklevel=4,
                )
        return densify(self, name)


hooks.provide("IndexedSlices", IndexedSlices)  # what the array family's GatherV2 rule returns


def _as_tensor(value: Any, integers: bool) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if integers:  # Python ints as int32 (TF's default), larger ones as int64
        arr = np.asarray(value)
        if arr.dtype.kind in "iu" and (arr.size == 0 or np.abs(arr).max() < 2**31):
            return convert_to_tensor(arr.astype(np.int32))
    return convert_to_tensor(value)


def densify(g: IndexedSlices, name: str | None = None) -> Tensor:
    """The dense tensor of ``g``, with no warning (TF's ``_IndexedSlicesToTensorNoWarning``)."""
    assert g.dense_shape is not None
    known = constant_value(g.dense_shape)
    rows: Any = int(np.asarray(known).reshape(-1)[0]) if known is not None else None
    if rows is None:
        rows = slicing.strided_slice(g.dense_shape, [0], [1], shrink_axis_mask=1)
    out = gather_ops.unsorted_segment_sum(g.values, g.indices, rows, name=name)
    if known is not None:
        out.set_shape([int(d) for d in np.asarray(known).reshape(-1)])
    return out


def as_indexed_slices(x: Any, optimize: bool = True) -> IndexedSlices:
    """A dense tensor as slices of all its rows (TF's ``math_ops._as_indexed_slices``):
    values x, indices ``range(rows)``, dense_shape ``shape(x)``; slices are returned as is."""
    if isinstance(x, IndexedSlices):
        return x
    if not isinstance(x, Tensor):
        raise TypeError(f"Not a Tensor or IndexedSlices: {type(x)}.")
    shape = array.shape(x)
    return IndexedSlices(x, array.range(0, shape[0]), shape)


def dense(g: Any) -> Any:
    """``g`` as a Tensor when it is an IndexedSlices (anything else unchanged)."""
    return densify(g) if isinstance(g, IndexedSlices) else g


# --------------------------------------------------------------------------------------
# The engine's side: aggregation, and what a rule is given


def aggregator(dense_sum: Callable[[list[Tensor]], Tensor]) -> Callable[[list[Any]], Any]:
    """An aggregation of gradients that keeps all-sparse sums sparse (see the docstring)."""

    def aggregate(parts: list[Any]) -> Any:
        if not any(isinstance(p, IndexedSlices) for p in parts):
            return partial_sums.sum_with_parts(parts, dense_sum)
        return aggregate_indexed_slices(parts)

    return aggregate


def aggregate_indexed_slices(grads: list[Any]) -> Any:
    """TF's ``AggregateIndexedSlicesGradients``: AddN if any is dense, else concatenated."""
    grads = [g for g in grads if g is not None]
    if len(grads) == 1:
        return grads[0]
    if any(isinstance(g, Tensor) for g in grads):
        return add_n([dense(g) if isinstance(g, IndexedSlices) else g for g in grads])
    return IndexedSlices(
        joining.concat([g.values for g in grads], 0),
        joining.concat(_same_index_dtype([g.indices for g in grads]), 0),
        grads[0].dense_shape,
    )


def _same_index_dtype(indices: list[Tensor]) -> list[Tensor]:
    """TF's ``_as_indexed_slices_list``: mixed int32/int64 indices all become int64."""
    if all(i.dtype is indices[0].dtype for i in indices):
        return indices
    return [array.cast(i, dt.int64) if i.dtype is dt.int32 else i for i in indices]


def _cast_slices(op: Any, grad: IndexedSlices) -> Any:
    """Cast's rule on slices: the values cast back (None for a non-float source)."""
    src = op.inputs[0].dtype
    if not (src.is_differentiable and op.outputs[0].dtype.is_differentiable):
        return None
    return IndexedSlices(array.cast(grad.values, src), grad.indices, grad.dense_shape)


_PASS_SLICES: dict[str, Callable[..., Any]] = {
    "Identity": lambda op, grad: grad,
    "IdentityN": lambda op, *grads: list(grads),
    "Cast": _cast_slices,
}


def rule_input(
    op_type: str, fn: Callable[..., Any], out_grads: list[Any], builtin: bool
) -> tuple[list[Any], Callable[..., Any]]:
    """What a rule is given: slices stay slices for a user's rule and the pass-through
    rules (their slice forms); a package rule gets them dense."""
    if not builtin or not any(isinstance(g, IndexedSlices) for g in out_grads):
        return out_grads, fn
    passing = _PASS_SLICES.get(op_type)
    if passing is not None:
        return out_grads, passing
    return [dense(g) for g in out_grads], fn


def check_slices(op: Any, op_type: str, i: int, g: IndexedSlices) -> IndexedSlices:
    """A rule's IndexedSlices result for input ``i``: its dtype must be the input's."""
    t = op.inputs[i]
    if g.dtype is not t.dtype and t.dtype.is_differentiable:
        raise TypeError(
            f"The gradient function for '{op_type}' returned a {g.dtype.name} gradient for "
            f"input {i} ({t.dtype.name}) of op {op.describe()}."
        )
    return g


def convert_to_tensor_or_indexed_slices(value: Any, dtype: Any = None, name: Any = None) -> Any:
    """An IndexedSlices unchanged (its dtype checked), anything else converted."""
    if isinstance(value, IndexedSlices):
        if dtype is not None and dt.as_dtype(dtype) is not value.dtype:
            raise ValueError(
                "Incompatible tensor conversion requested to `dtype` "
                f"{dt.as_dtype(dtype).name} for `value` ({value}) with dtype"
                f" {value.dtype.name}."
            )
        return value
    return convert_to_tensor(value, dtype, name)
