"""Jacobians, Hessians and Hessian-vector products, built from reverse passes.

The gradient of a target w.r.t. its sources is linear in the seed cotangent.  So
``jacobian`` builds the reverse pass once, on a symbolic seed shaped like the target,
and hands the ops between that seed and the gradients to ``vectorize``, which reruns
them for all K one-hot seeds at once (K = the target's size): one batched pass, like
TF's ``pfor``.  Where some op there has no batching rule, it falls back to the loop
(``jacobian_rows``): one reverse pass per element of the target.  Both build ordinary
ops, so Jacobians can be differentiated again.  ``batch_jacobian`` does the same with
K = the size of one example's output, each seed covering the whole batch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.autodiff.backprop import backprop
from symgrad.autodiff.gradients import UnconnectedGradients, as_list, gradients, graph_of, in_graph
from symgrad.autodiff.vectorize import NotVectorizable, vectorize
from symgrad.core.graph import Tensor
from symgrad.ops.array.joining import stack
from symgrad.ops.array.structure import reshape, transpose, zeros, zeros_like
from symgrad.ops.core import constant, convert_to_tensor, placeholder, stop_gradient
from symgrad.ops.math.elementwise import multiply
from symgrad.ops.sparse.indexed_slices import dense
from symgrad.ops.state.variables import Variable

Vjp = Callable[[Sequence[Tensor], Sequence[Tensor], Sequence[Any]], list[Tensor | None]]

_log = logging.getLogger("symgrad")


def _static_dims(t: Any, what: str) -> list[int]:
    if not t.shape.is_fully_defined():
        raise ValueError(
            f"{what} needs a fully defined static shape, got {t.shape} for {getattr(t, 'name', t)}."
        )
    return [int(d) for d in t.shape.as_list()]


def _fallback(what: str, err: NotVectorizable) -> None:
    _log.debug("%s is not vectorised, falling back to one reverse pass per row: %s", what, err)


def _batched_pass(
    target: Tensor, sources: Sequence[Any], seeds: np.ndarray, vjp: Vjp
) -> list[Tensor | None]:
    """The gradients for each seed in ``seeds`` ([K] + target.shape), from one pass.

    Raises ``NotVectorizable`` when the reverse pass holds an op with no batching rule.
    """
    v = placeholder(target.dtype, target.shape, name="jacobian_seed")
    grads = vjp([target], [v], sources)
    if all(g is None for g in grads):
        return list(grads)
    return vectorize(v, constant(seeds), grads)


def jacobian(
    target: Tensor, sources: list[Any], mode: UnconnectedGradients, vjp: Vjp, use_pfor: bool = True
) -> list[Tensor | None]:
    """``[d target / d s for s in sources]``, each of shape target.shape + s.shape.

    Vectorised when every op of the reverse pass has a batching rule (and ``use_pfor``),
    else one reverse pass per element of the target.
    """
    t_dims = _static_dims(target, "jacobian")
    s_dims = [_static_dims(s, "jacobian") for s in sources]
    if not use_pfor:
        return jacobian_rows(target, sources, mode, vjp)
    n = int(np.prod(t_dims))
    seeds = np.eye(n, dtype=target.dtype.np).reshape([n] + t_dims)
    try:
        grads = _batched_pass(target, sources, seeds, vjp)
    except NotVectorizable as e:
        _fallback("jacobian", e)
        return jacobian_rows(target, sources, mode, vjp)
    out: list[Tensor | None] = []
    for g, s, d in zip(grads, sources, s_dims, strict=True):
        if g is None:
            out.append(None if mode is UnconnectedGradients.NONE else zeros(t_dims + d, s.dtype))
        else:
            out.append(reshape(g, t_dims + d))
    return out


def _check_batch_shapes(target: Tensor, source: Any) -> None:
    for t in (target, source):
        if t.shape.rank is None or t.shape.rank < 2:
            raise ValueError(f"Shape {t.shape} must have rank at least 2")
    tb, sb = target.shape.dims[0], source.shape.dims[0]  # type: ignore[index]
    if tb is not None and sb is not None and tb != sb:
        raise ValueError(
            f"Need first dimension of target shape ({target.shape}) and source "
            f"shape ({source.shape}) to match."
        )


def batch_jacobian(target: Tensor, source: Any, vjp: Vjp, use_pfor: bool = True) -> Tensor:
    """Per-example Jacobians ``[b, y..., x...]`` of target ``[b, y...]``, source ``[b, x...]``.

    As TF: an unconnected source gives zeros (of the target's dtype) whatever
    ``unconnected_gradients`` says.
    """
    _check_batch_shapes(target, source)
    t_dims = _static_dims(target, "batch_jacobian")
    x_dims = _static_dims(source, "batch_jacobian")
    if not use_pfor:
        return batch_jacobian_rows(target, source, vjp)
    b, per = t_dims[0], int(np.prod(t_dims[1:]))
    eye = np.eye(per, dtype=target.dtype.np)[:, None, :]
    seeds = np.broadcast_to(eye, (per, b, per)).reshape([per] + t_dims)
    try:
        (g,) = _batched_pass(target, [source], seeds, vjp)
    except NotVectorizable as e:
        _fallback("batch_jacobian", e)
        return batch_jacobian_rows(target, source, vjp)
    if g is None:
        return zeros(t_dims + x_dims[1:], target.dtype)
    x_per = int(np.prod(x_dims[1:]))  # explicit: -1 is ambiguous when per == 0
    per_example = transpose(reshape(g, [per, b, x_per]), [1, 0, 2])  # [b, per, x]
    return reshape(per_example, t_dims + x_dims[1:])


# --------------------------------------------------------------------------------------
# The loop: one reverse pass per row (the fallback, and experimental_use_pfor=False)


def _assemble(
    rows: list[Tensor | None], x: Any, out_shape: list[int], mode: UnconnectedGradients
) -> Tensor | None:
    if all(r is None for r in rows):
        if mode is UnconnectedGradients.NONE:
            return None
        return zeros(out_shape, x.dtype)
    flat = [reshape(zeros_like(x) if r is None else r, [-1]) for r in rows]
    return reshape(stack(flat), out_shape)


def jacobian_rows(
    target: Tensor, sources: list[Any], mode: UnconnectedGradients, vjp: Vjp
) -> list[Tensor | None]:
    """``jacobian`` by a loop: one reverse pass per element, seeded with a one-hot."""
    t_dims = _static_dims(target, "jacobian")
    s_dims = [_static_dims(s, "jacobian") for s in sources]
    n = int(np.prod(t_dims))
    if n == 0:  # no rows to stack: the jacobian is empty, as the vectorised pass gives it
        return [zeros(t_dims + d, s.dtype) for s, d in zip(sources, s_dims, strict=True)]
    rows: list[list[Tensor | None]] = [[] for _ in sources]
    for i in range(n):
        seed = _one_hot(i, t_dims, target)
        for j, g in enumerate(vjp([target], [seed], sources)):
            rows[j].append(g)
    return [
        _assemble(r, s, t_dims + d, mode) for r, s, d in zip(rows, sources, s_dims, strict=True)
    ]


def batch_jacobian_rows(target: Tensor, source: Any, vjp: Vjp) -> Tensor:
    """``batch_jacobian`` by a loop: one reverse pass per element of one example's output."""
    _check_batch_shapes(target, source)
    t_dims = _static_dims(target, "batch_jacobian")
    x_dims = _static_dims(source, "batch_jacobian")
    b, per = t_dims[0], int(np.prod(t_dims[1:]))
    rows: list[Tensor | None] = []
    for j in range(per):
        arr = np.zeros((b, per), target.dtype.np)
        arr[:, j] = 1
        (g,) = vjp([target], [constant(arr.reshape(t_dims))], [source])
        rows.append(None if g is None else reshape(g, [b, -1]))
    if all(r is None for r in rows):
        return zeros(t_dims + x_dims[1:], target.dtype)
    filled = [zeros([b, int(np.prod(x_dims[1:]))], source.dtype) if r is None else r for r in rows]
    stacked = transpose(stack(filled), [1, 0, 2])  # [b, per, x]
    return reshape(stacked, t_dims + x_dims[1:])


def _one_hot(index: int, dims: list[int], like: Tensor) -> Tensor:
    arr = np.zeros(int(np.prod(dims)), like.dtype.np)
    arr[index] = 1
    return constant(arr.reshape(dims))


def _plain_vjp(
    targets: Sequence[Tensor], seeds: Sequence[Tensor], sources: Sequence[Any]
) -> list[Tensor | None]:
    return backprop(targets, seeds, sources)


def hessians(
    ys: Any,
    xs: Any,
    name: str = "hessians",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
) -> list[Tensor | None]:
    """For each x, the Hessian of ``sum(ys)`` w.r.t. x, of shape ``x.shape + x.shape``.

    Like ``tf.hessians``: a list with one entry per x (None where ys does not depend on x).
    Built as the (vectorised where possible) Jacobian of the gradient.
    """
    xs_l = [x if isinstance(x, Variable) else convert_to_tensor(x) for x in as_list(xs)]
    ys_l = [convert_to_tensor(y) for y in as_list(ys)]
    out: list[Tensor | None] = []
    with in_graph(graph_of(ys_l)):
        for x, g in zip(
            xs_l,
            gradients(ys_l, xs_l, name=name, aggregation_method=aggregation_method),
            strict=True,
        ):
            if g is None:
                out.append(None)
                continue
            (h,) = jacobian(dense(g), [x], UnconnectedGradients.NONE, _plain_vjp)
            out.append(h)
    return out


def hessian_vector_product(ys: Any, xs: Any, v: Any) -> list[Tensor | None]:
    """``[H v]`` for the Hessian H of ``sum(ys)`` w.r.t. xs, with one v per x (two passes).

    Computes the gradient, takes its inner product with ``stop_gradient(v)``, and
    differentiates that again: the Hessian itself is never formed.
    """
    xs_l = as_list(xs)
    vs = as_list(v)
    if len(vs) != len(xs_l):
        raise ValueError(f"xs and v must have the same length, got {len(xs_l)} and {len(vs)}")
    grads = gradients(ys, xs_l)
    products = [
        multiply(g, stop_gradient(convert_to_tensor(u, dtype=g.dtype)))
        for g, u in zip(grads, vs, strict=True)
        if g is not None
    ]
    if not products:
        return [None] * len(xs_l)
    return gradients(products, xs_l)


def hessians_v2(
    ys: Any,
    xs: Any,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    name: str = "hessians",
) -> list[Tensor | None]:
    """``tf.hessians``: TF2's signature; TF1's is ``tf.compat.v1.hessians``."""
    return hessians(
        ys, xs, name=name, gate_gradients=gate_gradients, aggregation_method=aggregation_method
    )
