"""``total_variation``, ``image_gradients``, ``sobel_edges`` and ``psnr``, composed of
slices, sums, a reflect pad and a depthwise convolution as TF's ``image_ops_impl``
composes them (so their gradients are the ops' gradients, as in TF).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.api.image_color import convert_image_dtype
from symgrad.api.nn import depthwise_conv2d
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import concat, stack, unstack
from symgrad.ops.array.shape import reshape
from symgrad.ops.array.slicing import pad
from symgrad.ops.core import constant, convert_to_tensor, identity
from symgrad.ops.math import elementwise as math
from symgrad.ops.reduction.reduce import reduce_mean, reduce_sum


def total_variation(images: Any, name: str | None = None) -> Tensor:
    """The sum of absolute differences of neighbouring pixels: a scalar for one image
    (3-D), one per image for a batch (4-D)."""
    with name_scope(name, "total_variation"):
        images = convert_to_tensor(images)
        ndims = images.shape.rank
        if ndims == 3:
            dif1 = images[1:, :, :] - images[:-1, :, :]
            dif2 = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        elif ndims == 4:
            dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return reduce_sum(math.abs(dif1), axis=axis) + reduce_sum(math.abs(dif2), axis=axis)


def image_gradients(image: Any) -> tuple[Tensor, Tensor]:
    """``(dy, dx)``: forward differences down and across a 4-D batch, 0 on the last row
    and column."""
    image = convert_to_tensor(image)
    if image.shape.rank != 4:
        raise ValueError(
            f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {image.shape}."
        )
    image_shape = array.shape(image)
    batch_size, height, width, depth = unstack(image_shape)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    shape = stack([batch_size, 1, width, depth])
    dy = reshape(concat([dy, array.zeros(shape, image.dtype)], 1), image_shape)
    shape = stack([batch_size, height, 1, depth])
    dx = reshape(concat([dx, array.zeros(shape, image.dtype)], 2), image_shape)
    return dy, dx


_SOBEL = np.expand_dims(
    np.transpose(
        np.asarray([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]),
        (1, 2, 0),
    ),
    -2,
)


def sobel_edges(image: Any) -> Tensor:
    """[b, h, w, d, 2]: the vertical and horizontal Sobel responses of a 4-D batch, its
    edges reflected."""
    image = convert_to_tensor(image)
    static_shape = image.shape
    image_shape = array.shape(image)
    kernels = constant(_SOBEL, dtype=image.dtype)
    kernels = array.tile(kernels, stack([1, 1, image_shape[-1], 1]), name="sobel_filters")
    padded = pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    output = depthwise_conv2d(padded, kernels, [1, 1, 1, 1], "VALID")
    output = reshape(output, concat([image_shape, [2]], 0))
    if static_shape.rank is not None:
        output.set_shape([*static_shape.as_list(), 2])
    return output


def _verify_compatible(a: Tensor, b: Tensor) -> None:
    """TF's ``_verify_compatible_image_shapes``, for the shapes known when built."""
    for shape in (a.shape, b.shape):
        if shape.rank is not None and shape.rank < 3:
            raise ValueError(f"Shape {shape} must have rank at least 3")
    if a.shape.rank is not None and b.shape.rank is not None:
        last_a, last_b = TensorShape(a.shape.as_list()[-3:]), TensorShape(b.shape.as_list()[-3:])
        if not last_a.is_compatible_with(last_b):
            raise ValueError(f"Shapes {last_a} and {last_b} are incompatible")


def psnr(a: Any, b: Any, max_val: Any, name: str | None = None) -> Tensor:
    """The peak signal-to-noise ratio of each pair of images, in dB (float32)."""
    with name_scope(name, "PSNR"):
        a, b = convert_to_tensor(a), convert_to_tensor(b)
        max_val = array.cast(max_val, a.dtype)
        max_val = convert_image_dtype(max_val, dt.float32)
        a = convert_image_dtype(a, dt.float32)
        b = convert_image_dtype(b, dt.float32)
        mse = reduce_mean(math.squared_difference(a, b), [-3, -2, -1])
        value = math.subtract(
            20 * math.log(max_val) / math.log(10.0),
            np.float32(10 / np.log(10)) * math.log(mse),
            name="psnr",
        )
        _verify_compatible(a, b)
        return identity(value)
