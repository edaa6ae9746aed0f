"""Normalisation: FusedBatchNormV3 and its Grad op, batch_normalization, moments, l2_normalize.

``FusedBatchNormV3`` is TF's CPU kernel: in training it normalises with the batch's mean
and biased variance and outputs the unbiased variance (``n / (n - 1)``) for the running
average; in inference it uses the given mean and variance.  TF's gradient flows only from
``y`` (gradients reaching the mean and variance outputs are dropped, as in TF), through
``FusedBatchNormGradV3``; that op's own gradient is TF's (the derivative of its formula,
with the statistics recomputed from x) written out in closed form.  float16 computes in
float32, as TF; float64, which TF's op refuses, is accepted here so that finite
differences can check it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call
from symgrad.core.cases import Case, positive, randn
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import OPS, ShapeError, Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import ZEROS_LIKE
from symgrad.ops.core import FLOATS, check_dtype, convert_to_tensor, stop_gradient
from symgrad.ops.math import elementwise as math
from symgrad.ops.nn.conv import fold, unfold
from symgrad.ops.reduction import reduce as reduction

_FORMATS = {"NHWC": 4, "NCHW": 4, "NDHWC": 5, "NCDHW": 5}


def _axes(rank: int, data_format: str) -> tuple[int, tuple[int, ...]]:
    """(channel axis, the other axes) of a data format."""
    ch = 1 if data_format.startswith("NC") else rank - 1
    return ch, tuple(i for i in range(rank) if i != ch)


def _per_channel(v: np.ndarray, rank: int, ch: int) -> np.ndarray:
    shape = [1] * rank
    shape[ch] = -1
    return v.reshape(shape)


def _u(x: np.ndarray) -> Any:
    return np.float32 if x.dtype == np.float16 else x.dtype.type


def _fbn_kernel(
    x: np.ndarray,
    scale: np.ndarray,
    offset: np.ndarray,
    mean: np.ndarray,
    variance: np.ndarray,
    *,
    epsilon: float = 1e-4,
    exponential_avg_factor: float = 1.0,
    data_format: str = "NHWC",
    is_training: bool = True,
) -> tuple[np.ndarray, ...]:
    ch, axes = _axes(x.ndim, data_format)
    xf, u = x.astype(_u(x), copy=False), _u(x)
    if is_training:
        m = xf.mean(axes)
        xc = xf - _per_channel(m, x.ndim, ch)
        v = np.square(xc).mean(axes)
        n = xf.size // max(xf.shape[ch], 1)
        unbiased = v * (n / max(n - 1, 1))
        f = u(exponential_avg_factor)
        new_mean, new_var = (
            (m, unbiased) if f == 1 else ((1 - f) * mean + f * m, (1 - f) * variance + f * unbiased)
        )
    else:
        m, v = mean, variance
        xc = xf - _per_channel(m, x.ndim, ch)
        new_mean, new_var = mean, variance
    k = _per_channel(scale / np.sqrt(v + u(epsilon)), x.ndim, ch)
    y = (xc * k + _per_channel(offset, x.ndim, ch)).astype(x.dtype)
    return y, new_mean, new_var, m, v, np.zeros((), u)


def _fbn_grad_kernel(
    g: np.ndarray,
    x: np.ndarray,
    scale: np.ndarray,
    rs1: np.ndarray,
    rs2: np.ndarray,
    rs3: np.ndarray,
    *,
    epsilon: float = 1e-4,
    data_format: str = "NHWC",
    is_training: bool = True,
) -> tuple[np.ndarray, ...]:
    ch, axes = _axes(x.ndim, data_format)
    u = _u(x)
    gf, xf = g.astype(u, copy=False), x.astype(u, copy=False)
    r = 1 / np.sqrt(rs2 + u(epsilon))
    xhat = (xf - _per_channel(rs1, x.ndim, ch)) * _per_channel(r, x.ndim, ch)
    d_offset, d_scale = gf.sum(axes), (gf * xhat).sum(axes)
    if is_training:
        n = xf.size // max(xf.shape[ch], 1)
        centred = (
            gf
            - _per_channel(d_offset / n, x.ndim, ch)
            - xhat * _per_channel(d_scale / n, x.ndim, ch)
        )
        dx = centred * _per_channel(scale * r, x.ndim, ch)
    else:
        dx = gf * _per_channel(scale * r, x.ndim, ch)
    empty = np.zeros((0,), u)
    return dx.astype(x.dtype), d_scale, d_offset, empty, empty.copy()


# --------------------------------------------------------------------------------------
# Shape rules


def _x_dims(op_type: str, x: Tensor, data_format: str) -> tuple[list[Any], Any]:
    check_dtype(op_type, x, FLOATS, "x")
    if data_format not in _FORMATS:
        raise ShapeError(f"Invalid data format: {data_format!r}")
    if x.shape.rank not in (None, 4, 5):
        raise ShapeError(f"input must be 4 or 5-dimensional{x.shape}")
    rank = x.shape.rank or _FORMATS[data_format]
    dims = [None] * rank if x.shape.dims is None else list(x.shape.dims)
    return dims, dims[_axes(rank, data_format)[0]]


def _vector(t: Tensor, c: Any, what: str, u: dt.DType, empty_ok: bool = False) -> Any:
    if t.dtype is not u:
        raise TypeError(f"{what} has dtype {t.dtype.name}, expected {u.name}")
    if t.shape.rank not in (None, 1):
        raise ShapeError(f"{what} must be 1-dimensional{t.shape}")
    n = None if t.shape.rank is None else t.shape[0]
    if n is not None and c is not None and n != c and not (empty_ok and n == 0):
        raise ShapeError(
            f"{what} must have the same number of elements as the channels of x, got {n} and {c}"
        )
    return c if c is not None else n if n else None


def _fbn_infer(
    inputs: Sequence[Tensor],
    *,
    data_format: str = "NHWC",
    is_training: bool = True,
    exponential_avg_factor: float = 1.0,
    **_: Any,
) -> list[Spec]:
    x, scale, offset, mean, variance = inputs
    dims, c = _x_dims("FusedBatchNormV3", x, data_format)
    u = dt.float32 if x.dtype is dt.float16 else x.dtype
    for t, what in ((scale, "scale"), (offset, "offset")):
        c = _vector(t, c, what, u)
    empty_ok = is_training and exponential_avg_factor == 1
    for t, what in ((mean, "mean"), (variance, "variance")):
        _vector(t, c, what, u, empty_ok)
    vec = (TensorShape([c]), u)
    return [(TensorShape(dims), x.dtype), vec, vec, vec, vec, (TensorShape([]), u)]


def _fbn_grad_infer(inputs: Sequence[Tensor], *, data_format: str = "NHWC", **_: Any) -> list[Spec]:
    g, x, scale, rs1, rs2, _rs3 = inputs
    if g.dtype is not x.dtype:
        raise TypeError(f"y_backprop has dtype {g.dtype.name}, x has {x.dtype.name}")
    dims, c = _x_dims("FusedBatchNormGradV3", x, data_format)
    u = dt.float32 if x.dtype is dt.float16 else x.dtype
    for t, what in ((scale, "scale"), (rs1, "reserve_space_1"), (rs2, "reserve_space_2")):
        c = _vector(t, c, what, u)
    vec = (TensorShape([c]), u)
    empty = (TensorShape([0]), u)
    return [(TensorShape(dims), x.dtype), vec, vec, empty, empty]


# --------------------------------------------------------------------------------------
# Op-table references


def _fbn_ref(training: bool, fmt: str = "NHWC", eps: float = 1e-4) -> Any:
    def ref(x: np.ndarray, s: np.ndarray, o: np.ndarray, m: np.ndarray, v: np.ndarray) -> Any:
        ch, axes = _axes(x.ndim, fmt)
        bm, bv = (x.mean(axes), x.var(axes)) if training else (m, v)
        shape = [1] * x.ndim
        shape[ch] = -1
        y = (x - bm.reshape(shape)) / np.sqrt(bv.reshape(shape) + eps) * s.reshape(
            shape
        ) + o.reshape(shape)
        n = x.size // x.shape[ch]
        return [y, bm, bv * n / (n - 1) if training else bv, bm, bv, np.zeros(())]

    return ref


def _fbn_grad_ref(training: bool, fmt: str = "NHWC", eps: float = 1e-4) -> Any:
    """Textbook batch-norm backward pass (training) or the affine map's (inference)."""

    def ref(
        g: np.ndarray, x: np.ndarray, s: np.ndarray, m: np.ndarray, v: np.ndarray, _: np.ndarray
    ) -> Any:
        ch, axes = _axes(x.ndim, fmt)
        shape = [1] * x.ndim
        shape[ch] = -1
        inv = 1 / np.sqrt(v.reshape(shape) + eps)
        xhat = (x - m.reshape(shape)) * inv
        ds, do = (g * xhat).sum(axes), g.sum(axes)
        dx = (
            s.reshape(shape)
            * inv
            * (
                g - g.mean(axes, keepdims=True) - xhat * (g * xhat).mean(axes, keepdims=True)
                if training
                else g
            )
        )
        return [dx, ds, do, np.zeros(0), np.zeros(0)]

    return ref


def _empty(rng: np.random.Generator, d: Any) -> np.ndarray:
    return np.zeros(0, d)


def _stats_of_x(fn: Any) -> Any:
    """A FusedBatchNormGradV3 row whose reserve spaces are x's statistics, computed in the
    graph, so that finite differences see them move with x as TF's rule assumes."""

    def call(g: Tensor, x: Tensor, s: Tensor) -> Any:
        m = reduction.reduce_mean(x, [0, 1, 2])
        v = reduction.reduce_mean(math.square(x - m), [0, 1, 2])
        return fn(g, x, s, m, v)

    return call


def _train_grad_ref(g: np.ndarray, x: np.ndarray, s: np.ndarray) -> Any:
    return _fbn_grad_ref(True)(g, x, s, x.mean((0, 1, 2)), x.var((0, 1, 2)), np.zeros(()))[:3]


_TRAIN = {"epsilon": 1e-4, "is_training": True, "data_format": "NHWC"}
FUSED_BATCH_NORM = register_op(
    "FusedBatchNormV3",
    _fbn_infer,
    _fbn_kernel,
    cases=[
        Case(
            [randn(2, 3, 2, 4), positive(4), randn(4), _empty, _empty],
            _fbn_ref(True),
            attrs=_TRAIN,
            order=0,
            name="train_all_outputs",
            note="TF's gradient flows from y alone; the y rows below check it",
        ),
        Case(
            [randn(2, 2, 1, 3), positive(3), randn(3), randn(3), positive(3)],
            _fbn_ref(False),
            attrs={**_TRAIN, "is_training": False},
            diff=[0, 1, 2],
            name="inference_all_outputs",
            note="TF gives no gradient for the population mean and variance",
        ),
        Case(
            [randn(2, 3, 2, 4), positive(4), randn(4)],
            lambda x, s, o: _fbn_ref(True, eps=0.01)(x, s, o, None, None)[0],
            fn=lambda x, s, o: fused_batch_norm(x, s, o, epsilon=0.01)[0],
            name="train_y",
        ),
        Case(
            [randn(2, 4, 3, 2), positive(4), randn(4), randn(4), positive(4)],
            lambda x, s, o, m, v: _fbn_ref(False, "NCHW", 1e-3)(x, s, o, m, v)[0],
            fn=lambda x, s, o, m, v: fused_batch_norm(
                x, s, o, m, v, data_format="NCHW", is_training=False
            )[0],
            diff=[0, 1, 2],
            name="inference_nchw_y",
            note="TF gives no gradient for the population mean and variance",
        ),
        Case(
            [randn(2, 2, 3, 2, 3), positive(3), randn(3)],
            lambda x, s, o: _fbn_ref(True, "NDHWC", 1e-3)(x, s, o, None, None)[0],
            fn=lambda x, s, o: fused_batch_norm(x, s, o, data_format="NDHWC")[0],
            name="train_5d",
        ),
    ],
)
FUSED_BATCH_NORM_GRAD = register_op(
    "FusedBatchNormGradV3",
    _fbn_grad_infer,
    _fbn_grad_kernel,
    cases=[
        Case(
            [randn(2, 3, 2, 4), randn(2, 3, 2, 4), positive(4)],
            _train_grad_ref,
            fn=_stats_of_x(
                lambda g, x, s, m, v: apply_op(
                    "FusedBatchNormGradV3", [g, x, s, m, v, array.zeros([], x.dtype)], _TRAIN
                ).outputs[:3]
            ),
            name="train",
        ),
        Case(
            [
                randn(2, 3, 1, 2),
                randn(2, 3, 1, 2),
                positive(3),
                randn(3),
                positive(3),
                lambda rng, d: np.zeros((), d),
            ],
            _fbn_grad_ref(False, "NCHW", 1e-3),
            attrs={"epsilon": 1e-3, "is_training": False, "data_format": "NCHW"},
            diff=[0, 1, 2],
            name="inference_nchw",
            note="TF gives no gradient for the population mean and variance",
        ),
    ],
)


_DEFAULTS = {"epsilon": 1e-4, "data_format": "NHWC", "is_training": True}


def _attrs(op: Any) -> dict[str, Any]:
    """The attrs the Grad op shares, with the op's defaults where a call left them out."""
    return {k: op.attrs.get(k, v) for k, v in _DEFAULTS.items()}


@FUSED_BATCH_NORM.gradient
def _fused_batch_norm_grad(op: Any, *grads: Tensor) -> tuple[Any, ...]:
    """dx, d scale, d offset = FusedBatchNormGradV3(g_y, x, scale, statistics); as in TF,
    gradients reaching the mean and variance outputs pass nothing back."""
    if grads[0] is None:
        return None, None, None, None, None
    x, scale, _, mean, variance = op.inputs
    training = _attrs(op)["is_training"]
    rs1, rs2 = (op.outputs[3], op.outputs[4]) if training else (mean, variance)
    outs = apply_op(
        "FusedBatchNormGradV3", [grads[0], x, scale, rs1, rs2, op.outputs[5]], _attrs(op)
    ).outputs
    return outs[0], outs[1], outs[2], None, None


@array_rule("FusedBatchNormV3")
def _fused_batch_norm_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    g = grads[0] if grads[0] is not None else ZEROS_LIKE(ys[0])  # the engine's zeros
    x, scale, _, mean, variance = xs
    full = {k: attrs.get(k, v) for k, v in _DEFAULTS.items()}
    rs1, rs2 = (ys[3], ys[4]) if full["is_training"] else (mean, variance)
    outs = OPS["FusedBatchNormGradV3"].kernel(g, x, scale, rs1, rs2, ys[5], **full)
    u = np.float32 if x.dtype == np.float16 else x.dtype
    d = [np.asarray(v, dtype=t) for v, t in zip(outs[:3], (x.dtype, u, u), strict=True)]
    return [*d, None, None]


class _PerChannel:
    """Per-channel reductions and broadcasting of a data format, with ops."""

    def __init__(self, rank: int, data_format: str) -> None:
        self.ch, self.axes = _axes(rank, data_format)
        self.shape = [1] * rank
        self.shape[self.ch] = -1
        self.last = self.ch == rank - 1

    def bc(self, v: Tensor) -> Tensor:
        return v if self.last else array.reshape(v, self.shape)

    def mean(self, t: Tensor) -> Tensor:
        return reduction.reduce_mean(t, list(self.axes), keepdims=True)

    def total(self, t: Tensor) -> Tensor:
        return reduction.reduce_sum(t, list(self.axes))


def _train_grad_grad(
    p: _PerChannel, g: Tensor, x: Tensor, a: Tensor, b: Tensor, c: Tensor, s: Tensor, eps: float
) -> tuple[Tensor, Tensor, Tensor]:
    xc = x - p.mean(x)
    r = math.rsqrt(p.mean(math.square(xc)) + eps)
    xhat = xc * r
    gx, ax = p.mean(g * xhat), p.mean(a * xhat)
    big_g = g - p.mean(g) - xhat * gx
    big_h = a - p.mean(a) - xhat * ax
    dg = s * r * big_h + b * xhat + c
    dx = b * r * big_g - s * math.square(r) * (
        xhat * p.mean(a * (g - p.mean(g))) + big_g * ax + gx * big_h - xhat * gx * ax
    )
    return dg, dx, p.total(a * r * big_g)


@FUSED_BATCH_NORM_GRAD.gradient
def _fused_batch_norm_grad_grad(op: Any, *grads: Tensor) -> tuple[Any, ...]:
    """The derivative of FusedBatchNormGradV3's formula (TF differentiates it with a tape).

    With A, B, C the cotangents of dx, d scale, d offset, means ⟨·⟩ per channel, r = 1/σ,
    x̂ = (x - ⟨x⟩)·r and G = g - ⟨g⟩ - x̂⟨g·x̂⟩ (H likewise for A): in training
    d g = s·r·H + B·x̂ + C,  d s = Σ A·r·G,  d x = B·r·G - s·r²·(x̂⟨A(g - ⟨g⟩)⟩
    + G⟨A·x̂⟩ + ⟨g·x̂⟩·H - x̂⟨g·x̂⟩⟨A·x̂⟩); in inference (σ, ⟨x⟩ given)
    d g = A·s·r + B·(x - ⟨x⟩)·r + C,  d s = Σ A·g·r,  d x = B·g·r.
    """
    g, x, scale, rs1, rs2 = op.inputs[:5]
    attrs = _attrs(op)
    half = x.dtype is dt.float16  # computed in float32, as TF's _BatchNormGrad
    g, x = (array.cast(g, dt.float32), array.cast(x, dt.float32)) if half else (g, x)
    a, b, c = (
        array.zeros_like(t) if grads[i] is None else grads[i]
        for i, t in enumerate((x, scale, scale))
    )
    a = array.cast(a, dt.float32) if half else a
    if x.shape.rank is None:
        raise ValueError("FusedBatchNormGradV3's gradient needs x of known rank")
    p = _PerChannel(x.shape.rank, attrs["data_format"])
    s, b, c = p.bc(scale), p.bc(b), p.bc(c)
    if attrs["is_training"]:
        dg, dx, ds = _train_grad_grad(p, g, x, a, b, c, s, attrs["epsilon"])
    else:
        r = math.rsqrt(p.bc(rs2) + attrs["epsilon"])
        dg = a * s * r + b * (x - p.bc(rs1)) * r + c
        dx, ds = b * g * r, p.total(a * g * r)
    if half:
        dg, dx = array.cast(dg, dt.float16), array.cast(dx, dt.float16)
    return dg, dx, ds, None, None, None


# --------------------------------------------------------------------------------------
# Batching: the examples become more channels (the statistics are per channel)


def _channels_batch(c: Call, data: Sequence[int], vectors: Sequence[int]) -> tuple[Any, ...]:
    xd = c.dims(data[0])
    rank = len(xd)
    ch = _axes(rank, _attrs(c.op)["data_format"])[0]
    ins = list(c.xs)
    for i in data:
        ins[i] = fold(c.full(i), xd, ch, c.k)
    for i in vectors:
        n = c.dims(i)[0]
        if n == 0:  # an unused statistic (training): K empty vectors are one
            ins[i] = array.reshape(c.xs[i], [0]) if c.batched[i] else c.xs[i]
            continue
        ins[i] = array.reshape(c.xs[i], [c.k * n]) if c.batched[i] else array.tile(c.xs[i], [c.k])
    outs = c.apply(ins)
    y = unfold(outs[0], xd[:ch] + [c.k * xd[ch]] + xd[ch + 1 :], ch, c.k)
    return y, outs, xd[ch]


@FUSED_BATCH_NORM.batching
def _fbn_batch(c: Call) -> list[Tensor]:
    y, outs, n = _channels_batch(c, [0], [1, 2, 3, 4])
    u = outs[1].dtype
    return [y, *(array.reshape(t, [c.k, n]) for t in outs[1:5]), array.zeros([c.k], u)]


@FUSED_BATCH_NORM_GRAD.batching
def _fbn_grad_batch(c: Call) -> list[Tensor]:
    if c.batched[5]:  # unused by the kernel (nor does TF's CPU kernel)
        c.xs[5] = array.zeros([], c.op.inputs[5].dtype)
    dx, outs, n = _channels_batch(c, [0, 1], [2, 3, 4])
    u = outs[1].dtype
    return [
        dx,
        array.reshape(outs[1], [c.k, n]),
        array.reshape(outs[2], [c.k, n]),
        array.zeros([c.k, 0], u),
        array.zeros([c.k, 0], u),
    ]


# --------------------------------------------------------------------------------------
# tf.nn's functions


def fused_batch_norm(
    x: Any,
    scale: Any,
    offset: Any,
    mean: Any = None,
    variance: Any = None,
    epsilon: float = 0.001,
    data_format: str = "NHWC",
    is_training: bool = True,
    name: str | None = None,
    exponential_avg_factor: float = 1.0,
) -> tuple[Tensor, Tensor, Tensor]:
    """(y, batch or running mean, batch or running variance): ``FusedBatchNormV3``.

    epsilon is at least 1.001e-5, as in TF (a bound cuDNN sets).
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError(
            "Both `mean` and `variance` must be a 1D tensor when `is_training` is "
            "False or `exponential_avg_factor` != 1.0. Received: `mean` "
            f"{mean!r} and `variance` {variance!r}"
        )
    x = convert_to_tensor(x)
    u = dt.float32 if x.dtype is dt.float16 else x.dtype
    scale, offset = convert_to_tensor(scale, dtype_hint=u), convert_to_tensor(offset, dtype_hint=u)
    mean = array.zeros([0], u) if mean is None else convert_to_tensor(mean, dtype_hint=u)
    variance = (
        array.zeros([0], u) if variance is None else convert_to_tensor(variance, dtype_hint=u)
    )
    attrs = {
        "epsilon": max(float(epsilon), 1.001e-5),
        "data_format": data_format,
        "is_training": bool(is_training),
        "exponential_avg_factor": float(exponential_avg_factor),
    }
    outs = apply_op(
        "FusedBatchNormV3", [x, scale, offset, mean, variance], attrs, name or "FusedBatchNormV3"
    ).outputs
    return outs[0], outs[1], outs[2]


def batch_normalization(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any,
    scale: Any,
    variance_epsilon: Any,
    name: str | None = None,
) -> Tensor:
    """(x - mean)·scale/√(variance + ε) + offset, in TF's order of ops."""
    with name_scope(name, "batchnorm"):
        x = convert_to_tensor(x)
        inv = math.rsqrt(convert_to_tensor(variance, dtype_hint=x.dtype) + variance_epsilon)
        if scale is not None:
            inv = inv * scale
        mean = convert_to_tensor(mean, dtype_hint=x.dtype)
        shift = offset - mean * inv if offset is not None else -mean * inv
        return x * array.cast(inv, x.dtype) + array.cast(shift, x.dtype)


def moments(
    x: Any,
    axes: Any,
    shift: Any = None,
    keepdims: bool | None = None,
    name: str | None = None,
    keep_dims: bool | None = None,
) -> tuple[Tensor, Tensor]:
    """Mean and (biased) variance over ``axes``; float16 is computed in float32 (as TF).

    The variance subtracts a stop_gradient of the mean, as TF does: first derivatives are
    exact (the variance's derivative through the mean is zero), but second derivatives
    lose the mean's coupling term, as TF's do.  ``shift`` is accepted and unused (TF 2).
    """
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, "moments"):
        x = convert_to_tensor(x)
        y = array.cast(x, dt.float32) if x.dtype is dt.float16 else x
        axes = list(axes) if isinstance(axes, list | tuple) else axes
        mean = reduction.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = reduction.reduce_mean(
            math.squared_difference(y, stop_gradient(mean)), axes, keepdims=True, name="variance"
        )
        if not keep:
            mean, variance = array.squeeze(mean, axes), array.squeeze(variance, axes)
        if x.dtype is dt.float16:
            return array.cast(mean, dt.float16), array.cast(variance, dt.float16)
        return mean, variance


def l2_normalize(
    x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None, dim: Any = None
) -> Tensor:
    """x / √max(Σ x², ε) over ``axis`` (``dim`` is TF1's name for it)."""
    axis = dim if axis is None else axis
    with name_scope(name, "l2_normalize"):
        x = convert_to_tensor(x)
        if x.dtype.is_complex:
            raise TypeError("l2_normalize of complex tensors is not supported by symgrad")
        square_sum = reduction.reduce_sum(math.square(x), axis, keepdims=True)
        return x * math.rsqrt(math.maximum(square_sum, epsilon))
