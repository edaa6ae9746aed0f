# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Keras 3's image preprocessing layers Resizing, CenterCrop, RandomFlip and RandomCrop
(RandomRotation and RandomZoom are in ``image_affine``), computed as Keras on TensorFlow
computes them (``tf.image.resize`` with half-pixel centres, slices, ``tf.reverse``) and
drawing as Keras draws (``SeedGenerator`` state through ``tf.random.stateless_uniform``:
TF's Philox bits).

As Keras's ``BaseImagePreprocessingLayer``, each takes a 3-D image or a 4-D batch,
``training`` defaults to True when the layer is called directly (a model's ``predict``
passes False), and a 3-D image is handled as a batch of one.
"""

from __future__ import annotations

from typing import Any

from symgrad.api.clip_ops import clip_by_value
from symgrad.api.image_color import _saturate_cast
from symgrad.api.image_resize import resize as tf_resize
from symgrad.control_flow.cond import cond
from symgrad.core import dtypes as dt
from symgrad.keras import random as krandom
from symgrad.keras.layers.channels import standardize
from symgrad.keras.layers.config import layer_config
from symgrad.keras.layers.core import dynamic_shape
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import concat, stack
from symgrad.ops.array.reverse import reverse
from symgrad.ops.array.slicing import getitem
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as m
from symgrad.ops.math.rounding import round as round_
from symgrad.ops.reduction.reduce import reduce_mean

INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


class _ImageLayer(Layer):
    """What Keras's ``BaseImagePreprocessingLayer`` gives these four layers."""

    def __init__(self, data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize(data_format)
        channels_last = self.data_format == "channels_last"
        self.height_axis, self.width_axis = (-3, -2) if channels_last else (-2, -1)
        self.built = True

    def get_config(self) -> dict[str, Any]:
        config = layer_config(self)
        head = {k: config.pop(k) for k in ("name", "trainable", "dtype")}
        return {**head, "data_format": config.pop("data_format"), **config}

    @staticmethod
    def _is_batched(x: Any) -> bool:
        rank = x.shape.rank
        if rank in (3, 4):
            return rank == 4
        shape = tuple(x.shape.as_list()) if rank is not None else None
        raise ValueError(
            "Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
            f"Received: data.shape={shape}"
        )

    def _each(self, x: Any, transform: Any) -> Any:
        """``transform`` on a batch; a single image goes through as a batch of one."""
        if self._is_batched(x):
            return transform(x)
        return array.squeeze(transform(array.expand_dims(x, 0)), axis=[0])

    def _slice(self, x: Any, top: Any, left: Any, height: Any, width: Any) -> Any:
        """The [top:top+height, left:left+width] window of a batch (either layout)."""
        rows, cols = slice(top, top + height), slice(left, left + width)
        key = (rows, cols) if self.data_format == "channels_first" else (rows, cols, slice(None))
        lead = (slice(None),) * (x.shape.rank - len(key))
        out = getitem(x, (*lead, *key))
        dims = out.shape.as_list()
        for axis, start, size in ((self.height_axis, top, height), (self.width_axis, left, width)):
            if isinstance(size, int) and not isinstance(start, int):
                dims[axis] = size  # a window of known size at a computed offset (Keras's shape)
        out.set_shape(dims)
        return out

    @staticmethod
    def _height_width_of(x: Any, axes: tuple[int, int]) -> None:
        """Keras reads the height and width from the shape first: too few axes is
        Python's IndexError there."""
        if x.shape.rank is not None and x.shape.rank < -min(axes):
            raise IndexError("tuple index out of range")


def keras_resize(
    images: Any,
    size: tuple[int, int],
    interpolation: str = "bilinear",
    antialias: bool = False,
    crop_to_aspect_ratio: bool = False,
    pad_to_aspect_ratio: bool = False,
    fill_mode: str = "constant",
    fill_value: float = 0.0,
    data_format: str = "channels_last",
) -> Any:
    """``keras.ops.image.resize`` on TensorFlow (its checks and texts)."""
    if interpolation not in INTERPOLATIONS:
        raise ValueError(
            "Invalid value for argument `interpolation`. Expected of one "
            f"{INTERPOLATIONS}. Received: interpolation={interpolation}"
        )
    if fill_mode != "constant":
        raise ValueError(
            "Invalid value for argument `fill_mode`. Only `'constant'` "
            f"is supported. Received: fill_mode={fill_mode}"
        )
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError(
            "Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`."
        )
    if len(size) != 2:
        raise ValueError(
            "Argument `size` must be a tuple of two elements (height, width). "
            f"Received: size={size}"
        )
    rank = images.shape.rank
    if rank not in (3, 4):
        raise ValueError(
            "Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
            f"Received input with shape: images.shape={images.shape}"
        )
    if data_format == "channels_first":
        images = array.transpose(images, (0, 2, 3, 1) if rank == 4 else (1, 2, 0))
    if crop_to_aspect_ratio:
        images = _crop_to_aspect(images, size)
    elif pad_to_aspect_ratio:
        images = _pad_to_aspect(images, size, fill_value)
    resized = tf_resize(images, size, method=interpolation, antialias=antialias)
    if data_format == "channels_first":
        resized = array.transpose(resized, (0, 3, 1, 2) if rank == 4 else (2, 0, 1))
    return resized


def _scaled(a: Any, b: Any, c: Any) -> Any:
    """``int32(float32(a * b) / c)``, as Keras's TF backend computes crop sizes."""
    return array.cast(array.cast(a * b, dt.float32) / c, dt.int32)


def _half(a: Any) -> Any:
    return array.cast(array.cast(a, dt.float32) / 2, dt.int32)


def _crop_to_aspect(images: Any, size: tuple[int, int]) -> Any:
    shape = array.shape(images)
    height, width = shape[-3], shape[-2]
    th, tw = size
    crop_h = m.maximum(m.minimum(height, _scaled(width, th, tw)), 1)
    crop_w = m.maximum(m.minimum(width, _scaled(height, tw, th)), 1)
    top, left = _half(height - crop_h), _half(width - crop_w)
    key = (slice(top, top + crop_h), slice(left, left + crop_w), slice(None))
    lead = (slice(None),) * (images.shape.rank - 3)
    return getitem(images, (*lead, *key))


def _pad_to_aspect(images: Any, size: tuple[int, int], fill_value: Any) -> Any:
    shape = array.shape(images)
    height, width = shape[-3], shape[-2]
    th, tw = size
    pad_h = m.maximum(height, _scaled(width, th, tw))
    pad_w = m.maximum(width, _scaled(height, tw, th))
    top, left = _half(pad_h - height), _half(pad_w - width)
    batch = [shape[0]] if images.shape.rank == 4 else []
    channels = shape[-1]
    axis = images.shape.rank - 3

    def band(rows: Any, cols: Any) -> Any:
        return array.ones(stack([*batch, rows, cols, channels]), images.dtype) * fill_value

    def padded(x: Any, amount: Any, along: int, make: Any) -> Any:
        return cond(amount > 0, lambda: concat([make(), x, make()], along), lambda: x)

    out = padded(images, top, axis, lambda: band(top, width))
    return padded(out, left, axis + 1, lambda: band(height, left))


class Resizing(_ImageLayer):
    def __init__(
        self,
        height: int,
        width: int,
        interpolation: str = "bilinear",
        crop_to_aspect_ratio: bool = False,
        pad_to_aspect_ratio: bool = False,
        fill_mode: str = "constant",
        fill_value: float = 0.0,
        antialias: bool = False,
        data_format: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.height, self.width = height, width
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode, self.fill_value = fill_mode, fill_value
        self.antialias = bool(antialias)

    def _resize(self, images: Any) -> Any:
        resized = keras_resize(
            images,
            (self.height, self.width),
            self.interpolation,
            self.antialias,
            self.crop_to_aspect_ratio,
            self.pad_to_aspect_ratio,
            self.fill_mode,
            self.fill_value,
            self.data_format,
        )
        if resized.dtype is images.dtype:
            return resized
        if images.dtype.is_integer:
            resized = round_(resized)
        return _saturate_cast(resized, images.dtype)

    def call(self, inputs: Any, training: Any = True) -> Any:
        self._height_width_of(inputs, (self.height_axis, self.width_axis))
        return self._each(inputs, self._resize)


class CenterCrop(_ImageLayer):
    def __init__(self, height: int, width: int, data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.height, self.width = height, width

    def _crop(self, images: Any) -> Any:
        x = array.cast(images, self.compute_dtype)
        shape = dynamic_shape(x)
        h, w = shape[self.height_axis], shape[self.width_axis]
        h_diff, w_diff = h - self.height, w - self.width
        if (not isinstance(h_diff, int) or h_diff >= 0) and (
            not isinstance(w_diff, int) or w_diff >= 0
        ):
            return self._slice(x, h_diff // 2, w_diff // 2, self.height, self.width)
        return self._smart_resize(x, h, w)

    def _smart_resize(self, x: Any, height: Any, width: Any) -> Any:
        """``keras.utils.smart_resize``: crop to the target's aspect ratio, then resize."""
        th, tw = self.height, self.width
        crop_h: Any
        crop_w: Any
        if isinstance(height, int) and isinstance(width, int):
            crop_h = max(min(height, int(float(width * th) / tw)), 1)
            crop_w = max(min(width, int(float(height * tw) / th)), 1)
            top, left = int(float(height - crop_h) / 2), int(float(width - crop_w) / 2)
        else:
            crop_h = m.maximum(m.minimum(height, _scaled(width, th, tw)), 1)
            crop_w = m.maximum(m.minimum(width, _scaled(height, tw, th)), 1)
            top, left = _half(height - crop_h), _half(width - crop_w)
        cropped = self._slice(x, top, left, crop_h, crop_w)
        return keras_resize(cropped, (th, tw), data_format=self.data_format)

    def call(self, inputs: Any, training: Any = True) -> Any:
        return self._each(inputs, self._crop)


class RandomFlip(_ImageLayer):
    def __init__(
        self,
        mode: str = "horizontal_and_vertical",
        seed: Any = None,
        data_format: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.seed = seed
        self.generator = krandom.SeedGenerator(seed)
        self.mode = mode
        self.autocast = False  # Keras: _convert_input_args = False (call casts itself)

    def call(self, inputs: Any, training: Any = True) -> Any:
        flips = None
        if training:
            shape = dynamic_shape(inputs)
            flips_shape = (1, 1, 1) if len(shape) == 3 else (shape[0], 1, 1, 1)
            flips = m.less_equal(krandom.uniform(flips_shape, seed=self.generator), 0.5)

        def flip(x: Any) -> Any:
            x = array.cast(x, self.compute_dtype)
            if flips is None:
                return x
            horizontal, vertical = (-2, -3) if self.data_format == "channels_last" else (-1, -2)
            if self.mode in ("horizontal", "horizontal_and_vertical"):
                x = array.where(flips, reverse(x, [horizontal]), x)
            if self.mode in ("vertical", "horizontal_and_vertical"):
                x = array.where(flips, reverse(x, [vertical]), x)
            return x

        return self._each(inputs, flip)


class RandomCrop(_ImageLayer):
    def __init__(
        self,
        height: int,
        width: int,
        seed: Any = None,
        data_format: Any = None,
        name: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_format=data_format, name=name, **kwargs)
        self.height, self.width = height, width
        self.seed = seed if seed is not None else krandom.make_default_seed()
        self.generator = krandom.SeedGenerator(seed)
        self.autocast = False  # Keras: _convert_input_args = False (inference returns x as is)

    def _offsets(self, inputs: Any, training: Any) -> tuple[Any, Any]:
        shape = inputs.shape.as_list()
        h, w = shape[self.height_axis], shape[self.width_axis]
        if h is None or w is None:
            raise ValueError(
                "RandomCrop requires the input to have a fully defined height and width. "
                f"Received: images.shape={tuple(dynamic_shape(inputs))}"
            )
        if training and h > self.height and w > self.width:
            draw = krandom.uniform
            top = array.cast(draw((), 0, float(h - self.height + 1), seed=self.generator), "int32")
            left = array.cast(draw((), 0, float(w - self.width + 1), seed=self.generator), "int32")
            return top, left
        crop_h = max(min(h, int(float(w * self.height) / self.width)), 1)
        crop_w = max(min(w, int(float(h * self.width) / self.height)), 1)
        return int(float(h - crop_h) / 2), int(float(w - crop_w) / 2)

    def call(self, inputs: Any, training: Any = True) -> Any:
        self._height_width_of(inputs, (self.height_axis, self.width_axis))
        top, left = self._offsets(inputs, training)

        def crop(x: Any) -> Any:
            if not training:
                return x
            x = self._slice(array.cast(x, self.compute_dtype), top, left, self.height, self.width)
            shape = x.shape.as_list()
            if shape[self.height_axis] != self.height or shape[self.width_axis] != self.width:
                x = keras_resize(x, (self.height, self.width), data_format=self.data_format)
                x = array.cast(x, self.compute_dtype)
            return x

        return self._each(inputs, crop)


def factor_range(factor: Any, bounds: tuple[int, int]) -> tuple[Any, Any]:
    """Keras's ``BaseImagePreprocessingLayer._set_factor`` (its text) for these bounds."""
    text = (
        "The `factor` argument should be a number (or a list of two numbers) in the range "
        f"[{bounds[0]}, {bounds[1]}]. Received: factor={factor}"
    )
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise ValueError(text)
        lower, upper = sorted(factor)
        return lower, upper
    if isinstance(factor, (int, float)):
        if factor < bounds[0] or factor > bounds[1]:
            raise ValueError(text)
        return max(-abs(factor), bounds[0]), abs(factor)
    raise ValueError(text)


class _ColorLayer(_ImageLayer):
    """RandomBrightness / RandomContrast: one draw per image of a batch (shape
    ``(batch, 1, 1, 1)``, or ``(1, 1, 1)`` for one image), applied then clipped to
    ``value_range``; at inference the images come back as given."""

    _BOUNDS = (-1, 1)
    value_range: Any

    def __init__(
        self, factor: Any, value_range: Any = (0, 255), seed: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.factor = factor_range(factor, self._BOUNDS)
        self.seed = seed
        self.generator = krandom.SeedGenerator(seed)

    def get_config(self) -> dict[str, Any]:
        config = Layer.get_config(self)
        head = {k: config[k] for k in ("name", "trainable", "dtype")}
        return {
            **head,
            "data_format": self.data_format,
            "factor": self.factor,
            "value_range": self.value_range,
            "seed": self.seed,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**config)

    def _draw_shape(self, inputs: Any) -> Any:
        shape = dynamic_shape(inputs)
        if len(shape) not in (3, 4):
            raise ValueError(
                f"Expected the input image to be rank 3 or 4. Received inputs.shape={tuple(shape)}"
            )
        return (1, 1, 1) if len(shape) == 3 else (shape[0], 1, 1, 1)

    def _draw(self, shape: Any) -> Any:
        raise NotImplementedError

    def _apply(self, images: Any, draw: Any) -> Any:
        raise NotImplementedError

    def call(self, inputs: Any, training: Any = True) -> Any:
        shape = self._draw_shape(inputs)
        if not training:
            return inputs
        draw = self._draw(shape)
        low, high = self.value_range
        return clip_by_value(self._apply(inputs, draw), low, high)


class RandomBrightness(_ColorLayer):
    def __init__(
        self, factor: Any, value_range: Any = (0, 255), seed: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(factor, value_range, seed, **kwargs)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(
                "The `value_range` argument should be a list of two numbers. "
                f"Received: value_range={value_range}"
            )
        self.value_range = sorted(value_range)

    def _draw(self, shape: Any) -> Any:
        delta = krandom.uniform(shape, self.factor[0], self.factor[1], seed=self.generator)
        return delta * (self.value_range[1] - self.value_range[0])

    def _apply(self, images: Any, draw: Any) -> Any:
        return m.add(images, array.cast(draw, images.dtype))


class RandomContrast(_ColorLayer):
    _BOUNDS = (0, 1)

    def __init__(
        self, factor: Any, value_range: Any = (0, 255), seed: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(factor, value_range, seed, **kwargs)
        self.value_range = value_range

    def _draw(self, shape: Any) -> Any:
        lo, hi = 1.0 - self.factor[0], 1.0 + self.factor[1]
        return krandom.uniform(shape, lo, hi, dtype=self.compute_dtype, seed=self.generator)

    def _apply(self, images: Any, draw: Any) -> Any:
        mean = reduce_mean(images, axis=self.height_axis, keepdims=True)
        mean = reduce_mean(mean, axis=self.width_axis, keepdims=True)
        return m.add(m.multiply(m.subtract(images, mean), draw), mean)


class _RandomSize(Layer):
    """Keras 3's legacy RandomHeight / RandomWidth (still in TF 2.21's tf.keras.layers):
    one factor drawn per call for the whole batch, the axis resized to
    ``int(factor * size)`` with ``tf.image.resize``; at inference the input as given."""

    _axis = -3
    _less = "lesser"

    def __init__(
        self, factor: Any, interpolation: str = "bilinear", seed: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.seed_generator = krandom.SeedGenerator(seed)
        self.factor = factor
        if isinstance(factor, (tuple, list)):
            self.lower, self.upper = factor[0], factor[1]
        else:
            self.lower, self.upper = -factor, factor
        if self.upper < self.lower:
            raise ValueError(
                f"`factor` argument cannot have an upper bound {self._less} than the lower "
                f"bound. Received: factor={factor}"
            )
        if self.lower < -1.0 or self.upper < -1.0:
            raise ValueError(
                f"`factor` argument must have values larger than -1. Received: factor={factor}"
            )
        self.interpolation, self.seed = interpolation, seed
        self.built = True

    def call(self, inputs: Any, training: Any = True) -> Any:
        inputs = convert_to_tensor(inputs, dtype=self.compute_dtype)  # no cast, as Keras's
        if not training:
            return inputs
        shape = array.shape(inputs)
        size = [getitem(shape, -3), getitem(shape, -2)]
        which = 0 if self._axis == -3 else 1
        scale = krandom.uniform([], 1.0 + self.lower, 1.0 + self.upper, seed=self.seed_generator)
        size[which] = array.cast(scale * array.cast(size[which], dt.float32), dt.int32)
        out = array.cast(
            tf_resize(inputs, stack(size), method=self.interpolation), self.compute_dtype
        )
        dims = inputs.shape.as_list()
        dims[self._axis] = None
        out.set_shape(dims)
        return out


class RandomHeight(_RandomSize):
    pass


class RandomWidth(_RandomSize):
    _axis = -2
    _less = "less"
