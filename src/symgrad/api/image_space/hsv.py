"""HSV, YIQ and YUV conversions, ``adjust_hue`` and ``adjust_saturation`` and their
seeded and stateless random forms, built as TF's ``image_ops_impl`` builds them.

The HSV conversions and the adjustments are TF's kernels (``symgrad.ops.image.color``);
YIQ and YUV are ``tensordot`` with TF's matrices in the image's dtype.
"""

from __future__ import annotations

from typing import Any

from symgrad.api.image_color import convert_image_dtype
from symgrad.core import dtypes as dt
from symgrad.core.context import executing_eagerly
from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.image import color
from symgrad.ops.linalg.contraction import tensordot
from symgrad.ops.random.seeded import random_uniform
from symgrad.ops.random.stateless import stateless_random_uniform

_HALF_OR_FLOAT = (dt.float16, dt.float32)


def rgb_to_hsv(images: Any, name: str | None = None) -> Tensor:
    """Hue, saturation and value, each in [0, 1], from RGB in [0, 1] (last axis 3)."""
    return color.rgb_to_hsv(images, name=name)


def hsv_to_rgb(images: Any, name: str | None = None) -> Tensor:
    """RGB from hue, saturation and value (the inverse of ``rgb_to_hsv``)."""
    return color.hsv_to_rgb(images, name=name)


def _adjust(image: Any, value: Any, kernel: Any) -> Tensor:
    image = convert_to_tensor(image, name="image")
    orig = image.dtype
    flt = image if orig in _HALF_OR_FLOAT else convert_image_dtype(image, dt.float32)
    return convert_image_dtype(kernel(flt, value), orig)


def adjust_hue(image: Any, delta: Any, name: str | None = None) -> Tensor:
    """The hue turned by ``delta`` (in [-1, 1]) of a turn, in RGB."""
    with name_scope(name, "adjust_hue"):
        if executing_eagerly() and (delta < -1 or delta > 1):
            raise ValueError("delta must be in the interval [-1, 1]")
        return _adjust(image, delta, color.adjust_hue_op)


def adjust_saturation(image: Any, saturation_factor: Any, name: str | None = None) -> Tensor:
    """The saturation multiplied by ``saturation_factor`` (clamped to [0, 1]), in RGB."""
    with name_scope(name, "adjust_saturation"):
        return _adjust(image, saturation_factor, color.adjust_saturation_op)


def _check_hue(max_delta: Any) -> None:
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def _check_range(lower: Any, upper: Any) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_hue(image: Any, max_delta: Any, seed: int | None = None) -> Tensor:
    """``adjust_hue`` by a delta drawn from [-max_delta, max_delta)."""
    _check_hue(max_delta)
    return adjust_hue(image, random_uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_hue(image: Any, max_delta: Any, seed: Any) -> Tensor:
    """As ``random_hue``, its draw fixed by the shape [2] ``seed``."""
    _check_hue(max_delta)
    delta = stateless_random_uniform(shape=[], minval=-max_delta, maxval=max_delta, seed=seed)
    return adjust_hue(image, delta)


def random_saturation(image: Any, lower: Any, upper: Any, seed: int | None = None) -> Tensor:
    """``adjust_saturation`` by a factor drawn from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_saturation(image, random_uniform([], lower, upper, seed=seed))


def stateless_random_saturation(image: Any, lower: Any, upper: Any, seed: Any = None) -> Tensor:
    """As ``random_saturation``, its draw fixed by the shape [2] ``seed``."""
    _check_range(lower, upper)
    factor = stateless_random_uniform(shape=[], minval=lower, maxval=upper, seed=seed)
    return adjust_saturation(image, factor)


_RGB_TO_YIQ = [
    [0.299, 0.59590059, 0.2115],
    [0.587, -0.27455667, -0.52273617],
    [0.114, -0.32134392, 0.31119955],
]
_YIQ_TO_RGB = [
    [1, 1, 1],
    [0.95598634, -0.27201283, -1.10674021],
    [0.6208248, -0.64720424, 1.70423049],
]
_RGB_TO_YUV = [
    [0.299, -0.14714119, 0.61497538],
    [0.587, -0.28886916, -0.51496512],
    [0.114, 0.43601035, -0.10001026],
]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _convert(images: Any, matrix: Any) -> Tensor:
    images = convert_to_tensor(images, name="images")
    kernel = convert_to_tensor(matrix, dtype=images.dtype, name="kernel")
    ndims = images.shape.rank
    if ndims is None:
        raise ValueError("images must have a known rank")
    return tensordot(images, kernel, axes=[[ndims - 1], [0]])


def rgb_to_yiq(images: Any) -> Tensor:
    """YIQ from RGB: the last axis times TF's 3x3 matrix."""
    return _convert(images, _RGB_TO_YIQ)


def yiq_to_rgb(images: Any) -> Tensor:
    """RGB from YIQ: the last axis times TF's 3x3 matrix."""
    return _convert(images, _YIQ_TO_RGB)


def rgb_to_yuv(images: Any) -> Tensor:
    """YUV from RGB: the last axis times TF's 3x3 matrix."""
    return _convert(images, _RGB_TO_YUV)


def yuv_to_rgb(images: Any) -> Tensor:
    """RGB from YUV: the last axis times TF's 3x3 matrix."""
    return _convert(images, _YUV_TO_RGB)
