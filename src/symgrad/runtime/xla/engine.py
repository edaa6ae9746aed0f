"""Lowering a graph to a JAX function: one walk over the ops in plan order.

A *program* is the ops a set of fetches needs (walked back to the feeds, in the order a
plan runs them: reads first, then the chain of stateful ops) with each op's lowering
looked up once.  Running it under ``jax.jit`` traces every op's lowering on the values of
its inputs.  Values are JAX arrays, or NumPy arrays while they are compile-time constants:
an op whose inputs are all constants runs its NumPy kernel instead (so ``Shape`` ->
``StridedSlice`` -> ``Reshape`` chains stay static, as XLA requires of shapes and axes).

A lowering is ``fn(ctx, op, *values) -> value or tuple of values``; ``ctx`` holds the
variables' current values (``ctx.state``, keyed by ``id(variable)``), which variable ops
read and write, and runs nested graphs (branches, loop bodies) with ``ctx.call``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Operation, Tensor
from symgrad.core.op_registry import OPS, KernelError, run_kernel
from symgrad.runtime.plan import topo_order
from symgrad.runtime.schedule import reads_first

Lowering = Callable[..., Any]
Key = tuple[int, int]
BACKEND = "jax"


class UnsupportedOpError(InvalidArgumentError):
    """TF's error for a graph XLA cannot compile: it names each op type without a
    lowering and where the user's code created it."""


class XlaLimitError(UnsupportedOpError):
    """A graph XLA cannot express, as TF's XLA bridge cannot either (a loop's gradient
    without ``maximum_iterations``, a shape known only at run time)."""


def lowering_of(op_type: str) -> Lowering | None:
    return OPS[op_type].lowerings.get(BACKEND)  # type: ignore[no-any-return]


@dataclass
class Program:
    """The steps of one graph: ``(op, lowering, input keys, output keys, fold)``."""

    name: str
    feeds: list[Key]
    fetches: list[Key]
    steps: list[tuple[Operation, Lowering, list[Key], list[Key], bool]]
    variables: dict[int, Any] = field(default_factory=dict)  # every variable, nested too
    written: dict[int, Any] = field(default_factory=dict)
    narrowed: dict[int, dict[str, Any]] = field(default_factory=dict)  # id(op): attrs


def _key(t: Tensor) -> Key:
    return id(t.op), t.value_index


def nested_functions(op: Operation) -> list[Any]:
    """The traced graphs an op runs (an If's branches, a loop's cond and body)."""
    from symgrad.runtime.concrete_function import ConcreteFunction

    found: list[Any] = []
    for value in op.attrs.values():
        items = value if isinstance(value, list | tuple) else [value]
        found += [f for f in items if isinstance(f, ConcreteFunction)]
    return found


_PROGRAMS: weakref.WeakKeyDictionary[Any, Program] = weakref.WeakKeyDictionary()


def program_of(cf: Any) -> Program:
    """The program of a traced function (cached on it): its outputs from its feeds."""
    prog = _PROGRAMS.get(cf)
    if prog is None:
        prog = _PROGRAMS[cf] = build(
            cf.outputs, cf.graph.stateful_ops[-1:], cf._feeds, cf.graph.name
        )
    return prog


def build(
    fetches: Sequence[Tensor], targets: Sequence[Operation], feeds: Sequence[Tensor], name: str
) -> Program:
    """The program computing ``fetches`` (running ``targets``) from ``feeds``; raises
    ``UnsupportedOpError`` naming every op without a JAX lowering (nested graphs too)."""
    fed = {_key(t) for t in feeds}
    roots = [t.op for t in fetches if _key(t) not in fed] + list(targets)
    order = reads_first(topo_order(roots, fed))
    prog = Program(name, [_key(t) for t in feeds], [_key(t) for t in fetches], [])
    missing: list[Operation] = []
    for op in order:
        fn = lowering_of(op.type)
        if fn is None:
            missing.append(op)
            continue
        rec = OPS[op.type]
        var = op.attrs.get("var")
        if var is not None:
            prog.variables[id(var)] = var
            if rec.variable != "read":
                prog.written[id(var)] = var
        for f in nested_functions(op):
            inner = program_of(f)
            prog.variables.update(inner.variables)
            prog.written.update(inner.written)
        fold = rec.pure and not rec.stateful and op.type != "Const"
        ins = [_key(t) for t in op.inputs]
        outs = [(id(op), i) for i in range(op.num_outputs)]
        prog.steps.append((op, fn, ins, outs, fold))
    if missing:
        raise unsupported(name, missing)
    _narrow(prog)
    return prog


def _narrow(prog: Program) -> None:
    """Attrs with which ops compute only the outputs the program reads (``narrow``: a
    loop whose gradient is not in the program keeps no per-iteration stacks)."""
    used = set(prog.fetches)
    for _, _, ins, _, _ in prog.steps:
        used.update(ins)
    for op, _, _, outs, _ in prog.steps:
        narrow = OPS[op.type].narrow
        if narrow is not None:
            attrs = narrow(op, tuple(k in used for k in outs))
            if attrs is not None:
                prog.narrowed[id(op)] = attrs


def unsupported(name: str, ops: Sequence[Operation]) -> UnsupportedOpError:
    from symgrad.runtime.xla.table import NO_LOWERING

    listed = ", ".join(
        f"{op.type} (no JAX lowering for '{op.type}'"
        + (f": {NO_LOWERING[op.type]}" if op.type in NO_LOWERING else "")
        + f") (created at {op.location})"
        for op in ops
    )
    return UnsupportedOpError(
        f"Detected unsupported operations when trying to compile graph {name} with XLA "
        f"(jit_compile=True): {listed}. Call the function with jit_compile=None to run "
        "it on the NumPy backend.",
        ops[0],
    )


class Ctx:
    """What lowerings share while one program traces: the variables' values."""

    def __init__(self, state: dict[int, Any]) -> None:
        self.state = state
        self.narrowed: dict[int, dict[str, Any]] = {}

    def attrs(self, op: Operation) -> dict[str, Any]:
        """The op's attrs, narrowed to what the running program reads of it."""
        return self.narrowed.get(id(op)) or op.attrs

    def call(self, cf: Any, args: Sequence[Any]) -> list[Any]:
        """The outputs of traced function ``cf`` on ``args`` (its feeds, in order)."""
        return run(program_of(cf), self, args)


def is_const(v: Any) -> bool:
    return isinstance(v, np.ndarray | np.generic)


def run(prog: Program, ctx: Ctx, args: Sequence[Any]) -> list[Any]:
    """Trace ``prog`` on ``args``: the fetches' values (JAX arrays or constants)."""
    env: dict[Key, Any] = dict(zip(prog.feeds, args, strict=True))
    ctx.narrowed.update(prog.narrowed)
    for op, fn, ins, outs, fold in prog.steps:
        values = [env[k] for k in ins]
        folded = fold and all(map(is_const, values))
        result = _fold(op, values) if folded else fn(ctx, op, *values)
        if len(outs) == 1:
            env[outs[0]] = _checked(op, 0, result)
        else:
            for i, k in enumerate(outs):
                env[k] = _checked(op, i, result[i])
    return [env[k] for k in prog.fetches]


def _fold(op: Operation, values: list[Any]) -> Any:
    """A constant op: its NumPy kernel, now (XLA folds it too)."""
    try:
        out = run_kernel(OPS[op.type].kernel, values, op.attrs, [t.dtype for t in op.outputs])
    except KernelError as e:
        cause = e.__cause__
        raise InvalidArgumentError(
            f"{op.type} op {op.describe()} failed: {type(cause).__name__}: {cause}", op
        ) from cause
    return out[0] if len(out) == 1 else tuple(out)


def _checked(op: Operation, i: int, value: Any) -> Any:
    """``value`` in the output's dtype (a lowering may leave NumPy's or JAX's promotion)."""
    want = op.outputs[i].dtype.np
    if value.dtype != want:
        value = value.astype(want)
    dims = op.outputs[i].shape.dims
    if dims is not None and None not in dims and tuple(value.shape) != tuple(dims):
        raise InvalidArgumentError(
            f"XLA lowering of {op.describe()} gave shape {tuple(value.shape)}, expected "
            f"{tuple(dims)}",
            op,
        )
    return value
