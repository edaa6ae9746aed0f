"""``tf.image``: resizing, flips and rotations, crops and pads, dtype conversion and the
colour adjustments training pipelines use, under TensorFlow's names (re-exports only).

The resize ops are in ``symgrad.ops.image`` (TF's kernels, bit for bit); the rest are
compositions in ``image_ops`` (geometry), ``image_color`` (values, random adjustments,
crops) and ``image_resize`` (``resize``, ``resize_with_pad``).
"""

from __future__ import annotations

from symgrad.api.image_color import (
    adjust_brightness,
    adjust_contrast,
    adjust_gamma,
    convert_image_dtype,
    grayscale_to_rgb,
    per_image_standardization,
    random_brightness,
    random_contrast,
    random_crop,
    rgb_to_grayscale,
    stateless_random_brightness,
    stateless_random_contrast,
    stateless_random_crop,
)
from symgrad.api.image_ops import (
    central_crop,
    crop_to_bounding_box,
    extract_patches,
    flip_left_right,
    flip_up_down,
    pad_to_bounding_box,
    random_flip_left_right,
    random_flip_up_down,
    resize_with_crop_or_pad,
    rot90,
    stateless_random_flip_left_right,
    stateless_random_flip_up_down,
    transpose,
)
from symgrad.api.image_resize import ResizeMethod, resize, resize_with_pad
from symgrad.core import missing as _missing

__all__ = [
    "ResizeMethod",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_gamma",
    "central_crop",
    "convert_image_dtype",
    "crop_to_bounding_box",
    "extract_patches",
    "flip_left_right",
    "flip_up_down",
    "grayscale_to_rgb",
    "pad_to_bounding_box",
    "per_image_standardization",
    "random_brightness",
    "random_contrast",
    "random_crop",
    "random_flip_left_right",
    "random_flip_up_down",
    "resize",
    "resize_with_crop_or_pad",
    "resize_with_pad",
    "rgb_to_grayscale",
    "rot90",
    "stateless_random_brightness",
    "stateless_random_contrast",
    "stateless_random_crop",
    "stateless_random_flip_left_right",
    "stateless_random_flip_up_down",
    "transpose",
]

__getattr__ = _missing.module_getattr("tf.image")
