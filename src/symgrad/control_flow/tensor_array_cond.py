"""TensorArrays carried out of ``cond`` / ``case`` / ``switch_case`` branches.

A graph ``TensorArray`` is a value over one dense buffer (``ops.tensor_array``), so a
branch returning an array returns its buffer: the functional ``If`` / ``Case`` op, its
gradient and its batching rule see only tensors, and the array is rebuilt around the
op's output (as ``ops.tensor_array_loop`` does around a ``While``'s).  Branches may write
different indices, and a ``dynamic_size`` array may grow in one branch only: the op's
output shape is the join of the branches' buffer shapes.

A branch that returns an array it did not write needs a buffer too: zeros of the array's
size and element shape.  When that shape is only learnt from another branch's writes
(TF's ``infer_shape``: arrays made from one share their element shape), or for another
array from the shape of the other branches' buffers, the branch is traced again once the
others have been.  An array that no branch writes stays as it is.
An eager array never reaches here: an eager ``cond`` runs the taken branch in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from symgrad.control_flow.tensor_array import TensorArray, _GraphTensorArray
from symgrad.core import dtypes as dt
from symgrad.core import nest
from symgrad.core.graph import Tensor
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import shape
from symgrad.ops.core import constant

Fn = Callable[[], Any]


class BranchArrays:
    """The TensorArrays each branch of one functional op returns.

    ``wrap(i)`` is branch ``i`` with its arrays replaced by their buffers; after the
    branches are traced, ``finish`` traces again those that need it, ``mismatch`` gives TF's
    error when two branches disagree, and ``rebuild`` puts arrays around the op's outputs.
    """

    def __init__(self, fns: Sequence[Fn]) -> None:
        self.fns = list(fns)
        self.raw: list[Any] = [None] * len(fns)  # each branch's own return value
        self.missing: list[set[int]] = [set() for _ in fns]  # leaves with no buffer yet
        self.shapes: dict[int, TensorShape] = {}  # leaf -> element shape other branches give

    def wrap(self, i: int) -> Fn:
        def branch() -> Any:
            out = self.raw[i] = self.fns[i]()
            self.missing[i] = set()
            leaves = nest.flatten(out)
            if not any(isinstance(v, TensorArray) for v in leaves):
                return out
            parts = [self._buffer(i, k, v) for k, v in enumerate(leaves)]
            return nest.pack_sequence_as(out, parts)

        return branch

    def _buffer(self, i: int, k: int, v: Any) -> Any:
        """The tensor that carries ``v``, leaf ``k`` of branch ``i`` (None: none yet)."""
        if not isinstance(v, TensorArray):
            return v
        if not isinstance(v, _GraphTensorArray):
            raise NotImplementedError(  # TF's text
                "Attempting to build a graph-mode TF2-style TensorArray from either an "
                "eager-mode TensorArray or a TF1-style TensorArray.  This is not currently "
                "supported.  You may be attempting to capture a TensorArray inside a "
                "tf.function or tf.data map function. Instead, construct a new TensorArray "
                "inside the function."
            )
        if v._buffer is not None:
            buf = v._buffer
        elif v.element_shape.is_fully_defined():
            buf = v._reserve()
        elif k in self.shapes:
            buf = v._reserve(constant(self.shapes[k].as_list(), dt.int32))
        else:
            self.missing[i].add(k)
            return None
        self._learn(k, buf.shape)
        return buf

    def _learn(self, k: int, s: TensorShape) -> None:
        """Note the element shape a buffer gives leaf ``k`` (the join over branches)."""
        element = TensorShape(None if s.dims is None else s.dims[1:])
        known = self.shapes.get(k, element)
        if element.rank is not None and known.rank == element.rank:
            element = TensorShape([a if a == b else None for a, b in zip(known, element)])
            if element.is_fully_defined():
                self.shapes[k] = element
                return
        self.shapes.pop(k, None)

    def leaves(self, i: int) -> list[Any]:
        return nest.flatten(self.raw[i])

    def finish(self, retrace: Callable[[int], Any], traced: list[Any]) -> list[Any]:
        """``traced``, with each branch that returned an unwritten array of unknown
        element shape traced again, now that the other branches' writes have taught the
        arrays their shapes (or, for another array, the others' buffers show the shape
        that branch's zeros take).  An array that no branch writes (the same unwritten
        array from every branch) needs no buffer: it stays out of the op."""
        for i, missing in enumerate(self.missing):
            if missing:
                traced[i] = retrace(i)
        first = self.missing[0]
        if any(m != first for m in self.missing) or not all(map(self._untouched, first)):
            raise ValueError(
                "A cond branch returns a TensorArray that it did not write, whose element "
                "shape no branch's writes tell: a cond needs it to carry the array (pass "
                "element_shape= to TensorArray, or write it before the cond)."
            )
        return traced

    def _untouched(self, k: int) -> bool:
        """Whether every branch returns the same unwritten array at leaf ``k``."""
        vs = [self.leaves(i)[k] if k < len(self.leaves(i)) else None for i in range(len(self.fns))]
        return all(v is vs[0] for v in vs)

    def shown(self, i: int, packed: Any) -> Any:
        """Branch ``i``'s outputs for an error message: its arrays themselves."""
        parts = [
            r if isinstance(r, TensorArray) else p
            for r, p in zip(self.leaves(i), nest.flatten(packed), strict=False)
        ]
        return nest.pack_sequence_as(packed, parts)

    def mismatch(self, i: int, j: int) -> str | None:
        """The detail of TF's error when branches ``i`` and ``j`` return an array and
        something else at one place; arrays that differ in dtype or kind raise TF's
        TypeError here."""
        for a, b in zip(self.leaves(i), self.leaves(j), strict=False):
            if isinstance(a, TensorArray) != isinstance(b, TensorArray):
                return f"{_shown(a)} and {_shown(b)} have different types"
            if isinstance(a, TensorArray) and _kind(a) != _kind(b):
                raise TypeError(f"No common supertype of {_spec(a)} and {_spec(b)}.")
        return None

    def rebuild(self, outs: Any) -> Any:
        """The op's outputs (packed as the branches' returns, buffers for arrays) with
        each array rebuilt around its buffer."""
        if not any(isinstance(v, TensorArray) for v in self.leaves(0)):
            return outs
        flat = nest.flatten(outs)
        parts = [
            _rebuild(v, [self.leaves(i)[k] for i in range(len(self.fns))])
            for k, v in enumerate(flat)
        ]
        return nest.pack_sequence_as(outs, parts)


def _rebuild(out: Any, returned: list[Any]) -> Any:
    """The array the op's output ``out`` carries; ``returned`` are the arrays each branch
    returned there (their size and element shape, when they differ, are the output's)."""
    first = returned[0]
    if not isinstance(first, TensorArray):
        return out
    if out is None:  # the same unwritten array from every branch
        return first
    assert isinstance(out, Tensor) and isinstance(first, _GraphTensorArray)
    ta = first._new(out)
    if any(v._cell is not first._cell for v in returned):
        dims = out.shape.dims
        ta._cell = [TensorShape(None if dims is None else dims[1:])]
    if any(v._size is not first._size for v in returned):
        ta._size = shape.shape(out)[0]
    return ta


def _kind(ta: Any) -> tuple[Any, ...]:
    """What two branches' arrays must share, as TF checks: dtype and ``dynamic_size`` as
    given (their element shapes are joined; ``infer_shape`` may differ)."""
    return ta.dtype, getattr(ta, "_dynamic_arg", ta.dynamic_size)


def _spec(ta: Any) -> str:
    """An array's type as TF names it: ``TensorArraySpec(element_shape, dtype,
    dynamic_size, infer_shape)``."""
    dtype, dynamic = _kind(ta)
    return f"TensorArraySpec({ta.element_shape!r}, {dtype!r}, {dynamic}, {ta._infer_shape})"


def _shown(v: Any) -> str:
    if isinstance(v, TensorArray):
        return f"TensorArray(dtype={v.dtype.name}, element_shape={v.element_shape})"
    return str(v)
