"""Graph rewrites on a plan's step list, before it is bound: the work a plan never does.

A plan starts as one step per op, in topological order, each reading and writing numbered
slots.  These passes shrink it without changing any value a caller can see:

- **constant folding**: a pure op whose inputs are all known constants runs once, at
  compile time (small results only, and never one holding NaN/Inf, so the numerics check
  still reports it where it is made);
- **forwarding**: ops that return their input unchanged (Identity, StopGradient, a Cast
  to the same dtype, a Reshape to the same static shape, a multiplication or division by
  a constant one that cannot broadcast) are replaced by their input; so the ones of a
  default ``grad_ys`` cost nothing;
- **common subexpressions**: two pure steps of the same type, attrs and inputs are one;
- **transposes into MatMul**: a MatMul that reads a 2-D ``Transpose`` reads its input
  instead, with ``transpose_a``/``transpose_b`` flipped (as TF's Grappler does), so the
  Transpose step goes when nothing else reads it;
- **dead steps**: pure steps whose outputs nothing reads are dropped (NoOp included);
- **unread outputs**: an op that can skip the outputs nobody reads is told so (a loop
  keeps no stacks for a gradient that is not in the plan).

Stateful ops (variable reads and writes) are never folded, merged or dropped.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgrad.core import op_registry
from symgrad.core.graph import Operation
from symgrad.core.op_registry import OPS

FOLD_LIMIT = 1 << 16  # elements: larger constant results are computed at run time


@dataclass
class Step:
    """One op's place in a plan: its kernel reads ``ins`` slots and writes ``outs``."""

    op: Operation
    fn: Callable[..., Any]
    ins: tuple[int, ...]
    outs: tuple[int, ...]
    attrs: dict[str, Any] | None = None  # where a rewrite changed the op's attrs

    @property
    def pure(self) -> bool:
        """Free of effects and deterministic: only symgrad's own stateless ops qualify."""
        t = self.op.type
        opdef = OPS[t]
        return (
            t in op_registry.BUILTIN_OPS and opdef.pure and not (opdef.stateful or opdef.symbolic)
        )


def bound_kernel(op_type: str, attrs: dict[str, Any]) -> Callable[..., Any]:
    """The kernel of ``op_type`` bound to ``attrs`` (once, when a plan is compiled)."""
    opdef = OPS[op_type]
    if opdef.bind is not None:
        return opdef.bind(**attrs)
    return functools.partial(opdef.kernel, **attrs) if attrs else opdef.kernel


def simplify(
    steps: list[Step], consts: dict[int, Any], keep: set[int]
) -> tuple[list[Step], dict[int, int]]:
    """Run every pass over ``steps``; ``keep`` are the slots the caller reads.

    ``consts`` gains the folded values.  Returns the new steps and the slots now computed
    by an earlier, equal step (``{dropped slot: slot}``), which the caller's fetches follow.
    """
    alias: dict[int, int] = {}
    steps = _fold_and_forward(steps, consts, keep, alias)
    _transposes_into_matmuls(steps, consts)  # after merging: it changes what a step reads
    steps = _drop_dead(steps, {alias.get(s, s) for s in keep})
    _narrow(steps, {alias.get(s, s) for s in keep})
    return steps, alias


def _fold_and_forward(
    steps: list[Step], consts: dict[int, Any], keep: set[int], alias: dict[int, int]
) -> list[Step]:
    seen: dict[tuple[Any, ...], tuple[int, ...]] = {}
    out: list[Step] = []
    for step in steps:
        step.ins = tuple(alias.get(s, s) for s in step.ins)
        if step.pure:
            if (all(s in consts for s in step.ins) or _shape_only(step)) and _fold(step, consts):
                continue
            src = _forwarded_input(step, consts)
            if src is not None and step.outs[0] not in keep:
                alias[step.outs[0]] = src
                continue
            key = _cse_key(step, consts)
            if key is not None:
                prev = seen.get(key)
                if prev is not None:
                    alias.update(zip(step.outs, prev))
                    continue
                seen[key] = step.outs
        out.append(step)
    return out


def _shape_only(step: Step) -> bool:
    """Ops whose value follows from their input's static shape alone, when it is known."""
    opdef = OPS[step.op.type]
    if not opdef.shape_only or not step.op.inputs[0].shape.is_fully_defined():
        return False
    n = step.op.inputs[0].shape.num_elements()
    return not opdef.fill or (n is not None and n <= FOLD_LIMIT)


def _fold(step: Step, consts: dict[int, Any]) -> bool:
    if _shape_only(step):
        x = step.op.inputs[0]
        args = [np.broadcast_to(np.zeros((), x.dtype.np), x.shape.as_list())]  # type: ignore[arg-type]
    else:
        args = [consts[s] for s in step.ins]
    try:
        with np.errstate(all="ignore"):
            result = step.fn(*args)
    except Exception:  # the error is raised, with the op's name, when the plan runs
        return False
    values = list(result) if isinstance(result, (tuple, list)) else [result]
    arrays = [np.asarray(v) for v in values]
    if any(
        a.size > FOLD_LIMIT or (a.dtype.kind in "fc" and not np.isfinite(a).all()) for a in arrays
    ):
        return False
    for s, a, d in zip(step.outs, arrays, step.op.output_dtypes):
        consts[s] = a.astype(d.np, copy=False)
    return True


def _forwarded_input(step: Step, consts: dict[int, Any]) -> int | None:
    """The input slot a step returns unchanged, if it provably does."""
    opdef = OPS[step.op.type]
    if opdef.pass_through:
        return step.ins[0]
    if opdef.forwards is not None:
        i = opdef.forwards(step.op, [consts.get(s) for s in step.ins])
        return None if i is None else step.ins[i]
    return None


def _transposes_into_matmuls(steps: list[Step], consts: dict[int, Any]) -> None:
    """``MatMul(Transpose(a), b)`` becomes ``MatMul(a, b, transpose_a=True)``; likewise b."""
    transposed: dict[int, int] = {}  # output slot of a 2-D transpose -> its input slot
    for step in steps:
        t = step.op.type
        if t == "Transpose" and step.op.inputs[0].shape.rank == 2:
            perm = consts.get(step.ins[1])
            if perm is not None and np.array_equal(perm, [1, 0]):
                transposed[step.outs[0]] = step.ins[0]
        elif t == "MatMul" and transposed.keys() & set(step.ins):
            attrs = step.op.attrs
            ins = list(step.ins)
            for i, flag in enumerate(("transpose_a", "transpose_b")):
                if ins[i] in transposed:
                    ins[i] = transposed[ins[i]]
                    attrs[flag] = not attrs.get(flag, False)
            step.ins, step.attrs = tuple(ins), attrs
            step.fn = bound_kernel(t, attrs)


def _cse_key(step: Step, consts: dict[int, Any]) -> tuple[Any, ...] | None:
    """Equal keys compute equal values: type, attrs, and inputs (small constants by value)."""
    ins = tuple(
        _hashable(consts[s]) if s in consts and np.size(consts[s]) <= 16 else s for s in step.ins
    )
    try:
        frozen = tuple(sorted((k, _hashable(v)) for k, v in step.op.attrs.items()))
        key = (step.op.type, frozen, ins)
        hash(key)
    except TypeError:
        return None
    return key


def _hashable(v: Any) -> Any:
    if isinstance(v, (np.ndarray, np.generic)):
        return ("ndarray", v.dtype.str, np.shape(v), np.asarray(v).tobytes())
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    return v


def _narrow(steps: list[Step], keep: set[int]) -> None:
    """Rebind the steps whose op computes less when some of its outputs are unread."""
    read = set(keep).union(*(step.ins for step in steps))
    for step in steps:
        narrow = OPS[step.op.type].narrow
        attrs = narrow(step.op, tuple(s in read for s in step.outs)) if narrow else None
        if attrs is not None:
            step.attrs, step.fn = attrs, bound_kernel(step.op.type, attrs)


def _drop_dead(steps: list[Step], keep: set[int]) -> list[Step]:
    live = set(keep)
    kept: list[Step] = []
    for step in reversed(steps):
        if step.pure and not live.intersection(step.outs):
            continue
        live.update(step.ins)
        kept.append(step)
    kept.reverse()
    return kept
