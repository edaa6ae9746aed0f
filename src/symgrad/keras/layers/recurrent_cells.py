# mypy: disable-error-code="override, attr-defined"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Keras 3's recurrent cells: SimpleRNNCell, LSTMCell (gates i, f, c, o; unit_forget_bias)
and GRUCell (gates z, r, h; ``reset_after=True`` with a (2, 3 * units) bias), each step the
ops Keras's ``implementation=2`` path runs, or its ``implementation=1`` path (a matmul per
gate) when there is ``recurrent_dropout``.

Dropout is Keras's ``DropoutRNNCell``: the RNN draws the masks once per call, before the
time loop (input masks, then recurrent masks, one per gate under ``implementation=1``),
from the cell's ``SeedGenerator`` with the stateless draws ``keras.random.dropout`` makes,
whether or not the call is training; steps apply them only when training."""

from __future__ import annotations

from typing import Any

from symgrad.keras import activations, constraints, initializers, regularizers
from symgrad.keras import random as krandom
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
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.seed = seed
        self.seed_generator = krandom.SeedGenerator(seed=seed)
        self.dropout_mask_count: Any = None
        self._dropout_mask: Any = None
        self._recurrent_dropout_mask: Any = None

    # -- Keras's DropoutRNNCell
    def _create_dropout_mask(self, step_input: Any, rate: float) -> Any:
        ones = array.ones_like(step_input)
        if self.dropout_mask_count is None:
            return krandom.dropout(ones, rate=rate, seed=self.seed_generator)
        return [
            krandom.dropout(ones, rate=rate, seed=self.seed_generator)
            for _ in range(self.dropout_mask_count)
        ]

    def get_dropout_mask(self, step_input: Any) -> Any:
        if self._dropout_mask is None and self.dropout > 0:
            self._dropout_mask = self._create_dropout_mask(step_input, self.dropout)
        return self._dropout_mask

    def get_recurrent_dropout_mask(self, step_input: Any) -> Any:
        if self._recurrent_dropout_mask is None and self.recurrent_dropout > 0:
            self._recurrent_dropout_mask = self._create_dropout_mask(
                step_input, self.recurrent_dropout
            )
        return self._recurrent_dropout_mask

    def reset_dropout_mask(self) -> None:
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self) -> None:
        self._recurrent_dropout_mask = None

    def _input_masks(self, inputs: Any, training: Any, count: int) -> list[Any]:
        """The inputs as each gate sees them (masked when training with dropout)."""
        if training and 0.0 < self.dropout < 1.0:
            mask = self.get_dropout_mask(inputs)
            return [m.multiply(inputs, mask[i]) for i in range(count)]
        return [inputs] * count

    def _recurrent_masks(self, h_tm1: Any, training: Any, count: int) -> list[Any]:
        if training and 0.0 < self.recurrent_dropout < 1.0:
            mask = self.get_recurrent_dropout_mask(h_tm1)
            return [m.multiply(h_tm1, mask[i]) for i in range(count)]
        return [h_tm1] * count

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
        dp_mask = self.get_dropout_mask(sequence)
        rec_dp_mask = self.get_recurrent_dropout_mask(prev)
        if training and dp_mask is not None:
            sequence = m.multiply(sequence, dp_mask)
        h = matmul(sequence, self.kernel)
        if self.bias is not None:
            h = m.add(h, self.bias)
        if training and rec_dp_mask is not None:
            prev = m.multiply(prev, rec_dp_mask)
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
        self.implementation = 1 if self.recurrent_dropout != 0.0 else 2
        if self.implementation == 1:
            self.dropout_mask_count = 4
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
        if self.implementation == 1:
            z0, z1, z2, z3 = self._gates_per_matmul(inputs, h_tm1, training)
        else:
            if training and 0.0 < self.dropout < 1.0:
                inputs = m.multiply(inputs, self.get_dropout_mask(inputs))
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

    def _gates_per_matmul(self, inputs: Any, h_tm1: Any, training: Any) -> list[Any]:
        """Keras's implementation=1: each gate's own kernel slice and dropout mask."""
        xs = self._input_masks(inputs, training, 4)
        hs = self._recurrent_masks(h_tm1, training, 4)
        kernels = split(self.kernel, 4, axis=1)
        recurrent = split(self.recurrent_kernel, 4, axis=1)
        biases = split(self.bias, 4, axis=0) if self.bias is not None else [None] * 4
        gates = []
        for x, h, k, r, b in zip(xs, hs, kernels, recurrent, biases):
            x_g = matmul(x, k)
            if b is not None:
                x_g = m.add(x_g, b)
            gates.append(m.add(x_g, matmul(h, r)))
        return gates


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
        self.implementation = 1 if self.recurrent_dropout != 0.0 else 2
        if self.implementation == 1:
            self.dropout_mask_count = 3
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
        if self.implementation == 1:
            h = self._call_per_gate(inputs, h_tm1, input_bias, recurrent_bias, training)
            return h, [h] if nested else h
        if training and 0.0 < self.dropout < 1.0:
            inputs = m.multiply(inputs, self.get_dropout_mask(inputs))
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

    def _call_per_gate(
        self, inputs: Any, h_tm1: Any, input_bias: Any, recurrent_bias: Any, training: Any
    ) -> Any:
        """Keras's implementation=1 step (with recurrent_dropout): a matmul per gate."""
        u = self.units
        x_z, x_r, x_h = [
            matmul(x, self.kernel[:, i * u : (i + 1) * u])
            for i, x in enumerate(self._input_masks(inputs, training, 3))
        ]
        if input_bias is not None:
            x_z = m.add(x_z, input_bias[:u])
            x_r = m.add(x_r, input_bias[u : 2 * u])
            x_h = m.add(x_h, input_bias[2 * u :])
        h_z, h_r, h_h = self._recurrent_masks(h_tm1, training, 3)
        recurrent_z = matmul(h_z, self.recurrent_kernel[:, :u])
        recurrent_r = matmul(h_r, self.recurrent_kernel[:, u : 2 * u])
        if self.reset_after and recurrent_bias is not None:
            recurrent_z = m.add(recurrent_z, recurrent_bias[:u])
            recurrent_r = m.add(recurrent_r, recurrent_bias[u : 2 * u])
        z = self.recurrent_activation(m.add(x_z, recurrent_z))
        r = self.recurrent_activation(m.add(x_r, recurrent_r))
        if self.reset_after:
            recurrent_h = matmul(h_h, self.recurrent_kernel[:, 2 * u :])
            if recurrent_bias is not None:
                recurrent_h = m.add(recurrent_h, recurrent_bias[2 * u :])
            recurrent_h = m.multiply(r, recurrent_h)
        else:
            recurrent_h = matmul(m.multiply(r, h_h), self.recurrent_kernel[:, 2 * u :])
        hh = self.activation(m.add(x_h, recurrent_h))
        return m.add(m.multiply(z, h_tm1), m.multiply(m.subtract(1.0, z), hh))


class StackedRNNCells(Layer):
    """Cells run one after another in each step (Keras's ``StackedRNNCells``): each cell's
    output is the next one's input; the states nest one entry per cell."""

    def __init__(self, cells: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        for cell in cells:
            if "call" not in dir(cell):
                raise ValueError(
                    "All cells must have a `call` method. "
                    f"Received cell without a `call` method: {cell}"
                )
            if "state_size" not in dir(cell):
                raise ValueError(
                    "All cells must have a `state_size` attribute. "
                    f"Received cell without a `state_size`: {cell}"
                )
        self.cells = list(cells)

    @property
    def state_size(self) -> list[Any]:
        return [c.state_size for c in self.cells]

    @property
    def output_size(self) -> Any:
        return _output_size(self.cells[-1])

    def get_initial_state(self, batch_size: Any = None) -> list[Any]:
        states = []
        for cell in self.cells:
            fn = getattr(cell, "get_initial_state", None)
            if fn is not None:
                states.append(fn(batch_size=batch_size))
            else:
                sizes = cell.state_size
                zeros = [
                    array.zeros([batch_size, d], dtype=self.compute_dtype)
                    for d in (sizes if isinstance(sizes, (list, tuple)) else [sizes])
                ]
                states.append(zeros if isinstance(sizes, (list, tuple)) else zeros[0])
        return states

    def call(self, inputs: Any, states: Any, training: Any = False) -> Any:
        new_states = []
        for cell, state in zip(self.cells, states):
            is_list = isinstance(state, (list, tuple))
            state = list(state) if is_list else [state]
            kwargs = {"training": training} if "training" in _call_params(cell) else {}
            inputs, state = cell(inputs, state, **kwargs)
            if not isinstance(state, (list, tuple)):
                state = [state]
            new_states.append(state[0] if len(state) == 1 and not is_list else list(state))
        return inputs, new_states[0] if len(new_states) == 1 else new_states

    def build(self, input_shape: Any) -> None:
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell.build(input_shape)
                cell.built = True
            input_shape = (input_shape[0], _output_size(cell))
        self.built = True

    def get_config(self) -> dict[str, Any]:
        from symgrad.keras.layers.config import serialize_layer

        return {**super().get_config(), "cells": [serialize_layer(c) for c in self.cells]}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        from symgrad.keras.layers.config import deserialize_layer, from_config

        config = dict(config)
        cells = [deserialize_layer(c) for c in config.pop("cells")]
        return from_config(cls, {**config, "cells": cells})


def _output_size(cell: Any) -> Any:
    if getattr(cell, "output_size", None) is not None:
        return cell.output_size
    size = cell.state_size
    return size[0] if isinstance(size, (list, tuple)) else size


def _call_params(cell: Any) -> Any:
    import inspect

    return inspect.signature(cell.call).parameters
