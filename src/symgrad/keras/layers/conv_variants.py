# mypy: disable-error-code="override, attr-defined"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Conv1DTranspose / Conv2DTranspose / Conv3DTranspose, DepthwiseConv1D/2D and
SeparableConv1D/2D with Keras 3's weights and output sizes, computed with
``tf.nn.conv_transpose``, ``tf.nn.depthwise_conv2d`` and ``tf.nn.separable_conv2d`` as Keras's
TF backend calls them (a 1-D input and kernel get a unit height, strides ``(1, s, s, 1)``)."""

from __future__ import annotations

from typing import Any

from symgrad.core import dtypes as dt
from symgrad.keras import activations, constraints, initializers, regularizers
from symgrad.keras.layers.channels import channels_last_build, channels_last_call, standardize
from symgrad.keras.layers.convolutional import BaseConv, _format, _tuple
from symgrad.keras.layers.core import dynamic_shape
from symgrad.keras.layers.input_spec import InputSpec
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import stack
from symgrad.ops.math import elementwise as m
from symgrad.ops.nn.conv_api import conv_transpose, depthwise_conv2d, separable_conv2d


def _transpose_size(
    size: Any, kernel: int, stride: int, padding: str, out_pad: Any, dilation: int
) -> Any:
    """Keras's ``_get_output_shape_given_tf_padding``."""
    kernel = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(kernel, stride) - kernel if out_pad is None else out_pad
        return (size - 1) * stride + kernel + extra
    if out_pad is None:
        return size * stride
    return (size - 1) * stride + kernel % 2 + out_pad


class BaseConvTranspose(BaseConv):
    def __init__(
        self,
        rank: int,
        filters: Any,
        kernel_size: Any,
        strides: Any,
        padding: Any,
        output_padding: Any,
        data_format: Any,
        dilation_rate: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            rank, filters, kernel_size, strides, padding, data_format, dilation_rate, 1, **kwargs
        )
        self.output_padding = (
            None if output_padding is None else _tuple(output_padding, rank, "output_padding")
        )

    @channels_last_build
    def build(self, input_shape: Any) -> None:
        channels = input_shape[-1]
        self._channels_spec(channels)
        self.kernel = self.add_weight(
            name="kernel", shape=(*self.kernel_size, self.filters, channels),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )  # fmt: skip
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
            )  # fmt: skip
        self.built = True

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        shape = dynamic_shape(inputs)
        spatial = [
            _transpose_size(
                shape[i + 1], self.kernel_size[i], self.strides[i], self.padding,
                None if self.output_padding is None else self.output_padding[i],
                self.dilation_rate[i],
            )
            for i in range(self.rank)
        ]  # fmt: skip
        out_shape: Any = [shape[0], *spatial, self.filters]
        if not all(isinstance(d, int) for d in out_shape):  # a batch size known at run time
            out_shape = stack([array.cast(d, dt.int32) for d in out_shape])
        x = conv_transpose(
            inputs, self.kernel, out_shape, list(self.strides),
            padding=self.padding.upper(), data_format=self._tf_format,
            dilations=list(self.dilation_rate),
        )  # fmt: skip
        if not isinstance(out_shape, list) and all(isinstance(d, int) for d in spatial):
            x = array.reshape(x, [-1, *spatial, self.filters])  # the static sizes Keras infers
        if self.bias is not None:
            x = m.add(x, array.reshape(self.bias, [1] * (self.rank + 1) + [self.filters]))
        return self.activation(x)


class Conv1DTranspose(BaseConvTranspose):
    def __init__(
        self, filters: Any, kernel_size: Any, strides: Any = 1, padding: Any = "valid",
        output_padding: Any = None, data_format: Any = None, dilation_rate: Any = 1,
        activation: Any = None, use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
        bias_regularizer: Any = None, activity_regularizer: Any = None,
        kernel_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(
            1, filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
            activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, **kwargs,
        )  # fmt: skip


class Conv2DTranspose(BaseConvTranspose):
    def __init__(
        self, filters: Any, kernel_size: Any, strides: Any = (1, 1), padding: Any = "valid",
        output_padding: Any = None, data_format: Any = None, dilation_rate: Any = (1, 1),
        activation: Any = None, use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
        bias_regularizer: Any = None, activity_regularizer: Any = None,
        kernel_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(
            2, filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
            activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, **kwargs,
        )  # fmt: skip


class Conv3DTranspose(BaseConvTranspose):
    def __init__(
        self, filters: Any, kernel_size: Any, strides: Any = (1, 1, 1), padding: Any = "valid",
        data_format: Any = None, output_padding: Any = None, dilation_rate: Any = (1, 1, 1),
        activation: Any = None, use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
        bias_regularizer: Any = None, activity_regularizer: Any = None,
        kernel_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(
            3, filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
            activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, **kwargs,
        )  # fmt: skip


class _Depthwise(Layer):
    rank = 2

    def _setup(
        self,
        kernel_size: Any,
        strides: Any,
        padding: Any,
        data_format: Any,
        dilation_rate: Any,
        depth_multiplier: Any,
        activation: Any,
        use_bias: bool,
    ) -> None:
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size")
        self.strides = _tuple(strides, self.rank, "strides")
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate")
        self.padding, self.depth_multiplier = padding.lower(), int(depth_multiplier)
        self.data_format = standardize(data_format)
        self._tf_format = _format(data_format, 2)
        self.input_spec = InputSpec(min_ndim=self.rank + 2)
        self.activation, self.use_bias = activations.get(activation), use_bias

    def _conv_args(self) -> tuple[list[int], list[int]]:
        """The strides and dilations of Keras's 2-D call (a 1-D one has unit height)."""
        if self.rank == 1:
            return [1, self.strides[0], self.strides[0], 1], [1, self.dilation_rate[0]]
        return [1, *self.strides, 1], list(self.dilation_rate)

    def _as_2d(self, x: Any) -> Any:
        return array.expand_dims(x, 1) if self.rank == 1 else x

    def _from_2d(self, x: Any) -> Any:
        return array.squeeze(x, [1]) if self.rank == 1 else x

    def _bias(self, n: int, initializer: Any, regularizer: Any, constraint: Any) -> None:
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(n,), initializer=initializers.get(initializer),
                regularizer=regularizers.get(regularizer), constraint=constraints.get(constraint),
            )  # fmt: skip

    def _finish(self, x: Any) -> Any:
        if self.bias is not None:
            x = m.add(x, array.reshape(self.bias, [1] * (self.rank + 1) + [-1]))
        return self.activation(x)


class DepthwiseConv2D(_Depthwise):
    def __init__(
        self, kernel_size: Any, strides: Any = (1, 1), padding: Any = "valid",
        depth_multiplier: Any = 1, data_format: Any = None, dilation_rate: Any = (1, 1),
        activation: Any = None, use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros", depthwise_regularizer: Any = None,
        bias_regularizer: Any = None, activity_regularizer: Any = None,
        depthwise_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._setup(
            kernel_size,
            strides,
            padding,
            data_format,
            dilation_rate,
            depth_multiplier,
            activation,
            use_bias,
        )
        self._kernel_args = (depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        self._bias_args = (bias_initializer, bias_regularizer, bias_constraint)

    @channels_last_build
    def build(self, input_shape: Any) -> None:
        init, reg, con = self._kernel_args
        channels = input_shape[-1]
        self.kernel = self.add_weight(
            name="kernel", shape=(*self.kernel_size, channels, self.depth_multiplier),
            initializer=initializers.get(init), regularizer=regularizers.get(reg),
            constraint=constraints.get(con),
        )  # fmt: skip
        self._bias(channels * self.depth_multiplier, *self._bias_args)
        self.built = True

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        strides, dilations = self._conv_args()
        kernel = array.expand_dims(self.kernel, 0) if self.rank == 1 else self.kernel
        x = depthwise_conv2d(
            self._as_2d(inputs), kernel, strides, self.padding.upper(),
            data_format=self._tf_format, dilations=dilations,
        )  # fmt: skip
        return self._finish(self._from_2d(x))


class SeparableConv2D(_Depthwise):
    def __init__(
        self, filters: Any, kernel_size: Any, strides: Any = (1, 1), padding: Any = "valid",
        data_format: Any = None, dilation_rate: Any = (1, 1), depth_multiplier: Any = 1,
        activation: Any = None, use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
        bias_regularizer: Any = None, activity_regularizer: Any = None,
        depthwise_constraint: Any = None, pointwise_constraint: Any = None,
        bias_constraint: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        self._setup(
            kernel_size,
            strides,
            padding,
            data_format,
            dilation_rate,
            depth_multiplier,
            activation,
            use_bias,
        )
        self._depthwise_args = (depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        self._pointwise_args = (pointwise_initializer, pointwise_regularizer, pointwise_constraint)
        self._bias_args = (bias_initializer, bias_regularizer, bias_constraint)

    @channels_last_build
    def build(self, input_shape: Any) -> None:
        channels = input_shape[-1]
        shapes = {
            "depthwise_kernel": (
                (*self.kernel_size, channels, self.depth_multiplier),
                self._depthwise_args,
            ),
            "pointwise_kernel": (
                (*(1,) * self.rank, channels * self.depth_multiplier, self.filters),
                self._pointwise_args,
            ),
        }
        for name, (shape, (init, reg, con)) in shapes.items():
            setattr(self, name, self.add_weight(
                name=name, shape=shape, initializer=initializers.get(init),
                regularizer=regularizers.get(reg), constraint=constraints.get(con),
            ))  # fmt: skip
        self._bias(self.filters, *self._bias_args)
        self.built = True

    @channels_last_call
    def call(self, inputs: Any) -> Any:
        strides, dilations = self._conv_args()
        depthwise, pointwise = self.depthwise_kernel, self.pointwise_kernel
        if self.rank == 1:
            depthwise, pointwise = array.expand_dims(depthwise, 0), array.expand_dims(pointwise, 0)
        x = separable_conv2d(
            self._as_2d(inputs), depthwise, pointwise, strides, self.padding.upper(),
            data_format=self._tf_format, dilations=dilations,
        )  # fmt: skip
        return self._finish(self._from_2d(x))


class DepthwiseConv1D(DepthwiseConv2D):
    rank = 1

    def __init__(
        self, kernel_size: Any, strides: Any = 1, padding: Any = "valid",
        depth_multiplier: Any = 1, data_format: Any = None, dilation_rate: Any = 1,
        activation: Any = None, use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros", depthwise_regularizer: Any = None,
        bias_regularizer: Any = None, activity_regularizer: Any = None,
        depthwise_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(
            kernel_size, strides, padding, depth_multiplier, data_format, dilation_rate,
            activation, use_bias, depthwise_initializer, bias_initializer,
            depthwise_regularizer, bias_regularizer, activity_regularizer,
            depthwise_constraint, bias_constraint, **kwargs,
        )  # fmt: skip


class SeparableConv1D(SeparableConv2D):
    rank = 1

    def __init__(
        self, filters: Any, kernel_size: Any, strides: Any = 1, padding: Any = "valid",
        data_format: Any = None, dilation_rate: Any = 1, depth_multiplier: Any = 1,
        activation: Any = None, use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
        bias_regularizer: Any = None, activity_regularizer: Any = None,
        depthwise_constraint: Any = None, pointwise_constraint: Any = None,
        bias_constraint: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(
            filters, kernel_size, strides, padding, data_format, dilation_rate,
            depth_multiplier, activation, use_bias, depthwise_initializer,
            pointwise_initializer, bias_initializer, depthwise_regularizer,
            pointwise_regularizer, bias_regularizer, activity_regularizer,
            depthwise_constraint, pointwise_constraint, bias_constraint, **kwargs,
        )  # fmt: skip
