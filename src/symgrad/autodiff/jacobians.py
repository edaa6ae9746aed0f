"""Jacobians, Hessians and Hessian-vector products, built from reverse passes.

symgrad has no vectorising map (TF's pfor), so a Jacobian is assembled row by row: one
reverse pass per element of the target, seeded with a one-hot cotangent.  The rows are
ordinary ops, so Jacobians can be differentiated again.  ``batch_jacobian`` needs only
one pass per element of a single example's output: each pass's seed covers the whole
batch at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..graph import Tensor
from ..ops.core import constant, convert_to_tensor, stop_gradient
from .backprop import backprop
from .gradients import UnconnectedGradients, _default, _graph_of, as_list, gradients

Vjp = Callable[[Sequence[Tensor], Sequence[Tensor], Sequence[Any]], list[Tensor | None]]


def _static_dims(t: Any, what: str) -> list[int]:
    if not t.shape.is_fully_defined():
        raise ValueError(f"{what} needs a fully defined static shape, got {t.shape} for "
                         f"{getattr(t, 'name', t)}; symgrad builds Jacobians row by row.")
    return [int(d) for d in t.shape.as_list()]


def _stack(parts: list[Tensor]) -> Tensor:
    """Stack equally shaped tensors along a new axis 0."""
    from ..ops.joining import stack

    return stack(parts)


def _assemble(rows: list[Tensor | None], x: Any, out_shape: list[int],
              mode: UnconnectedGradients) -> Tensor | None:
    from ..ops.array import reshape, zeros, zeros_like

    if all(r is None for r in rows):
        if mode is UnconnectedGradients.NONE:
            return None
        return zeros(out_shape, x.dtype)
    flat = [reshape(zeros_like(x) if r is None else r, [-1]) for r in rows]
    return reshape(_stack(flat), out_shape)


def jacobian_rows(target: Tensor, sources: list[Any], mode: UnconnectedGradients,
                  vjp: Vjp) -> list[Tensor | None]:
    """``[d target / d s for s in sources]``, each of shape target.shape + s.shape."""
    t_dims = _static_dims(target, "jacobian")
    s_dims = [_static_dims(s, "jacobian") for s in sources]
    n = int(np.prod(t_dims))
    rows: list[list[Tensor | None]] = [[] for _ in sources]
    for i in range(n):
        seed = _one_hot(i, t_dims, target)
        for j, g in enumerate(vjp([target], [seed], sources)):
            rows[j].append(g)
    return [_assemble(r, s, t_dims + d, mode)
            for r, s, d in zip(rows, sources, s_dims, strict=True)]


def batch_jacobian_rows(target: Tensor, source: Any, mode: UnconnectedGradients,
                        vjp: Vjp) -> Tensor | None:
    """Per-example Jacobians ``[b, y..., x...]`` of target ``[b, y...]``, source ``[b, x...]``."""
    from ..ops.array import reshape, transpose

    for t in (target, source):
        if t.shape.rank is None or t.shape.rank < 2:
            raise ValueError(f"Shape {t.shape} must have rank at least 2")
    tb, sb = target.shape.dims[0], source.shape.dims[0]  # type: ignore[index]
    if tb is not None and sb is not None and tb != sb:
        raise ValueError(f"Need first dimension of target shape ({target.shape}) and source "
                         f"shape ({source.shape}) to match.")
    t_dims = _static_dims(target, "batch_jacobian")
    x_dims = _static_dims(source, "batch_jacobian")
    b, per = t_dims[0], int(np.prod(t_dims[1:]))
    rows: list[Tensor | None] = []
    for j in range(per):
        arr = np.zeros((b, per), target.dtype.np)
        arr[:, j] = 1
        seed = constant(arr.reshape(t_dims))
        (g,) = vjp([target], [seed], [source])
        rows.append(None if g is None else reshape(g, [b, -1]))
    if all(r is None for r in rows):
        if mode is UnconnectedGradients.NONE:
            return None
        from ..ops.array import zeros

        return zeros(t_dims + x_dims[1:], source.dtype)
    from ..ops.array import zeros

    filled = [zeros([b, int(np.prod(x_dims[1:]))], source.dtype) if r is None else r
              for r in rows]
    stacked = transpose(_stack(filled), [1, 0, 2])  # [b, per, x]
    return reshape(stacked, t_dims + x_dims[1:])


def _one_hot(index: int, dims: list[int], like: Tensor) -> Tensor:
    arr = np.zeros(int(np.prod(dims)), like.dtype.np)
    arr[index] = 1
    return constant(arr.reshape(dims))


def _plain_vjp(targets: Sequence[Tensor], seeds: Sequence[Tensor],
               sources: Sequence[Any]) -> list[Tensor | None]:
    return backprop(targets, seeds, sources)


def hessians(ys: Any, xs: Any, name: str = "hessians", colocate_gradients_with_ops: bool = False,
             gate_gradients: bool = False, aggregation_method: Any = None) -> list[Tensor | None]:
    """For each x, the Hessian of ``sum(ys)`` w.r.t. x, of shape ``x.shape + x.shape``.

    Like ``tf.hessians``: a list with one entry per x (None where ys does not depend on x).
    Built as the Jacobian of the gradient, one reverse pass per element of x.
    """
    xs_l = [x if getattr(x, "_is_variable", False) else convert_to_tensor(x) for x in as_list(xs)]
    ys_l = [convert_to_tensor(y) for y in as_list(ys)]
    out: list[Tensor | None] = []
    with _default(_graph_of(ys_l)):
        for x, g in zip(xs_l, gradients(ys_l, xs_l, name=name,
                                         aggregation_method=aggregation_method),
                        strict=True):
            if g is None:
                out.append(None)
                continue
            (h,) = jacobian_rows(g, [x], UnconnectedGradients.NONE, _plain_vjp)
            out.append(h)
    return out


def hessian_vector_product(ys: Any, xs: Any, v: Any) -> list[Tensor | None]:
    """``[H v]`` for the Hessian H of ``sum(ys)`` w.r.t. xs, with one v per x (two passes).

    Computes the gradient, takes its inner product with ``stop_gradient(v)``, and
    differentiates that again: the Hessian itself is never formed.
    """
    from ..ops.math import multiply

    xs_l = as_list(xs)
    vs = as_list(v)
    if len(vs) != len(xs_l):
        raise ValueError(f"xs and v must have the same length, got {len(xs_l)} and {len(vs)}")
    grads = gradients(ys, xs_l)
    products = [multiply(g, stop_gradient(convert_to_tensor(u, dtype=g.dtype)))
                for g, u in zip(grads, vs, strict=True) if g is not None]
    if not products:
        return [None] * len(xs_l)
    return gradients(products, xs_l)
