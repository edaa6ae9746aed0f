"""LRN and LRNGrad: ``tf.nn.local_response_normalization`` (``tf.nn.lrn``).

Over the last axis of a 4-D input, ``out[..., d] = x[..., d] / (bias + alpha · sqr)^beta``
with ``sqr`` the sum of ``x²`` over the window ``d - r .. d + r``.  Its gradient is the
op ``LRNGrad`` (TF's rule); the grad kernel follows TF's CPU loop (window by window, in the
input's dtype).  TF has no gradient for LRNGrad, so neither does symgrad.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call
from symgrad.core.cases import Case, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.ops.array import structure as array
from symgrad.ops.core import check_dtype, convert_to_tensor

_TYPES = (dt.float16, dt.float32, dt.float64)


def _window_sums(x: np.ndarray, r: int) -> np.ndarray:
    """Each depth's sum of squares over its window, added in depth order."""
    sq = x * x
    depth = x.shape[-1]
    out = np.zeros_like(x)
    for d in range(depth):
        for k in range(max(0, d - r), min(depth, d + r + 1)):
            out[..., d] += sq[..., k]
    return out


def _lrn_kernel(
    x: np.ndarray,
    *,
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
) -> np.ndarray:
    if x.ndim != 4:
        raise InvalidArgumentError("in must be 4-dimensional")
    t = x.dtype.type
    norm = t(bias) + t(alpha) * _window_sums(x, depth_radius)
    return np.asarray(x * np.power(norm, t(-beta)), x.dtype)


def _lrn_grad_kernel(
    grads: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    *,
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
) -> np.ndarray:
    """TF's loop: for each depth j, d x[k] += (-2αβ·x[k]·y[j]/norm_j + [k = j]·norm_j^-β)·g[j]."""
    if not (grads.ndim == x.ndim == y.ndim == 4) or not grads.shape == x.shape == y.shape:
        raise InvalidArgumentError(
            "input_grads, input_image, and out_image should have the same shape"
        )
    t = x.dtype.type
    depth = x.shape[-1]
    norms = t(alpha) * _window_sums(x, depth_radius) + t(bias)
    coef = t(-2) * t(alpha) * t(beta)
    out = np.zeros_like(x)
    for j in range(depth):
        norm, g, yj = norms[..., j], grads[..., j], y[..., j]
        for k in range(max(0, j - depth_radius), min(depth, j + depth_radius + 1)):
            dyi = coef * x[..., k] * yj / norm
            if k == j:
                dyi = dyi + np.power(norm, t(-beta))
            out[..., k] += dyi * g
    return out


def _check_attrs(depth_radius: int) -> None:
    if depth_radius < 0:
        raise ShapeError(f"depth_radius = {depth_radius} must be non-negative")


def _lrn_infer(inputs: Sequence[Tensor], *, depth_radius: int = 5, **_: Any) -> Spec:
    (x,) = inputs
    check_dtype("LRN", x, _TYPES, "input")
    _check_attrs(depth_radius)
    if x.shape.rank not in (4, None):
        raise ShapeError(f"Shape must be rank 4 but is rank {x.shape.rank}")
    return x.shape, x.dtype


def _lrn_grad_infer(inputs: Sequence[Tensor], *, depth_radius: int = 5, **_: Any) -> Spec:
    for t, what in zip(inputs, ("input_grads", "input_image", "output_image"), strict=True):
        check_dtype("LRNGrad", t, _TYPES, what)
        if t.shape.rank not in (4, None):
            raise ShapeError(f"Shape must be rank 4 but is rank {t.shape.rank}")
    _check_attrs(depth_radius)
    shape = inputs[0].shape
    for t in inputs[1:]:
        shape = shape.merge_with(t.shape)
    return shape, inputs[0].dtype


_ATTRS = {"depth_radius": 2, "bias": 1.5, "alpha": 0.3, "beta": 0.75}


def _norm(x: np.ndarray) -> np.ndarray:
    sq = np.pad(x * x, [(0, 0)] * 3 + [(2, 2)])
    return np.asarray(1.5 + 0.3 * sum(sq[..., i : i + x.shape[-1]] for i in range(5)))


def _ref(x: np.ndarray) -> np.ndarray:
    return x / _norm(x) ** 0.75


def _grad_ref(g: np.ndarray, x: np.ndarray) -> np.ndarray:
    """g·n^-β + 2αx·Σ_window(-β)·g·x·n^(-β-1), the window sum taken as in _norm."""
    n = _norm(x)
    back = np.pad(-0.75 * g * x * n**-1.75, [(0, 0)] * 3 + [(2, 2)])
    return g * n**-0.75 + 2 * 0.3 * x * sum(back[..., i : i + x.shape[-1]] for i in range(5))


LRN = register_op(
    "LRN",
    _lrn_infer,
    _lrn_kernel,
    cases=[Case([randn(2, 3, 2, 6)], _ref, attrs=_ATTRS, order=1, note="LRNGrad has none")],
)
LRN_GRAD = register_op(
    "LRNGrad",
    _lrn_grad_infer,
    _lrn_grad_kernel,
    cases=[
        Case(
            [randn(1, 2, 3, 5), randn(1, 2, 3, 5)],
            _grad_ref,
            lambda g, x: apply_op1("LRNGrad", [g, x, lrn(x, 2, 1.5, 0.3, 0.75)], _ATTRS),
            order=0,
            note="TF registers no gradient for LRNGrad",
        )
    ],
)
LRN_GRAD.no_gradient()


def _batch(c: Call) -> list[Tensor]:
    """The examples are more images of the batch: [K, N, H, W, C] as [K·N, H, W, C]."""
    dims = c.dims(0)
    xs = [array.reshape(c.full(i), [c.k * dims[0]] + dims[1:]) for i in range(len(c.xs))]
    return [array.reshape(c.apply(xs)[0], [c.k] + dims)]


LRN.batching(_batch)
LRN_GRAD.batching(_batch)


@LRN.gradient
def _lrn_grad(op: Any, grad: Tensor) -> Tensor:
    """d input = LRNGrad(grad, input, output) with the op's attrs."""
    return apply_op1("LRNGrad", [grad, op.inputs[0], op.outputs[0]], op.attrs)


def lrn(
    input: Any,
    depth_radius: int = 5,
    bias: float = 1,
    alpha: float = 1,
    beta: float = 0.5,
    name: str | None = None,
) -> Tensor:
    """Local response normalization over the last axis (op ``LRN``)."""
    x = convert_to_tensor(input)
    attrs = {
        "depth_radius": int(depth_radius),
        "bias": float(bias),
        "alpha": float(alpha),
        "beta": float(beta),
    }
    return apply_op1("LRN", [x], attrs, name)


local_response_normalization = lrn
