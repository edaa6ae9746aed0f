"""Counted loops: the trip count of a ``While`` when it is known while compiling.

A loop ``i = start; while i < bound: ...; i = i + step`` with ``start``, ``bound`` and
``step`` constants runs a number of iterations XLA can know: it lowers to
``lax.fori_loop`` (a loop without a condition to evaluate), and the stacks its gradient
reads are ``[trip count, ...]`` buffers, so it needs no ``maximum_iterations``.  That is
the loop autograph makes of ``for i in tf.range(n)`` (its condition ``(delta > 0 and i <
limit) or (delta < 0 and i > limit)`` folds to ``i < limit``), and any ``while_loop``
of that form.  The condition is read symbolically: constants fold, a comparison of the
loop variable with a constant is a predicate, ``logical_and``/``or`` with a constant side
reduce to the other side; anything else (another loop variable, a stateful op) means
"not counted", and the loop stays a ``lax.while_loop``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from symgrad.core.op_registry import OPS
from symgrad.runtime.xla.engine import _fold, is_const

_CMP = {
    "Less": operator.lt,
    "LessEqual": operator.le,
    "Greater": operator.gt,
    "GreaterEqual": operator.ge,
}
_FLIP = {
    "Less": "Greater",
    "LessEqual": "GreaterEqual",
    "Greater": "Less",
    "GreaterEqual": "LessEqual",
}
_PASS = ("Identity", "StopGradient")


class _Var:
    """The value of cond/body input ``k`` (0: the loop's own counter)."""

    def __init__(self, k: int) -> None:
        self.k = k


class _Pred:
    """``input k <cmp> bound``."""

    def __init__(self, k: int, cmp: str, bound: Any) -> None:
        self.k, self.cmp, self.bound = k, cmp, bound


def _known(cf: Any, captured: list[Any]) -> dict[int, Any]:
    """What is known of ``cf``'s feeds by id of their op: inputs, constant captures."""
    known: dict[int, Any] = {id(ph.op): _Var(k) for k, ph in enumerate(cf.inputs)}
    for ph, value in zip(cf._feeds[len(cf.inputs) :], captured, strict=True):
        if is_const(value):
            known[id(ph.op)] = np.asarray(value)
    return known


def _value(t: Any, known: dict[int, Any], memo: dict[tuple[int, int], Any]) -> Any:
    """A constant, a ``_Var``, a ``_Pred``, or None (depends on something else)."""
    op = t.op
    if id(op) in known:
        return known[id(op)]
    k = (id(op), t.value_index)
    if k not in memo:
        memo[k] = _op_value(t, known, memo)
    return memo[k]


def _op_value(t: Any, known: dict[int, Any], memo: dict[tuple[int, int], Any]) -> Any:
    op = t.op
    if OPS[op.type].stateful or op.type == "Placeholder":
        return None
    ins = [_value(x, known, memo) for x in op.inputs]
    if all(is_const(v) for v in ins):
        out = _fold(op, ins)
        return out[t.value_index] if isinstance(out, tuple) else out
    if op.type in _PASS:
        return ins[0]
    if op.type in _CMP:
        a, b = ins
        if isinstance(a, _Var) and is_const(b):
            return _Pred(a.k, op.type, b)
        if is_const(a) and isinstance(b, _Var):
            return _Pred(b.k, _FLIP[op.type], a)
    if op.type in ("LogicalAnd", "LogicalOr") and any(map(is_const, ins)):
        const, other = (ins[0], ins[1]) if is_const(ins[0]) else (ins[1], ins[0])
        keep = bool(const) if op.type == "LogicalAnd" else not bool(const)
        return other if keep else const
    return None


def _step(body: Any, k: int, captured: list[Any]) -> int | None:
    """The constant that the body adds to loop variable ``k - 1`` (None: not so)."""
    if k == 0:
        return 1  # the counter
    out = body.outputs[k - 1]
    known = _known(body, captured)
    while out.op.type in _PASS:
        out = out.op.inputs[0]
    if out.op.type not in ("AddV2", "Add", "Sub") or id(out.op) in known:
        return None
    a, b = (_value(x, known, {}) for x in out.op.inputs)
    if isinstance(a, _Var) and a.k == k and is_const(b):
        d = b if out.op.type != "Sub" else -b
    elif isinstance(b, _Var) and b.k == k and is_const(a) and out.op.type != "Sub":
        d = a
    else:
        return None
    d = np.asarray(d)
    return int(d) if d.ndim == 0 and d.dtype.kind in "iu" and int(d) != 0 else None


def _iterations(start: int, step: int, cmp: str, bound: int) -> int | None:
    """How many times ``i <cmp> bound`` holds for i = start, start + step, ...; None when
    it never stops holding."""
    if not _CMP[cmp](start, bound):
        return 0
    up = cmp in ("Less", "LessEqual")
    if (step > 0) != up:
        return None
    gap, size = (bound - start, step) if up else (start - bound, -step)
    return -(-gap // size) if cmp in ("Less", "Greater") else gap // size + 1


def trip_count(op: Any, arrays: tuple[Any, ...]) -> int | None:
    """The iterations the ``While`` ``op`` runs on ``arrays`` (its inputs), if static."""
    a = op.attrs
    n_vars, n_cond = a["n_vars"], a["n_cond"]
    cond, body = a["cond"], a["body"]
    if any(OPS[o.type].stateful for o in cond.graph.get_operations()):
        return None
    caps = list(arrays[2 + n_vars : 2 + n_vars + n_cond])
    pred = _value(cond.outputs[0], _known(cond, caps), {})
    if not isinstance(pred, _Pred) or not is_const(arrays[0]):
        return None
    start = arrays[0] if pred.k == 0 else arrays[1 + pred.k]
    step = _step(body, pred.k, list(arrays[2 + n_vars + n_cond :]))
    bound = np.asarray(pred.bound)
    if (
        step is None
        or not is_const(start)
        or np.ndim(start)
        or bound.ndim
        or bound.dtype.kind not in "iu"
    ):
        return None
    n = _iterations(int(start), step, pred.cmp, int(bound))
    maximum = arrays[1]
    if is_const(maximum) and int(maximum) >= 0:  # the counter stops at maximum too
        left = max(0, int(maximum) - int(arrays[0]))
        n = left if n is None else min(n, left)
    return n
