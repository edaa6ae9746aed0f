"""``tf.image``'s value functions: dtype conversion with TF's scaling, brightness,
contrast, gamma, standardisation, grayscale, and the random and stateless-random
adjustments and crops, built as TF's ``image_ops_impl`` and ``random_crop_ops`` build them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.api.image_ops import check, check_at_least_3d, with_dependencies
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import concat
from symgrad.ops.array.slicing import slice
from symgrad.ops.core import convert_to_tensor, identity
from symgrad.ops.debug.assertion import Assert
from symgrad.ops.image.area import adjust_contrastv2
from symgrad.ops.linalg.contraction import tensordot
from symgrad.ops.math import elementwise as math
from symgrad.ops.random.seeded import random_uniform
from symgrad.ops.random.stateless import stateless_random_uniform
from symgrad.ops.reduction.reduce import reduce_all, reduce_mean, reduce_prod
from symgrad.ops.reduction.statistics import reduce_std

_HALF_OR_FLOAT = (dt.float16, dt.float32)


def _saturate_cast(value: Tensor, dtype: dt.DType) -> Tensor:
    """TF's ``saturate_cast``: clamp to the range both types hold, then cast."""
    in_np = value.dtype.np
    lo = in_np.type(np.maximum(value.dtype.min, dtype.min))
    if np.array([lo, dtype.min], np.promote_types(in_np, dtype.np))[0] < dtype.min:
        lo = np.nextafter(lo, in_np.type(0), dtype=in_np)
    hi = in_np.type(np.minimum(float(value.dtype.max), float(dtype.max)))
    if np.array([hi, dtype.max], np.promote_types(in_np, dtype.np))[0] > dtype.max:
        hi = np.nextafter(hi, in_np.type(0), dtype=in_np)
    clamped = math.maximum(math.minimum(value, convert_to_tensor(hi, value.dtype)), lo)
    return array.cast(clamped, dtype)


def convert_image_dtype(
    image: Any, dtype: Any, saturate: bool = False, name: str | None = None
) -> Tensor:
    """``image`` in ``dtype``, rescaled: floats live in [0, 1), integers in [0, MAX]."""
    image = convert_to_tensor(image)
    dtype = dt.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype is image.dtype:
        return identity(image, name=name)
    with name_scope(name, "convert_image"):
        if image.dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = int(image.dtype.max), int(dtype.max)
            if scale_in > scale_out:
                scaled = math.floordiv(image, (scale_in + 1) // (scale_out + 1))
                return _saturate_cast(scaled, dtype) if saturate else array.cast(scaled, dtype)
            cast = _saturate_cast(image, dtype) if saturate else array.cast(image, dtype)
            return math.multiply(cast, (scale_out + 1) // (scale_in + 1))
        if image.dtype.is_floating and dtype.is_floating:
            return array.cast(image, dtype)
        if image.dtype.is_integer:
            return math.multiply(array.cast(image, dtype), 1.0 / image.dtype.max)
        scaled = math.multiply(image, dtype.max + 0.5)  # TF: avoids rounding down in the cast
        return _saturate_cast(scaled, dtype) if saturate else array.cast(scaled, dtype)


def _as_float(image: Tensor) -> Tensor:
    return image if image.dtype in _HALF_OR_FLOAT else convert_image_dtype(image, dt.float32)


def adjust_brightness(image: Any, delta: Any) -> Tensor:
    """``image + delta`` in float (integer images converted there and back, saturating)."""
    with name_scope(None, "adjust_brightness"):
        image = convert_to_tensor(image)
        flt = _as_float(image)
        adjusted = math.add(flt, array.cast(delta, flt.dtype))
        return convert_image_dtype(adjusted, image.dtype, saturate=True)


def adjust_contrast(images: Any, contrast_factor: Any) -> Tensor:
    """``(x - mean) * contrast_factor + mean`` per image and channel (``AdjustContrastv2``)."""
    with name_scope(None, "adjust_contrast"):
        images = convert_to_tensor(images)
        flt = _as_float(images)
        factor = convert_to_tensor(contrast_factor, dtype=dt.float32)
        adjusted = adjust_contrastv2(flt, factor)
        return convert_image_dtype(adjusted, images.dtype, saturate=True)


def adjust_gamma(image: Any, gamma: Any = 1, gain: Any = 1) -> Tensor:
    """``gain * image ** gamma`` in float (integer images converted there and back)."""
    with name_scope(None, "adjust_gamma"):
        image = convert_to_tensor(image)
        flt = _as_float(image)
        deps = check(gamma >= 0, ValueError, "Gamma should be a non-negative real number.")
        if deps:
            gamma = with_dependencies(deps, gamma)
        adjusted = gain * math.pow(flt, gamma)
        return convert_image_dtype(adjusted, image.dtype, saturate=True)


def per_image_standardization(image: Any) -> Tensor:
    """``(x - mean) / max(stddev, 1 / sqrt(N))`` over each image's last three axes."""
    with name_scope(None, "per_image_standardization"):
        image = convert_to_tensor(image)
        check_at_least_3d(image, require_static=False)
        image = array.cast(image, dt.float32)
        num_pixels = reduce_prod(array.shape(image)[-3:])
        mean = reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        stddev = reduce_std(image, axis=[-1, -2, -3], keepdims=True)
        min_stddev = math.rsqrt(array.cast(num_pixels, dt.float32))
        adjusted = math.maximum(stddev, min_stddev)
        return math.divide(image - mean, adjusted)


def rgb_to_grayscale(images: Any, name: str | None = None) -> Tensor:
    """The luma ``0.2989 R + 0.5870 G + 0.1140 B`` as a last axis of size 1."""
    with name_scope(name, "rgb_to_grayscale"):
        images = convert_to_tensor(images)
        flt = convert_image_dtype(images, dt.float32)
        gray = tensordot(flt, np.asarray([0.2989, 0.5870, 0.1140], np.float32), [[-1], [-1]])
        return convert_image_dtype(array.expand_dims(gray, -1), images.dtype)


def grayscale_to_rgb(images: Any, name: str | None = None) -> Tensor:
    """The single channel repeated three times."""
    with name_scope(name, "grayscale_to_rgb"):
        images = convert_to_tensor(images)
        shape = images.shape
        if shape.rank is not None and shape.rank < 2:
            raise ValueError(f"A grayscale image (shape {shape}) must be at least two-dimensional.")
        if shape.is_fully_defined() and shape.dims[-1] != 1:  # type: ignore[index]
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        ones = array.ones(array.expand_dims(array.rank(images) - 1, 0), dtype=dt.int32)
        multiples = concat([ones, [3]], 0)
        rgb = array.tile(images, multiples)
        if shape.rank is not None:
            rgb.set_shape([*(shape.dims[:-1]), 3])  # type: ignore[index]
        return rgb


def _check_range(lower: Any, upper: Any) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_brightness(image: Any, max_delta: Any, seed: int | None = None) -> Tensor:
    """``adjust_brightness`` by a delta drawn from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def stateless_random_brightness(image: Any, max_delta: Any, seed: Any) -> Tensor:
    """As ``random_brightness``, its draw fixed by the shape [2] ``seed``."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = stateless_random_uniform(shape=[], minval=-max_delta, maxval=max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image: Any, lower: Any, upper: Any, seed: int | None = None) -> Tensor:
    """``adjust_contrast`` by a factor drawn from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_contrast(image, random_uniform([], lower, upper, seed=seed))


def stateless_random_contrast(image: Any, lower: Any, upper: Any, seed: Any) -> Tensor:
    """As ``random_contrast``, its draw fixed by the shape [2] ``seed``."""
    _check_range(lower, upper)
    factor = stateless_random_uniform(shape=[], minval=lower, maxval=upper, seed=seed)
    return adjust_contrast(image, factor)


def _crop(value: Any, size: Any, draw: Any, name: str | None) -> Tensor:
    with name_scope(name, "random_crop"):
        value = convert_to_tensor(value)
        size = convert_to_tensor(size, dtype=dt.int32)
        shape = array.shape(value)
        ok = reduce_all(math.greater_equal(shape, size))
        checked = Assert(ok, ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = with_dependencies([] if checked is None else [checked], shape)
        limit = shape - size + 1
        offset = math.floormod(draw(array.shape(shape), int(dt.int32.max)), limit)
        return slice(value, offset, size)


def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """A ``size`` slice of ``value`` at a uniformly drawn offset."""
    return _crop(
        value, size, lambda s, hi: random_uniform(s, dtype=dt.int32, maxval=hi, seed=seed), name
    )


def stateless_random_crop(value: Any, size: Any, seed: Any, name: str | None = None) -> Tensor:
    """As ``random_crop``, its offset fixed by the shape [2] ``seed``."""
    return _crop(
        value,
        size,
        lambda s, hi: stateless_random_uniform(s, dtype=dt.int32, maxval=hi, seed=seed),
        name,
    )
