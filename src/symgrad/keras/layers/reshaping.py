# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Reshaping layers (Permute, RepeatVector, ZeroPadding1D/2D/3D, Cropping1D/2D/3D,
UpSampling1D/2D/3D) and Rescaling, GaussianNoise, SpatialDropout1D/2D/3D, as Keras 3 computes
them (channels_first inputs transposed around the channels_last computation)."""

from __future__ import annotations

from typing import Any

from symgrad.keras import random as krandom
from symgrad.keras.layers.channels import channels_last_call, standardize
from symgrad.keras.layers.core import dynamic_shape
from symgrad.keras.layers.input_spec import InputSpec
from symgrad.keras.layers.layer import Layer
from symgrad.keras.layers.resize import resize
from symgrad.ops.array import structure as array
from symgrad.ops.array.slicing import pad
from symgrad.ops.math import elementwise as m


def repeat(x: Any, n: int, axis: int) -> Any:
    """``tf.repeat(x, n, axis)`` for a static ``n``: each slice ``n`` times in a row."""
    shape = dynamic_shape(x)
    axis = axis % len(shape)
    tiled = array.tile(
        array.expand_dims(x, axis + 1), [1] * (axis + 1) + [n] + [1] * (len(shape) - axis - 1)
    )
    size = shape[axis] * n if isinstance(shape[axis], int) else -1
    return array.reshape(tiled, [*shape[:axis], size, *shape[axis + 1 :]])


class _Simple(Layer):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.built = True


class Permute(_Simple):
    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. The set of indices in "
                f"`dims` must be consecutive and start from 1. Received dims={dims}"
            )

    def call(self, inputs: Any) -> Any:
        return array.transpose(inputs, (0, *self.dims))


class RepeatVector(_Simple):
    def __init__(self, n: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.n = n

    def call(self, inputs: Any) -> Any:
        return repeat(array.expand_dims(inputs, 1), self.n, axis=1)


def _pairs(value: Any, n: int) -> list[tuple[int, int]]:
    if isinstance(value, int):
        return [(value, value)] * n
    out = []
    for v in value:
        out.append((v, v) if isinstance(v, int) else tuple(v))
    return out  # type: ignore[return-value]


class ZeroPadding1D(_Simple):
    def __init__(self, padding: Any = 1, data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 1)[0] if isinstance(padding, int) else tuple(padding)
        self.data_format = standardize(data_format)

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        return pad(inputs, [[0, 0], list(self.padding), [0, 0]])


class ZeroPadding2D(_Simple):
    def __init__(self, padding: Any = (1, 1), data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 2)
        self.data_format = standardize(data_format)

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        return pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])


def _crop(inputs: Any, crops: list[tuple[int, int]]) -> Any:
    shape = dynamic_shape(inputs)
    begin = [0] + [c[0] for c in crops] + [0]
    size = [-1] + [shape[i + 1] - c[0] - c[1] for i, c in enumerate(crops)] + [-1]
    return array_slice(inputs, begin, size)


def array_slice(x: Any, begin: list[Any], size: list[Any]) -> Any:
    from symgrad.ops.array.slicing import slice as tf_slice

    return tf_slice(x, begin, size)


class Cropping1D(_Simple):
    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 1)[0] if isinstance(cropping, int) else tuple(cropping)

    def call(self, inputs: Any) -> Any:
        return _crop(inputs, [self.cropping])


class Cropping2D(_Simple):
    def __init__(
        self, cropping: Any = ((0, 0), (0, 0)), data_format: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 2)
        self.data_format = standardize(data_format)

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        return _crop(inputs, list(self.cropping))


class UpSampling1D(_Simple):
    def __init__(self, size: Any = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.size = int(size)

    def call(self, inputs: Any) -> Any:
        return repeat(inputs, self.size, axis=1)


class UpSampling2D(_Simple):
    def __init__(
        self,
        size: Any = (2, 2),
        data_format: Any = None,
        interpolation: Any = "nearest",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        self.interpolation = interpolation.lower()
        if self.interpolation not in ("nearest", "bilinear", "bicubic"):
            raise NotImplementedError(
                "symgrad's UpSampling2D supports interpolation 'nearest', 'bilinear' and "
                f"'bicubic'; got interpolation='{interpolation}'"
            )
        self.data_format = standardize(data_format)

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        if self.interpolation == "nearest":  # Keras repeats, as XLA prefers
            return repeat(repeat(inputs, self.size[0], axis=1), self.size[1], axis=2)
        height, width = inputs.shape.as_list()[1:3]
        size = (height * self.size[0], width * self.size[1])
        # TF resizes in float32; Keras hands back the input's type (float32-rounded values)
        return array.cast(resize(inputs, size, self.interpolation), inputs.dtype)


class Rescaling(_Simple):
    def __init__(self, scale: Any, offset: Any = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs: Any) -> Any:
        d = self.compute_dtype
        x = array.cast(inputs, d)
        return m.add(m.multiply(x, array.cast(self.scale, d)), array.cast(self.offset, d))


class GaussianNoise(_Simple):
    def __init__(self, stddev: Any, seed: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0 <= stddev <= 1:
            raise ValueError(
                "Invalid value received for argument `stddev`. Expected a float value "
                f"between 0 and 1. Received: stddev={stddev}"
            )
        self.stddev, self.seed = stddev, seed
        if stddev > 0:
            self.seed_generator = krandom.SeedGenerator(seed)
        self.supports_masking = True

    def call(self, inputs: Any, training: Any = False) -> Any:
        if training and self.stddev > 0:
            noise = krandom.normal(
                array.shape(inputs), 0.0, self.stddev, self.compute_dtype, self.seed_generator
            )
            return m.add(inputs, noise)
        return inputs


class SpatialDropout1D(_Simple):
    def __init__(self, rate: Any, seed: Any = None, name: Any = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.rate, self.seed = rate, seed
        self.seed_generator = krandom.SeedGenerator(seed)
        self.supports_masking = True
        self.input_spec = InputSpec(ndim=self._ndim)

    _ndim = 3

    def _noise_shape(self, inputs: Any) -> Any:
        return (dynamic_shape(inputs)[0], 1, dynamic_shape(inputs)[-1])

    def call(self, inputs: Any, training: Any = False) -> Any:
        if training and self.rate > 0:
            return krandom.dropout(
                inputs, self.rate, self._noise_shape(inputs), self.seed_generator
            )
        return inputs


class SpatialDropout2D(SpatialDropout1D):
    _ndim = 4

    def __init__(
        self,
        rate: Any,
        data_format: Any = None,
        seed: Any = None,
        name: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = standardize(data_format)

    def _noise_shape(self, inputs: Any) -> Any:
        shape = dynamic_shape(inputs)
        if self.data_format == "channels_first":
            return (shape[0], shape[1], 1, 1)
        return (shape[0], 1, 1, shape[-1])


class SpatialDropout3D(SpatialDropout2D):
    _ndim = 5

    def _noise_shape(self, inputs: Any) -> Any:
        shape = dynamic_shape(inputs)
        if self.data_format == "channels_first":
            return (shape[0], shape[1], 1, 1, 1)
        return (shape[0], 1, 1, 1, shape[-1])


def standardize_tuple(value: Any, n: int, name: str, allow_zero: bool = False) -> tuple:
    """Keras's ``argument_validation.standardize_tuple``, with its messages."""
    msg = f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
    if isinstance(value, int):
        out: tuple = (value,) * n
    else:
        try:
            out = tuple(value)
        except TypeError:
            raise ValueError(msg) from None
        if len(out) != n:
            raise ValueError(msg)
        for v in out:
            try:
                int(v)
            except (ValueError, TypeError):
                raise ValueError(msg + f"including element {v} of type {type(v)}") from None
    bad = {v for v in out if (v < 0 if allow_zero else v <= 0)}
    if bad:
        req = ">= 0" if allow_zero else "> 0"
        raise ValueError(msg + f", including values {bad} that do not satisfy `value {req}`")
    return out


_ORDINALS = ("1st", "2nd", "3rd")


def _three_pairs(value: Any, name: str, short: str) -> tuple:
    """ZeroPadding3D's ``padding`` / Cropping3D's ``cropping`` as Keras standardizes them."""
    if isinstance(value, int):
        if name == "cropping" and value < 0:
            raise ValueError(f"`cropping` cannot be negative. Received: cropping={value}.")
        return ((value, value),) * 3
    if hasattr(value, "__len__"):
        if len(value) != 3:
            raise ValueError(f"`{name}` should have 3 elements. Received: {value}.")
        return tuple(
            standardize_tuple(v, 2, f"{o} entry of {name}", allow_zero=True)
            for v, o in zip(value, _ORDINALS)
        )
    received = f"{name}={value}" if name == "padding" else f"{value}"
    raise ValueError(
        f"`{name}` should be either an int, a tuple of 3 ints (symmetric_dim1_{short}, "
        f"symmetric_dim2_{short}, symmetric_dim3_{short}), or a tuple of 3 tuples of 2 ints "
        f"((left_dim1_{short}, right_dim1_{short}), (left_dim2_{short}, right_dim2_{short}),"
        f" (left_dim3_{short}, right_dim2_{short})). Received: {received}."
    )


class ZeroPadding3D(_Simple):
    def __init__(
        self, padding: Any = ((1, 1), (1, 1), (1, 1)), data_format: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize(data_format)
        self.padding = _three_pairs(padding, "padding", "pad")
        self.input_spec = InputSpec(ndim=5)

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        return pad(inputs, [[0, 0], *(list(p) for p in self.padding), [0, 0]])


class Cropping3D(_Simple):
    def __init__(
        self, cropping: Any = ((1, 1), (1, 1), (1, 1)), data_format: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize(data_format)
        self.cropping = _three_pairs(cropping, "cropping", "crop")
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        spatial = inputs.shape.as_list()[2:5] if first else inputs.shape.as_list()[1:4]
        for size, crop in zip(spatial, self.cropping):
            if size is not None and size - sum(crop) <= 0:
                raise ValueError(
                    "Values in `cropping` argument should be smaller than the corresponding "
                    f"spatial dimension of the input. Received: inputs.shape={inputs.shape}, "
                    f"cropping={self.cropping}"
                )
        return self._crop(inputs)

    @channels_last_call
    def _crop(self, inputs: Any) -> Any:
        return _crop(inputs, list(self.cropping))


class UpSampling3D(_Simple):
    def __init__(self, size: Any = (2, 2, 2), data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize(data_format)
        self.size = standardize_tuple(size, 3, "size")
        self.input_spec = InputSpec(ndim=5)

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        for axis, n in enumerate(self.size, start=1):
            inputs = repeat(inputs, n, axis=axis)
        return inputs
