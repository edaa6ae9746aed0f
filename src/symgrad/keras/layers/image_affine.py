# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Keras 3's RandomRotation and RandomZoom, and ``keras.ops.image.affine_transform`` as Keras
on TensorFlow runs it (``ImageProjectiveTransformV3``, TF's kernel).

Each draws per image from its ``SeedGenerator`` as Keras does (a rotation angle in
degrees; a height zoom, then a width zoom if it has its own factor), builds Keras's
float32 matrix (the rotation's through sin and cos, about the image centre) and maps the
images through it with the layer's fill mode and interpolation.
"""

from __future__ import annotations

import math
from typing import Any

from symgrad.core import dtypes as dt
from symgrad.keras import random as krandom
from symgrad.keras.layers.core import dynamic_shape
from symgrad.keras.layers.image_preprocessing import _ImageLayer
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import concat, stack
from symgrad.ops.array.slicing import getitem
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.image.transform import image_projective_transform_v3
from symgrad.ops.math.elementwise import cos, sin, tan

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
AFFINE_INTERPOLATIONS = ("nearest", "bilinear")


def affine_transform(
    images: Any,
    transform: Any,
    interpolation: str = "bilinear",
    fill_mode: str = "constant",
    fill_value: float = 0.0,
    data_format: str = "channels_last",
) -> Any:
    """``keras.ops.image.affine_transform`` on TensorFlow: ``ImageProjectiveTransformV3``."""
    rank = images.shape.rank
    if rank == 3:
        images = array.expand_dims(images, 0)
    if transform.shape.rank == 1:
        transform = array.expand_dims(transform, 0)
    if data_format == "channels_first":
        images = array.transpose(images, (0, 2, 3, 1))
    size = getitem(array.shape(images), slice(1, -1))
    out = image_projective_transform_v3(
        images, array.cast(transform, dt.float32), size, fill_value,
        interpolation.upper(), fill_mode.upper(),
    )  # fmt: skip
    out.set_shape(images.shape)
    if data_format == "channels_first":
        out = array.transpose(out, (0, 3, 1, 2))
    return array.squeeze(out, axis=[0]) if rank == 3 else out


def _check_modes(fill_mode: str, interpolation: str) -> None:
    if fill_mode not in FILL_MODES:
        raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {FILL_MODES}.")
    if interpolation not in AFFINE_INTERPOLATIONS:
        raise NotImplementedError(
            f"Unknown `interpolation` {interpolation}. Expected of one {AFFINE_INTERPOLATIONS}."
        )


class _AffineLayer(_ImageLayer):
    """A random affine map per image, drawn before the images are cast (Keras's order)."""

    interpolation: str
    fill_mode: str
    fill_value: float

    def _draw(self, inputs: Any) -> Any:
        raise NotImplementedError

    def call(self, inputs: Any, training: Any = True) -> Any:
        transform = self._draw(inputs) if training else None

        def apply(x: Any) -> Any:
            x = array.cast(x, self.compute_dtype)
            if transform is None:
                return x
            return affine_transform(
                x, transform, self.interpolation, self.fill_mode, self.fill_value,
                self.data_format,
            )  # fmt: skip

        return self._each(inputs, apply)

    def _batch_height_width(self, inputs: Any) -> tuple[Any, Any, Any]:
        shape = dynamic_shape(inputs)
        batch = shape[0] if len(shape) == 4 else 1
        return batch, shape[self.height_axis], shape[self.width_axis]


def _factor_range(factor: Any) -> tuple[float, float]:
    """Keras's ``_set_factor`` for RandomRotation (bounds [-1, 1])."""
    text = (
        "The `factor` argument should be a number (or a list of two numbers) in the range "
        f"[-1, 1]. Received: factor={factor}"
    )
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > 1 or factor[1] < -1:
            raise ValueError(text)
        lower, upper = sorted(factor)
        return lower, upper
    if isinstance(factor, (int, float)):
        if factor < -1 or factor > 1:
            raise ValueError(text)
        return max(-abs(factor), -1), abs(factor)
    raise ValueError(text)


class RandomRotation(_AffineLayer):
    def __init__(
        self,
        factor: Any,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: Any = None,
        fill_value: float = 0.0,
        data_format: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _factor_range(factor)
        self.seed = seed
        self.generator = krandom.SeedGenerator(seed)
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value
        _check_modes(fill_mode, interpolation)

    def get_config(self) -> dict[str, Any]:
        head = {k: v for k, v in super().get_config().items() if k in _BASE_KEYS}
        return {
            **head,
            "factor": self.factor,
            "fill_mode": self.fill_mode,
            "fill_value": self.fill_value,
            "interpolation": self.interpolation,
            "seed": self.seed,
        }

    def _draw(self, inputs: Any) -> Any:
        batch, height, width = self._batch_height_width(inputs)
        lower, upper = self.factor[0] * 360.0, self.factor[1] * 360.0
        angle = krandom.uniform((batch,), lower, upper, seed=self.generator)
        matrix = rotation_matrix(angle, height, width)
        return array.squeeze(matrix, axis=[0]) if inputs.shape.rank == 3 else matrix


def rotation_matrix(angle: Any, height: Any, width: Any) -> Any:
    """Keras's ``_compute_affine_matrix`` for a rotation about the centre (degrees)."""
    batch = array.shape(angle)[0]
    zeros, ones = array.zeros(stack([batch])), array.ones(stack([batch]))
    factor = convert_to_tensor(math.pi / 180.0)
    angle = angle * factor
    shear_x, shear_y = tan(zeros * factor), tan(zeros * factor)
    width, height = array.cast(width, angle.dtype), array.cast(height, angle.dtype)
    cx, cy = 0.5 * (width - 1), 0.5 * (height - 1)
    cos_t, sin_t = cos(angle), sin(angle)
    a0 = ones * (cos_t + shear_x * sin_t)
    a1 = ones * (-sin_t + shear_x * cos_t)
    a2 = zeros + cx - cx * a0 - cy * a1
    b0 = ones * (shear_y * cos_t + sin_t)
    b1 = ones * (shear_y * -sin_t + cos_t)
    b2 = zeros + cy - cx * b0 - cy * b1
    columns = [array.expand_dims(v, 1) for v in (a0, a1, a2, b0, b1, b2)]
    return concat([*columns, array.zeros(stack([batch, 2]))], axis=1)


_ZOOM_TEXT = (
    "The `height_factor` and `width_factor` arguments should be a number (or a list of two "
    "numbers) in the range (-1.0, 1.0]. "
)


def _scale_range(factor: Any, name: str, text: str, minus_one: bool) -> tuple[float, float]:
    """A zoom's or translation's factor as (lower, upper), as Keras reads it: a pair
    (sorted) or a number ``f`` (``-|f|, |f|``), each value in [-1, 1] (-1 itself only
    with ``minus_one``); else Keras's ValueError starting with ``text``."""

    def check(v: float) -> None:
        if v > 1.0 or v < -1.0 or (v == -1.0 and not minus_one):
            raise ValueError(text + f"Received: input_number={v}")

    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(text + f"Received: {name}={factor}")
        check(factor[0])
        check(factor[1])
        lower, upper = sorted(factor)
        return lower, upper
    if isinstance(factor, (int, float)):
        check(factor)
        return -abs(factor), abs(factor)
    raise ValueError(text + f"Received: {name}={factor}")


def _zoom_range(factor: Any, name: str) -> tuple[float, float]:
    return _scale_range(factor, name, _ZOOM_TEXT, minus_one=False)  # (-1, 1]


class RandomZoom(_AffineLayer):
    def __init__(
        self,
        height_factor: Any,
        width_factor: Any = None,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: Any = None,
        fill_value: float = 0.0,
        data_format: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _zoom_range(height_factor, "height_factor")
        if width_factor is not None:
            self.width_lower, self.width_upper = _zoom_range(width_factor, "width_factor")
        _check_modes(fill_mode, interpolation)
        self.fill_mode, self.fill_value, self.interpolation = fill_mode, fill_value, interpolation
        self.seed = seed
        self.generator = krandom.SeedGenerator(seed)

    def get_config(self) -> dict[str, Any]:
        head = {k: v for k, v in super().get_config().items() if k in _BASE_KEYS}
        return {
            **head,
            "height_factor": self.height_factor,
            "width_factor": self.width_factor,
            "fill_mode": self.fill_mode,
            "interpolation": self.interpolation,
            "seed": self.seed,
            "fill_value": self.fill_value,
        }

    def _draw(self, inputs: Any) -> Any:
        batch, height, width = self._batch_height_width(inputs)
        shape = (batch, 1)
        draw = krandom.uniform
        lo, hi = 1.0 + self.height_lower, 1.0 + self.height_upper
        height_zoom = draw(shape, lo, hi, seed=self.generator)
        width_zoom = height_zoom
        if self.width_factor is not None:
            lo, hi = 1.0 + self.width_lower, 1.0 + self.width_upper
            width_zoom = draw(shape, lo, hi, seed=self.generator)
        zooms = array.cast(concat([width_zoom, height_zoom], axis=1), dt.float32)
        n = array.shape(zooms)[0]
        zx, zy = (
            getitem(zooms, (slice(None), slice(0, 1))),
            getitem(zooms, (slice(None), slice(1, None))),
        )
        x_offset = ((array.cast(width, dt.float32) - 1.0) / 2.0) * (1.0 - zx)
        y_offset = ((array.cast(height, dt.float32) - 1.0) / 2.0) * (1.0 - zy)
        zero = array.zeros(stack([n, 1]))
        return concat([zx, zero, x_offset, zero, zy, y_offset, array.zeros(stack([n, 2]))], axis=1)


_BASE_KEYS = ("name", "trainable", "dtype", "data_format")


_TRANSLATION_TEXT = (
    "The `factor` argument should be a number (or a list of two numbers) in the range [-1.0, 1.0]. "
)


def _translation_range(factor: Any, name: str) -> tuple[float, float]:
    return _scale_range(factor, name, _TRANSLATION_TEXT, minus_one=True)  # [-1, 1]


class RandomTranslation(_AffineLayer):
    def __init__(
        self,
        height_factor: Any,
        width_factor: Any,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: Any = None,
        fill_value: float = 0.0,
        data_format: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _translation_range(height_factor, "height_factor")
        self.width_lower, self.width_upper = _translation_range(width_factor, "width_factor")
        _check_modes(fill_mode, interpolation)
        self.fill_mode, self.fill_value, self.interpolation = fill_mode, fill_value, interpolation
        self.seed = seed
        self.generator = krandom.SeedGenerator(seed)

    def get_config(self) -> dict[str, Any]:
        head = {k: v for k, v in super().get_config().items() if k in _BASE_KEYS}
        return {
            **head,
            "height_factor": self.height_factor,
            "width_factor": self.width_factor,
            "fill_mode": self.fill_mode,
            "interpolation": self.interpolation,
            "seed": self.seed,
            "fill_value": self.fill_value,
        }

    def _draw(self, inputs: Any) -> Any:
        """Keras's translations (a height then a width fraction of the image per image,
        times its size) as the matrix [[1, 0, -dx], [0, 1, -dy], [0, 0, 1]]."""
        batch, height, width = self._batch_height_width(inputs)
        shape = (batch, 1)
        dy = krandom.uniform(shape, self.height_lower, self.height_upper, seed=self.generator)
        dy = dy * array.cast(height, dy.dtype)
        dx = krandom.uniform(shape, self.width_lower, self.width_upper, seed=self.generator)
        dx = dx * array.cast(width, dx.dtype)
        moves = array.cast(concat([dx, dy], axis=1), dt.float32)
        n = array.shape(moves)[0]
        one, zero = array.ones(stack([n, 1])), array.zeros(stack([n, 1]))
        dx, dy = (
            getitem(moves, (slice(None), slice(0, 1))),
            getitem(moves, (slice(None), slice(1, None))),
        )
        return concat([one, zero, -dx, zero, one, -dy, array.zeros(stack([n, 2]))], axis=1)
