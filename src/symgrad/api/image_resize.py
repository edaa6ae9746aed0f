"""``tf.image.resize`` and ``resize_with_pad`` (TF2), and TF1's ``resize_images``,
``resize_image_with_pad`` and raw resizers, as TF's ``image_ops_impl`` builds them.

TF2's resize samples at half-pixel centres (bilinear, nearest, bicubic) and returns
float32 but for nearest neighbour; TF1's uses the legacy corners (``align_corners``) and
returns the images unchanged when the size is already right.  The scale-and-translate
kernels (``antialias=True`` for bilinear and bicubic; lanczos, gaussian, mitchellcubic)
are not built: asking for one raises ``NotImplementedError`` naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.api.image_ops import (
    _batched,
    _max,
    _unbatched,
    check,
    check_at_least_3d,
    image_dims,
    pad_to_bounding_box,
    with_dependencies,
)
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import constant_value
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.image.area import resize_area as resize_area
from symgrad.ops.image.bicubic import resize_bicubic as resize_bicubic
from symgrad.ops.image.resize import resize_bilinear as resize_bilinear
from symgrad.ops.image.resize import resize_nearest_neighbor as resize_nearest_neighbor
from symgrad.ops.math import elementwise as math
from symgrad.ops.math.rounding import floor
from symgrad.ops.math.rounding import round as round_


class ResizeMethod:
    """``tf.image.ResizeMethod``: the names of TF2's resize methods."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


class ResizeMethodV1:
    """``tf.compat.v1.image.ResizeMethod``: TF1's numbered methods."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


_SCALE_AND_TRANSLATE = ("lanczos3", "lanczos5", "gaussian", "mitchellcubic")


def _scale_and_translate(kernel: str) -> Tensor:
    raise NotImplementedError(
        f"tf.image.resize with the '{kernel}' kernel runs TF's ScaleAndTranslate op, which "
        "symgrad does not have (antialias=True for bilinear and bicubic, and the lanczos3, "
        "lanczos5, gaussian and mitchellcubic methods)"
    )


def _resize_common(
    images: Any,
    resizer: Callable[[Tensor, Tensor], Tensor],
    size: Any,
    preserve_aspect_ratio: bool,
    name: str | None,
    skip_if_same: bool,
) -> Tensor:
    with name_scope(name, "resize"):
        images = convert_to_tensor(images)
        if images.shape.rank is None:
            raise ValueError("'images' contains no shape.")
        is_batch = True
        if images.shape.rank == 3:
            is_batch = False
            images = array.expand_dims(images, 0)
        elif images.shape.rank != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = images.shape.as_list()
        try:
            size = convert_to_tensor(size, dtype=dt.int32)
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        if preserve_aspect_ratio:
            _, cur_h, cur_w, _ = image_dims(images, rank=4)
            f32 = dt.float32
            scale_h = array.cast(size[0], f32) / array.cast(cur_h, f32)
            scale_w = array.cast(size[1], f32) / array.cast(cur_w, f32)
            factor = math.minimum(scale_h, scale_w)
            new_h = array.cast(round_(factor * array.cast(cur_h, f32)), dt.int32)
            new_w = array.cast(round_(factor * array.cast(cur_w, f32)), dt.int32)
            size = convert_to_tensor([new_h, new_w], dtype=dt.int32)
        known = constant_value(size)
        target = (None, None) if known is None else tuple(int(v) for v in known)
        if skip_if_same and target == (height, width) and height is not None:
            return _unbatched(images, is_batch)
        images = resizer(images, size)
        images.set_shape([None, *target, None])
        return _unbatched(images, is_batch)


def resize(
    images: Any,
    size: Any,
    method: str = ResizeMethod.BILINEAR,
    preserve_aspect_ratio: bool = False,
    antialias: bool = False,
    name: str | None = None,
) -> Tensor:
    """``images`` (3-D or 4-D) resized to ``size`` = [new_height, new_width] by ``method``."""

    def resizer(images: Tensor, size: Tensor) -> Tensor:
        if method == ResizeMethod.BILINEAR:
            if antialias:
                return _scale_and_translate("triangle")
            return resize_bilinear(images, size, half_pixel_centers=True)
        if method == ResizeMethod.NEAREST_NEIGHBOR:
            return resize_nearest_neighbor(images, size, half_pixel_centers=True)
        if method == ResizeMethod.BICUBIC:
            if antialias:
                return _scale_and_translate("keyscubic")
            return resize_bicubic(images, size, half_pixel_centers=True)
        if method == ResizeMethod.AREA:
            return resize_area(images, size)
        if method in _SCALE_AND_TRANSLATE:
            return _scale_and_translate(method)
        raise ValueError(f"Resize method is not implemented: {method}")

    return _resize_common(images, resizer, size, preserve_aspect_ratio, name, False)


def resize_images(
    images: Any,
    size: Any,
    method: Any = ResizeMethodV1.BILINEAR,
    align_corners: bool = False,
    preserve_aspect_ratio: bool = False,
    name: str | None = None,
) -> Tensor:
    """TF1's resize: legacy pixel corners (``align_corners``), numbered or named methods."""

    def resizer(images: Tensor, size: Tensor) -> Tensor:
        if method in (ResizeMethodV1.BILINEAR, ResizeMethod.BILINEAR):
            return resize_bilinear(images, size, align_corners=align_corners)
        if method in (ResizeMethodV1.NEAREST_NEIGHBOR, ResizeMethod.NEAREST_NEIGHBOR):
            return resize_nearest_neighbor(images, size, align_corners=align_corners)
        if method in (ResizeMethodV1.BICUBIC, ResizeMethod.BICUBIC):
            return resize_bicubic(images, size, align_corners=align_corners)
        if method in (ResizeMethodV1.AREA, ResizeMethod.AREA):
            return resize_area(images, size, align_corners=align_corners)
        raise ValueError(f"Resize method is not implemented: {method}")

    return _resize_common(images, resizer, size, preserve_aspect_ratio, name, True)


def _resize_with_pad(
    image: Any, target_height: Any, target_width: Any, resizer: Callable[..., Tensor]
) -> Tensor:
    with name_scope(None, "resize_image_with_pad"):
        image, is_batch = _batched(convert_to_tensor(image))
        deps = check_at_least_3d(image, require_static=False)
        deps += check(target_width > 0, ValueError, "target_width must be > 0.")
        deps += check(target_height > 0, ValueError, "target_height must be > 0.")
        image = with_dependencies(deps, image)
        _, height, width, _ = image_dims(image, rank=4)
        f32 = dt.float32
        f_height, f_width = array.cast(height, f32), array.cast(width, f32)
        f_target_height, f_target_width = (
            array.cast(target_height, f32),
            array.cast(target_width, f32),
        )
        ratio = _max(f_width / f_target_width, f_height / f_target_height)
        resized_height_float = f_height / ratio
        resized_width_float = f_width / ratio
        resized_height = array.cast(floor(resized_height_float), dt.int32)
        resized_width = array.cast(floor(resized_width_float), dt.int32)
        padding_height = (f_target_height - resized_height_float) / 2
        padding_width = (f_target_width - resized_width_float) / 2
        p_height = _max(0, array.cast(floor(padding_height), dt.int32))
        p_width = _max(0, array.cast(floor(padding_width), dt.int32))
        resized = resizer(image, [resized_height, resized_width])
        padded = pad_to_bounding_box(resized, p_height, p_width, target_height, target_width)
        if padded.shape.rank is None:
            raise ValueError("padded contains no shape.")
        return _unbatched(padded, is_batch)


def resize_with_pad(
    image: Any,
    target_height: Any,
    target_width: Any,
    method: str = ResizeMethod.BILINEAR,
    antialias: bool = False,
) -> Tensor:
    """``image`` resized to fit the target keeping its aspect ratio, then zero-padded."""
    return _resize_with_pad(
        image,
        target_height,
        target_width,
        lambda im, size: resize(im, size, method, antialias=antialias),
    )


def resize_image_with_pad(
    image: Any,
    target_height: Any,
    target_width: Any,
    method: Any = ResizeMethodV1.BILINEAR,
    align_corners: bool = False,
) -> Tensor:
    """TF1's ``resize_with_pad``, resizing with ``resize_images``."""
    return _resize_with_pad(
        image,
        target_height,
        target_width,
        lambda im, size: resize_images(im, size, method, align_corners=align_corners),
    )
