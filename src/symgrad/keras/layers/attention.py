# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""EinsumDense, MultiHeadAttention, Attention and AdditiveAttention as Keras 3 computes them
on TensorFlow.

MultiHeadAttention takes Keras's two paths: without dropout and without returned scores it
is ``ops.dot_product_attention`` (logits ``einsum * scale``, masked to -0.7 * float32 max,
softmax); otherwise the query is scaled first and masked positions go through the Softmax
layer (-1e9, then 0).  Inputs of higher rank (``(batch, ..., features)``) attend over
``attention_axes`` (default: every axis between batch and features) through Keras's
einsum equations (:mod:`.attention_equations`).  EinsumDense takes Keras's equations,
``...`` included (:mod:`.einsum_shapes`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.keras import activations, constraints, initializers, regularizers
from symgrad.keras.layers import attention_equations as eqs
from symgrad.keras.layers import masks
from symgrad.keras.layers.activation_layers import Softmax
from symgrad.keras.layers.core import Dropout
from symgrad.keras.layers.einsum_shapes import einsum_shapes
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.core import constant
from symgrad.ops.linalg.contraction import einsum
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.math import elementwise as m
from symgrad.ops.nn.basic import softmax
from symgrad.ops.reduction.reduce import reduce_sum


class EinsumDense(Layer):
    def __init__(
        self,
        equation: Any,
        output_shape: Any,
        activation: Any = None,
        bias_axes: Any = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        lora_rank: Any = None,
        lora_alpha: Any = None,
        gptq_unpacked_column_size: Any = None,
        quantization_config: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.equation, self.partial_output_shape = equation, output_shape
        self.activation = activations.get(activation)
        self.bias_axes = bias_axes
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape: Any) -> None:
        kernel, bias, full, axes = einsum_shapes(
            self.equation, input_shape, self.partial_output_shape, self.bias_axes
        )
        self.full_output_shape = tuple(full)
        init = self.kernel_initializer
        if isinstance(init, initializers.VarianceScaling) and (
            init.input_axes is None or init.output_axes is None
        ):  # Keras computes the fans from the einsum's input and output axes
            config = {**init.get_config(), "seed": init.seed}
            init = type(init).from_config({**config, "input_axes": axes[0], "output_axes": axes[1]})
        self.kernel = self.add_weight(
            name="kernel",
            shape=tuple(kernel),
            initializer=init,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
        )  # fmt: skip
        self.bias = None
        if bias is not None:
            self.bias = self.add_weight(
                name="bias", shape=tuple(bias), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
            )  # fmt: skip
        self.built = True

    def call(self, inputs: Any, training: Any = None) -> Any:
        x = einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            x = m.add(x, self.bias)
        return self.activation(x)


def _lower_triangle(t: Any, s: Any) -> Any:
    return constant(np.tril(np.ones((t, s), dtype=bool))[None])


class MultiHeadAttention(Layer):
    _query_dense: EinsumDense
    _key_dense: EinsumDense
    _value_dense: EinsumDense
    attention_axes: Any

    def __init__(
        self,
        num_heads: Any,
        key_dim: Any,
        value_dim: Any = None,
        dropout: Any = 0.0,
        use_bias: bool = True,
        output_shape: Any = None,
        attention_axes: Any = None,
        sliding_window: Any = None,
        flash_attention: Any = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        use_gate: bool = False,
        seed: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        if sliding_window is not None or use_gate:
            raise NotImplementedError(
                "symgrad's MultiHeadAttention supports sliding_window=None and use_gate=False"
            )
        self.attention_axes = None if attention_axes is None else tuple(attention_axes)
        self.supports_masking = True
        self.num_heads, self.key_dim = num_heads, key_dim
        self.value_dim = value_dim if value_dim else key_dim
        self.dropout, self.use_bias, self.seed = dropout, use_bias, seed
        self._output_shape = output_shape
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(self.key_dim))
        self._dense_kwargs = {
            "kernel_initializer": kernel_initializer, "bias_initializer": bias_initializer,
            "kernel_regularizer": kernel_regularizer, "bias_regularizer": bias_regularizer,
            "kernel_constraint": kernel_constraint, "bias_constraint": bias_constraint,
            "dtype": kwargs.get("dtype"),
        }  # fmt: skip

    @property
    def query_dense(self) -> Any:
        return self._query_dense

    @property
    def key_dense(self) -> Any:
        return self._key_dense

    @property
    def value_dense(self) -> Any:
        return self._value_dense

    @property
    def output_dense(self) -> Any:
        return self._output_dense

    def _dense(self, equation: str, shape: Any, bias_axes: str, name: str) -> EinsumDense:
        kwargs = dict(self._dense_kwargs)
        for key in ("kernel_initializer", "bias_initializer"):  # a fresh copy each, as Keras
            init = initializers.get(kwargs[key])
            if isinstance(init, initializers.Initializer):
                init = type(init).from_config(init.get_config())
            kwargs[key] = init
        bias = bias_axes if self.use_bias else None
        return EinsumDense(equation, shape, bias_axes=bias, name=name, **kwargs)

    def build(self, query_shape: Any, value_shape: Any, key_shape: Any = None) -> None:
        key_shape = value_shape if key_shape is None else key_shape
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. "
                f"Received: value_shape={value_shape} and key_shape={key_shape}"
            )
        heads = self.num_heads
        for name, shape, dim in (
            ("query", query_shape, self.key_dim),
            ("key", key_shape, self.key_dim),
            ("value", value_shape, self.value_dim),
        ):
            equation, bias, rank = eqs.proj_equation(len(shape) - 1, 1, 2)
            dense = self._dense(equation, eqs.output_shape(rank - 1, [heads, dim]), bias, name)
            dense.build(shape)
            setattr(self, f"_{name}_dense", dense)
        self._build_attention(rank)
        out = self._output_shape or query_shape[-1]
        out = [out] if isinstance(out, int) else list(out)
        equation, bias, rank = eqs.proj_equation(len(query_shape) - 1, 2, len(out))
        self._output_dense = self._dense(
            equation, eqs.output_shape(rank - 1, out), bias, "attention_output"
        )
        self._output_dense.build((*query_shape[:-1], heads, self.value_dim))
        self.built = True

    def _build_attention(self, rank: int) -> None:
        """The attention over ``attention_axes`` of the projected rank-``rank`` tensors
        (default: every axis between the batch and the heads)."""
        if self.attention_axes is None:
            self.attention_axes = tuple(range(1, rank - 2))
        else:
            self.attention_axes = tuple(a if a >= 0 else rank - 1 + a for a in self.attention_axes)
        self._dot_product_equation, self._combine_equation, scores_rank = eqs.attention_equation(
            rank, self.attention_axes
        )
        norm_axes = tuple(range(scores_rank - len(self.attention_axes), scores_rank))
        dtype = self._dense_kwargs["dtype"]
        self._softmax = Softmax(axis=norm_axes, dtype=dtype)
        self._dropout_layer = Dropout(rate=self.dropout, seed=self.seed, dtype=dtype)

    def call(
        self,
        query: Any,
        value: Any,
        key: Any = None,
        query_mask: Any = None,
        value_mask: Any = None,
        key_mask: Any = None,
        attention_mask: Any = None,
        return_attention_scores: bool = False,
        training: Any = None,
        use_causal_mask: bool = False,
    ) -> Any:
        key = value if key is None else key
        query_mask = masks.get_mask(query)
        value_mask = value_mask if value_mask is not None else masks.get_mask(value)
        if key is not value and key_mask is None:
            key_mask = masks.get_mask(key)
        causal_only = use_causal_mask and all(
            x is None for x in (query_mask, value_mask, key_mask, attention_mask)
        )
        if not causal_only:
            attention_mask = self._attention_mask(
                query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask
            )
        q = self._query_dense(query)
        k = self._key_dense(key)
        v = self._value_dense(value)
        out, scores = self._attend(
            q, k, v, attention_mask, training, return_attention_scores, causal_only
        )
        out = self._output_dense(out)
        return (out, scores) if return_attention_scores else out

    def _attention_mask(
        self, query: Any, value: Any, q_mask: Any, v_mask: Any, k_mask: Any, mask: Any, causal: bool
    ) -> Any:
        auto = None
        if q_mask is not None:
            auto = array.expand_dims(array.cast(q_mask, dt.bool_), -1)
        for extra in (v_mask, k_mask):
            if extra is not None:
                e = array.expand_dims(array.cast(extra, dt.bool_), -2)
                auto = e if auto is None else m.logical_and(auto, e)
        if causal:
            c = _lower_triangle(query.shape.as_list()[1], value.shape.as_list()[1])
            auto = c if auto is None else m.logical_and(auto, c)
        if mask is not None:
            mask = array.cast(mask, dt.bool_)
        if auto is not None:
            mask = auto if mask is None else m.logical_and(mask, auto)
        return mask

    def _attend(
        self, q: Any, k: Any, v: Any, mask: Any, training: Any, return_scores: bool, causal: bool
    ) -> Any:
        if q.shape.rank != 4:  # Keras's einsum path over several attention axes
            return self._attend_axes(q, k, v, mask, training, causal)
        if not (self.dropout > 0.0 or return_scores):
            logits = m.multiply(
                einsum("BTNH,BSNH->BNTS", q, k), array.cast(self._inverse_sqrt_key_dim, q.dtype)
            )
            if causal:
                t, s = logits.shape.as_list()[2:]
                mask = _lower_triangle(t, s)
            if mask is not None:
                while mask.shape.rank < 4:
                    mask = array.expand_dims(mask, -3)
                big = array.cast(3.38953e38 * -0.7, logits.dtype)
                logits = array.where(array.broadcast_to(mask, array.shape(logits)), logits, big)
            probs = softmax(logits, axis=-1)
            return einsum("BNTS,BSNH->BTNH", probs, v), None
        if causal:
            c = _lower_triangle(q.shape.as_list()[1], v.shape.as_list()[1])
            mask = c if mask is None else m.logical_and(array.cast(mask, dt.bool_), c)
        q = m.multiply(q, array.cast(self._inverse_sqrt_key_dim, q.dtype))
        scores = einsum("aecd,abcd->acbe", k, q)
        if mask is not None:
            while mask.shape.rank < 4:
                mask = array.expand_dims(mask, -3)
        scores = self._softmax(scores, mask=mask)
        final = self._dropout_layer(scores, training=training) if self.dropout > 0.0 else scores
        return einsum("acbe,aecd->abcd", final, v), scores

    def _attend_axes(self, q: Any, k: Any, v: Any, mask: Any, training: Any, causal: bool) -> Any:
        if causal:
            c = _lower_triangle(q.shape.as_list()[1], v.shape.as_list()[1])
            mask = c if mask is None else m.logical_and(array.cast(mask, dt.bool_), c)
        q = m.multiply(q, array.cast(self._inverse_sqrt_key_dim, q.dtype))
        scores = einsum(self._dot_product_equation, k, q)
        if mask is not None:
            axis = -len(self.attention_axes) * 2 - 1
            for _ in range(scores.shape.rank - mask.shape.rank):
                mask = array.expand_dims(mask, axis)
        scores = self._softmax(scores, mask=mask)
        final = self._dropout_layer(scores, training=training) if self.dropout > 0.0 else scores
        return einsum(self._combine_equation, final, v), scores


class Attention(Layer):
    """Dot-product (Luong) or concat (Bahdanau) attention over ``[query, value, key]``."""

    def __init__(
        self,
        use_scale: bool = False,
        score_mode: Any = "dot",
        dropout: Any = 0.0,
        seed: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(
                "Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. "
                f"Received: score_mode={score_mode}"
            )
        self.use_scale, self.score_mode, self.dropout, self.seed = (
            use_scale,
            score_mode,
            dropout,
            seed,
        )
        self.scale = self.concat_score_weight = None
        if dropout > 0:
            from symgrad.keras import random as krandom

            self.seed_generator = krandom.SeedGenerator(seed)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(
                name="concat_score_weight", shape=(), initializer="ones"
            )
        self.built = True

    def call(
        self,
        inputs: Any,
        mask: Any = None,
        training: Any = False,
        return_attention_scores: bool = False,
        use_causal_mask: bool = False,
    ) -> Any:
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._scores(q, k)
        score_mask = self._score_mask(scores, v_mask, use_causal_mask)
        if score_mask is not None:
            big = 65504.0 if scores.dtype == dt.float16 else 1.0e9
            padding = m.logical_not(score_mask)
            if padding.shape.rank == 2:
                padding = array.expand_dims(padding, -2)
            scores = array.where(padding, m.subtract(scores, big), scores)
        weights = softmax(scores, axis=-1)
        if training and self.dropout > 0:
            from symgrad.keras import random as krandom

            weights = krandom.dropout(weights, self.dropout, seed=self.seed_generator)
        out = matmul(weights, v)
        if q_mask is not None:
            out = array.where(array.expand_dims(q_mask, -1), out, array.cast(0, out.dtype))
        return (out, weights) if return_attention_scores else out

    def _scores(self, q: Any, k: Any) -> Any:
        if self.score_mode == "dot":
            scores = matmul(q, k, transpose_b=True)
            return m.multiply(scores, self.scale) if self.scale is not None else scores
        s = m.add(array.expand_dims(q, -2), array.expand_dims(k, -3))
        if self.scale is not None:
            s = m.multiply(self.scale, s)
        return m.multiply(self.concat_score_weight, reduce_sum(m.tanh(s), axis=-1))

    def _score_mask(self, scores: Any, v_mask: Any, causal: bool) -> Any:
        if causal:
            t, s = scores.shape.as_list()[-2:]
            c = _lower_triangle(t, s)
            if v_mask is not None:
                return m.logical_and(array.expand_dims(v_mask, -2), c)
            return c
        return v_mask

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None or mask[0] is None:
            return None
        return mask[0]


class AdditiveAttention(Attention):
    """Bahdanau attention: ``scores = sum(scale * tanh(q[..., None, :] + k[..., None, :, :]))``
    with a trainable ``scale`` of shape ``(dim,)`` (glorot_uniform) when ``use_scale``."""

    def __init__(self, use_scale: bool = True, dropout: Any = 0.0, **kwargs: Any) -> None:
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "seed": self.seed}  # Keras's: Attention's, less score_mode

    def build(self, input_shape: Any) -> None:
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(
                name="scale", shape=(input_shape[0][-1],), initializer="glorot_uniform"
            )
        self.built = True

    def _scores(self, q: Any, k: Any) -> Any:
        s = m.tanh(m.add(array.expand_dims(q, -2), array.expand_dims(k, -3)))
        if self.scale is not None:
            s = m.multiply(self.scale, s)
        return reduce_sum(s, axis=-1)
