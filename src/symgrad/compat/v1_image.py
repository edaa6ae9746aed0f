"""``tf.compat.v1.image``: ``tf.image`` with TF1's resize (``resize`` is ``resize_images``,
numbered ``ResizeMethod``, ``align_corners``), the raw resizers and TF1's other names, and
without the TF2-only stateless functions and ``resize_with_pad``."""

from __future__ import annotations

from typing import Any

from symgrad.api import image as _image
from symgrad.api.image_ops import extract_image_patches_v1 as extract_image_patches
from symgrad.api.image_ops import resize_with_crop_or_pad as resize_image_with_crop_or_pad
from symgrad.api.image_ops import transpose as transpose_image
from symgrad.api.image_resize import ResizeMethodV1 as ResizeMethod
from symgrad.api.image_resize import (
    resize_area,
    resize_bicubic,
    resize_bilinear,
    resize_image_with_pad,
    resize_images,
    resize_nearest_neighbor,
)
from symgrad.api.image_resize import resize_images as resize

_FALLBACK = "symgrad.api.image"
_NOT_INHERITED = frozenset(
    {
        "resize_with_pad",
        "stateless_random_brightness",
        "stateless_random_contrast",
        "stateless_random_crop",
        "stateless_random_flip_left_right",
        "stateless_random_flip_up_down",
        "stateless_random_hue",
        "stateless_random_saturation",
    }
)

__all__ = [
    "ResizeMethod",
    "extract_image_patches",
    "resize",
    "resize_area",
    "resize_bicubic",
    "resize_bilinear",
    "resize_image_with_crop_or_pad",
    "resize_image_with_pad",
    "resize_images",
    "resize_nearest_neighbor",
    "transpose_image",
]


def __getattr__(name: str) -> Any:
    from symgrad.core.missing import missing

    if name in _NOT_INHERITED:
        raise missing("tf.compat.v1.image", name)
    try:
        return getattr(_image, name)
    except AttributeError:
        raise missing("tf.compat.v1.image", name) from None
