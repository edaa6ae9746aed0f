# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Core layers: Dense, Activation, Dropout, Flatten, Reshape, Embedding, Lambda, Identity,
each computed with the TF ops Keras 3's TensorFlow backend uses."""

from __future__ import annotations

import math
from typing import Any

from symgrad.core import dtypes as dt
from symgrad.keras import activations, constraints, initializers, regularizers
from symgrad.keras import random as krandom
from symgrad.keras.layers.input_spec import InputSpec
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.array.gather import gather
from symgrad.ops.cast_select import where
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.math import elementwise as m
from symgrad.ops.reduction.reduce import reduce_any


def dynamic_shape(x: Any) -> list[Any]:
    """``keras.ops.shape``: the static sizes, a scalar tensor where a size is unknown."""
    static = x.shape.as_list()
    if all(s is not None for s in static):
        return list(static)
    dyn = array.shape(x)
    return [s if s is not None else dyn[i] for i, s in enumerate(static)]


class Dense(Layer):
    def __init__(
        self,
        units: Any,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        lora_rank: Any = None,
        lora_alpha: Any = None,
        quantization_config: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.supports_masking = True
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: Any) -> None:
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_shape[-1]})
        self.kernel = self.add_weight(
            name="kernel",
            shape=(input_shape[-1], self.units),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias",
                shape=(self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def call(self, inputs: Any, training: Any = None) -> Any:
        x = matmul(inputs, self.kernel)  # a batched input broadcasts, as tf.matmul
        if self.bias is not None:
            x = m.add(x, self.bias)
        return self.activation(x)


def _maybe(fn: Any, value: Any) -> Any:
    return None if value is None else fn(value)


def _serialize(obj: Any) -> Any:
    return {"class_name": type(obj).__name__, "config": obj.get_config()}


class Activation(Layer):
    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)


class Dropout(Layer):
    """Zero each value with probability ``rate`` when ``training``; Keras draws the mask
    with ``stateless_dropout`` from a SeedGenerator(seed), so a seeded Dropout is TF's."""

    def __init__(self, rate: Any, noise_shape: Any = None, seed: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(
                f"Invalid value received for argument `rate`. Expected a float value "
                f"between 0 and 1. Received: rate={rate}"
            )
        self.rate, self.seed, self.noise_shape = rate, seed, noise_shape
        if rate > 0:
            self.seed_generator = krandom.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any, training: Any = False) -> Any:
        if training and self.rate > 0:
            return krandom.dropout(inputs, self.rate, self.noise_shape, seed=self.seed_generator)
        return inputs


class Masking(Layer):
    """Zero the timesteps whose every feature equals ``mask_value`` and mask them for the
    layers after (an RNN skips them), as Keras 3's: the mask is ``any(x != mask_value)``
    over the last axis."""

    def __init__(self, mask_value: Any = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True
        self.built = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return reduce_any(m.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Any:
        kept = reduce_any(m.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return where(kept, inputs, array.zeros_like(inputs))


class ActivityRegularization(Layer):
    """The identity, adding ``L1L2(l1, l2)`` of its output to the layer's losses."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1, self.l2 = l1, l2
        self.built = True

    def call(self, inputs: Any) -> Any:
        return inputs


class Flatten(Layer):
    def __init__(self, data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(min_ndim=1)
        self.built = True

    def call(self, inputs: Any) -> Any:
        shape = dynamic_shape(inputs)
        rank = len(shape)
        if self.data_format == "channels_first" and rank > 1:
            inputs = array.transpose(inputs, (0, *range(2, rank), 1))
        rest = shape[1:]
        if not rest:
            flat: Any = 1
        elif any(not isinstance(d, int) for d in rest):
            flat = -1
        else:
            flat = math.prod(rest)
        return array.reshape(inputs, [shape[0], flat])


class Reshape(Layer):
    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return array.reshape(inputs, [dynamic_shape(inputs)[0], *self.target_shape])


class Embedding(Layer):
    def __init__(
        self,
        input_dim: Any,
        output_dim: Any,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        weights: Any = None,
        lora_rank: Any = None,
        lora_alpha: Any = None,
        quantization_config: Any = None,
        **kwargs: Any,
    ) -> None:
        input_length = kwargs.pop("input_length", None)
        del input_length  # deprecated in Keras 3, accepted and ignored
        super().__init__(**kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        if weights is not None:
            self.build()
            self.set_weights(weights if isinstance(weights, list) else [weights])

    def build(self, input_shape: Any = None) -> None:
        if self.built:
            return
        self.embeddings = self.add_weight(
            shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            name="embeddings",
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )
        self.built = True

    def call(self, inputs: Any) -> Any:
        if inputs.dtype not in (dt.int32, dt.int64):
            inputs = array.cast(inputs, dt.int32)
        size = array.cast(array.shape(self.embeddings)[0], inputs.dtype)
        inputs = array.where(m.less(inputs, 0), m.add(inputs, size), inputs)
        return gather(self.embeddings, inputs, axis=0)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if not self.mask_zero:
            return None
        return m.not_equal(inputs, 0)


class Lambda(Layer):
    def __init__(
        self,
        function: Any,
        output_shape: Any = None,
        mask: Any = None,
        arguments: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.function, self.arguments = function, arguments or {}
        self._mask = mask
        self.supports_masking = mask is not None
        self.built = True

    def call(self, inputs: Any, mask: Any = None, training: Any = None) -> Any:
        return self.function(inputs, **self.arguments)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if callable(self._mask):
            return self._mask(inputs, mask)
        return self._mask


class Identity(Layer):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        return inputs


class _OpLayer(Layer):
    """Arithmetic on symbolic tensors (``x + 1`` in a functional model) as a node."""

    _is_operation = True

    def __init__(self, fn: Any) -> None:
        super().__init__(name="op")
        self.fn = fn
        self.built = True

    def call(self, *args: Any) -> Any:
        return self.fn(*args)
