"""The Jacobian behind a gradient, and the chain rule behind one Jacobian entry.

``tf.gradients(y, x)`` is not dy/dx: it is the gradient of ``sum(v * y)``, where the
cotangent ``v`` is ``grad_ys`` (ones when not given), i.e. the vector-Jacobian product
``vᵀJ``.  ``explain_gradient(ys, xs)`` shows all three for small tensors: the full
Jacobian (one reverse pass per element of y), the cotangent, and their product, checked
against what ``gradients()`` returns.  ``trace_element(y, x, i, j)`` takes one entry
``J[y[i], x[j]]`` apart: every path of ops from x to y, each op's local partial
derivatives (from its registered gradient rule, fed one-hot cotangents), and each path's
share of the total.

>>> import symgrad as tf
>>> x = tf.constant([1.0, 2.0])
>>> e = explain_gradient(tf.reduce_sum(x * x), x)
>>> e.jacobian.tolist(), e.gradient.tolist()
([2.0, 4.0], [2.0, 4.0])
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
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..autodiff.backprop import _apply_rule
from ..autodiff.gradients import _default, _graph_of, as_list, check_seed, gradients
from ..graph import Graph, Operation, Tensor, get_default_session
from ..ops.core import constant, convert_to_tensor

MAX_ENTRIES = 4096  # Jacobian entries explain_gradient shows; rule calls trace_element makes
MAX_PATHS = 64  # paths trace_element lists
_WIDTH = 100  # columns of text before a table wraps
_MAX_ROWS = 40  # table rows shown
_MAX_COLS = 48  # table columns shown

Key = tuple[int, int]
Hop = tuple[Operation, int, int]  # (op, input index the path enters by, output index)


# --------------------------------------------------------------------------------------
# Values: eager when known, else one Session.run


class _Runner:
    """Values of tensors and Variables: eager values where known, else ``Session.run``."""

    def __init__(self, graph: Graph, feed_dict: Any, session: Any) -> None:
        self.graph, self.feed_dict, self.session = graph, feed_dict, session

    def __call__(self, items: Sequence[Any]) -> list[np.ndarray]:
        symbolic = [t for t in items if not _is_variable(t) and not t.has_value()]
        fetched = iter(self._session().run(symbolic, feed_dict=self.feed_dict)
                       if symbolic else [])
        return [np.asarray(t.numpy() if _is_variable(t) or t.has_value() else next(fetched))
                for t in items]

    def _session(self) -> Any:
        if self.session is None:
            from ..runtime.session import Session

            default = get_default_session()
            ok = default is not None and default.graph is self.graph
            self.session = default if ok else Session(graph=self.graph)
        return self.session


def _is_variable(x: Any) -> bool:
    return getattr(x, "_is_variable", False)


def _as_x(x: Any) -> Any:
    return x if _is_variable(x) else convert_to_tensor(x)


def _check_real(items: Sequence[Any], what: str, fn: str) -> None:
    for t in items:
        if not t.dtype.is_floating:
            raise TypeError(f"{fn} needs real floating {what}, got {t.name} of dtype "
                            f"{t.dtype.name}.")


def _one_hot(index: int, shape: tuple[int, ...], like: Any) -> Tensor:
    arr = np.zeros(int(np.prod(shape)), like.dtype.np)
    arr[index] = 1
    return constant(arr.reshape(shape))


# --------------------------------------------------------------------------------------
# explain_gradient


@dataclass
class GradientExplanation:
    """The Jacobian, the cotangent and their product for each (y, x); see ``__str__``.

    ``jacobians[m][k]`` has shape ``ys[m].shape + xs[k].shape``; ``cotangents[m]`` is
    ``ys[m]``'s shape; ``gradients[k]`` (= Σ_m vₘᵀJₘₖ) has ``xs[k]``'s shape.
    ``tf_gradients[k]`` is what ``gradients()`` returned (None when unconnected).
    """

    y_names: list[str]
    x_names: list[str]
    y_values: list[np.ndarray]
    x_values: list[np.ndarray]
    jacobians: list[list[np.ndarray]]
    cotangents: list[np.ndarray]
    gradients: list[np.ndarray]
    tf_gradients: list[np.ndarray | None]
    default_cotangent: list[bool]

    @property
    def jacobian(self) -> np.ndarray:
        """dy/dx, shape ``y.shape + x.shape`` (one y and one x only)."""
        if len(self.jacobians) != 1 or len(self.jacobians[0]) != 1:
            raise ValueError(f"jacobian is for one y and one x; there are {len(self.y_names)} "
                             f"ys and {len(self.x_names)} xs: use jacobians[m][k].")
        return self.jacobians[0][0]

    @property
    def cotangent(self) -> np.ndarray:
        """v, shaped like y (one y only)."""
        return _only(self.cotangents, "cotangent", "ys", "cotangents[m]")

    @property
    def gradient(self) -> np.ndarray:
        """vᵀJ reshaped like x (one x only)."""
        return _only(self.gradients, "gradient", "xs", "gradients[k]")

    @property
    def matches(self) -> list[bool]:
        """For each x: does vᵀJ equal what gradients() returned?"""
        return [_close(g, tf_g) for g, tf_g in zip(self.gradients, self.tf_gradients)]

    def matrix(self, k: int = 0) -> np.ndarray:
        """The Jacobian w.r.t. xs[k] as printed: one row per y element, one column per x."""
        n = int(self.x_values[k].size)
        return np.concatenate([j[k].reshape(-1, n) for j in self.jacobians])

    def __str__(self) -> str:
        y, x = _y_label(self, None), _x_label(self, None)
        lines = [f"How tf.gradients({y}, {x}) is made from the Jacobian d{y}/d{x}", ""]
        lines += [f"  {_y_label(self, m)} = {n}, shape {v.shape}: {_count(v.size)}"
                  for m, (n, v) in enumerate(zip(self.y_names, self.y_values))]
        lines += [f"  {_x_label(self, k)} = {n}, shape {v.shape}: {_count(v.size)}"
                  for k, (n, v) in enumerate(zip(self.x_names, self.x_values))]
        lines += [""] + _cotangent_lines(self)
        for k in range(len(self.x_names)):
            lines += [""] + _x_section(self, k)
        lines += ["", _summary(self)]
        return "\n".join(lines)


def _only(items: list[np.ndarray], what: str, many: str, use: str) -> np.ndarray:
    if len(items) != 1:
        raise ValueError(f"{what} is for a single entry; there are {len(items)} {many}: use "
                         f"{use}.")
    return items[0]


def explain_gradient(ys: Any, xs: Any, grad_ys: Any = None, feed_dict: Any = None,
                     session: Any = None) -> GradientExplanation:
    """Show ``gradients(ys, xs, grad_ys)`` as the product vᵀJ; see the module docstring.

    Refuses (ValueError) when J would have more than ``MAX_ENTRIES`` entries.
    """
    ys_l = [convert_to_tensor(y) for y in as_list(ys)]
    xs_l = [_as_x(x) for x in as_list(xs)]
    _check_real(ys_l, "ys", "explain_gradient")
    _check_real(xs_l, "xs", "explain_gradient")
    gys = [None] * len(ys_l) if grad_ys is None else as_list(grad_ys)
    if len(gys) != len(ys_l):
        raise ValueError(f"explain_gradient: {len(gys)} grad_ys given for {len(ys_l)} ys (as "
                         "in tf.gradients, a list is one grad_y per y: for a single y pass "
                         "an array, or [[...]]).")
    graph = _graph_of(ys_l)
    run = _Runner(graph, feed_dict, session)
    with _default(graph), graph.name_scope("explain_gradient"):
        seeds = [None if g is None else check_seed(i, y, g) for i, (y, g) in
                 enumerate(zip(ys_l, gys))]
        given = [s for s in seeds if s is not None]
        values = run(ys_l + xs_l + given)
        y_vals, x_vals = values[:len(ys_l)], values[len(ys_l):len(ys_l) + len(xs_l)]
        _check_size(ys_l, xs_l, y_vals, x_vals)
        rows = [gradients(y, xs_l, grad_ys=[_one_hot(r, v.shape, y)],
                          unconnected_gradients="zero")
                for y, v in zip(ys_l, y_vals) for r in range(v.size)]
        tf_grads = gradients(ys_l, xs_l, grad_ys=seeds)
    fetch = [g for row in rows for g in row] + [g for g in tf_grads if g is not None]
    got = iter(run(fetch))
    row_vals = [[next(got) for _ in xs_l] for _ in rows]
    tf_vals = [None if g is None else next(got) for g in tf_grads]
    given_vals = iter(values[len(ys_l) + len(xs_l):])
    vs = [np.ones_like(v) if s is None else next(given_vals) for v, s in zip(y_vals, seeds)]
    return _assemble(ys_l, xs_l, y_vals, x_vals, row_vals, vs, tf_vals,
                     [s is None for s in seeds])


def _check_size(ys: list[Tensor], xs: list[Any], y_vals: list[np.ndarray],
                x_vals: list[np.ndarray]) -> None:
    ny, nx = sum(v.size for v in y_vals), sum(v.size for v in x_vals)
    if ny * nx > MAX_ENTRIES:
        ys_s = ", ".join(f"{t.name} {v.shape}" for t, v in zip(ys, y_vals))
        xs_s = ", ".join(f"{t.name} {v.shape}" for t, v in zip(xs, x_vals))
        raise ValueError(
            f"explain_gradient shows the full Jacobian only for small tensors: ys ({ys_s}) "
            f"have {ny} elements and xs ({xs_s}) {nx}, so J would have {ny * nx} entries; the "
            f"limit is {MAX_ENTRIES}. Explain a slice (y[:2], x[:2]) or use trace_element "
            "for one (y[i], x[j]) pair.")


def _assemble(ys: list[Tensor], xs: list[Any], y_vals: list[np.ndarray],
              x_vals: list[np.ndarray], row_vals: list[list[np.ndarray]],
              vs: list[np.ndarray], tf_vals: list[np.ndarray | None],
              default: list[bool]) -> GradientExplanation:
    jac: list[list[np.ndarray]] = []
    start = 0
    for yv in y_vals:
        rows = row_vals[start:start + yv.size]
        start += yv.size
        jac.append([np.stack([r[k].reshape(-1) for r in rows]).reshape(yv.shape + xv.shape)
                    if rows else np.zeros(yv.shape + xv.shape, xv.dtype)
                    for k, xv in enumerate(x_vals)])
    grads = []
    for k, xv in enumerate(x_vals):
        total = sum((v.astype(np.float64).reshape(-1) @ j[k].reshape(v.size, -1)
                     for v, j in zip(vs, jac)), np.zeros(xv.size))
        grads.append(np.asarray(total).reshape(xv.shape))
    return GradientExplanation([y.name for y in ys], [x.name for x in xs], y_vals, x_vals,
                               jac, vs, grads, tf_vals, default)


def _close(a: np.ndarray, b: np.ndarray | None) -> bool:
    if b is None:
        return not np.any(a)
    eps = float(np.finfo(b.dtype).eps) if b.dtype.kind == "f" else 1e-12
    scale = 1.0 + float(np.max(np.abs(b), initial=0.0))
    return bool(np.allclose(a, b, rtol=0.0, atol=64 * eps * scale))


# --------------------------------------------------------------------------------------
# Rendering explain_gradient


def _y_label(e: GradientExplanation, m: int | None) -> str:
    return "y" if len(e.y_names) == 1 else "ys" if m is None else f"y{m}"


def _x_label(e: GradientExplanation, k: int | None) -> str:
    return "x" if len(e.x_names) == 1 else "xs" if k is None else f"x{k}"


def _count(n: int) -> str:
    return f"{n} element{'' if n == 1 else 's'}"


def _cotangent_lines(e: GradientExplanation) -> list[str]:
    lines = []
    for m, v in enumerate(e.cotangents):
        y = _y_label(e, m)
        if e.default_cotangent[m]:
            lines.append(f"Cotangent v for {y}: grad_ys not given, so v = ones like {y} "
                         f"(every element of {y} counts once).")
        else:
            lines += [f"Cotangent v for {y}: the grad_ys given (the weight of each element "
                      f"of {y}):", _indent(_array(v))]
    return lines


def _x_section(e: GradientExplanation, k: int) -> list[str]:
    x = _x_label(e, k)
    xv = e.x_values[k]
    rows = [_y_label(e, m) + _idx(r, yv.shape)
            for m, yv in enumerate(e.y_values) for r in range(yv.size)]
    cols = [x + _idx(c, xv.shape) for c in range(xv.size)]
    lines = textwrap.wrap(f"Jacobian J = d{_y_label(e, None)}/d{x}: each row lists how much "
                          f"that element moves per unit move of each element of {x} "
                          "('.' = 0):", _WIDTH)
    lines += _table(e.matrix(k), rows, cols)
    lines += ["", f"Gradient = vᵀJ (each column of J weighted by v and summed), shaped like {x}:"]
    tf_g = e.tf_gradients[k]
    if tf_g is not None and e.matches[k]:  # print TF's numbers: those the user has seen
        lines += [_indent(_array(tf_g)), f"  which is what tf.gradients returned for {x}."]
    else:
        lines.append(_indent(_array(e.gradients[k])))
        lines.append(f"  tf.gradients returns None for {x}: no path leads from it to the ys "
                     "(see why_none)." if tf_g is None else
                     "  but tf.gradients returned DIFFERENT numbers (is a registered gradient "
                     "rule not linear in its upstream gradient?):\n" + _indent(_array(tf_g)))
    return lines + _worked_entry(e, k, rows, cols)


def _worked_entry(e: GradientExplanation, k: int, rows: list[str],
                  cols: list[str]) -> list[str]:
    """The first nonzero entry of vᵀJ written out as its terms v[r] * J[r, c]."""
    mat = e.matrix(k)
    v = np.concatenate([c.reshape(-1) for c in e.cotangents])
    nonzero = [c for c in range(mat.shape[1]) if np.any(mat[:, c] * v)]
    if not nonzero:
        return []
    c = nonzero[0]
    terms = [r for r in range(mat.shape[0]) if mat[r, c] * v[r] != 0]
    shown = " + ".join(f"{_paren(v[r])}*{_paren(mat[r, c])} ({rows[r]})" for r in terms[:6])
    more = f" + ... ({len(terms) - 6} more)" if len(terms) > 6 else ""
    zeros = mat.shape[0] - len(terms)
    total = float(v.astype(np.float64) @ mat[:, c].astype(np.float64))
    return [f"  e.g. gradient{_idx(c, e.x_values[k].shape)} = sum over rows r of v[r] * "
            f"J[r, {cols[c]}]", f"     = {shown}{more} = {_num(total)}"
            ] + ([f"       (the other {zeros} terms are 0)"] if zeros else [])


def _summary(e: GradientExplanation) -> str:
    y, x = _y_label(e, None), _x_label(e, None)
    one = len(e.y_names) == 1
    vy = "sum(v * y)" if one else "the sum over ys of sum(v * y)"
    if not all(e.default_cotangent):
        text = (f"tf.gradients({y}, {x}, grad_ys=v) is the gradient of {vy}: the "
                "vector-Jacobian product vᵀJ, each column of J weighted by v and summed.")
    else:
        text = (f"tf.gradients({y}, {x}) is the gradient of {vy} = "
                f"{'sum(y)' if one else 'the sum of all their elements'}: each entry is a "
                f"column sum of J, how much that sum moves per unit move of that element of "
                f"{x}.")
        if sum(v.size for v in e.y_values) == 1:
            text += (f" Here {y} has one element, so J has one row and the gradient is that "
                     "row: the derivative of that one element.")
        else:
            text += (f" It is not d{y}/d{x} itself: for one element take tf.gradients(y[i], "
                     "x) (one row of J); for all of J, tape.jacobian(y, x).")
    return textwrap.fill(text, _WIDTH)


def _table(mat: np.ndarray, rows: list[str], cols: list[str]) -> list[str]:
    """``mat`` as text, rows labelled, wrapped into column blocks ``_WIDTH`` wide."""
    nr, nc = min(len(rows), _MAX_ROWS), min(len(cols), _MAX_COLS)
    cells = [[_cell(mat[r, c]) for c in range(nc)] for r in range(nr)]
    lw = max(len(r) for r in rows[:nr])
    widths = [max(len(cols[c]), *(len(cells[r][c]) for r in range(nr))) for c in range(nc)]
    blocks: list[list[int]] = [[]]
    for c in range(nc):
        if blocks[-1] and lw + sum(widths[i] + 2 for i in blocks[-1] + [c]) > _WIDTH:
            blocks.append([])
        blocks[-1].append(c)
    lines = []
    for block in blocks:
        lines.append("  " + " " * lw + "".join(f"  {cols[c]:>{widths[c]}}" for c in block))
        lines += ["  " + f"{rows[r]:<{lw}}" + "".join(f"  {cells[r][c]:>{widths[c]}}"
                                                     for c in block) for r in range(nr)]
    if len(rows) > nr or len(cols) > nc:
        lines.append(f"  ({len(rows) - nr} more rows and {len(cols) - nc} more columns not "
                     "shown; the full matrix is .matrix())")
    return lines


# --------------------------------------------------------------------------------------
# Small formatting helpers (shared with trace_element)


def _idx(flat: int, shape: tuple[int, ...]) -> str:
    if not shape:
        return ""
    return "[" + ",".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def _num(v: Any) -> str:
    v = float(v)
    return "0" if v == 0 else f"{v:.4g}"


def _cell(v: Any) -> str:
    return "." if float(v) == 0 else _num(v)


def _paren(v: Any) -> str:
    return f"({_num(v)})" if float(v) < 0 else _num(v)


def _array(v: np.ndarray) -> str:
    return np.array2string(np.asarray(v), precision=8, suppress_small=False)


def _indent(text: str, by: str = "  ") -> str:
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
            if len(lines[-1]) + len(part) + 4 > _WIDTH:
                lines.append("   ")
            lines[-1] += f" -> {part}"
        lines += ["  " + n for n in self.notes]
        if self.factors:
            lines.append("  local partial derivatives at the current values:")
        width = max((len(op) for op in self.ops[1:]), default=0) + 1
        for op, fs in zip(self.ops[1:], self.factors):
            shown = [f"{what} = {_num(v)}" for what, v in fs[:_MAX_FACTORS]]
            if len(fs) > _MAX_FACTORS:
                shown.append(f"... and {len(fs) - _MAX_FACTORS} more")
            for k, text in enumerate(shown or ["all 0: nothing gets through"]):
                lines.append(f"    {op + ':' if k == 0 else '':<{width}}  {text}")
        return lines + self._contribution_lines()

    def _contribution_lines(self) -> list[str]:
        total = _num(self.contribution)
        if self.n_chains == 0:
            return ["  contribution = 0 (x's element does not reach y's along this path)"]
        if self.n_chains == 1 and len(self.factors) == 1:
            return [f"  contribution = {total}"]
        if self.n_chains == 1:
            product = " * ".join(_paren(fs[0][1]) for fs in self.factors) or "1"
            return [f"  contribution = {product} = {total}"]
        if not self.chains:
            return [f"  contribution = {total} (a sum over {self.n_chains} chains of elements)"]
        lines = [f"  contribution = sum over the {self.n_chains} chains of elements of the "
                 "products of their factors:"]
        lines += [f"    {' -> '.join(labels)}: {_num(prod)}" for labels, prod in self.chains]
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
        lines = [f"d {self.y_label} / d {self.x_label}, with y = {self.y_name} and x = "
                 f"{self.x_name}.",
                 "Chain rule: the sum, over every path of ops from x to y, of the product of",
                 "the local partial derivatives along it.",
                 f"{n} path{'' if n == 1 else 's'} from x to y." if n else
                 "No path of ops leads from x to y: the entry is 0 (tf.gradients gives None)."]
        for k, p in enumerate(self.path_traces, 1):
            lines += [""] + p.render(k)
        parts = " + ".join(_paren(c) for c in self.contributions)
        lines += ["", f"total = {parts + ' = ' if n > 1 else ''}{_num(self.total)}",
                  f"J[{self.y_label}, {self.x_label}] from a reverse pass (tf.gradients(y, "
                  f"x) with grad_ys one-hot at {self.y_label}): {_num(self.jacobian_entry)}"]
        return "\n".join(lines)


def trace_element(y: Any, x: Any, y_index: Any, x_index: Any, feed_dict: Any = None,
                  session: Any = None) -> ElementTrace:
    """Take ``J[y[y_index], x[x_index]]`` apart, path by path (see the module docstring).

    Indices are ints or tuples (``()`` for a scalar).  Refuses (ValueError) more than
    ``MAX_PATHS`` paths; IndexError names a bad index and the shape.
    """
    y, x = convert_to_tensor(y), _as_x(x)
    _check_real([y], "y", "trace_element")
    _check_real([x], "x", "trace_element")
    run = _Runner(y.graph, feed_dict, session)
    yv, xv = run([y, x])
    i = _flat_index(y_index, yv.shape, "y_index", f"y ({y.name})")
    j = _flat_index(x_index, xv.shape, "x_index", f"x ({x.name})")
    local = _LocalJacobians(run)
    local.shapes[_key(y)] = yv.shape
    with _default(y.graph), y.graph.name_scope("trace_element"):
        traces = [_trace_path(hops, i, j, local) if hops else
                  PathTrace((y.op.name,), [], [], [], int(i == j), float(i == j))
                  for hops in _paths(y, x)]
        (g,) = gradients(y, [x], grad_ys=[_one_hot(i, yv.shape, y)],
                         unconnected_gradients="zero")
    entry = float(run([g])[0].reshape(-1)[j])
    return ElementTrace(y.name, x.name, "y" + _idx(i, yv.shape), "x" + _idx(j, xv.shape),
                        traces, entry)


def _flat_index(index: Any, shape: tuple[int, ...], arg: str, what: str) -> int:
    idx = () if index is None else (index,) if np.ndim(index) == 0 else tuple(index)
    ok = len(idx) == len(shape) and all(
        isinstance(k, int | np.integer) and -d <= k < d for k, d in zip(idx, shape))
    if not ok:
        example = tuple(range(len(shape)))
        raise IndexError(f"trace_element: {arg}={index!r} is not an index into {what} of "
                         f"shape {shape}: give {len(shape)} integer(s), each within its "
                         f"dimension, e.g. {arg}={example}.")
    return int(np.ravel_multi_index(tuple(int(k) % d for k, d in zip(idx, shape)), shape))


def _key(t: Tensor) -> Key:
    return id(t.op), t.value_index


def _paths(y: Tensor, x: Any) -> list[list[Hop]]:
    """Every path of ops (over differentiable edges) from x to y, as hops."""
    from ..runtime.plan import topo_order

    order = topo_order([y.op])
    to_y: dict[Key, int] = {_key(y): 1}  # number of paths from a tensor to y
    consumers: dict[Key, list[tuple[Operation, int]]] = {}
    for op in reversed(order):
        n = sum(to_y.get((id(op), o), 0) for o in range(op.num_outputs))
        for idx, t in enumerate(op.inputs):
            if n and t.dtype.is_differentiable:
                to_y[_key(t)] = to_y.get(_key(t), 0) + n
                consumers.setdefault(_key(t), []).insert(0, (op, idx))
    starts = ([(id(op), 0) for op in order if op.type == "ReadVariableOp"
               and op._attrs.get("var") is x] if _is_variable(x) else [_key(x)])
    total = sum(to_y.get(s, 0) for s in starts)
    if total > MAX_PATHS:
        raise ValueError(f"trace_element: there are {total} paths of ops from x ({x.name}) "
                         f"to y ({y.name}); it lists at most {MAX_PATHS}. Trace a shorter "
                         "stretch of the graph (an intermediate tensor as x or y).")
    out: list[list[Hop]] = []
    stack: list[tuple[Key, list[Hop]]] = [(s, []) for s in reversed(starts) if s in to_y]
    while stack:
        k, hops = stack.pop()
        if k == _key(y):
            out.append(hops)
            continue
        for op, idx in reversed(consumers.get(k, [])):
            stack += [((id(op), o), [*hops, (op, idx, o)])
                      for o in reversed(range(op.num_outputs)) if to_y.get((id(op), o))]
    return out


class _LocalJacobians:
    """Rows d out[a] / d input of single ops, from their gradient rules fed one-hot seeds."""

    def __init__(self, run: _Runner) -> None:
        self.run = run
        self.rows: dict[tuple[int, int, int], list[np.ndarray | None]] = {}
        self.shapes: dict[Key, tuple[int, ...]] = {}

    def shape(self, t: Tensor) -> tuple[int, ...]:
        if _key(t) not in self.shapes:
            static = t.shape.as_list() if t.shape.is_fully_defined() else None
            self.shapes[_key(t)] = (tuple(int(d or 0) for d in static) if static is not None
                                    else self.run([t])[0].shape)
        return self.shapes[_key(t)]

    def get(self, hop: Hop, needed: list[int]) -> dict[int, np.ndarray | None]:
        op, idx, o = hop
        todo = [a for a in needed if (id(op), o, a) not in self.rows]
        if len(self.rows) + len(todo) > MAX_ENTRIES:
            raise ValueError(f"trace_element: tracing this pair needs more than {MAX_ENTRIES} "
                             f"gradient-rule calls (at {op.describe()}); trace smaller tensors.")
        out_t = op.outputs[o]
        pending = []
        for a in todo:
            seeds: list[Tensor | None] = [None] * op.num_outputs
            seeds[o] = _one_hot(a, self.shape(out_t), out_t)
            pending.append((a, _apply_rule(op, seeds, use_override=True)))
        got = iter(self.run([g for _, gs in pending for g in gs if g is not None]))
        for a, gs in pending:
            self.rows[(id(op), o, a)] = [None if g is None else next(got).reshape(-1)
                                         for g in gs]
        return {a: self.rows[(id(op), o, a)][idx] for a in needed}


def _trace_path(hops: list[Hop], i: int, j: int, local: _LocalJacobians) -> PathTrace:
    """Local partials restricted to elements between x[j] and y[i]; their chains and sum."""
    rows_at: list[dict[int, np.ndarray | None]] = [{} for _ in hops]
    need = [i]
    for h in reversed(range(len(hops))):  # which elements can reach y[i]
        rows_at[h] = local.get(hops[h], need)
        need = sorted({int(b) for r in rows_at[h].values() if r is not None
                       for b in np.flatnonzero(r)})
    tensors = [hops[0][0].inputs[hops[0][1]]] + [op.outputs[o] for op, _, o in hops]
    labels = ["x"] + [t.name for t in tensors[1:-1]] + ["y"]
    u, counts = {j: 1.0}, {j: 1}
    chains = [(j, ["x" + _idx(j, local.shape(tensors[0]))], 1.0)]
    factors: list[list[tuple[str, float]]] = []
    for h, rows in enumerate(rows_at):  # which of those x[j] reaches, and how much
        shape_in, shape_out = local.shape(tensors[h]), local.shape(tensors[h + 1])
        entries = [(a, b, float(r[b])) for a, r in rows.items() if r is not None
                   for b in u if r[b] != 0]
        new_u: dict[int, float] = {}
        new_counts: dict[int, int] = {}
        for a, b, val in entries:
            new_u[a] = new_u.get(a, 0.0) + val * u[b]
            new_counts[a] = new_counts.get(a, 0) + counts[b]
        factors.append([(f"d {labels[h + 1]}{_idx(a, shape_out)} / d {labels[h]}"
                         f"{_idx(b, shape_in)}", val) for a, b, val in entries])
        chains = [(a, [*names, labels[h + 1] + _idx(a, shape_out)], p * val)
                  for last, names, p in chains for a, b, val in entries
                  if b == last][:_MAX_CHAINS + 1]
        u, counts = new_u, new_counts
    notes = [f"{op.name}'s gradient rule gives input {idx} no gradient: this path carries "
             "nothing" for (op, idx, _), rows in zip(hops, rows_at)
             if rows and all(r is None for r in rows.values())]
    n_chains = counts.get(i, 0)
    shown = [(names, p) for _, names, p in chains] if n_chains <= _MAX_CHAINS else []
    return PathTrace((tensors[0].op.name,) + tuple(op.name for op, _, _ in hops),
                     [_step(hop) for hop in hops], factors, shown, n_chains, u.get(i, 0.0),
                     notes)


def _step(hop: Hop) -> str:
    op, idx, o = hop
    many = sum(t.dtype.is_differentiable for t in op.inputs) > 1
    via = f", input {idx}" if many else ""
    out = f", output {o}" if op.num_outputs > 1 else ""
    return f"{op.name} ({op.type}{via}{out}, {_where(op)})"


__all__ = ["MAX_ENTRIES", "MAX_PATHS", "ElementTrace", "GradientExplanation", "PathTrace",
           "explain_gradient", "trace_element"]
