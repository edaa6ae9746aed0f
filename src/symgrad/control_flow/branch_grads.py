"""How the gradient graphs of a functional If/Case op's branches agree with each other.

The gradient of a branch op is the same kind of op over the branches' gradient graphs
(``cond``), so those graphs must agree as any branches do: the incoming gradient reaches
each with a shape every branch's outputs allow, and a gradient w.r.t. one input is an
IndexedSlices in all of them where it is one in any (TF's cond_v2 makes them match).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from symgrad.core.graph import Tensor
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.feeds import placeholder_with_default
from symgrad.ops.sparse.indexed_slices import IndexedSlices
from symgrad.runtime.concrete_function import ConcreteFunction

Fn = Callable[[], Any]


def join(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both branches' outputs have."""
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return TensorShape(None)
    return TensorShape(
        [x if x == y else None for x, y in zip(a.as_list(), b.as_list(), strict=True)]
    )


def seed(g: Tensor, branch: TensorShape, joined: TensorShape) -> Tensor:
    """The incoming gradient as a branch's gradient graph sees it.  Branches may return
    different shapes ((1,) and (2,) make an output of shape (None,)); the gradient has the
    taken branch's, so a branch it cannot fit gets it with the branches' joined shape, as
    TF's gradient functions take the op's output shapes (that branch never runs with it)."""
    if g.shape.is_compatible_with(branch):
        return g
    return placeholder_with_default(g, joined)


def joined(branches: Sequence[ConcreteFunction]) -> list[TensorShape]:
    """Each output's shape as every branch allows it (an op replayed eagerly has the
    taken branch's shape as its own)."""
    shapes = [o.shape for o in branches[0].outputs]
    for f in branches[1:]:
        shapes = [join(a, o.shape) for a, o in zip(shapes, f.outputs, strict=True)]
    return shapes


class MatchSlices:
    """The branches' gradients, IndexedSlices where any branch's is (TF's cond_v2 makes
    the branches' composite outputs match): a gather of a variable in one branch gives
    the variable an IndexedSlices gradient through the op, as it would without it."""

    def __init__(self, fns: Sequence[Callable[[], list[Any]]]) -> None:
        self.fns = fns
        self.sparse: set[int] = set()
        self.seen: list[set[int]] = [set() for _ in fns]

    def wrap(self, i: int) -> Fn:
        def branch() -> list[Any]:
            grads = self.fns[i]()
            self.seen[i] = {k for k, g in enumerate(grads) if isinstance(g, IndexedSlices)}
            return [
                _as_slices(g) if k in self.sparse and not isinstance(g, IndexedSlices) else g
                for k, g in enumerate(grads)
            ]

        return branch

    def settle(self, retrace: Callable[[int], Any], traced: list[Any]) -> list[Any]:
        """Trace again each branch with a dense gradient where another's is sliced."""
        self.sparse = set().union(*self.seen)
        return [
            retrace(i) if seen != self.sparse else f
            for i, (f, seen) in enumerate(zip(traced, self.seen, strict=True))
        ]


def _as_slices(g: Tensor) -> IndexedSlices:
    """A dense gradient as IndexedSlices of all its rows."""
    dense_shape = array.shape(g)
    return IndexedSlices(g, array.range(dense_shape[0]), dense_shape)
