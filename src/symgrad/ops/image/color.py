"""RGBToHSV, HSVToRGB, AdjustHue and AdjustSaturation as TF's CPU kernels.

RGBToHSV and HSVToRGB (``colorspace_op.h``) are Eigen expressions in the image's own
type (half, bfloat16, float, double): ``V = max``, ``range = V - min``,
``S = range / V`` (0 where ``V`` is 0), ``H`` from ``(1 / range) * (1 / 6)`` times the
two other channels' difference, plus 2/6 or 4/6 by the channel that is the maximum,
wrapped into [0, 1); back, ``((1 - S) + S * clip(...)) * V`` per channel.  NumPy
computes each step in the same type, so the values agree to the bit.

AdjustHue and AdjustSaturation are float32 loops over pixels (TF has no other CPU
kernel).  AdjustHue sorts each pixel's channels into max, mid and min, takes the hue in
[0, 6) from the mid channel's place between them, adds ``6 * delta``, wraps, and puts
the mid channel back at its new place.  AdjustSaturation converts to HSV (its ``+ 2/6``
and ``+ 4/6`` are added in double, as TF's C++ does), scales and clamps S, and converts
back; both are followed step by step, vectorised.

Gradients: RGBToHSV's is TF's ``_RGBToHSVGrad`` (``symgrad.api.image_space.hsv``
composes it from ops, so the numbers are TF's); HSVToRGB is ``NotDifferentiable`` in TF
(a tape gives None); TF registers none for AdjustHue and AdjustSaturation (a tape raises
``LookupError``), and neither does symgrad.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call
from symgrad.core.cases import Case, fixed, uniform
from symgrad.core.errors import FailedPreconditionError, InvalidArgumentError
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.ops.array.joining import stack
from symgrad.ops.cast_select import cast
from symgrad.ops.core import convert_to_tensor, tf_has_no_gradient
from symgrad.ops.math.elementwise import add, logical_and, square
from symgrad.ops.math.safe_math import divide_no_nan

F32 = np.float32
_COLOR_TYPES = (dt.float16, dt.float32, dt.float64)  # symgrad has no bfloat16


def _colorspace_infer(op_type: str) -> Any:
    def infer(inputs: list[Tensor]) -> Spec:
        (images,) = inputs
        if images.dtype not in _COLOR_TYPES:
            raise TypeError(
                f"Value for attr 'T' of {images.dtype.name} is not in the list of allowed "
                "values: half, bfloat16, float, double"
            )
        shape = images.shape
        if shape.rank is not None:
            if shape.rank < 1:
                raise ShapeError(f"Shape must be at least rank 1 but is rank {shape.rank}")
            last = shape.dims[-1]  # type: ignore[index]
            # TF's shape function refuses a known last axis other than 3 when a graph is
            # built; eagerly, the kernel's FailedPreconditionError reports it.
            if last is not None and last != 3 and not get_default_graph().eager:
                raise ShapeError(f"Dimension must be 3 but is {last}")
        return shape, images.dtype

    infer.__name__ = f"_{op_type}_infer"
    return infer


def _channels(images: np.ndarray) -> None:
    if images.shape[-1] != 3:
        raise FailedPreconditionError(
            f"input must have 3 channels but input only has {images.shape[-1]} channels."
        )


def _rgb_to_hsv(images: np.ndarray) -> np.ndarray:
    _channels(images)
    return rgb_to_hsv_xp(np, images)


def rgb_to_hsv_xp(xp: Any, images: Any) -> Any:
    """RGBToHSV's formulas on ``xp`` (NumPy here, jax.numpy for XLA)."""
    t = images.dtype.type
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    v = xp.maximum(xp.maximum(r, g), b)
    rng = v - xp.minimum(xp.minimum(r, g), b)
    s = xp.where(v > t(0), rng / v, t(0))
    norm = (t(1) / rng) * (t(1) / t(6))
    h = xp.where(
        r == v,
        norm * (g - b),
        xp.where(g == v, norm * (b - r) + t(2) / t(6), norm * (r - g) + t(4) / t(6)),
    )
    h = xp.where(rng > t(0), h, t(0))
    h = xp.where(h < t(0), h + t(1), h)
    return xp.stack([h, s, v], axis=-1).astype(images.dtype)


def _hsv_to_rgb(images: np.ndarray) -> np.ndarray:
    _channels(images)
    return hsv_to_rgb_xp(np, images)


def hsv_to_rgb_xp(xp: Any, images: Any) -> Any:
    """HSVToRGB's formulas on ``xp`` (NumPy here, jax.numpy for XLA)."""
    t = images.dtype.type
    h, s, v = images[..., 0], images[..., 1], images[..., 2]
    dh = h * t(6)

    def clip(x: Any) -> Any:
        return xp.minimum(xp.maximum(x, t(0)), t(1))

    dr = clip(xp.abs(dh - t(3)) - t(1))
    dg = clip(-xp.abs(dh - t(2)) + t(2))
    db = clip(-xp.abs(dh - t(4)) + t(2))
    one_minus_s = -s + t(1)
    out = [(one_minus_s + s * d) * v for d in (dr, dg, db)]
    return xp.stack(out, axis=-1).astype(images.dtype)


def _colorspace_batch(c: Call) -> list[Tensor]:
    """K stacked images are more leading axes."""
    return c.apply(c.xs)


def _hsv_ref(x: np.ndarray) -> np.ndarray:
    return _rgb_to_hsv(x)


RGB_TO_HSV = register_op(
    "RGBToHSV",
    _colorspace_infer("RGBToHSV"),
    _rgb_to_hsv,
    batch=_colorspace_batch,
    cases=[
        Case(
            [uniform(0.05, 1.0, 2, 4, 3)],
            _hsv_ref,
            order=1,
            note="TF's gradient is a piecewise formula: checked to first order",
        )
    ],
)


def _reciprocal(x: Tensor) -> Tensor:
    """TF's ``_CustomReciprocal``: ``div_no_nan(1, x)``."""
    return divide_no_nan(cast(1.0, x.dtype), x)


@RGB_TO_HSV.gradient
def _rgb_to_hsv_gradient(op: Any, grad: Tensor) -> Tensor:
    """TF's ``_RGBToHSVGrad``, term by term in its order (ties: R over G over B)."""
    x, y = op.inputs[0], op.outputs[0]
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    sat, val = y[..., 1], y[..., 2]
    d = x.dtype

    def is_(c: Tensor) -> Tensor:
        return cast(c, d)

    def pos(c: Tensor) -> Tensor:
        return cast(c > 0, d)

    r_big, g_big, b_big = (
        is_(logical_and(r >= b, r >= g)),
        is_(logical_and(g > r, g >= b)),
        is_(logical_and(b > r, b > g)),
    )
    r_small, g_small, b_small = (
        is_(logical_and(r < b, r < g)),
        is_(logical_and(g <= r, g < b)),
        is_(logical_and(b <= r, b <= g)),
    )
    ds_dr = pos(r) * add(
        r_big * add(g_small * g, b_small * b) * _reciprocal(square(r)),
        r_small * -1 * _reciprocal((g_big * g) + (b_big * b)),
    )
    ds_dg = pos(g) * add(
        g_big * add(r_small * r, b_small * b) * _reciprocal(square(g)),
        g_small * -1 * _reciprocal((r_big * r) + (b_big * b)),
    )
    ds_db = pos(b) * add(
        b_big * add(g_small * g, r_small * r) * _reciprocal(square(b)),
        b_small * -1 * _reciprocal((g_big * g) + (r_big * r)),
    )
    dh_dr = (
        60 * (pos(r) * r_big * -1 * (g - b) * _reciprocal(square(sat)) * _reciprocal(square(val)))
        + 60 * (pos(g) * g_big * r_small * (b - g) * _reciprocal(square(r - g)))
        + 60 * (pos(g) * g_big * b_small * -1 * _reciprocal(g - b))
        + 60 * (pos(b) * b_big * r_small * (b - g) * _reciprocal(square(b - r)))
        + 60 * (pos(b) * b_big * g_small * _reciprocal(b - g))
    ) / 360
    dh_dg = (
        60 * (pos(g) * g_big * -1 * (b - r) * _reciprocal(square(sat)) * _reciprocal(square(val)))
        + 60 * (pos(r) * r_big * g_small * (r - b) * _reciprocal(square(r - g)))
        + 60 * (pos(r) * r_big * b_small * _reciprocal(r - b))
        + 60 * (pos(b) * b_big * g_small * (r - b) * _reciprocal(square(b - g)))
        + 60 * (pos(b) * b_big * r_small * -1 * _reciprocal(b - r))
    ) / 360
    dh_db = (
        60 * (pos(b) * b_big * -1 * (r - g) * _reciprocal(square(sat)) * _reciprocal(square(val)))
        + 60 * (pos(r) * r_big * b_small * (g - r) * _reciprocal(square(r - b)))
        + 60 * (pos(r) * r_big * g_small * -1 * _reciprocal(r - g))
        + 60 * (pos(g) * g_big * b_small * (g - r) * _reciprocal(square(g - b)))
        + 60 * (pos(g) * g_big * r_small * _reciprocal(g - r))
    ) / 360
    gh, gs, gv = grad[..., 0], grad[..., 1], grad[..., 2]
    dv = stack([gv * r_big, gv * g_big, gv * b_big], axis=-1)
    ds = stack([gs * ds_dr, gs * ds_dg, gs * ds_db], axis=-1)
    dh = stack([gh * dh_dr, gh * dh_dg, gh * dh_db], axis=-1)
    return add(add(dv, ds), dh)


HSV_TO_RGB = register_op(
    "HSVToRGB",
    _colorspace_infer("HSVToRGB"),
    _hsv_to_rgb,
    batch=_colorspace_batch,
    cases=[
        Case(
            [uniform(0.05, 0.95, 5, 3)],
            _hsv_to_rgb,
            order=0,
            note="TF: NotDifferentiable",
        )
    ],
)
HSV_TO_RGB.no_gradient()  # TF: ops.NotDifferentiable('HSVToRGB')


def _adjust_infer(arg: str) -> Any:
    def infer(inputs: list[Tensor]) -> Spec:
        images, scalar = inputs
        if images.dtype is not dt.float32:
            raise TypeError(
                f"Value for attr 'T' of {images.dtype.name} is not in the list of allowed "
                "values: float"
            )
        if scalar.dtype is not dt.float32:
            raise TypeError(f"Input '{arg}' must be float32, got {scalar.dtype.name}")
        if images.shape.rank is not None and images.shape.rank < 3:
            raise ShapeError(f"Shape must be at least rank 3 but is rank {images.shape.rank}")
        if scalar.shape.rank is not None and scalar.shape.rank != 0:
            raise ShapeError(f"Shape must be rank 0 but is rank {scalar.shape.rank}")
        return images.shape, images.dtype

    return infer


def _adjust_checks(images: np.ndarray, scalar: np.ndarray, what: str) -> None:
    if images.ndim < 3:
        shape = ",".join(str(d) for d in images.shape)
        raise InvalidArgumentError(f"input must be at least 3-D, got shape[{shape}]")
    if scalar.ndim != 0:
        raise InvalidArgumentError(f"{what} must be scalar: {list(scalar.shape)}")
    if images.shape[-1] != 3:
        raise InvalidArgumentError(
            f"input must have 3 channels but instead has {images.shape[-1]} channels."
        )


def _hv_range(r: np.ndarray, g: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """TF's ``rgb_to_hv_range``: hue in [0, 6) and the min and max channels."""
    rg = r < g
    cases = [
        (rg & (b < r), g, r, b, 1),
        (rg & ~(b < r) & (b > g), b, g, r, 3),
        (rg & ~(b < r) & ~(b > g), g, b, r, 2),
        (~rg & (b < g), r, g, b, 0),
        (~rg & ~(b < g) & (b > r), b, r, g, 4),
        (~rg & ~(b < g) & ~(b > r), r, b, g, 5),
    ]
    vmax = np.select([c[0] for c in cases], [c[1] for c in cases])
    vmid = np.select([c[0] for c in cases], [c[2] for c in cases])
    vmin = np.select([c[0] for c in cases], [c[3] for c in cases])
    cat = np.select([c[0] for c in cases], [c[4] for c in cases]).astype(F32)
    ratio = (vmid - vmin) / (vmax - vmin)
    increase = (cat.astype(np.int32) & 1) == 0
    h = cat + np.where(increase, ratio, F32(1) - ratio)
    h = np.where(vmax == vmin, F32(0), h).astype(F32)
    return h, vmin, vmax


def _adjust_hue(images: np.ndarray, delta: np.ndarray) -> np.ndarray:
    _adjust_checks(images, delta, "delta")
    x = images.astype(F32)
    h, vmin, vmax = _hv_range(x[..., 0], x[..., 1], x[..., 2])
    h = h + F32(delta) * F32(6)
    while (low := h < 0).any():
        h = np.where(low, h + F32(6), h)
    while (high := h >= 6).any():
        h = np.where(high, h - F32(6), h)
    cat = h.astype(np.int32)
    ratio = h - cat.astype(F32)
    ratio = np.where((cat & 1) == 0, ratio, F32(1) - ratio)
    vmid = vmin + ratio * (vmax - vmin)
    table = [
        (vmax, vmid, vmin),
        (vmid, vmax, vmin),
        (vmin, vmax, vmid),
        (vmin, vmid, vmax),
        (vmid, vmin, vmax),
    ]
    conds = [cat == k for k in range(5)]
    out = [np.select(conds, [row[i] for row in table], (vmax, vmin, vmid)[i]) for i in range(3)]
    return np.stack(out, axis=-1).astype(F32)


def _saturation_hsv(r: np.ndarray, g: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """TF's ``adjust_saturation_op`` ``rgb_to_hsv`` (its 2/6 and 4/6 added in double)."""
    vv = np.maximum(r, np.maximum(g, b))
    rng = vv - np.minimum(r, np.minimum(g, b))
    s = np.where(vv > 0, rng / vv, F32(0)).astype(F32)
    norm = F32(1) / (F32(6) * rng)
    plus = lambda p, c: (p.astype(np.float64) + c).astype(F32)  # noqa: E731
    hh = np.where(
        r == vv,
        norm * (g - b),
        np.where(g == vv, plus(norm * (b - r), 2.0 / 6.0), plus(norm * (r - g), 4.0 / 6.0)),
    ).astype(F32)
    hh = np.where(rng <= 0, F32(0), hh)
    hh = np.where(hh < 0, hh + F32(1), hh)
    return hh, s, vv


def _saturation_rgb(h: np.ndarray, s: np.ndarray, v: np.ndarray) -> list[np.ndarray]:
    c = s * v
    m = v - c
    dh = h * F32(6)
    cat = dh.astype(np.int32)
    fmodu = dh
    while (low := fmodu <= 0).any():
        fmodu = np.where(low, fmodu + F32(2), fmodu)
    while (high := fmodu >= 2).any():
        fmodu = np.where(high, fmodu - F32(2), fmodu)
    x = c * (F32(1) - np.abs(fmodu - F32(1)))
    z = np.zeros_like(c)
    table = [(c, x, z), (x, c, z), (z, c, x), (z, x, c), (x, z, c), (c, z, x)]
    conds = [cat == k for k in range(6)]
    return [np.select(conds, [row[i] for row in table], z) + m for i in range(3)]


def _adjust_saturation(images: np.ndarray, scale: np.ndarray) -> np.ndarray:
    _adjust_checks(images, scale, "scale")
    x = images.astype(F32)
    h, s, v = _saturation_hsv(x[..., 0], x[..., 1], x[..., 2])
    s = np.minimum(F32(1), np.maximum(F32(0), s * F32(scale)))
    return np.stack(_saturation_rgb(h, s, v), axis=-1).astype(F32)


def _adjust_batch(c: Call) -> list[Tensor]:
    """K stacked images are more leading axes; a batched (per-example) scalar declines."""
    c.only_batched(0)
    return c.apply(c.xs)


_NO_GRAD = "TF registers no gradient for it"

ADJUST_HUE = register_op(
    "AdjustHue",
    _adjust_infer("delta"),
    _adjust_hue,
    batch=_adjust_batch,
    cases=[
        Case(
            [uniform(0.0, 1.0, 2, 3, 3), fixed(0.3, F32)],
            _adjust_hue,
            dtypes=(F32,),
            order=0,
            note=_NO_GRAD,
        )
    ],
)

ADJUST_SATURATION = register_op(
    "AdjustSaturation",
    _adjust_infer("scale"),
    _adjust_saturation,
    batch=_adjust_batch,
    cases=[
        Case(
            [uniform(0.0, 1.0, 2, 3, 3), fixed(1.6, F32)],
            _adjust_saturation,
            dtypes=(F32,),
            order=0,
            note=_NO_GRAD,
        )
    ],
)

# TF registers no rule for either: a gradient through them is a LookupError.
tf_has_no_gradient("AdjustHue")
tf_has_no_gradient("AdjustSaturation")


def rgb_to_hsv(images: Any, name: str | None = None) -> Tensor:
    """TF's raw ``RGBToHSV``: hue, saturation and value in [0, 1] on the last axis."""
    return apply_op1("RGBToHSV", [convert_to_tensor(images)], name=name)


def hsv_to_rgb(images: Any, name: str | None = None) -> Tensor:
    """TF's raw ``HSVToRGB``: the inverse of ``rgb_to_hsv``."""
    return apply_op1("HSVToRGB", [convert_to_tensor(images)], name=name)


def adjust_hue_op(images: Any, delta: Any, name: str | None = None) -> Tensor:
    """TF's raw ``AdjustHue`` (float32)."""
    x, d = convert_to_tensor(images), convert_to_tensor(delta, dtype=dt.float32)
    return apply_op1("AdjustHue", [x, d], name=name)


def adjust_saturation_op(images: Any, scale: Any, name: str | None = None) -> Tensor:
    """TF's raw ``AdjustSaturation`` (float32)."""
    x, s = convert_to_tensor(images), convert_to_tensor(scale, dtype=dt.float32)
    return apply_op1("AdjustSaturation", [x, s], name=name)
