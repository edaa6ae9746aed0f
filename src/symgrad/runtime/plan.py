"""Execution plans: a graph pruned to what some fetches need, compiled to a flat step list.

A plan is built once per (fetches, fed tensors) and reused.  Compilation walks back from
the fetches (iteratively: graphs may be 100,000 ops deep), stops at fed tensors, orders
the ops topologically, gives every value a slot in a list, binds each kernel to its
attrs (and, where the op can, to its constant inputs and static shapes), and records
after which step each slot is last read so its buffer is dropped there, or written over
in place (:mod:`.inplace`).  Running it is one loop over ``(kernel, input slots,
output slots, slots to free)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import op_registry, recycle
from symgrad.core.errors import InvalidArgumentError, OpError
from symgrad.core.gc_pause import collector_paused
from symgrad.core.graph import Operation, Tensor, walk_ops
from symgrad.core.op_registry import ERRSTATE, ERRSTATE_IGNORE, OPS
from symgrad.ops.state.variables import atomic
from symgrad.runtime import rewrite
from symgrad.runtime.fuse import fuse
from symgrad.runtime.inplace import inplace_kernel
from symgrad.runtime.schedule import reads_first, unused_reads_dropped, updates_early

Key = tuple[int, int]


def tensor_key(t: Tensor) -> Key:
    return id(t.op), t.value_index


def topo_order(roots: Sequence[Operation], stop: set[Key] | None = None) -> list[Operation]:
    """Ops the roots depend on (inputs and control inputs), producers first, not walking
    past the tensors in ``stop`` (fed ones); no recursion."""
    stop = stop or set()

    def predecessors(op: Operation) -> list[Operation]:
        # Control inputs are walked after the inputs, which go first to last.  A control
        # input whose outputs are all fed (a loop variable's placeholder in a loop body)
        # has nothing left to run: the feed stands for it, as in TF.
        preds = [
            c
            for c in op.control_inputs
            if not c.num_outputs or any((id(c), i) not in stop for i in range(c.num_outputs))
        ]
        preds.extend(t.op for t in reversed(op.inputs) if (id(t.op), t.value_index) not in stop)
        return preds

    return walk_ops(list(reversed(roots)), predecessors)


Step = tuple[Callable[..., Any], tuple[int, ...], tuple[int, ...], tuple[int, ...], Operation]

GENERATE_LIMIT = 5000  # steps: larger plans run through the generic loop
_SOURCE = "<symgrad plan>"


class Plan:
    """A compiled, reusable evaluation of ``fetches`` given values for ``feeds``.

    Compiling prunes the graph to what the fetches need, simplifies it
    (:mod:`.rewrite`), binds each kernel to its attrs, and frees each buffer after its
    last reader.  Small plans are then generated as one straight-line Python function
    (``s3 = k1(s0, s2); del s0`` ...), so a run costs one call per kernel and nothing
    else; ``steps`` keeps the same program as data, for the loop and for inspection.
    """

    @collector_paused()  # what it allocates lives with the plan (see gc_pause)
    def __init__(
        self, fetches: Sequence[Tensor], targets: Sequence[Operation], feeds: Sequence[Tensor]
    ) -> None:
        fed = {tensor_key(t): i for i, t in enumerate(feeds)}
        roots = [t.op for t in fetches if tensor_key(t) not in fed] + list(targets)
        order = reads_first(topo_order(roots, set(fed)))
        slots: dict[Key, int] = dict(fed)
        self.ops = order  # keeps every op (and so every key's id) alive with the plan
        consts: dict[int, Any] = {}
        raw: list[rewrite.Step] = []
        for op in order:
            outs = tuple(slots.setdefault((id(op), i), len(slots)) for i in range(op.num_outputs))
            if op.type == "Const":
                consts[outs[0]] = op.get_attr("value")
            elif OPS[op.type].symbolic:
                raise _unfed(op)
            else:
                ins = tuple(slots[(id(t.op), t.value_index)] for t in op.inputs)
                raw.append(rewrite.Step(op, rewrite.bound_kernel(op.type, op.attrs), ins, outs))
        self.num_slots = len(slots)
        self.fetch_slots = [slots[tensor_key(t)] for t in fetches]
        self.feed_slots = list(range(len(feeds)))
        keep = set(self.fetch_slots) | set(self.feed_slots)
        raw, alias = rewrite.simplify(raw, consts, keep)
        # The attrs a rewrite gave an op's step, by op id (the memory estimate reads them).
        self.attrs = {id(step.op): step.attrs for step in raw if step.attrs is not None}
        for step in raw:
            specialize = OPS[step.op.type].specialize
            if specialize is not None:
                step.fn = specialize(step.op, [consts.get(s) for s in step.ins]) or step.fn
        self.fetch_slots = [alias.get(s, s) for s in self.fetch_slots]
        keep = set(self.fetch_slots) | set(self.feed_slots)
        raw, self.num_slots = fuse(raw, keep, self.num_slots)
        raw = updates_early(unused_reads_dropped(raw, keep), keep)
        self.consts = consts
        # Large arrays go back to a pool where they die, for steps that can take them.
        self.pool = recycle.Pool() if any(s.op.type in recycle.TAKERS for s in raw) else None
        if self.pool is not None:
            recycle.pooled_matmuls(raw)
        self.steps = _schedule(raw, keep | set(consts))
        self._generated = _generate(self) if len(self.steps) <= GENERATE_LIMIT else None

    def run(self, feed_values: Sequence[Any]) -> list[Any]:
        """The fetches' values; a run that raises leaves every variable as it found it."""
        if ERRSTATE is None:
            with np.errstate(all="ignore"):
                return atomic(self._run, feed_values)  # type: ignore[no-any-return]
        token = ERRSTATE.set(ERRSTATE_IGNORE)  # inf/nan are values, as in TF; never warnings
        try:
            return atomic(self._run, feed_values)  # type: ignore[no-any-return]
        finally:
            ERRSTATE.reset(token)

    def _run(self, feed_values: Sequence[Any]) -> list[Any]:
        if self.pool is None:
            return self._run_steps(feed_values)
        token = self.pool.enter()
        try:
            return self._run_steps(feed_values)
        finally:
            recycle.leave(token)

    def _run_steps(self, feed_values: Sequence[Any]) -> list[Any]:
        if self._generated is not None and op_registry.output_check is None:
            fn, lines = self._generated
            try:
                return fn(feed_values, self.consts)  # type: ignore[no-any-return]
            except OpError:
                raise
            except Exception as e:
                raise _failed(self.steps[_failed_line(e, lines)][4], e) from e
        vals: list[Any] = [None] * self.num_slots
        for slot, value in self.consts.items():
            vals[slot] = value
        for slot, v in zip(self.feed_slots, feed_values):
            vals[slot] = v
        self._execute(vals)
        return [vals[s] for s in self.fetch_slots]

    def _execute(self, vals: list[Any]) -> None:
        check = op_registry.output_check  # the declared hook: enable_check_numerics sets it
        steps = self.steps if check is None else [_checked(s, check) for s in self.steps]
        for fn, ins, outs, free, op in steps:
            try:
                r = fn(*[vals[i] for i in ins])
            except OpError:
                raise
            except Exception as e:
                raise _failed(op, e) from e
            if len(outs) == 1:
                vals[outs[0]] = r
            else:
                for s, v in zip(outs, r):
                    vals[s] = v
            for s in free:
                vals[s] = None


def _checked(step: Step, check: op_registry.OutputCheck) -> Step:
    """The step, its kernel followed by ``check`` of its outputs (for one run)."""
    fn, ins, outs, free, op = step
    single = len(outs) == 1

    def run(*args: Any) -> Any:
        r = fn(*args)
        check(op, [r] if single else list(r), args, "graph")
        return r

    return run, ins, outs, free, op


def _schedule(raw: list[rewrite.Step], keep: set[int]) -> list[Step]:
    """Attach to each step the slots whose last reader it is (or that nobody reads)."""
    last_use: dict[int, int] = {}
    for i, step in enumerate(raw):
        for s in step.ins:
            last_use[s] = i
        for s in step.outs:
            last_use.setdefault(s, i)
    frees: list[list[int]] = [[] for _ in raw]
    for s, i in last_use.items():
        if s not in keep:
            frees[i].append(s)
    return [
        (_maybe_inplace(step, free), step.ins, step.outs, tuple(sorted(free)), step.op)
        for step, free in zip(raw, frees)
    ]


def _maybe_inplace(step: rewrite.Step, free: list[int]) -> Callable[..., Any]:
    """The step's kernel; one that may write over an input that dies here, if any.

    Linear in the step's inputs (an AddN of 100,000 terms is one step)."""
    if not free:
        return step.fn
    dying, seen, repeated = set(free), set[int](), set[int]()
    for s in step.ins:
        (repeated if s in seen else seen).add(s)
    for position, s in enumerate(step.ins):
        if s in dying and s not in repeated:
            fn = inplace_kernel(step.op, step.fn, position)
            if fn is not None:
                return fn
    return step.fn


def _generate(plan: Plan) -> tuple[Callable[..., Any], list[int]]:
    """The plan as one Python function ``run(feeds, consts)``; and each line's step."""
    used = {s for _, ins, _, _, _ in plan.steps for s in ins} | set(plan.fetch_slots)
    lines = ["def run(feeds, C):"]
    line_step = [-1]
    if plan.feed_slots:
        lines.append("    " + "".join(f"s{s}, " for s in plan.feed_slots) + "= feeds")
    lines += [f"    s{s} = C[{s}]" for s in sorted(used & set(plan.consts))]
    line_step += [-1] * (len(lines) - 1)
    namespace: dict[str, Any] = {}
    kept = _kept_slots(plan, namespace)
    for i, (fn, ins, outs, free, _) in enumerate(plan.steps):
        namespace[f"k{i}"] = fn
        call = f"k{i}(" + ", ".join(f"s{s}" for s in ins) + ")"
        target = (
            f"s{outs[0]} = "
            if len(outs) == 1
            else "".join(f"s{s}, " for s in outs) + "= "
            if outs
            else ""
        )
        lines.append(f"    {target}{call}")
        line_step.append(i)
        if free:
            lines += [f"    G(s{s})" for s in free if s in kept]
            lines.append("    del " + ", ".join(f"s{s}" for s in free))
            line_step += [i] * (1 + sum(s in kept for s in free))
    lines.append("    return [" + ", ".join(f"s{s}" for s in plan.fetch_slots) + "]")
    exec(compile("\n".join(lines), _SOURCE, "exec"), namespace)
    return namespace["run"], line_step


def _kept_slots(plan: Plan, namespace: dict[str, Any]) -> set[int]:
    """The slots whose arrays are given back to the plan's pool where they die (large
    ones, when some step can take them), with ``G`` set to the pool's ``give``."""
    if plan.pool is None:
        return set()
    namespace["G"] = plan.pool.give
    return {
        s
        for _, _, outs, _, op in plan.steps
        for s, t in zip(outs, op.outputs)
        if recycle.may_be_large(t)
    }


def _failed_line(e: BaseException, line_step: list[int]) -> int:
    tb = e.__traceback__
    step = -1
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _SOURCE:
            step = line_step[tb.tb_lineno - 1]
        tb = tb.tb_next
    return step


def _failed(op: Operation, e: Exception) -> InvalidArgumentError:
    return InvalidArgumentError(f"{op.type} op {op.describe()} failed: {type(e).__name__}: {e}", op)


# TF's run-time errors name dtypes as its C++ DataTypeString does.
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _unfed(op: Operation) -> InvalidArgumentError:
    t = op.output(0)
    return InvalidArgumentError(
        f"You must feed a value for placeholder tensor '{op.name}' with dtype "
        f"{_TF_TYPE_NAMES.get(t.dtype.name, t.dtype.name)} and shape {_shape_text(t)} "
        f"(created at {op.location})",
        op,
    )


def _shape_text(t: Tensor) -> str:
    dims = t.shape.dims
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
