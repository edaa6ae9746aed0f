"""What the resize ops share: TF's checks of images and sizes, its scales and sample
positions (computed in float32 as TF's ``image_resizer_state.h``), the interpolation
plans, the ordered scatter-add of the gradient kernels, and the batching rule.

A gradient kernel adds each output pixel's contributions one by one, in TF's loop order
(resized row, column, then the taps); ``np.add.at`` adds in the order of its index
array, so the float32 sums round as TF's do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call, NotVectorizable
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, constant_value
from symgrad.core.shapes import TensorShape
from symgrad.ops.array.shape import reshape
from symgrad.ops.core import REAL

F32 = np.float32
RESIZE_DTYPES = REAL  # TF_CALL_REAL_NUMBER_TYPES


def _dims(shape: TensorShape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape.dims or ()) + "]"


def check_rank4(t: Tensor, what: str, others: Sequence[Tensor]) -> None:
    """TF's shape-function text for an input that is not 4-D."""
    r = t.shape.rank
    if r is not None and r != 4:
        shapes = ", ".join(_dims(x.shape) for x in others)
        raise ShapeError(
            f"Shape must be rank 4 but is rank {r} for input '{what}' with input shapes: {shapes}."
        )


def static_size(size: Tensor, others: Sequence[Tensor]) -> tuple[int | None, int | None]:
    """The (height, width) a 1-D int32 ``size`` input asks for, where known statically."""
    if size.dtype is not dt.int32:
        raise TypeError(f"Input 'size' must be int32, got {size.dtype.name}")
    r = size.shape.rank
    n = size.shape.dims[0] if size.shape.dims is not None and r == 1 else None
    shapes = ", ".join(_dims(x.shape) for x in others)
    if r is not None and r != 1:
        raise ShapeError(
            f"Shape must be rank 1 but is rank {r} for input 'size' with input shapes: {shapes}."
        )
    if n is not None and n != 2:
        raise ShapeError(
            f"Dimension must be 2 but is {n} for input 'size' with input shapes: {shapes}."
        )
    value = constant_value(size)
    if value is None:
        return None, None
    h, w = (int(v) for v in np.ravel(value))
    return h, w


def resize_infer(inputs: list[Tensor], out_dtype: dt.DType | None) -> Spec:
    """``images`` [b, h, w, c] and ``size`` [2] -> [b, new_h, new_w, c]."""
    images, size = inputs
    if images.dtype not in RESIZE_DTYPES:
        names = ", ".join(d.name for d in RESIZE_DTYPES)
        raise TypeError(
            f"Value for attr 'T' of {images.dtype.name} is not in the list of allowed "
            f"values: {names}"
        )
    check_rank4(images, "images", inputs)
    h, w = static_size(size, inputs)
    dims = images.shape.dims
    b, c = (None, None) if dims is None else (dims[0], dims[3])
    return TensorShape([b, h, w, c]), out_dtype or images.dtype


def image_dims(
    images: np.ndarray, size: np.ndarray, align_corners: bool, half_pixel: bool
) -> tuple[int, ...]:
    """TF's ``ImageResizerState`` checks: (batch, height, width, channels, new_h, new_w)."""
    if half_pixel and align_corners:
        raise InvalidArgumentError("If half_pixel_centers is True, align_corners must be False.")
    if images.ndim != 4:
        raise InvalidArgumentError(
            f"input must be 4-dimensional{list(images.shape)}".replace(" ", "")
        )
    b, h, w, c = images.shape
    if c <= 0:
        raise InvalidArgumentError("image must have at least one channel")
    if h <= 0 or w <= 0:
        raise InvalidArgumentError("input image must be of non-zero size")
    size = np.asarray(size)
    if size.ndim != 1:
        raise InvalidArgumentError(
            f"shape_t must be 1-dimensional{list(size.shape)}".replace(" ", "")
        )
    if size.size != 2:
        raise InvalidArgumentError(
            f"shape_t must have two elements{list(size.shape)}".replace(" ", "")
        )
    oh, ow = (int(v) for v in size)
    if oh <= 0 or ow <= 0:
        raise InvalidArgumentError("output dimensions must be positive")
    return b, h, w, c, oh, ow


def grad_dims(
    grads: np.ndarray, original: tuple[int, ...], align_corners: bool, half_pixel: bool
) -> None:
    """TF's ``ImageResizerGradientState`` checks."""
    if half_pixel and align_corners:
        raise InvalidArgumentError("If half_pixel_centers is True, align_corners must be False.")
    if grads.ndim != 4:
        raise InvalidArgumentError(
            f"input_grad must be 4-dimensional{list(grads.shape)}".replace(" ", "")
        )
    if grads.shape[1] <= 0 or grads.shape[2] <= 0:
        raise InvalidArgumentError("resized dimensions must be positive")
    if len(original) != 4:
        raise InvalidArgumentError(
            f"original_image must be 4-dimensional{list(original)}".replace(" ", "")
        )
    if original[1] <= 0 or original[2] <= 0:
        raise InvalidArgumentError("original dimensions must be positive")


def scale(n_in: int, n_out: int, align_corners: bool) -> np.float32:
    """TF's ``CalculateResizeScale``: input pixels per output pixel, in float32 (TF 2.21
    aligns corners only where both sizes exceed 1)."""
    if align_corners and n_out > 1 and n_in > 1:
        return F32(n_in - 1) / F32(n_out - 1)  # type: ignore[no-any-return]
    return F32(n_in) / F32(n_out)  # type: ignore[no-any-return]


def positions(n_out: int, s: np.float32, half_pixel: bool, shift: bool = True) -> np.ndarray:
    """The float32 input position of each output pixel: ``(i + 0.5) * s - 0.5`` (half-pixel
    centres; nearest neighbour keeps the 0.5: ``shift=False``) or TF's legacy ``i * s``."""
    i = np.arange(n_out, dtype=F32)
    if not half_pixel:
        return i * s  # type: ignore[no-any-return]
    p = (i + F32(0.5)) * s
    return p - F32(0.5) if shift else p  # type: ignore[no-any-return]


def linear_plan(n_in: int, n_out: int, s: np.float32, half_pixel: bool) -> tuple[Any, Any, Any]:
    """Bilinear taps of each output pixel: (lower index, upper index, float32 lerp)."""
    p = positions(n_out, s, half_pixel)
    f = np.floor(p)
    lower = np.maximum(f, 0).astype(np.int64)
    upper = np.minimum(np.ceil(p).astype(np.int64), n_in - 1)
    return lower, upper, p - f


def nearest_plan(
    n_in: int, n_out: int, s: np.float32, align_corners: bool, half_pixel: bool
) -> np.ndarray:
    """The input index of each output pixel (``roundf`` rounds halves away from zero)."""
    p = positions(n_out, s, half_pixel, shift=False).astype(np.float64)
    idx = np.floor(p)
    if align_corners:
        idx = np.where(p - idx >= 0.5, idx + 1, idx)
    idx = np.minimum(idx.astype(np.int64), n_in - 1)
    return np.maximum(idx, 0) if half_pixel else idx


def scatter_add(
    shape: tuple[int, ...], dtype: Any, rows: np.ndarray, cols: np.ndarray, parts: np.ndarray
) -> np.ndarray:
    """``out[:, rows, cols] += parts`` in the order of the index arrays (TF's loop order)."""
    out = np.zeros(shape, dtype)
    np.add.at(out, (slice(None), rows, cols), parts)  # type: ignore[arg-type]
    return out


def fold_batch(images: Sequence[int]) -> Any:
    """The batching rule of a resize op: the K stacked batches of the 4-D inputs at
    ``images`` become one batch of K * b images; other inputs (sizes) stay unbatched."""

    def rule(c: Call) -> list[Tensor]:
        if not any(c.batched[i] for i in images) or any(
            c.batched[i] for i in range(len(c.xs)) if i not in images
        ):
            raise NotVectorizable(c.op, "only the images may be batched")
        xs = list(c.xs)
        for i in images:
            dims = c.dims(i)
            xs[i] = reshape(c.full(i), [c.k * dims[0], *dims[1:]])
        y = c.apply(xs)[0]
        return [reshape(y, [c.k, *c.out_dims(0)])]

    return rule
