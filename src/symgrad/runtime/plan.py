"""Execution plans: a graph pruned to what some fetches need, compiled to a flat step list.

A plan is built once per (fetches, fed tensors) and reused.  Compilation walks back from
the fetches (iteratively: graphs may be 100,000 ops deep), stops at fed tensors, orders
the ops topologically, gives every value a slot in a list, binds each kernel to its
attrs, and records after which step each slot is last read so its buffer is dropped
there.  Running it is one loop over ``(kernel, input slots, output slots, slots to free)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError, OpError
from ..graph import Operation, Tensor
from ..op_registry import OPS

Key = tuple[int, int]


def tensor_key(t: Tensor) -> Key:
    return id(t.op), t.value_index


def topo_order(roots: Sequence[Operation], stop: set[Key] | None = None) -> list[Operation]:
    """Ops the roots depend on (inputs and control inputs), producers first; no recursion."""
    stop = stop or set()
    order: list[Operation] = []
    seen: set[int] = set()
    stack: list[tuple[Operation, bool]] = [(op, False) for op in reversed(roots)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.append((op, True))
        for c in op.control_inputs:
            if id(c) not in seen:
                stack.append((c, False))
        for t in reversed(op.inputs):
            if (id(t.op), t.value_index) not in stop and id(t.op) not in seen:
                stack.append((t.op, False))
    return order


Step = tuple[Callable[..., Any], tuple[int, ...], tuple[int, ...], tuple[int, ...], Operation]

# Set by symgrad.tools.numerics.enable_check_numerics: rewraps each step once per run.
check_step: Callable[[Step], Step] | None = None


class Plan:
    """A compiled, reusable evaluation of ``fetches`` given values for ``feeds``."""

    def __init__(self, fetches: Sequence[Tensor], targets: Sequence[Operation],
                 feeds: Sequence[Tensor]) -> None:
        fed = {tensor_key(t): i for i, t in enumerate(feeds)}
        roots = [t.op for t in fetches if tensor_key(t) not in fed] + list(targets)
        order = topo_order(roots, set(fed))
        slots: dict[Key, int] = {k: i for k, i in fed.items()}
        self.ops = order  # keeps every op (and so every key's id) alive with the plan
        consts: list[tuple[int, Any]] = []
        raw: list[tuple[Operation, tuple[int, ...], tuple[int, ...]]] = []
        for op in order:
            outs = []
            for i in range(op.num_outputs):
                slots[(id(op), i)] = len(slots)
                outs.append(slots[(id(op), i)])
            if op.type == "Const":
                consts.append((outs[0], op._attrs["value"]))
                continue
            if OPS[op.type].symbolic:
                t = op._output(0)
                raise InvalidArgumentError(
                    f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                    f"{t.dtype.name} and shape {_shape_text(t)} (created at {op.location})", op)
            ins = tuple(slots[(id(t.op), t.value_index)] for t in op.inputs)
            raw.append((op, ins, tuple(outs)))
        self.num_slots = len(slots)
        self.fetch_slots = [slots[tensor_key(t)] for t in fetches]
        self.feed_slots = list(range(len(feeds)))
        self._template: list[Any] = [None] * self.num_slots
        for slot, value in consts:
            self._template[slot] = value
        self.steps = self._bind(raw, set(self.fetch_slots) | set(self.feed_slots)
                                | {s for s, _ in consts})

    @staticmethod
    def _bind(raw: list[tuple[Operation, tuple[int, ...], tuple[int, ...]]],
              keep: set[int]) -> list[Step]:
        last_use: dict[int, int] = {}
        for i, (_, ins, outs) in enumerate(raw):
            for s in ins:
                last_use[s] = i
            for s in outs:
                last_use.setdefault(s, i)
        frees: list[list[int]] = [[] for _ in raw]
        for s, i in last_use.items():
            if s not in keep:
                frees[i].append(s)
        steps: list[Step] = []
        for (op, ins, outs), free in zip(raw, frees):
            kernel = OPS[op.type].kernel
            fn = functools.partial(kernel, **op._attrs) if op._attrs else kernel
            steps.append((fn, ins, outs, tuple(free), op))
        return steps

    def run(self, feed_values: Sequence[Any]) -> list[Any]:
        vals = list(self._template)
        for slot, v in zip(self.feed_slots, feed_values):
            vals[slot] = v
        with np.errstate(all="ignore"):  # inf/nan are values, as in TF; never warnings
            self._execute(vals)
        return [vals[s] for s in self.fetch_slots]

    def _execute(self, vals: list[Any]) -> None:
        steps = self.steps if check_step is None else [check_step(s) for s in self.steps]
        for fn, ins, outs, free, op in steps:
            try:
                r = fn(*[vals[i] for i in ins])
            except OpError:
                raise
            except Exception as e:
                raise InvalidArgumentError(
                    f"{op.type} op {op.describe()} failed: {type(e).__name__}: {e}", op) from e
            if len(outs) == 1:
                vals[outs[0]] = r
            else:
                for s, v in zip(outs, r):
                    vals[s] = v
            for s in free:
                vals[s] = None


def _shape_text(t: Tensor) -> str:
    dims = t.shape.dims
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
