# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""BatchNormalization and LayerNormalization as Keras 3 computes them: ``tf.nn.moments``,
moving statistics ``moving * momentum + batch * (1 - momentum)`` when training, and
``tf.nn.batch_normalization`` (BatchNormalization) or ``x * inv + (beta - mean * inv)``
with ``inv = rsqrt(var + eps) * gamma`` (LayerNormalization)."""

from __future__ import annotations

from typing import Any

from symgrad.keras import constraints, initializers, regularizers
from symgrad.keras.layers.input_spec import InputSpec
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as m
from symgrad.ops.nn.normalization import batch_normalization, moments
from symgrad.ops.reduction.reduce import reduce_mean, reduce_sum


class BatchNormalization(Layer):
    def __init__(
        self,
        axis: Any = -1,
        momentum: Any = 0.99,
        epsilon: Any = 0.001,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        moving_mean_initializer: Any = "zeros",
        moving_variance_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        renorm: bool = False,
        renorm_clipping: Any = None,
        renorm_momentum: Any = 0.99,
        synchronized: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if renorm:
            raise NotImplementedError("symgrad's BatchNormalization does not support renorm=True")
        self.axis, self.momentum, self.epsilon = int(axis), float(momentum), float(epsilon)
        self.center, self.scale, self.synchronized = center, scale, synchronized
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.renorm = renorm
        self.supports_masking = True
        self.gamma = self.beta = None

    def build(self, input_shape: Any) -> None:
        self.input_spec = InputSpec(ndim=len(input_shape), axes={self.axis: input_shape[self.axis]})
        shape = (input_shape[self.axis],)
        if self.scale:
            self.gamma = self.add_weight(
                shape=shape, name="gamma", initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                autocast=False,
            )  # fmt: skip
        if self.center:
            self.beta = self.add_weight(
                shape=shape, name="beta", initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint, autocast=False,
            )  # fmt: skip
        self.moving_mean = self.add_weight(
            shape=shape,
            name="moving_mean",
            initializer=self.moving_mean_initializer,
            trainable=False,
            autocast=False,
        )
        self.moving_variance = self.add_weight(
            shape=shape, name="moving_variance", initializer=self.moving_variance_initializer,
            trainable=False, autocast=False,
        )  # fmt: skip
        rank = len(input_shape)
        self._axis = self.axis % rank
        self._reduction_axes = [i for i in range(rank) if i != self._axis]
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        inputs = array.cast(inputs, at_least_float32(inputs.dtype))  # Keras: no float16 BN
        moving_mean = array.cast(self.moving_mean, inputs.dtype)
        moving_variance = array.cast(self.moving_variance, inputs.dtype)
        if training and self.trainable:
            mean, variance = moments(inputs, self._reduction_axes)
            self.moving_mean.assign(
                m.add(m.multiply(moving_mean, self.momentum), m.multiply(mean, 1.0 - self.momentum))
            )
            self.moving_variance.assign(
                m.add(
                    m.multiply(moving_variance, self.momentum),
                    m.multiply(variance, 1.0 - self.momentum),
                )
            )
        else:
            mean, variance = moving_mean, moving_variance
        gamma = None if self.gamma is None else array.cast(self.gamma, inputs.dtype)
        beta = None if self.beta is None else array.cast(self.beta, inputs.dtype)
        if self._axis != inputs.shape.rank - 1:
            shape = [1] * inputs.shape.rank
            shape[self._axis] = -1
            mean, variance = array.reshape(mean, shape), array.reshape(variance, shape)
            gamma = None if gamma is None else array.reshape(gamma, shape)
            beta = None if beta is None else array.reshape(beta, shape)
        out = batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon)
        return array.cast(out, self.compute_dtype)


def at_least_float32(dtype: Any) -> Any:
    """Keras's ``result_type(dtype, "float32")`` for a float dtype: half precisions widen."""
    return "float32" if dtype.name in ("float16", "bfloat16") else dtype


class LayerNormalization(Layer):
    def __init__(
        self,
        axis: Any = -1,
        epsilon: Any = 0.001,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        self.rms_scaling = kwargs.pop("rms_scaling", False)
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else int(axis)
        self.epsilon, self.center, self.scale = float(epsilon), center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True
        self.autocast = False  # Keras: inputs and weights as they are; computed in float32+
        self.gamma = self.beta = None

    def build(self, input_shape: Any) -> None:
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        shape = tuple(input_shape[a] for a in axes)
        if self.scale:
            self.gamma = self.add_weight(
                name="gamma", shape=shape, initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                autocast=False,
            )  # fmt: skip
        if self.center:
            self.beta = self.add_weight(
                name="beta", shape=shape, initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint, autocast=False,
            )  # fmt: skip
        self.built = True

    def call(self, inputs: Any) -> Any:
        inputs = array.cast(inputs, at_least_float32(inputs.dtype))  # ops.layer_normalization
        rank = inputs.shape.rank
        axes = sorted(a % rank for a in (self.axis if isinstance(self.axis, list) else [self.axis]))
        bshape = [1] * rank
        for a in axes:
            bshape[a] = inputs.shape.as_list()[a]

        def broadcast(v: Any) -> Any:
            if v is not None and v.shape.rank != rank and axes != [rank - 1]:
                return array.reshape(v, bshape)
            return v

        mean, variance = moments(inputs, axes, keepdims=True)
        inv = m.rsqrt(m.add(variance, self.epsilon))
        gamma, beta = (
            None if v is None else broadcast(array.cast(v, inputs.dtype))
            for v in (self.gamma, self.beta)
        )
        if gamma is not None:
            inv = m.multiply(inv, gamma)
        res = m.multiply(m.negative(mean), inv)
        if beta is not None:
            res = m.add(res, beta)
        return array.cast(m.add(m.multiply(inputs, inv), res), self.compute_dtype)


class GroupNormalization(Layer):
    """Channels in ``groups`` groups, each normalized over its channels and the spatial axes
    (Keras's reshape to ``(..., groups, channels // groups)`` and moments)."""

    def __init__(
        self,
        groups: Any = 32,
        axis: Any = -1,
        epsilon: Any = 0.001,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.groups, self.axis, self.epsilon = groups, axis, epsilon
        self.center, self.scale = center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.gamma = self.beta = None

    def build(self, input_shape: Any) -> None:
        dim = input_shape[self.axis]
        if dim is None or dim % self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) must be a multiple of the number of "
                f"channels ({dim})."
            )
        if self.scale:
            self.gamma = self.add_weight(
                shape=(dim,), name="gamma", initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
            )  # fmt: skip
        if self.center:
            self.beta = self.add_weight(
                shape=(dim,), name="beta", initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint,
            )  # fmt: skip
        self.built = True

    def _grouped(self, shape: list[Any]) -> list[Any]:
        out = list(shape)
        out[self.axis] = shape[self.axis] // self.groups
        out.insert(self.axis if self.axis >= 0 else len(out) + self.axis, self.groups)
        return out

    def call(self, inputs: Any) -> Any:
        from symgrad.keras.layers.core import dynamic_shape

        shape = dynamic_shape(inputs)
        x = array.reshape(inputs, [-1, *self._grouped(shape)[1:]])
        axes = list(range(1, len(shape) + 1))
        axes.pop(-2 if self.axis == -1 else self.axis - 1)
        bshape = self._grouped(_ones_but(shape, self.axis))
        mean, variance = moments(x, axes, keepdims=True)
        inv = m.rsqrt(m.add(variance, self.epsilon))
        if self.gamma is not None:
            inv = m.multiply(inv, array.reshape(self.gamma, bshape))
        res = m.multiply(m.negative(mean), inv)
        if self.beta is not None:
            res = m.add(res, array.reshape(self.beta, bshape))
        return array.reshape(m.add(m.multiply(x, inv), res), shape)


def _ones_but(shape: list[Any], axis: int) -> list[Any]:
    out: list[Any] = [1] * len(shape)
    out[axis] = shape[axis]
    return out


class UnitNormalization(Layer):
    """``x`` scaled to unit L2 norm over ``axis``, as Keras 3's ``ops.normalize``:
    ``x * minimum(rsqrt(sum(x²)), 1e12)`` (the cap: epsilon 1e-12 for a zero vector)."""

    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(axis, list | tuple):
            self.axis: Any = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(
                "Invalid value for `axis` argument: expected an int or a list/tuple of ints. "
                f"Received: axis={axis}"
            )
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = convert_to_tensor(inputs)
        if x.shape.rank == 0:
            x = array.expand_dims(x, 0)
        square_sum = reduce_sum(m.square(x), axis=self.axis, keepdims=True)
        return x * m.minimum(m.rsqrt(square_sum), 1.0 / 1e-12)


class Normalization(Layer):
    """``(x - mean) / max(sqrt(variance), epsilon)`` with the statistics given or learned
    by ``adapt(data)`` (per position along ``axis``, as Keras computes them)."""

    def __init__(
        self,
        axis: Any = -1,
        mean: Any = None,
        variance: Any = None,
        invert: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.axis = () if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
        self.input_mean, self.input_variance, self.invert = mean, variance, invert
        self.supports_masking = True
        if (mean is None) != (variance is None):
            raise ValueError(
                "When setting values directly, both `mean` and `variance` must be set. "
                f"Received: mean={mean} and variance={variance}"
            )

    def build(self, input_shape: Any) -> None:
        ndim = len(input_shape)
        self._keep_axis = tuple(sorted(d % ndim for d in self.axis))
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [input_shape[d] if d in self._keep_axis else 1 for d in range(ndim)]
        stat_shape = tuple(input_shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(
                name="mean", shape=stat_shape, initializer="zeros", trainable=False
            )
            self.adapt_variance = self.add_weight(
                name="variance", shape=stat_shape, initializer="ones", trainable=False
            )
            self.count = self.add_weight(
                name="count", shape=(), dtype="int64", initializer="zeros", trainable=False
            )
        self.built = True

    def adapt(self, data: Any) -> None:
        """Learn the mean and variance of ``data`` (an array or tensor, or an iterable of
        batches, combined as Keras combines them)."""
        import numpy as np

        batches = [data] if hasattr(data, "shape") else list(data)
        first = np.asarray(batches[0])
        if not self.built:
            self.build(first.shape)
        total_mean = total_var = None
        count = 0
        for batch in batches:
            b = np.asarray(batch, dtype=self.compute_dtype)
            mean, var = np.mean(b, axis=self._reduce_axis), np.var(b, axis=self._reduce_axis)
            n = int(np.prod([b.shape[d] for d in self._reduce_axis])) if self._reduce_axis else 1
            if total_mean is None:
                total_mean, total_var, count = mean, var, n
                continue
            count += n
            w = float(n) / count
            new_mean = total_mean * (1.0 - w) + mean * w
            total_var = (total_var + (total_mean - new_mean) ** 2) * (1.0 - w) + (
                var + (mean - new_mean) ** 2
            ) * w
            total_mean = new_mean
        self.adapt_mean.assign(total_mean)
        self.adapt_variance.assign(total_var)

    def _stats(self) -> tuple[Any, Any]:
        if self.input_mean is None:
            mean, var = self.adapt_mean, self.adapt_variance
        else:
            mean = array.cast(self.input_mean, self.compute_dtype)
            var = array.cast(self.input_variance, self.compute_dtype)
        shape = self._broadcast_shape
        mean = array.broadcast_to(
            array.reshape(mean, _stat_shape(mean, shape, self._keep_axis)), shape
        )
        var = array.broadcast_to(
            array.reshape(var, _stat_shape(var, shape, self._keep_axis)), shape
        )
        return array.cast(mean, self.compute_dtype), array.cast(var, self.compute_dtype)

    def call(self, inputs: Any) -> Any:
        from symgrad.keras import backend

        inputs = array.cast(inputs, self.compute_dtype)
        mean, var = self._stats()
        spread = m.maximum(m.sqrt(var), array.cast(backend.epsilon(), var.dtype))
        if self.invert:
            return m.add(mean, m.multiply(inputs, spread))
        return m.divide(m.subtract(inputs, mean), spread)


def _stat_shape(value: Any, broadcast: list[Any], keep: tuple[int, ...]) -> list[Any]:
    rank = len(getattr(value, "shape", ()))
    out: list[Any] = [1] * len(broadcast)
    for i in range(1, rank + 1):
        out[keep[-i]] = value.shape[-i]
    return out


class RMSNormalization(Layer):
    """Keras 3's ``RMSNormalization``: ``x * rsqrt(mean(square(x), axis) + epsilon) * scale``
    in float32 or wider, ``scale`` (ones) of the normalized axes' sizes; ``axis`` becomes a
    sorted list when built (and so in the config), as Keras's."""

    def __init__(self, axis: Any = -1, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon

    def build(self, input_shape: Any) -> None:
        if isinstance(self.axis, (list, tuple)):
            self.axis = sorted(self.axis)
            shape = tuple(input_shape[dim] for dim in self.axis)
        else:
            shape = (input_shape[self.axis],)
            self.axis = [self.axis]
        self.scale = self.add_weight(name="scale", shape=shape, initializer="ones")

    def call(self, x: Any) -> Any:
        x = convert_to_tensor(x)
        original = x.dtype
        x = array.cast(x, at_least_float32(x.dtype))
        mean_square = reduce_mean(m.square(x), axis=self.axis, keepdims=True)
        out = m.multiply(x, m.rsqrt(m.add(mean_square, array.cast(self.epsilon, x.dtype))))
        out = m.multiply(out, array.cast(self.scale, x.dtype))
        return array.cast(out, original)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        from symgrad.keras.layers.config import layer_config

        base = layer_config(self)
        return {**{k: base[k] for k in ("name", "trainable", "dtype")}, "axis": self.axis,
                "epsilon": self.epsilon}  # fmt: skip
