"""The Jacobian behind a gradient: ``explain_gradient(ys, xs)``.

``tf.gradients(y, x)`` is not dy/dx: it is the gradient of ``sum(v * y)``, where the
cotangent ``v`` is ``grad_ys`` (ones when not given), i.e. the vector-Jacobian product
``vᵀJ``.  ``explain_gradient`` shows all three for small tensors: the full Jacobian (one
reverse pass per element of y), the cotangent, and their product, checked against what
``gradients()`` returns.  The values and formatting helpers are shared with
:mod:`.chain`, which takes one Jacobian entry apart by the chain rule.

>>> import symgrad as tf
>>> x = tf.constant([1.0, 2.0])
>>> e = explain_gradient(tf.reduce_sum(x * x), x)
>>> e.jacobian.tolist(), e.gradient.tolist()
([2.0, 4.0], [2.0, 4.0])
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgrad.autodiff.gradients import as_list, check_seed, gradients, graph_of, in_graph
from symgrad.core.graph import Tensor
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.sparse.indexed_slices import dense
from symgrad.tools.chain import (
    MAX_COLS,
    MAX_ENTRIES,
    MAX_ROWS,
    WIDTH,
    Runner,
    array_text,
    as_source,
    cell,
    check_real,
    indent,
    index_text,
    num,
    one_hot_seed,
    paren,
)

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
            raise ValueError(
                f"jacobian is for one y and one x; there are {len(self.y_names)} "
                f"ys and {len(self.x_names)} xs: use jacobians[m][k]."
            )
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
        lines += [
            f"  {_y_label(self, m)} = {n}, shape {v.shape}: {_count(v.size)}"
            for m, (n, v) in enumerate(zip(self.y_names, self.y_values))
        ]
        lines += [
            f"  {_x_label(self, k)} = {n}, shape {v.shape}: {_count(v.size)}"
            for k, (n, v) in enumerate(zip(self.x_names, self.x_values))
        ]
        lines += [""] + _cotangent_lines(self)
        for k in range(len(self.x_names)):
            lines += [""] + _x_section(self, k)
        lines += ["", _summary(self)]
        return "\n".join(lines)


def _only(items: list[np.ndarray], what: str, many: str, use: str) -> np.ndarray:
    if len(items) != 1:
        raise ValueError(f"{what} is for a single entry; there are {len(items)} {many}: use {use}.")
    return items[0]


def explain_gradient(
    ys: Any, xs: Any, grad_ys: Any = None, feed_dict: Any = None, session: Any = None
) -> GradientExplanation:
    """Show ``gradients(ys, xs, grad_ys)`` as the product vᵀJ; see the module docstring.

    Refuses (ValueError) when J would have more than ``MAX_ENTRIES`` entries.
    """
    ys_l = [convert_to_tensor(y) for y in as_list(ys)]
    xs_l = [as_source(x) for x in as_list(xs)]
    check_real(ys_l, "ys", "explain_gradient")
    check_real(xs_l, "xs", "explain_gradient")
    gys = [None] * len(ys_l) if grad_ys is None else as_list(grad_ys)
    if len(gys) != len(ys_l):
        raise ValueError(
            f"explain_gradient: {len(gys)} grad_ys given for {len(ys_l)} ys (as "
            "in tf.gradients, a list is one grad_y per y: for a single y pass "
            "an array, or [[...]])."
        )
    graph = graph_of(ys_l)
    run = Runner(graph, feed_dict, session)
    with in_graph(graph), graph.name_scope("explain_gradient"):
        seeds = [
            None if g is None else check_seed(i, y, g) for i, (y, g) in enumerate(zip(ys_l, gys))
        ]
        given = [s for s in seeds if s is not None]
        values = run(ys_l + xs_l + given)
        y_vals, x_vals = values[: len(ys_l)], values[len(ys_l) : len(ys_l) + len(xs_l)]
        _check_size(ys_l, xs_l, y_vals, x_vals)
        rows = [
            gradients(y, xs_l, grad_ys=[one_hot_seed(r, v.shape, y)], unconnected_gradients="zero")
            for y, v in zip(ys_l, y_vals)
            for r in range(v.size)
        ]
        tf_grads = gradients(ys_l, xs_l, grad_ys=seeds)
    fetch = [dense(g) for row in rows for g in row] + [dense(g) for g in tf_grads if g is not None]
    got = iter(run(fetch))
    row_vals = [[next(got) for _ in xs_l] for _ in rows]
    tf_vals = [None if g is None else next(got) for g in tf_grads]
    given_vals = iter(values[len(ys_l) + len(xs_l) :])
    vs = [np.ones_like(v) if s is None else next(given_vals) for v, s in zip(y_vals, seeds)]
    return _assemble(ys_l, xs_l, y_vals, x_vals, row_vals, vs, tf_vals, [s is None for s in seeds])


def _check_size(
    ys: list[Tensor], xs: list[Any], y_vals: list[np.ndarray], x_vals: list[np.ndarray]
) -> None:
    ny, nx = sum(v.size for v in y_vals), sum(v.size for v in x_vals)
    if ny * nx > MAX_ENTRIES:
        ys_s = ", ".join(f"{t.name} {v.shape}" for t, v in zip(ys, y_vals))
        xs_s = ", ".join(f"{t.name} {v.shape}" for t, v in zip(xs, x_vals))
        raise ValueError(
            f"explain_gradient shows the full Jacobian only for small tensors: ys ({ys_s}) "
            f"have {ny} elements and xs ({xs_s}) {nx}, so J would have {ny * nx} entries; the "
            f"limit is {MAX_ENTRIES}. Explain a slice (y[:2], x[:2]) or use trace_element "
            "for one (y[i], x[j]) pair."
        )


def _assemble(
    ys: list[Tensor],
    xs: list[Any],
    y_vals: list[np.ndarray],
    x_vals: list[np.ndarray],
    row_vals: list[list[np.ndarray]],
    vs: list[np.ndarray],
    tf_vals: list[np.ndarray | None],
    default: list[bool],
) -> GradientExplanation:
    jac: list[list[np.ndarray]] = []
    start = 0
    for yv in y_vals:
        rows = row_vals[start : start + yv.size]
        start += yv.size
        jac.append(
            [
                np.stack([r[k].reshape(-1) for r in rows]).reshape(yv.shape + xv.shape)
                if rows
                else np.zeros(yv.shape + xv.shape, xv.dtype)
                for k, xv in enumerate(x_vals)
            ]
        )
    grads = []
    for k, xv in enumerate(x_vals):
        total = sum(
            (v.astype(np.float64).reshape(-1) @ j[k].reshape(v.size, -1) for v, j in zip(vs, jac)),
            np.zeros(xv.size),
        )
        grads.append(np.asarray(total).reshape(xv.shape))
    return GradientExplanation(
        [y.name for y in ys], [x.name for x in xs], y_vals, x_vals, jac, vs, grads, tf_vals, default
    )


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
            lines.append(
                f"Cotangent v for {y}: grad_ys not given, so v = ones like {y} "
                f"(every element of {y} counts once)."
            )
        else:
            lines += [
                f"Cotangent v for {y}: the grad_ys given (the weight of each element of {y}):",
                indent(array_text(v)),
            ]
    return lines


def _x_section(e: GradientExplanation, k: int) -> list[str]:
    x = _x_label(e, k)
    xv = e.x_values[k]
    rows = [
        _y_label(e, m) + index_text(r, yv.shape)
        for m, yv in enumerate(e.y_values)
        for r in range(yv.size)
    ]
    cols = [x + index_text(c, xv.shape) for c in range(xv.size)]
    lines = textwrap.wrap(
        f"Jacobian J = d{_y_label(e, None)}/d{x}: each row lists how much "
        f"that element moves per unit move of each element of {x} "
        "('.' = 0):",
        WIDTH,
    )
    lines += _table(e.matrix(k), rows, cols)
    lines += ["", f"Gradient = vᵀJ (each column of J weighted by v and summed), shaped like {x}:"]
    tf_g = e.tf_gradients[k]
    if tf_g is not None and e.matches[k]:  # print TF's numbers: those the user has seen
        lines += [indent(array_text(tf_g)), f"  which is what tf.gradients returned for {x}."]
    else:
        lines.append(indent(array_text(e.gradients[k])))
        lines.append(
            f"  tf.gradients returns None for {x}: no path leads from it to the ys (see why_none)."
            if tf_g is None
            else "  but tf.gradients returned DIFFERENT numbers (is a registered gradient "
            "rule not linear in its upstream gradient?):\n" + indent(array_text(tf_g))
        )
    return lines + _worked_entry(e, k, rows, cols)


def _worked_entry(e: GradientExplanation, k: int, rows: list[str], cols: list[str]) -> list[str]:
    """The first nonzero entry of vᵀJ written out as its terms v[r] * J[r, c]."""
    mat = e.matrix(k)
    v = np.concatenate([c.reshape(-1) for c in e.cotangents])
    nonzero = [c for c in range(mat.shape[1]) if np.any(mat[:, c] * v)]
    if not nonzero:
        return []
    c = nonzero[0]
    terms = [r for r in range(mat.shape[0]) if mat[r, c] * v[r] != 0]
    shown = " + ".join(f"{paren(v[r])}*{paren(mat[r, c])} ({rows[r]})" for r in terms[:6])
    more = f" + ... ({len(terms) - 6} more)" if len(terms) > 6 else ""
    zeros = mat.shape[0] - len(terms)
    total = float(v.astype(np.float64) @ mat[:, c].astype(np.float64))
    return [
        f"  e.g. gradient{index_text(c, e.x_values[k].shape)} = sum over rows r of v[r] * "
        f"J[r, {cols[c]}]",
        f"     = {shown}{more} = {num(total)}",
    ] + ([f"       (the other {zeros} terms are 0)"] if zeros else [])


def _summary(e: GradientExplanation) -> str:
    y, x = _y_label(e, None), _x_label(e, None)
    one = len(e.y_names) == 1
    vy = "sum(v * y)" if one else "the sum over ys of sum(v * y)"
    if not all(e.default_cotangent):
        text = (
            f"tf.gradients({y}, {x}, grad_ys=v) is the gradient of {vy}: the "
            "vector-Jacobian product vᵀJ, each column of J weighted by v and summed."
        )
    else:
        text = (
            f"tf.gradients({y}, {x}) is the gradient of {vy} = "
            f"{'sum(y)' if one else 'the sum of all their elements'}: each entry is a "
            f"column sum of J, how much that sum moves per unit move of that element of "
            f"{x}."
        )
        if sum(v.size for v in e.y_values) == 1:
            text += (
                f" Here {y} has one element, so J has one row and the gradient is that "
                "row: the derivative of that one element."
            )
        else:
            text += (
                f" It is not d{y}/d{x} itself: for one element take tf.gradients(y[i], "
                "x) (one row of J); for all of J, tape.jacobian(y, x)."
            )
    return textwrap.fill(text, WIDTH)


def _table(mat: np.ndarray, rows: list[str], cols: list[str]) -> list[str]:
    """``mat`` as text, rows labelled, wrapped into column blocks ``WIDTH`` wide."""
    nr, nc = min(len(rows), MAX_ROWS), min(len(cols), MAX_COLS)
    cells = [[cell(mat[r, c]) for c in range(nc)] for r in range(nr)]
    lw = max(len(r) for r in rows[:nr])
    widths = [max(len(cols[c]), *(len(cells[r][c]) for r in range(nr))) for c in range(nc)]
    blocks: list[list[int]] = [[]]
    for c in range(nc):
        if blocks[-1] and lw + sum(widths[i] + 2 for i in blocks[-1] + [c]) > WIDTH:
            blocks.append([])
        blocks[-1].append(c)
    lines = []
    for block in blocks:
        lines.append("  " + " " * lw + "".join(f"  {cols[c]:>{widths[c]}}" for c in block))
        lines += [
            "  " + f"{rows[r]:<{lw}}" + "".join(f"  {cells[r][c]:>{widths[c]}}" for c in block)
            for r in range(nr)
        ]
    if len(rows) > nr or len(cols) > nc:
        lines.append(
            f"  ({len(rows) - nr} more rows and {len(cols) - nc} more columns not "
            "shown; the full matrix is .matrix())"
        )
    return lines


__all__ = ["GradientExplanation", "explain_gradient"]
