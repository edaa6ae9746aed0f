"""JAX lowerings of the image ops: the resizes gather their taps by the NumPy kernels'
own plans (indices and float32 weights, computed at compile time from the static sizes),
blend them with the same formulas, and their gradient ops scatter-add (``.at[].add``,
whose summation order XLA picks: within float32 rounding of TF's).

The output size (``size``) must be a compile-time constant, as TF's XLA bridge requires.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from symgrad.ops.image import sampling as S
from symgrad.ops.image.area import _area_plan, _cover
from symgrad.ops.image.bicubic import cubic_plan
from symgrad.ops.image.color import hsv_to_rgb_xp, rgb_to_hsv_xp
from symgrad.ops.image.patches import _taps
from symgrad.ops.image.transform import project
from symgrad.runtime.xla.host import static

Table = dict[str, Callable[..., Any]]
F32 = np.float32


def _size(op: Any, size: Any) -> tuple[int, int]:
    h, w = (int(v) for v in static(op, size, "size").reshape(-1))
    return h, w


def _flags(op: Any) -> tuple[bool, bool]:
    return bool(op.get_attr("align_corners")), bool(op.get_attr("half_pixel_centers"))


def _bilinear(ctx: Any, op: Any, images: Any, size: Any) -> Any:
    oh, ow = _size(op, size)
    align, half = _flags(op)
    h, w = images.shape[1:3]
    x = images.astype(F32)
    if (oh, ow) == (h, w):
        return x
    y0, y1, yl = S.linear_plan(h, oh, S.scale(h, oh, align), half)
    x0, x1, xl = S.linear_plan(w, ow, S.scale(w, ow, align), half)
    top_rows, bottom_rows = x[:, y0], x[:, y1]
    xl = jnp.asarray(xl)[:, None]
    top = top_rows[:, :, x0] + (top_rows[:, :, x1] - top_rows[:, :, x0]) * xl
    bottom = bottom_rows[:, :, x0] + (bottom_rows[:, :, x1] - bottom_rows[:, :, x0]) * xl
    return top + (bottom - top) * jnp.asarray(yl)[:, None, None]


def _bilinear_grad(ctx: Any, op: Any, grads: Any, original: Any) -> Any:
    align, half = _flags(op)
    b, h, w, c = original.shape
    rh, rw = grads.shape[1:3]
    y0, y1, yl = S.linear_plan(h, rh, S.scale(h, rh, align), half)
    x0, x1, xl = S.linear_plan(w, rw, S.scale(w, rw, align), half)
    acc = F32 if original.dtype == np.float16 else original.dtype  # TF sums halves in float
    out = jnp.zeros((b, h, w, c), acc)
    for ys, wy in ((y0, 1 - yl), (y1, yl)):
        for xs, wx in ((x0, 1 - xl), (x1, xl)):
            part = grads * jnp.asarray(wy)[:, None, None] * jnp.asarray(wx)[:, None]
            out = out.at[:, ys[:, None], xs[None, :]].add(part.astype(acc))
    return out.astype(original.dtype)


def _nearest_index(op: Any, n_in: int, n_out: int) -> np.ndarray:
    align, half = _flags(op)
    return S.nearest_plan(n_in, n_out, S.scale(n_in, n_out, align), align, half)


def _nearest(ctx: Any, op: Any, images: Any, size: Any) -> Any:
    oh, ow = _size(op, size)
    h, w = images.shape[1:3]
    return images[:, _nearest_index(op, h, oh)][:, :, _nearest_index(op, w, ow)]


def _nearest_grad(ctx: Any, op: Any, grads: Any, size: Any) -> Any:
    h, w = _size(op, size)
    b, rh, rw, c = grads.shape
    ys, xs = _nearest_index(op, h, rh), _nearest_index(op, w, rw)
    return jnp.zeros((b, h, w, c), grads.dtype).at[:, ys[:, None], xs[None, :]].add(grads)


def _blend(parts: list[Any], w: list[Any]) -> Any:
    return ((parts[0] * w[0] + parts[1] * w[1]) + parts[2] * w[2]) + parts[3] * w[3]


def _bicubic(ctx: Any, op: Any, images: Any, size: Any) -> Any:
    oh, ow = _size(op, size)
    align, half = _flags(op)
    h, w = images.shape[1:3]
    yi, yw = cubic_plan(h, oh, S.scale(h, oh, align), half)
    xi, xw = cubic_plan(w, ow, S.scale(w, ow, align), half)
    x = images.astype(F32)
    rows = _blend([x[:, yi[:, k]] for k in range(4)], [yw[:, k, None, None] for k in range(4)])
    return _blend([rows[:, :, xi[:, k]] for k in range(4)], [xw[:, k, None] for k in range(4)])


def _bicubic_grad(ctx: Any, op: Any, grads: Any, original: Any) -> Any:
    align, half = _flags(op)
    b, h, w, c = original.shape
    rh, rw = grads.shape[1:3]
    yi, yw = cubic_plan(h, rh, S.scale(h, rh, align), half)
    xi, xw = cubic_plan(w, rw, S.scale(w, rw, align), half)
    t = original.dtype
    g = grads.astype(t)
    out = jnp.zeros((b, h, w, c), t)
    for k in range(4):
        for m in range(4):
            part = g * yw[:, k, None, None].astype(t) * xw[:, m, None].astype(t)
            out = out.at[:, yi[:, k, None], xi[None, :, m]].add(part)
    return out


def _area(ctx: Any, op: Any, images: Any, size: Any) -> Any:
    oh, ow = _size(op, size)
    align = bool(op.get_attr("align_corners"))
    h, w = images.shape[1:3]
    hs, ws = S.scale(h, oh, align), S.scale(w, ow, align)
    x = images.astype(F32)
    start, end, s0, s1 = _area_plan(ow, ws)
    span = end - start
    cols = x[:, :, np.clip(start, 0, w - 1)] * s0[:, None]
    for k in range(1, int(span.max()) - 1):
        inner = x[:, :, np.clip(start + k, 0, w - 1)]
        cols = cols + jnp.where((k < span - 1)[:, None], inner, F32(0))
    last = x[:, :, np.clip(end - 1, 0, w - 1)] * s1[:, None]
    cols = jnp.where((span > 1)[:, None], cols + last, cols)
    lo = np.arange(oh, dtype=np.int64).astype(F32) * hs
    hi = np.arange(1, oh + 1, dtype=np.int64).astype(F32) * hs
    ystart, yend = np.floor(lo).astype(np.int64), np.ceil(hi).astype(np.int64)
    total = jnp.zeros((x.shape[0], oh, ow, x.shape[3]), F32)
    for k in range(int((yend - ystart).max())):
        row = ystart + k
        part = cols[:, np.clip(row, 0, h - 1)] * _cover(lo, hi, row, hs)[:, None, None]
        total = total + jnp.where((row < yend)[:, None, None], part, F32(0))
    return total * F32(1.0 / np.float64(hs * ws))


def _folded_sum(x: Any) -> Any:
    """TF's halving folds over axis 1 of [b, n, c] (see ``ops.image.area``)."""
    n = x.shape[1]
    right = n // 2
    left = n - right
    acc = jnp.concatenate([x[:, left : left + right] + x[:, :right], x[:, right:left]], axis=1)
    n = left
    while n > 1:
        right = n // 2
        left = n - right
        acc = acc.at[:, :right].add(acc[:, left : left + right])
        n = left
    return acc[:, 0]


def _adjust_contrast(ctx: Any, op: Any, images: Any, factor: Any) -> Any:
    if images.size == 0:
        return images
    h, w, c = images.shape[-3:]
    x = images.reshape(-1, h * w, c)
    mean = _folded_sum(x) * (F32(1) / F32(h * w))
    out = mean[:, None, :] + factor * (x - mean[:, None, :])
    return out.reshape(images.shape)


def _projective(ctx: Any, op: Any, images: Any, transforms: Any, size: Any, fill: Any) -> Any:
    """The NumPy kernel's own formulas on jax.numpy (``project``)."""
    fill = fill.astype(F32).astype(images.dtype)
    return project(jnp, images, transforms, _size(op, size), fill, op.attrs)


def _patches(ctx: Any, op: Any, images: Any) -> Any:
    """Gather the windows by the kernel's tap plan; zeros where they leave the image."""
    a = op.attrs
    b, h, w, c = images.shape
    rows = _taps(h, a["ksizes"][1], a["strides"][1], a["rates"][1], a["padding"])
    cols = _taps(w, a["ksizes"][2], a["strides"][2], a["rates"][2], a["padding"])
    r, q = rows[:, None, :, None], cols[None, :, None, :]
    inside = (r >= 0) & (r < h) & (q >= 0) & (q < w)
    got = images[:, np.clip(r, 0, h - 1), np.clip(q, 0, w - 1)]
    got = jnp.where(inside[None, ..., None], got, jnp.zeros((), images.dtype))
    depth = a["ksizes"][1] * a["ksizes"][2] * c
    return got.reshape(b, rows.shape[0], cols.shape[0], depth)


def table() -> Table:
    return {
        "ResizeBilinear": _bilinear,
        "ResizeBilinearGrad": _bilinear_grad,
        "ResizeNearestNeighbor": _nearest,
        "ResizeNearestNeighborGrad": _nearest_grad,
        "ResizeBicubic": _bicubic,
        "ResizeBicubicGrad": _bicubic_grad,
        "ResizeArea": _area,
        "AdjustContrastv2": _adjust_contrast,
        "RGBToHSV": lambda ctx, op, x: rgb_to_hsv_xp(jnp, x),
        "HSVToRGB": lambda ctx, op, x: hsv_to_rgb_xp(jnp, x),
        "ImageProjectiveTransformV3": _projective,
        "ExtractImagePatches": _patches,
    }
