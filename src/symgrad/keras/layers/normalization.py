# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""BatchNormalization and LayerNormalization as Keras 3 computes them: ``tf.nn.moments``,
moving statistics ``moving * momentum + batch * (1 - momentum)`` when training, and
``tf.nn.batch_normalization`` (BatchNormalization) or ``x * inv + (beta - mean * inv)``
with ``inv = rsqrt(var + eps) * gamma`` (LayerNormalization)."""

from __future__ import annotations

from typing import Any

from ...ops import array
from ...ops import math as m
from ...ops.normalization import batch_normalization, moments
from .. import constraints, initializers, regularizers
from .layer import Layer


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
        shape = (input_shape[self.axis],)
        if self.scale:
            self.gamma = self.add_weight(
                shape=shape, name="gamma", initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
            )  # fmt: skip
        if self.center:
            self.beta = self.add_weight(
                shape=shape, name="beta", initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint,
            )  # fmt: skip
        self.moving_mean = self.add_weight(
            shape=shape,
            name="moving_mean",
            initializer=self.moving_mean_initializer,
            trainable=False,
        )
        self.moving_variance = self.add_weight(
            shape=shape, name="moving_variance", initializer=self.moving_variance_initializer,
            trainable=False,
        )  # fmt: skip
        rank = len(input_shape)
        self._axis = self.axis % rank
        self._reduction_axes = [i for i in range(rank) if i != self._axis]
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
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
        gamma, beta = self.gamma, self.beta
        if self._axis != inputs.shape.rank - 1:
            shape = [1] * inputs.shape.rank
            shape[self._axis] = -1
            mean, variance = array.reshape(mean, shape), array.reshape(variance, shape)
            gamma = None if gamma is None else array.reshape(gamma, shape)
            beta = None if beta is None else array.reshape(beta, shape)
        return batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
        }


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
        self.gamma = self.beta = None

    def build(self, input_shape: Any) -> None:
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        shape = tuple(input_shape[a] for a in axes)
        if self.scale:
            self.gamma = self.add_weight(
                name="gamma", shape=shape, initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
            )  # fmt: skip
        if self.center:
            self.beta = self.add_weight(
                name="beta", shape=shape, initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint,
            )  # fmt: skip
        self.built = True

    def call(self, inputs: Any) -> Any:
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
        gamma, beta = broadcast(self.gamma), broadcast(self.beta)
        if gamma is not None:
            inv = m.multiply(inv, gamma)
        res = m.multiply(m.negative(mean), inv)
        if beta is not None:
            res = m.add(res, beta)
        return m.add(m.multiply(inputs, inv), res)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}
