"""ResizeArea (``tf.image.resize(..., method="area")``) and AdjustContrastv2
(``tf.image.adjust_contrast``), as TF's CPU kernels; TF defines no gradient for either.

Area: each output pixel averages the input area it covers; an input pixel partly inside
weighs the part inside (TF's float32 ``start_scale`` / ``end_minus_one_scale``).  Each
input row's columns are summed first (the first pixel times its weight, the interior,
then the last times its weight), then the rows times their weights, then the sum times
``1 / (height_scale * width_scale)``, all in float32 in TF's order.

AdjustContrastv2: each channel's mean over height and width is summed by TF's halving
folds (the upper half added onto the lower, until one pixel is left), scaled by
``1 / (h * w)``; the output is ``mean + factor * (x - mean)`` in float32.

TF registers no gradient for either (its tape raises LookupError); symgrad gives each
its exact one, built from ops so it differentiates again: the area resize is linear,
``dx = Wyᵀ g Wx`` with the weights of its plan; the contrast's is
``dx = f g + (1 - f) mean(g)``, ``df = Σ g (x - mean)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call
from symgrad.core.cases import Case, fixed, ints, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.ops.cast_select import cast
from symgrad.ops.core import constant, convert_to_tensor
from symgrad.ops.image import sampling as S
from symgrad.ops.linalg.contraction import einsum
from symgrad.ops.reduction.reduce import reduce_mean, reduce_sum

F32 = np.float32


def _cover(lo: np.ndarray, hi: np.ndarray, v: np.ndarray, s: np.float32) -> np.ndarray:
    """The part of input pixel ``v`` inside [lo, hi) (TF's scale_y / start_scale)."""
    vf = v.astype(F32)
    inner = np.where(vf + F32(1) > hi, hi - vf, F32(1))
    return np.where(vf < lo, np.where(vf + F32(1) > hi, s, (vf + F32(1)) - lo), inner)


def _area_plan(n_out: int, s: np.float32) -> tuple[np.ndarray, ...]:
    """Per output pixel: first and one-past-last input pixel, and the first and last
    pixels' weights."""
    i = np.arange(n_out + 1, dtype=np.int64).astype(F32) * s
    lo, hi = i[:-1], i[1:]
    start, end = np.floor(lo).astype(np.int64), np.ceil(hi).astype(np.int64)
    return start, end, _cover(lo, hi, start, s), _cover(lo, hi, end - 1, s)


def _area(images: np.ndarray, size: np.ndarray, *, align_corners: bool) -> np.ndarray:
    _, h, w, _, oh, ow = S.image_dims(images, size, align_corners, False)
    hs, ws = S.scale(h, oh, align_corners), S.scale(w, ow, align_corners)
    x = images.astype(F32)
    start, end, s0, s1 = _area_plan(ow, ws)
    span = end - start
    cols = x[:, :, np.clip(start, 0, w - 1)] * s0[:, None]
    for k in range(1, int(span.max()) - 1):
        inner = x[:, :, np.clip(start + k, 0, w - 1)]
        cols = cols + np.where((k < span - 1)[:, None], inner, F32(0))
    last = x[:, :, np.clip(end - 1, 0, w - 1)] * s1[:, None]
    cols = np.where((span > 1)[:, None], cols + last, cols)
    lo = np.arange(oh, dtype=np.int64).astype(F32) * hs
    hi = np.arange(1, oh + 1, dtype=np.int64).astype(F32) * hs
    ystart, yend = np.floor(lo).astype(np.int64), np.ceil(hi).astype(np.int64)
    total = np.zeros((x.shape[0], oh, ow, x.shape[3]), F32)
    for k in range(int((yend - ystart).max())):
        row = ystart + k
        weight = _cover(lo, hi, row, hs)
        part = cols[:, np.clip(row, 0, h - 1)] * weight[:, None, None]
        total = total + np.where((row < yend)[:, None, None], part, F32(0))
    return total * F32(1.0 / np.float64(hs * ws))  # type: ignore[no-any-return]


def _area_infer(inputs: list[Tensor], **_: Any) -> Spec:
    return S.resize_infer(inputs, dt.float32)


def _area_ref(x: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Exact box averages in float64 (no align_corners)."""

    def matrix(n_in: int, n_out: int) -> np.ndarray:
        m = np.zeros((n_out, n_in))
        s = n_in / n_out
        for i in range(n_out):
            for j in range(n_in):
                m[i, j] = max(0.0, min(j + 1, (i + 1) * s) - max(j, i * s)) / s
        return m

    my, mx = matrix(x.shape[1], int(size[0])), matrix(x.shape[2], int(size[1]))
    return np.einsum("yi,xj,bijc->byxc", my, mx, x.astype(np.float64))


_NO_GRAD = "TF has no gradient; tests/ops/test_image_resize.py checks symgrad's"
RESIZE_AREA = register_op(
    "ResizeArea",
    _area_infer,
    _area,
    batch=S.fold_batch([0]),
    cases=[
        Case(
            [randn(2, 6, 5, 2), ints([4, 3])],
            _area_ref,
            attrs={"align_corners": False},
            order=0,
            note=_NO_GRAD,
            name="down",
        ),
        Case(
            [randn(1, 3, 4, 3), ints([7, 5])],
            _area_ref,
            attrs={"align_corners": False},
            order=0,
            note=_NO_GRAD,
            name="up",
        ),
    ],
)


def _folded_sum(x: np.ndarray) -> np.ndarray:
    """TF's sum over axis 1 of [b, n, c]: halves folded onto each other."""
    n = x.shape[1]
    right = n // 2
    left = n - right
    acc = np.concatenate([x[:, left : left + right] + x[:, :right], x[:, right:left]], axis=1)
    n = left
    while n > 1:
        right = n // 2
        left = n - right
        acc[:, :right] += acc[:, left : left + right]
        n = left
    return acc[:, 0]


def _adjust_contrast(images: np.ndarray, factor: np.ndarray) -> np.ndarray:
    if images.ndim < 3:
        raise InvalidArgumentError(
            f"input must be at least 3-D, got shape{list(images.shape)}".replace(" ", "")
        )
    if np.ndim(factor) != 0:
        raise InvalidArgumentError(
            f"contrast_factor must be scalar: {list(np.shape(factor))}".replace(" ", "")
        )
    if images.size == 0:
        return images.copy()
    h, w, c = images.shape[-3:]
    x = images.reshape(-1, h * w, c)
    mean = _folded_sum(x) * (F32(1) / F32(h * w))
    out = mean[:, None, :] + F32(factor) * (x - mean[:, None, :])
    return out.reshape(images.shape)  # type: ignore[no-any-return]


def _adjust_contrast_infer(inputs: list[Tensor]) -> Spec:
    images, factor = inputs
    if images.dtype is not dt.float32:
        raise TypeError(
            f"Value for attr 'T' of {images.dtype.name} is not in the list of allowed values: float"
        )
    if factor.dtype is not dt.float32:
        raise TypeError(f"Input 'contrast_factor' must be float32, got {factor.dtype.name}")
    if images.shape.rank is not None and images.shape.rank < 3:
        raise ShapeError(f"Shape must be at least rank 3 but is rank {images.shape.rank}")
    if factor.shape.rank is not None and factor.shape.rank != 0:
        raise ShapeError(
            f"Shape must be rank 0 but is rank {factor.shape.rank} for input 'contrast_factor'"
        )
    return images.shape, images.dtype


def _contrast_ref(x: np.ndarray, f: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=(-3, -2), keepdims=True, dtype=np.float64)
    return mean + float(f) * (x - mean)


def _contrast_batch(c: Call) -> list[Tensor]:
    """K stacked images are more leading axes; a batched (per-example) factor declines."""
    c.only_batched(0)
    return c.apply(c.xs)


ADJUST_CONTRAST = register_op(
    "AdjustContrastv2",
    _adjust_contrast_infer,
    _adjust_contrast,
    batch=_contrast_batch,
    cases=[
        Case(
            [randn(2, 5, 3, 3), fixed(1.7, F32)],
            _contrast_ref,
            dtypes=(F32,),
            order=0,
            note=_NO_GRAD,
            name="batch",
        ),
        Case(
            [randn(7, 4, 2), fixed(0.4, F32)],
            _contrast_ref,
            dtypes=(F32,),
            order=0,
            note=_NO_GRAD,
            name="image",
        ),
    ],
)


def area_weights(n_in: int, n_out: int, s: np.float32) -> np.ndarray:
    """[n_out, n_in]: the share of each input pixel in each output pixel (float64)."""
    lo = np.arange(n_out, dtype=np.int64).astype(F32) * s
    hi = np.arange(1, n_out + 1, dtype=np.int64).astype(F32) * s
    start, end = np.floor(lo).astype(np.int64), np.ceil(hi).astype(np.int64)
    w = np.zeros((n_out, n_in))
    for k in range(int((end - start).max())):
        pixel = start + k
        inside = pixel < end
        share = _cover(lo, hi, pixel, s).astype(np.float64) / np.float64(s)
        np.add.at(w, (np.arange(n_out)[inside], np.clip(pixel, 0, n_in - 1)[inside]), share[inside])
    return w


@RESIZE_AREA.gradient
def _resize_area_gradient(op: Any, grad: Tensor) -> tuple[Tensor | None, None]:
    """dimages = Wyᵀ g Wx: the resize is linear (TF registers no gradient)."""
    x = op.inputs[0]
    if not x.dtype.is_floating:
        return None, None
    dims = [*(x.shape.dims or [None] * 4)[1:3], *(grad.shape.dims or [None] * 4)[1:3]]
    if None in dims:
        raise NotImplementedError(
            "ResizeArea's gradient needs the input's and output's heights and widths "
            f"statically (got {x.shape} -> {grad.shape}); TF defines no gradient for it"
        )
    h, w, oh, ow = (int(d) for d in dims)
    align = op.get_attr("align_corners")
    wy = area_weights(h, oh, S.scale(h, oh, align)).astype(x.dtype.np)
    wx = area_weights(w, ow, S.scale(w, ow, align)).astype(x.dtype.np)
    g = cast(grad, x.dtype)
    return einsum("yi,xj,byxc->bijc", constant(wy), constant(wx), g), None


@ADJUST_CONTRAST.gradient
def _adjust_contrast_gradient(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = f g + (1 - f) mean_hw(g); df = Σ g (x - mean_hw(x)) (TF registers none)."""
    x, f = op.inputs
    hw = [-3, -2]
    dx = f * grad + (1.0 - f) * reduce_mean(grad, hw, keepdims=True)
    df = reduce_sum(grad * (x - reduce_mean(x, hw, keepdims=True)))
    return dx, df


def resize_area(
    images: Any, size: Any, align_corners: bool = False, name: str | None = None
) -> Tensor:
    """TF's raw ``ResizeArea``: float32 [b, new_h, new_w, c] from 4-D ``images``."""
    x, s = convert_to_tensor(images), convert_to_tensor(size, dtype=dt.int32)
    return apply_op1("ResizeArea", [x, s], {"align_corners": bool(align_corners)}, name)


def adjust_contrastv2(images: Any, contrast_factor: Any, name: str | None = None) -> Tensor:
    """TF's raw ``AdjustContrastv2``: ``mean + factor * (x - mean)`` per image and channel."""
    x, f = convert_to_tensor(images), convert_to_tensor(contrast_factor, dtype=dt.float32)
    return apply_op1("AdjustContrastv2", [x, f], name=name)
