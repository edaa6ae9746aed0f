# mypy: disable-error-code="override, attr-defined"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Keras 3's recurrent cells: SimpleRNNCell, LSTMCell (gates i, f, c, o; unit_forget_bias)
and GRUCell (gates z, r, h; ``reset_after=True`` with a (2, 3 * units) bias), each step the
ops Keras's ``implementation=2`` path runs."""

from __future__ import annotations

from typing import Any

from symgrad.keras import activations, constraints, initializers, regularizers
from symgrad.keras.layers.layer import Layer
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import concat, split
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.math import elementwise as m


class _Cell(Layer):
    def __init__(
        self,
        units: Any,
        activation: Any,
        use_bias: bool,
        kernel_initializer: Any,
        recurrent_initializer: Any,
        bias_initializer: Any,
        kernel_regularizer: Any,
        recurrent_regularizer: Any,
        bias_regularizer: Any,
        kernel_constraint: Any,
        recurrent_constraint: Any,
        bias_constraint: Any,
        dropout: Any,
        recurrent_dropout: Any,
        seed: Any,
        **kwargs: Any,
    ) -> None:
        if units <= 0:
            raise ValueError(
                "Received an invalid value for argument `units`, expected a positive "
                f"integer, got {units}."
            )
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout, self.recurrent_dropout, self.seed = dropout, recurrent_dropout, seed
        if dropout or recurrent_dropout:
            raise NotImplementedError("symgrad's recurrent cells do not support dropout yet")

    def _weights(self, input_dim: int, gates: int, bias_shape: Any, bias_init: Any) -> None:
        self.kernel = self.add_weight(
            shape=(input_dim, self.units * gates), name="kernel",
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
        )  # fmt: skip
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units * gates), name="recurrent_kernel",
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )  # fmt: skip
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=bias_shape, name="bias", initializer=bias_init,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
            )  # fmt: skip
        self.built = True

    def get_initial_state(self, batch_size: Any = None) -> list[Any]:
        sizes = self.state_size if isinstance(self.state_size, list) else [self.state_size]
        return [array.zeros([batch_size, s], dtype=self.compute_dtype) for s in sizes]


class SimpleRNNCell(_Cell):
    def __init__(
        self, units: Any, activation: Any = "tanh", use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform", recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None, bias_regularizer: Any = None,
        kernel_constraint: Any = None, recurrent_constraint: Any = None,
        bias_constraint: Any = None, dropout: Any = 0.0, recurrent_dropout: Any = 0.0,
        seed: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer,
            bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
            kernel_constraint, recurrent_constraint, bias_constraint, dropout,
            recurrent_dropout, seed, **kwargs,
        )  # fmt: skip
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        self._weights(input_shape[-1], 1, (self.units,), self.bias_initializer)

    def call(self, sequence: Any, states: Any, training: Any = False) -> Any:
        prev = states[0] if isinstance(states, (list, tuple)) else states
        h = matmul(sequence, self.kernel)
        if self.bias is not None:
            h = m.add(h, self.bias)
        output = self.activation(m.add(h, matmul(prev, self.recurrent_kernel)))
        return output, [output] if isinstance(states, (list, tuple)) else output


class LSTMCell(_Cell):
    def __init__(
        self, units: Any, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
        use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True, kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None, bias_regularizer: Any = None,
        kernel_constraint: Any = None, recurrent_constraint: Any = None,
        bias_constraint: Any = None, dropout: Any = 0.0, recurrent_dropout: Any = 0.0,
        seed: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer,
            bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
            kernel_constraint, recurrent_constraint, bias_constraint, dropout,
            recurrent_dropout, seed, **kwargs,
        )  # fmt: skip
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [self.units, self.units]
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        init = self.bias_initializer
        if self.unit_forget_bias:
            u = self.units

            def init(shape: Any, dtype: Any = None) -> Any:  # forget gate biased to 1
                parts = [
                    self.bias_initializer((u,), dtype=dtype),
                    initializers.Ones()((u,), dtype=dtype),
                    self.bias_initializer((2 * u,), dtype=dtype),
                ]
                return concat(parts, axis=0)

        self._weights(input_shape[-1], 4, (4 * self.units,), init)

    def call(self, inputs: Any, states: Any, training: Any = False) -> Any:
        h_tm1, c_tm1 = states[0], states[1]
        z = m.add(matmul(inputs, self.kernel), matmul(h_tm1, self.recurrent_kernel))
        if self.bias is not None:
            z = m.add(z, self.bias)
        z0, z1, z2, z3 = split(z, 4, axis=1)
        i = self.recurrent_activation(z0)
        f = self.recurrent_activation(z1)
        c = m.add(m.multiply(f, c_tm1), m.multiply(i, self.activation(z2)))
        o = self.recurrent_activation(z3)
        h = m.multiply(o, self.activation(c))
        return h, [h, c]


class GRUCell(_Cell):
    def __init__(
        self, units: Any, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
        use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
        bias_regularizer: Any = None, kernel_constraint: Any = None,
        recurrent_constraint: Any = None, bias_constraint: Any = None, dropout: Any = 0.0,
        recurrent_dropout: Any = 0.0, reset_after: bool = True, seed: Any = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer,
            bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
            kernel_constraint, recurrent_constraint, bias_constraint, dropout,
            recurrent_dropout, seed, **kwargs,
        )  # fmt: skip
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
        self._weights(input_shape[-1], 3, shape, self.bias_initializer)

    def call(self, inputs: Any, states: Any, training: Any = False) -> Any:
        nested = isinstance(states, (list, tuple))
        h_tm1 = states[0] if nested else states
        u = self.units
        input_bias = recurrent_bias = None
        if self.bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = self.bias[0], self.bias[1]
            else:
                input_bias = self.bias
        matrix_x = matmul(inputs, self.kernel)
        if input_bias is not None:
            matrix_x = m.add(matrix_x, input_bias)
        x_z, x_r, x_h = split(matrix_x, 3, axis=-1)
        if self.reset_after:
            inner = matmul(h_tm1, self.recurrent_kernel)
            if recurrent_bias is not None:
                inner = m.add(inner, recurrent_bias)
        else:
            inner = matmul(h_tm1, self.recurrent_kernel[:, : 2 * u])
        z = self.recurrent_activation(m.add(x_z, inner[:, :u]))
        r = self.recurrent_activation(m.add(x_r, inner[:, u : 2 * u]))
        if self.reset_after:
            recurrent_h = m.multiply(r, inner[:, 2 * u :])
        else:
            recurrent_h = matmul(m.multiply(r, h_tm1), self.recurrent_kernel[:, 2 * u :])
        hh = self.activation(m.add(x_h, recurrent_h))
        h = m.add(m.multiply(z, h_tm1), m.multiply(m.subtract(1.0, z), hh))
        return h, [h] if nested else h
