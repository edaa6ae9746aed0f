# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Activation layers (ReLU, LeakyReLU, PReLU, ELU, Softmax) as Keras 3 computes them."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.keras import activations, constraints, initializers, regularizers
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as m
from symgrad.ops.reduction.statistics import reduce_logsumexp


class ReLU(Layer):
    def __init__(
        self, max_value: Any = None, negative_slope: Any = 0.0, threshold: Any = 0.0, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(
                f"max_value of a ReLU layer cannot be a negative value. Received: {max_value}"
            )
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(
                "negative_slope of a ReLU layer cannot be a negative value. "
                f"Received: {negative_slope}"
            )
        if threshold is None or threshold < 0.0:
            raise ValueError(
                f"threshold of a ReLU layer cannot be a negative value. Received: {threshold}"
            )
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        return activations.relu(inputs, self.negative_slope, self.max_value, self.threshold)


class LeakyReLU(Layer):
    def __init__(self, negative_slope: Any = 0.3, **kwargs: Any) -> None:
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                "The negative_slope value of a Leaky ReLU layer cannot be None or negative value. "
                f"Expected a float. Received: negative_slope={negative_slope}"
            )
        self.negative_slope = negative_slope
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)


class PReLU(Layer):
    def __init__(
        self,
        alpha_initializer: Any = "Zeros",
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None or isinstance(shared_axes, (list, tuple)):
            self.shared_axes = shared_axes
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape: Any) -> None:
        param_shape = list(input_shape[1:])
        for i in self.shared_axes or []:
            param_shape[i - 1] = 1
        self.alpha = self.add_weight(
            shape=param_shape,
            name="alpha",
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )
        self.built = True

    def call(self, inputs: Any) -> Any:
        pos = activations.relu(inputs)
        neg = m.multiply(m.negative(self.alpha), activations.relu(m.negative(inputs)))
        return m.add(pos, neg)


class ELU(Layer):
    def __init__(self, alpha: Any = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = alpha
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        return activations.elu(inputs, alpha=self.alpha)


class Softmax(Layer):
    """Softmax over ``axis``; masked positions get -1e9 before and 0 after."""

    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if mask is not None:
            if mask.dtype != dt.bool_:
                mask = m.greater(mask, array.cast(0.5, mask.dtype))
            big = -3e4 if inputs.dtype == dt.float16 else -1e9
            inputs = array.where(mask, inputs, array.cast(big, inputs.dtype))
        if isinstance(self.axis, (tuple, list)) and len(self.axis) > 1:
            outputs = m.exp(
                m.subtract(inputs, reduce_logsumexp(inputs, list(self.axis), keepdims=True))
            )
        else:
            axis = self.axis[0] if isinstance(self.axis, (tuple, list)) else self.axis
            outputs = activations.softmax(inputs, axis=axis)
        if mask is not None:
            outputs = array.where(mask, outputs, array.cast(0.0, outputs.dtype))
        return outputs


class ThresholdedReLU(Layer):
    """Keras 3's legacy ``ThresholdedReLU`` (still in TF 2.21's tf.keras.layers):
    ``x * (x > theta)``, ``theta`` held in the compute dtype as Keras holds it."""

    def __init__(self, theta: Any = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if theta is None:
            raise ValueError(
                "Theta of a Thresholded ReLU layer cannot be None, expecting a float. "
                f"Received: {theta}"
            )
        if theta < 0:
            raise ValueError(
                f"The theta value of a Thresholded ReLU layer should be >=0. Received: {theta}"
            )
        self.supports_masking = True
        self.theta = float(np.asarray(theta, dtype=dt.as_dtype(self.compute_dtype).as_numpy_dtype))
        self.built = True

    def call(self, inputs: Any) -> Any:
        theta = convert_to_tensor(self.theta, dtype=self.compute_dtype)
        return m.multiply(inputs, array.cast(m.greater(inputs, theta), self.compute_dtype))
