"""Batching rules: how an op computes, in one go, what it would for K slices of an input.

``autodiff.vectorize`` (a small ``pfor`` / ``vmap``) rebuilds each op that depends on the
batched seed with the rule in its record (``OPDEF.batch``).  A rule gets a ``Call``: the
op's new inputs, batched ones with an extra leading axis of size K, and returns batched
outputs built with ordinary ops, so the result can be differentiated again.  A rule that
cannot handle a call raises ``NotVectorizable``; callers then fall back to a loop.

``elementwise`` and ``same_shape`` are the rules of the common shapes of op; the
declaration helpers of ``ops.core`` fill them in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.graph import Operation, Tensor
from symgrad.core.op_registry import apply_op, constant_value


class NotVectorizable(Exception):
    """An op between the seed and the outputs could not be batched."""

    def __init__(self, op: Operation, reason: str) -> None:
        super().__init__(f"{reason} for op {op.describe()}")
        self.op = op
        self.op_type = op.type


def known_dims(op: Operation, t: Tensor, what: str) -> list[int]:
    dims = t.shape.dims
    if dims is None or any(d is None for d in dims):
        raise NotVectorizable(op, f"{what} has a partly unknown shape {t.shape}")
    return [int(d) for d in dims if d is not None]


def const(values: Any, like: Tensor | dt.DType) -> Tensor:
    """A constant of ``values`` with the dtype of ``like`` (an int32 or int64 index)."""
    d = like if isinstance(like, dt.DType) else like.dtype
    arr = np.asarray(values, d.np)
    arr.flags.writeable = False
    return apply_op("Const", [], {"value": arr, "dtype": d}).output(0)


@dataclass
class Call:
    """One dependent op to batch: its (new) inputs, which are batched, and K."""

    op: Operation
    xs: list[Tensor]
    batched: list[bool]
    k: int

    def rank(self, i: int) -> int:
        """The per-example rank of input i (that of the original op's input)."""
        r = self.op.inputs[i].shape.rank
        if r is None:
            raise NotVectorizable(self.op, f"input {i} has an unknown rank")
        return r

    def dims(self, i: int) -> list[int]:
        """The per-example shape of input i; it must be fully known."""
        return known_dims(self.op, self.op.inputs[i], f"input {i}")

    def out_dims(self, j: int = 0) -> list[int]:
        return known_dims(self.op, self.op.outputs[j], f"output {j}")

    def ints(self, i: int) -> list[int]:
        """The constant integer values of an attribute-like input (axis, perm, shape)."""
        v = None if self.batched[i] else constant_value(self.xs[i])
        if v is None:
            raise NotVectorizable(self.op, f"input {i} is not a constant")
        return [int(n) for n in np.ravel(v)]

    def axis(self, axis: int, rank: int) -> int:
        """``axis`` of a rank-``rank`` example, as an axis of the batched tensor."""
        if not -rank <= axis < max(rank, 1):
            raise NotVectorizable(self.op, f"axis {axis} is out of range")
        return (axis % rank if rank else 0) + 1

    def aligned(self, i: int, rank: int) -> Tensor:
        """Input i, with size-1 axes after the batch axis when batched, up to ``rank``."""
        x = self.xs[i]
        if not self.batched[i] or self.rank(i) >= rank:
            return x
        shape = [self.k] + [1] * (rank - self.rank(i)) + self.dims(i)
        return apply_op("Reshape", [x, const(shape, dt.int32)]).output(0)

    def full(self, i: int) -> Tensor:
        """Input i batched: as is when batched, else broadcast along a new axis of size K."""
        if self.batched[i]:
            return self.xs[i]
        shape = const([self.k] + self.dims(i), dt.int32)
        return apply_op("BroadcastTo", [self.xs[i], shape]).output(0)

    def only_batched(self, *positions: int) -> None:
        """Decline unless exactly the inputs at ``positions`` (the data) are batched."""
        if any(b != (i in positions) for i, b in enumerate(self.batched)):
            raise NotVectorizable(self.op, "no rule for this combination of batched inputs")

    def apply(self, inputs: Sequence[Tensor], **attrs: Any) -> list[Tensor]:
        """The same op type on new inputs, with the op's attrs updated by ``attrs``."""
        return apply_op(self.op.type, inputs, {**self.op.attrs, **attrs}).outputs


def elementwise(c: Call) -> list[Tensor]:
    """Broadcasting ops: batched operands get size-1 axes so they align with the rest.

    Also right for ops on the last axis (Softmax), which the batch axis leaves alone.
    """
    rank = max(c.rank(i) for i in range(len(c.xs)))
    return c.apply([c.aligned(i, rank) for i in range(len(c.xs))])


def same_shape(c: Call) -> list[Tensor]:
    """Ops whose inputs must have equal shapes: unbatched inputs are broadcast over K."""
    return c.apply([c.full(i) for i in range(len(c.xs))])
