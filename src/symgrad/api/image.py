"""``tf.image``: resizing, flips and rotations, crops and pads, dtype conversion and the
colour adjustments training pipelines use, under TensorFlow's names (re-exports only).

The resize ops are in ``symgrad.ops.image`` (TF's kernels, bit for bit); the rest are
compositions in ``image_ops`` (geometry), ``image_color`` (values, random adjustments,
crops), ``image_resize`` (``resize``, ``resize_with_pad``) and ``image_space`` (HSV, YIQ
and YUV, hue and saturation, total variation, Sobel edges, PSNR).
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
from symgrad.api.image_space.hsv import (
    adjust_hue,
    adjust_saturation,
    hsv_to_rgb,
    random_hue,
    random_saturation,
    rgb_to_hsv,
    rgb_to_yiq,
    rgb_to_yuv,
    stateless_random_hue,
    stateless_random_saturation,
    yiq_to_rgb,
    yuv_to_rgb,
)
from symgrad.api.image_space.measures import image_gradients, psnr, sobel_edges, total_variation
from symgrad.core import missing as _missing

__all__ = [
    "ResizeMethod",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_gamma",
    "adjust_hue",
    "adjust_saturation",
    "central_crop",
    "convert_image_dtype",
    "crop_to_bounding_box",
    "extract_patches",
    "flip_left_right",
    "flip_up_down",
    "grayscale_to_rgb",
    "hsv_to_rgb",
    "image_gradients",
    "pad_to_bounding_box",
    "per_image_standardization",
    "psnr",
    "random_brightness",
    "random_contrast",
    "random_crop",
    "random_flip_left_right",
    "random_flip_up_down",
    "random_hue",
    "random_saturation",
    "resize",
    "resize_with_crop_or_pad",
    "resize_with_pad",
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "rgb_to_yiq",
    "rgb_to_yuv",
    "rot90",
    "sobel_edges",
    "stateless_random_brightness",
    "stateless_random_contrast",
    "stateless_random_crop",
    "stateless_random_flip_left_right",
    "stateless_random_flip_up_down",
    "stateless_random_hue",
    "stateless_random_saturation",
    "total_variation",
    "transpose",
    "yiq_to_rgb",
    "yuv_to_rgb",
]

__getattr__ = _missing.module_getattr("tf.image")
