# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Convolution and pooling layers, computed with ``tf.nn.convolution`` / ``tf.nn.max_pool`` /
``tf.nn.avg_pool`` as Keras 3's TF backend calls them (channels_last; channels_first inputs
are transposed around that, see :mod:`.channels`)."""

from __future__ import annotations

from typing import Any

from symgrad.keras import activations, constraints, initializers, regularizers
from symgrad.keras.layers.channels import channels_last_build, channels_last_call, standardize
from symgrad.keras.layers.input_spec import InputSpec
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.math import elementwise as m
from symgrad.ops.nn.conv_api import convolution
from symgrad.ops.nn.pooling import avg_pool, max_pool
from symgrad.ops.reduction.reduce import reduce_max, reduce_mean, reduce_sum


def _tuple(value: Any, n: int, name: str) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(
            f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
        )
    return value


def _format(data_format: Any, rank: int) -> str:
    """TF's channels-last format: channels-first layers transpose around it (.channels)."""
    standardize(data_format)
    return {1: "NWC", 2: "NHWC", 3: "NDHWC"}[rank]


class BaseConv(Layer):
    def __init__(
        self,
        rank: int,
        filters: Any,
        kernel_size: Any,
        strides: Any = 1,
        padding: Any = "valid",
        data_format: Any = None,
        dilation_rate: Any = 1,
        groups: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank, self.filters, self.groups = rank, int(filters), int(groups)
        self.kernel_size = _tuple(kernel_size, rank, "kernel_size")
        self.strides = _tuple(strides, rank, "strides")
        self.dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
        self.padding = padding.lower()
        self.data_format = standardize(data_format)
        self._tf_format = _format(data_format, rank)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)

    def _channels_spec(self, channels: int) -> None:
        """Keras's spec once built: the rank, and the channels on the data format's axis."""
        axis = -1 if self.data_format == "channels_last" else 1
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={axis: channels})

    @channels_last_build
    def build(self, input_shape: Any) -> None:
        channels = input_shape[-1]
        self._channels_spec(channels)
        if channels % self.groups:
            raise ValueError(
                f"The number of input channels must be evenly divisible by the number of "
                f"groups. Received groups={self.groups}, but the input has {channels} channels "
                f"(full input shape is {input_shape})."
            )
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, channels // self.groups, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias",
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        x = convolution(
            inputs,
            self.kernel,
            strides=list(self.strides),
            padding=self.padding.upper(),
            data_format=self._tf_format,
            dilations=list(self.dilation_rate),
        )
        if self.bias is not None:
            x = m.add(x, array.reshape(self.bias, [1] * (self.rank + 1) + [self.filters]))
        return self.activation(x)


def _conv_class(name: str, rank: int) -> type:
    one, many = 1, (1,) * rank

    def __init__(
        self: Any,
        filters: Any,
        kernel_size: Any,
        strides: Any = one if rank == 1 else many,
        padding: Any = "valid",
        data_format: Any = None,
        dilation_rate: Any = one if rank == 1 else many,
        groups: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        BaseConv.__init__(
            self, rank, filters, kernel_size, strides, padding, data_format, dilation_rate,
            groups, activation, use_bias, kernel_initializer, bias_initializer,
            kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
            bias_constraint, **kwargs,
        )  # fmt: skip

    return type(name, (BaseConv,), {"__init__": __init__})


Conv1D = _conv_class("Conv1D", 1)
Conv2D = _conv_class("Conv2D", 2)
Conv3D = _conv_class("Conv3D", 3)


class BasePooling(Layer):
    def __init__(
        self,
        rank: int,
        kind: str,
        pool_size: Any,
        strides: Any,
        padding: Any,
        data_format: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.rank, self.kind = rank, kind
        self.pool_size = _tuple(pool_size, rank, "pool_size")
        self.strides = _tuple(strides, rank, "strides") if strides is not None else self.pool_size
        self.padding = padding.lower()
        self.data_format = standardize(data_format)
        self._tf_format = _format(data_format, rank)
        self.input_spec = InputSpec(ndim=rank + 2)
        self.built = True

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        pool = max_pool if self.kind == "max" else avg_pool
        return pool(
            inputs,
            list(self.pool_size),
            list(self.strides),
            self.padding.upper(),
            data_format=self._tf_format,
        )


def _pool_class(name: str, rank: int, kind: str) -> type:
    default: Any = 2 if rank == 1 else (2,) * rank

    def max_init(
        self: Any,
        pool_size: Any = default,
        strides: Any = None,
        padding: Any = "valid",
        data_format: Any = None,
        name: Any = None,
        **kwargs: Any,
    ) -> None:
        BasePooling.__init__(
            self, rank, kind, pool_size, strides, padding, data_format, name=name, **kwargs
        )

    def avg_init(  # Keras's average pooling has no default pool_size
        self: Any,
        pool_size: Any,
        strides: Any = None,
        padding: Any = "valid",
        data_format: Any = None,
        name: Any = None,
        **kwargs: Any,
    ) -> None:
        BasePooling.__init__(
            self, rank, kind, pool_size, strides, padding, data_format, name=name, **kwargs
        )

    return type(name, (BasePooling,), {"__init__": max_init if kind == "max" else avg_init})


MaxPooling1D = _pool_class("MaxPooling1D", 1, "max")
MaxPooling2D = _pool_class("MaxPooling2D", 2, "max")
MaxPooling3D = _pool_class("MaxPooling3D", 3, "max")
AveragePooling1D = _pool_class("AveragePooling1D", 1, "avg")
AveragePooling2D = _pool_class("AveragePooling2D", 2, "avg")
AveragePooling3D = _pool_class("AveragePooling3D", 3, "avg")


class GlobalPooling(Layer):
    def __init__(
        self, rank: int, kind: str, data_format: Any = None, keepdims: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.rank, self.kind, self.keepdims = rank, kind, keepdims
        self.data_format = standardize(data_format)
        _format(data_format, rank)
        self.supports_masking = rank == 1
        self.input_spec = InputSpec(ndim=rank + 2)
        self.built = True

    @channels_last_call
    def call(self, inputs: Any, mask: Any = None) -> Any:
        axes = list(range(1, self.rank + 1))
        if self.kind == "max":
            return reduce_max(inputs, axis=axes, keepdims=self.keepdims)
        if mask is not None:
            w = array.expand_dims(array.cast(mask, inputs.dtype), -1)
            total = reduce_sum(m.multiply(inputs, w), axis=1, keepdims=self.keepdims)
            return m.divide(total, reduce_sum(w, axis=1, keepdims=self.keepdims))
        return reduce_mean(inputs, axis=axes, keepdims=self.keepdims)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return None


def _global_class(name: str, rank: int, kind: str) -> type:
    def __init__(self: Any, data_format: Any = None, keepdims: bool = False, **kwargs: Any) -> None:
        GlobalPooling.__init__(self, rank, kind, data_format, keepdims, **kwargs)

    return type(name, (GlobalPooling,), {"__init__": __init__})


GlobalAveragePooling1D = _global_class("GlobalAveragePooling1D", 1, "avg")
GlobalAveragePooling2D = _global_class("GlobalAveragePooling2D", 2, "avg")
GlobalAveragePooling3D = _global_class("GlobalAveragePooling3D", 3, "avg")
GlobalMaxPooling1D = _global_class("GlobalMaxPooling1D", 1, "max")
GlobalMaxPooling2D = _global_class("GlobalMaxPooling2D", 2, "max")
GlobalMaxPooling3D = _global_class("GlobalMaxPooling3D", 3, "max")
