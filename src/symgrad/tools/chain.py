"""The Jacobian behind a gradient, and the chain rule behind one Jacobian entry.

``tf.gradients(y, x)`` is not dy/dx: it is the gradient of ``sum(v * y)``, where the
cotangent ``v`` is ``grad_ys`` (ones when not given), i.e. the vector-Jacobian product
``vᵀJ``.  ``explain_gradient(ys, xs)`` (in :mod:`.jacobian_view`) shows all three for
small tensors.  ``trace_element(y, x, i, j)``, here, takes one entry
``J[y[i], x[j]]`` apart: every path of ops from x to y, each op's local partial
derivatives (from its registered gradient rule, fed one-hot cotangents), and each path's
share of the total.

>>> import symgrad as tf
>>> x = tf.constant([1.0, 2.0])
>>> t = trace_element(x * x, x, 1, 1)
>>> t.contributions, t.total
([2.0, 2.0], 4.0)

Both work on eager tensors and in graphs: symbolic values are computed with a
``Session`` on the ys' graph, with ``feed_dict=`` (or the ``session=`` given).  In a graph
the reverse passes and rule calls are added to it (under ``explain_gradient/`` and
``trace_element/``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symgrad.autodiff.backprop import apply_rule
from symgrad.autodiff.gradients import gradients, in_graph
from symgrad.core.graph import Graph, Operation, Tensor, get_default_session
from symgrad.ops.core import constant, convert_to_tensor
from symgrad.ops.sparse.indexed_slices import dense
from symgrad.ops.state.variables import Variable
from symgrad.tools import flow

MAX_ENTRIES = 4096  # Jacobian entries explain_gradient shows; rule calls trace_element makes
MAX_PATHS = 64  # paths trace_element lists
WIDTH = 100  # columns of text before a table wraps
MAX_ROWS = 40  # table rows shown
MAX_COLS = 48  # table columns shown

Key = tuple[int, int]
Hop = tuple[Operation, int, int]  # (op, input index the path enters by, output index)


# --------------------------------------------------------------------------------------
# Values: eager when known, else one Session.run


class Runner:
    """Values of tensors and Variables: eager values where known, else ``Session.run``."""

    def __init__(self, graph: Graph, feed_dict: Any, session: Any) -> None:
        self.graph, self.feed_dict, self.session = graph, feed_dict, session

    def __call__(self, items: Sequence[Any]) -> list[np.ndarray]:
        symbolic = [t for t in items if not isinstance(t, Variable) and not t.has_value()]
        fetched = iter(self._session().run(symbolic, feed_dict=self.feed_dict) if symbolic else [])
        return [
            np.asarray(t.numpy() if isinstance(t, Variable) or t.has_value() else next(fetched))
            for t in items
        ]

    def _session(self) -> Any:
        if self.session is None:
            from symgrad.runtime.session import Session

            default = get_default_session()
            ok = default is not None and default.graph is self.graph
            self.session = default if ok else Session(graph=self.graph)
        return self.session


def as_source(x: Any) -> Any:
    return x if isinstance(x, Variable) else convert_to_tensor(x)


def check_real(items: Sequence[Any], what: str, fn: str) -> None:
    for t in items:
        if not t.dtype.is_floating:
            raise TypeError(
                f"{fn} needs real floating {what}, got {t.name} of dtype {t.dtype.name}."
            )


def one_hot_seed(index: int, shape: tuple[int, ...], like: Any) -> Tensor:
    arr = np.zeros(int(np.prod(shape)), like.dtype.np)
    arr[index] = 1
    return constant(arr.reshape(shape))


# --------------------------------------------------------------------------------------
# Small formatting helpers (shared with trace_element)


def index_text(flat: int, shape: tuple[int, ...]) -> str:
    if not shape:
        return ""
    return "[" + ",".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def num(v: Any) -> str:
    v = float(v)
    return "0" if v == 0 else f"{v:.4g}"


def cell(v: Any) -> str:
    return "." if float(v) == 0 else num(v)


def paren(v: Any) -> str:
    return f"({num(v)})" if float(v) < 0 else num(v)


def array_text(v: np.ndarray) -> str:
    return np.array2string(np.asarray(v), precision=8, suppress_small=False)


def indent(text: str, by: str = "  ") -> str:
    return "\n".join(by + line for line in text.splitlines())


def _where(op: Operation) -> str:
    return f"{os.path.basename(op.traceback[0])}:{op.traceback[1]}"


# --------------------------------------------------------------------------------------
# trace_element

_MAX_CHAINS = 8  # element chains a path lists one by one
_MAX_FACTORS = 6  # local partials shown per step


@dataclass
class PathTrace:
    """One path of ops from x to y, with its local partial derivatives and contribution.

    ``ops``: op names, x's op first.  ``factors[h]``: ``(d out[a] / d in[b], value)`` for
    step h, the local partials on some chain of elements from x[j] to y[i].  ``chains``:
    ``(element labels, product)`` per chain when at most 8, else empty.
    """

    ops: tuple[str, ...]
    steps: list[str]
    factors: list[list[tuple[str, float]]]
    chains: list[tuple[list[str], float]]
    n_chains: int
    contribution: float
    notes: list[str] = field(default_factory=list)

    def render(self, number: int) -> list[str]:
        lines = [f"path {number}: x"]
        for part in [*self.steps, "y"]:  # break lines only between steps
            if len(lines[-1]) + len(part) + 4 > WIDTH:
                lines.append("   ")
            lines[-1] += f" -> {part}"
        lines += ["  " + n for n in self.notes]
        if self.factors:
            lines.append("  local partial derivatives at the current values:")
        width = max((len(op) for op in self.ops[1:]), default=0) + 1
        for op, fs in zip(self.ops[1:], self.factors):
            shown = [f"{what} = {num(v)}" for what, v in fs[:_MAX_FACTORS]]
            if len(fs) > _MAX_FACTORS:
                shown.append(f"... and {len(fs) - _MAX_FACTORS} more")
            for k, text in enumerate(shown or ["all 0: nothing gets through"]):
                lines.append(f"    {op + ':' if k == 0 else '':<{width}}  {text}")
        return lines + self._contribution_lines()

    def _contribution_lines(self) -> list[str]:
        total = num(self.contribution)
        if self.n_chains == 0:
            return ["  contribution = 0 (x's element does not reach y's along this path)"]
        if self.n_chains == 1 and len(self.factors) == 1:
            return [f"  contribution = {total}"]
        if self.n_chains == 1:
            product = " * ".join(paren(fs[0][1]) for fs in self.factors) or "1"
            return [f"  contribution = {product} = {total}"]
        if not self.chains:
            return [f"  contribution = {total} (a sum over {self.n_chains} chains of elements)"]
        lines = [
            f"  contribution = sum over the {self.n_chains} chains of elements of the "
            "products of their factors:"
        ]
        lines += [f"    {' -> '.join(labels)}: {num(prod)}" for labels, prod in self.chains]
        return lines + [f"    = {total}"]


@dataclass
class ElementTrace:
    """``J[y[i], x[j]]`` as a sum over paths of ops; ``print()`` it for the walkthrough."""

    y_name: str
    x_name: str
    y_label: str
    x_label: str
    path_traces: list[PathTrace]
    jacobian_entry: float

    @property
    def paths(self) -> list[tuple[str, ...]]:
        """Each path as op names, x's op first."""
        return [p.ops for p in self.path_traces]

    @property
    def contributions(self) -> list[float]:
        return [p.contribution for p in self.path_traces]

    @property
    def total(self) -> float:
        return float(sum(self.contributions))

    def __str__(self) -> str:
        n = len(self.path_traces)
        lines = [
            f"d {self.y_label} / d {self.x_label}, with y = {self.y_name} and x = {self.x_name}.",
            "Chain rule: the sum, over every path of ops from x to y, of the product of",
            "the local partial derivatives along it.",
            f"{n} path{'' if n == 1 else 's'} from x to y."
            if n
            else "No path of ops leads from x to y: the entry is 0 (tf.gradients gives None).",
        ]
        for k, p in enumerate(self.path_traces, 1):
            lines += [""] + p.render(k)
        parts = " + ".join(paren(c) for c in self.contributions)
        lines += [
            "",
            f"total = {parts + ' = ' if n > 1 else ''}{num(self.total)}",
            f"J[{self.y_label}, {self.x_label}] from a reverse pass (tf.gradients(y, "
            f"x) with grad_ys one-hot at {self.y_label}): {num(self.jacobian_entry)}",
        ]
        return "\n".join(lines)


def trace_element(
    y: Any, x: Any, y_index: Any, x_index: Any, feed_dict: Any = None, session: Any = None
) -> ElementTrace:
    """Take ``J[y[y_index], x[x_index]]`` apart, path by path (see the module docstring).

    Indices are ints or tuples (``()`` for a scalar).  Refuses (ValueError) more than
    ``MAX_PATHS`` paths; IndexError names a bad index and the shape.
    """
    y, x = convert_to_tensor(y), as_source(x)
    check_real([y], "y", "trace_element")
    check_real([x], "x", "trace_element")
    run = Runner(y.graph, feed_dict, session)
    yv, xv = run([y, x])
    i = _flat_index(y_index, yv.shape, "y_index", f"y ({y.name})")
    j = _flat_index(x_index, xv.shape, "x_index", f"x ({x.name})")
    local = _LocalJacobians(run)
    local.shapes[_key(y)] = yv.shape
    with in_graph(y.graph), y.graph.name_scope("trace_element"):
        traces = [
            _trace_path(hops, i, j, local)
            if hops
            else PathTrace((y.op.name,), [], [], [], int(i == j), float(i == j))
            for hops in _paths(y, x)
        ]
        (g,) = gradients(
            y, [x], grad_ys=[one_hot_seed(i, yv.shape, y)], unconnected_gradients="zero"
        )
    entry = float(run([dense(g)])[0].reshape(-1)[j])
    return ElementTrace(
        y.name, x.name, "y" + index_text(i, yv.shape), "x" + index_text(j, xv.shape), traces, entry
    )


def _flat_index(index: Any, shape: tuple[int, ...], arg: str, what: str) -> int:
    idx = () if index is None else (index,) if np.ndim(index) == 0 else tuple(index)
    ok = len(idx) == len(shape) and all(
        isinstance(k, int | np.integer) and -d <= k < d for k, d in zip(idx, shape)
    )
    if not ok:
        example = tuple(range(len(shape)))
        raise IndexError(
            f"trace_element: {arg}={index!r} is not an index into {what} of "
            f"shape {shape}: give {len(shape)} integer(s), each within its "
            f"dimension, e.g. {arg}={example}."
        )
    return int(np.ravel_multi_index(tuple(int(k) % d for k, d in zip(idx, shape)), shape))


def _key(t: Tensor) -> Key:
    return id(t.op), t.value_index


def _paths(y: Tensor, x: Any) -> list[list[Hop]]:
    """Every path of ops (over differentiable edges) from x to y, as hops."""
    from symgrad.runtime.plan import topo_order

    order = topo_order([y.op])
    to_y: dict[Key, int] = {_key(y): 1}  # number of paths from a tensor to y
    consumers: dict[Key, list[tuple[Operation, int]]] = {}
    for op in reversed(order):
        n = sum(to_y.get((id(op), o), 0) for o in range(op.num_outputs))
        for idx, t in enumerate(op.inputs):
            if n and t.dtype.is_differentiable:
                to_y[_key(t)] = to_y.get(_key(t), 0) + n
                consumers.setdefault(_key(t), []).insert(0, (op, idx))
    starts = (
        [(id(op), 0) for op in order if op.type == "ReadVariableOp" and op.get_attr("var") is x]
        if isinstance(x, Variable)
        else [_key(x)]
    )
    total = sum(to_y.get(s, 0) for s in starts)
    if total > MAX_PATHS:
        raise ValueError(
            f"trace_element: there are {total} paths of ops from x ({x.name}) "
            f"to y ({y.name}); it lists at most {MAX_PATHS}. Trace a shorter "
            "stretch of the graph (an intermediate tensor as x or y)."
        )
    out: list[list[Hop]] = []
    stack: list[tuple[Key, list[Hop]]] = [(s, []) for s in reversed(starts) if s in to_y]
    while stack:
        k, hops = stack.pop()
        if k == _key(y):
            out.append(hops)
            continue
        for op, idx in reversed(consumers.get(k, [])):
            stack += [
                ((id(op), o), [*hops, (op, idx, o)])
                for o in reversed(range(op.num_outputs))
                if to_y.get((id(op), o))
            ]
    return out


class _LocalJacobians:
    """Rows d out[a] / d input of single ops, from their gradient rules fed one-hot seeds."""

    def __init__(self, run: Runner) -> None:
        self.run = run
        self.rows: dict[tuple[int, int, int], list[np.ndarray | None]] = {}
        self.shapes: dict[Key, tuple[int, ...]] = {}

    def shape(self, t: Tensor) -> tuple[int, ...]:
        if _key(t) not in self.shapes:
            static = t.shape.as_list() if t.shape.is_fully_defined() else None
            self.shapes[_key(t)] = (
                tuple(int(d or 0) for d in static) if static is not None else self.run([t])[0].shape
            )
        return self.shapes[_key(t)]

    def get(self, hop: Hop, needed: list[int]) -> dict[int, np.ndarray | None]:
        op, idx, o = hop
        todo = [a for a in needed if (id(op), o, a) not in self.rows]
        if len(self.rows) + len(todo) > MAX_ENTRIES:
            raise ValueError(
                f"trace_element: tracing this pair needs more than {MAX_ENTRIES} "
                f"gradient-rule calls (at {op.describe()}); trace smaller tensors."
            )
        out_t = op.outputs[o]
        pending = []
        for a in todo:
            seeds: list[Tensor | None] = [None] * op.num_outputs
            seeds[o] = one_hot_seed(a, self.shape(out_t), out_t)
            pending.append((a, apply_rule(op, seeds, use_override=True)))
        got = iter(self.run([g for _, gs in pending for g in gs if g is not None]))
        for a, gs in pending:
            self.rows[(id(op), o, a)] = [None if g is None else next(got).reshape(-1) for g in gs]
        return {a: self.rows[(id(op), o, a)][idx] for a in needed}


def _trace_path(hops: list[Hop], i: int, j: int, local: _LocalJacobians) -> PathTrace:
    """Local partials restricted to elements between x[j] and y[i]; their chains and sum."""
    rows_at: list[dict[int, np.ndarray | None]] = [{} for _ in hops]
    need = [i]
    for h in reversed(range(len(hops))):  # which elements can reach y[i]
        rows_at[h] = local.get(hops[h], need)
        need = sorted(
            {int(b) for r in rows_at[h].values() if r is not None for b in np.flatnonzero(r)}
        )
    tensors = [hops[0][0].inputs[hops[0][1]]] + [op.outputs[o] for op, _, o in hops]
    labels = ["x"] + [t.name for t in tensors[1:-1]] + ["y"]
    u, counts = {j: 1.0}, {j: 1}
    chains = [(j, ["x" + index_text(j, local.shape(tensors[0]))], 1.0)]
    factors: list[list[tuple[str, float]]] = []
    for h, rows in enumerate(rows_at):  # which of those x[j] reaches, and how much
        shape_in, shape_out = local.shape(tensors[h]), local.shape(tensors[h + 1])
        entries = [
            (a, b, float(r[b])) for a, r in rows.items() if r is not None for b in u if r[b] != 0
        ]
        new_u: dict[int, float] = {}
        new_counts: dict[int, int] = {}
        for a, b, val in entries:
            new_u[a] = new_u.get(a, 0.0) + val * u[b]
            new_counts[a] = new_counts.get(a, 0) + counts[b]
        factors.append(
            [
                (
                    f"d {labels[h + 1]}{index_text(a, shape_out)} / d {labels[h]}"
                    f"{index_text(b, shape_in)}",
                    val,
                )
                for a, b, val in entries
            ]
        )
        chains = [
            (a, [*names, labels[h + 1] + index_text(a, shape_out)], p * val)
            for last, names, p in chains
            for a, b, val in entries
            if b == last
        ][: _MAX_CHAINS + 1]
        u, counts = new_u, new_counts
    notes = [
        f"{op.name}'s gradient rule gives input {idx} no gradient: this path carries nothing"
        for (op, idx, _), rows in zip(hops, rows_at)
        if rows and all(r is None for r in rows.values())
    ]
    n_chains = counts.get(i, 0)
    shown = [(names, p) for _, names, p in chains] if n_chains <= _MAX_CHAINS else []
    return PathTrace(
        (tensors[0].op.name,) + tuple(op.name for op, _, _ in hops),
        [_step(hop, local.run) for hop in hops],
        factors,
        shown,
        n_chains,
        u.get(i, 0.0),
        notes,
    )


def _step(hop: Hop, run: Runner) -> str:
    op, idx, o = hop
    if op.type in flow.WHILE_TYPES:
        return f"{op.name} ({op.type}: {_loop_step(op, idx, o, run)}, {_where(op)})"
    if op.type in flow.IF_TYPES and idx > 0:
        name = op.inputs[idx].name
        return f"{op.name} ({op.type}: {name} read by its branches, output {o}, {_where(op)})"
    many = sum(t.dtype.is_differentiable for t in op.inputs) > 1
    via = f", input {idx}" if many else ""
    out = f", output {o}" if op.num_outputs > 1 else ""
    return f"{op.name} ({op.type}{via}{out}, {_where(op)})"


def _loop_step(op: Operation, idx: int, o: int, run: Runner) -> str:
    """A loop crossed by a path: what enters (a loop variable's initial value, or a tensor
    the body captures), what leaves, and over which iterations."""
    n_vars, n_cond = op.get_attr("n_vars"), op.get_attr("n_cond")
    name = op.inputs[idx].name
    into = (
        f"{name} as loop variable {idx - 2}"
        if idx < 2 + n_vars
        else f"{name}, captured by the {'cond' if idx < 2 + n_vars + n_cond else 'body'}"
    )
    leaves = (
        f"the final value of loop variable {o - 2}"
        if o < 2 + n_vars
        else f"the stacked values of loop variable {o - 2 - n_vars}"
    )
    n = int(run([op.outputs[0]])[0]) - int(run([op.inputs[0]])[0])
    return f"{into}, out as {leaves}, through iterations {'0-' + str(n - 1) if n > 1 else n - 1}"


__all__ = ["MAX_ENTRIES", "MAX_PATHS", "ElementTrace", "PathTrace", "trace_element"]
