# mypy: disable-error-code="override, attr-defined"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Keras 3's recurrent layers: RNN (any cell with ``state_size`` and ``call(x, states)``),
SimpleRNN, LSTM, GRU, Bidirectional and TimeDistributed.

The time loop is Keras's TF-backend ``rnn``: unrolled over the time steps when their number
is static, a ``tf.while_loop`` over TensorArrays when it is known only at run time.  A
masked step keeps the previous output (or zeros with ``zero_output_for_mask``) and the
previous states, and ``go_backwards`` runs (and returns) the sequence reversed.
"""

from __future__ import annotations

from typing import Any

from symgrad.control_flow.tensor_array import TensorArray
from symgrad.control_flow.while_loop import while_loop
from symgrad.core import dtypes as dt
from symgrad.core import nest
from symgrad.keras.layers.core import dynamic_shape
from symgrad.keras.layers.input_spec import InputSpec
from symgrad.keras.layers.layer import Layer, clone_layer
from symgrad.keras.layers.recurrent_cells import GRUCell, LSTMCell, SimpleRNNCell
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import concat, stack, unstack
from symgrad.ops.array.reverse import reverse
from symgrad.ops.math.elementwise import add, multiply


def _where(mask_t: Any, new: Any, old: Any) -> Any:
    m = mask_t
    while m.shape.rank < new.shape.rank:
        m = array.expand_dims(m, -1)
    return array.where(array.broadcast_to(m, array.shape(new)), new, old)


def run_rnn(
    step: Any, inputs: Any, states: list[Any], go_backwards: bool, mask: Any, zero_output: bool
) -> Any:
    """``keras.backend.rnn`` (unrolled): (last_output, outputs (batch, time, ...), states)."""
    steps = unstack(inputs, axis=1)
    masks = unstack(array.cast(mask, dt.bool_), axis=1) if mask is not None else None
    if go_backwards:
        steps = steps[::-1]
        masks = masks[::-1] if masks is not None else None
    outputs: list[Any] = []
    for t, x_t in enumerate(steps):
        output, new_states = step(x_t, states)
        if masks is not None:
            prev = outputs[-1] if outputs else array.zeros_like(output)
            output = _where(masks[t], output, prev)
            new_states = [_where(masks[t], s, p) for s, p in zip(new_states, states)]
        outputs.append(output)
        states = list(new_states)
    last = outputs[-1]
    if masks is not None and zero_output:
        last = _where(masks[-1], last, array.zeros_like(last))
        outputs = [_where(mk, o, array.zeros_like(o)) for mk, o in zip(masks, outputs)]
    return last, stack(outputs, axis=1), states


def run_rnn_loop(
    step: Any, inputs: Any, states: list[Any], go_backwards: bool, mask: Any, zero_output: bool
) -> Any:
    """``keras.backend.rnn`` as a ``tf.while_loop`` over TensorArrays, for a time dimension
    known only when the model runs (``Input((None, features))``)."""
    rank = inputs.shape.rank
    perm = [1, 0, *range(2, rank)]
    x = array.transpose(inputs, perm)
    masks = None if mask is None else array.transpose(array.cast(mask, dt.bool_), [1, 0])
    if go_backwards:
        x = reverse(x, [0])
        masks = None if masks is None else reverse(masks, [0])
    steps = array.shape(x)[0]
    x_ta = TensorArray(x.dtype, size=steps).unstack(x)
    m_ta = None if masks is None else TensorArray(dt.bool_, size=steps).unstack(masks)
    first, _ = step(x[0], states)
    out_ta = TensorArray(first.dtype, size=steps)

    def body(t: Any, prev: Any, ta: Any, *carried: Any) -> Any:
        output, new_states = step(x_ta.read(t), list(carried))
        if m_ta is not None:
            keep = m_ta.read(t)
            fallback = array.zeros_like(output) if zero_output else prev
            output = _where(keep, output, fallback)
            new_states = [_where(keep, n, c) for n, c in zip(new_states, carried)]
        return (t + 1, output, ta.write(t, output), *new_states)

    start = (constant_int(0), array.zeros_like(first), out_ta, *states)
    _, last, out_ta, *states = while_loop(lambda t, *_: t < steps, body, start)
    outputs = array.transpose(out_ta.stack(), perm)
    return last, outputs, list(states)


def constant_int(value: int) -> Any:
    from symgrad.ops.core import constant

    return constant(value, dtype=dt.int32)


class RNN(Layer):
    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(
                "Argument `cell` should have a `call` method and a `state_size` attribute. "
                f"Received: cell={cell}"
            )
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.stateful, self.unroll = go_backwards, stateful, unroll
        self.zero_output_for_mask = zero_output_for_mask
        self.supports_masking = True
        size = cell.state_size
        self.state_size = [size] if isinstance(size, int) else list(size)
        # a StackedRNNCells' state_size nests (one entry per cell); the loop runs on the
        # flat list and the cell sees (and return_state gives) Keras's nesting
        self._flat_state_size = nest.flatten(self.state_size)
        self.states: Any = None  # a stateful layer's state variables (not weights)
        self._expected_batch_size: Any = None

    def build(self, sequences_shape: Any, initial_state_shape: Any = None) -> None:
        if isinstance(self.cell, Layer) and not self.cell.built:
            from symgrad.keras.layers.variables import name_scope

            with name_scope(self.cell.name, caller=self.cell):
                self.cell.build((sequences_shape[0], *sequences_shape[2:]))
            self.cell.built = True
        if self.stateful:
            if self.states is not None:
                self.reset_state()
            else:
                if sequences_shape[0] is None:
                    raise ValueError(
                        "When using `stateful=True` in a RNN, the batch size must be static. "
                        f"Found dynamic batch size: sequence.shape={sequences_shape}"
                    )
                self._create_state_variables(int(sequences_shape[0]))
        self.built = True

    def _create_state_variables(self, batch_size: int) -> None:
        from symgrad.core.context import init_scope
        from symgrad.ops.state.variables import Variable

        with init_scope():
            initial = [
                array.zeros([batch_size, d], dtype=self.dtype) for d in self._flat_state_size
            ]
            self.states = [
                Variable(v, trainable=False, name=f"{self.name}/rnn_state") for v in initial
            ]
        self._expected_batch_size = batch_size

    def reset_states(self) -> None:
        self.reset_state()

    def reset_state(self) -> None:
        """A stateful layer's states back to zeros (Keras's ``reset_state``)."""
        if self.states is not None:
            for v in self.states:
                v.assign(array.zeros_like(v))

    def get_initial_state(self, batch_size: Any) -> list[Any]:
        fn = getattr(self.cell, "get_initial_state", None)
        if fn is not None:
            state = fn(batch_size=batch_size)
            return list(state) if isinstance(state, (list, tuple)) else [state]
        return [
            array.zeros([batch_size, d], dtype=self.cell.compute_dtype)
            for d in self._flat_state_size
        ]

    def call(
        self, sequences: Any, initial_state: Any = None, mask: Any = None, training: Any = False
    ) -> Any:
        if self.unroll and sequences.shape.as_list()[1] is None:
            raise ValueError(
                "Cannot unroll a RNN if the time dimension is undefined. \n- If using a "
                "Sequential model, specify the time dimension by passing an `Input()` as your "
                "first layer.\n- If using the functional API, specify the time dimension by "
                "passing a `shape` or `batch_shape` argument to your `Input()`."
            )
        if initial_state is None:
            if self.stateful:
                initial_state = [v.read_value() for v in self.states]
            else:
                initial_state = self.get_initial_state(dynamic_shape(sequences)[0])
        self._check_stateful_batch(sequences)
        if not isinstance(initial_state, (list, tuple)):
            initial_state = [initial_state]
        states = [array.cast(s, self.cell.compute_dtype) for s in nest.flatten(initial_state)]
        nested = len(self._flat_state_size) != len(self.state_size)
        self._config_dropout_masks(sequences, states)
        cell_kwargs = {"training": training} if "training" in _params(self.cell.call) else {}

        def step(x_t: Any, states: list[Any]) -> Any:
            if nested:
                states = nest.pack_sequence_as(self.state_size, states)
            output, new_states = self.cell(x_t, states, **cell_kwargs)
            if not isinstance(new_states, (list, tuple)):
                new_states = [new_states]
            return output, nest.flatten(new_states)

        run = run_rnn if sequences.shape.as_list()[1] is not None else run_rnn_loop
        try:
            last, outputs, states = run(
                step, sequences, states, self.go_backwards, mask, self.zero_output_for_mask
            )
        finally:
            for reset in ("reset_dropout_mask", "reset_recurrent_dropout_mask"):
                getattr(self.cell, reset, lambda: None)()
        if self.stateful:
            for variable, value in zip(self.states, states):
                variable.assign(value)
        output = outputs if self.return_sequences else last
        if self.return_state:
            final = nest.pack_sequence_as(self.state_size, states) if nested else states
            return [output, *final]
        return output

    def _check_stateful_batch(self, sequences: Any) -> None:
        actual = sequences.shape.as_list()[0]
        if self.stateful and actual is not None and actual != self._expected_batch_size:
            raise ValueError(
                "If an RNN is stateful, the batch size of the input sequences must be the "
                "same as the batch size of the initial state. \n- Expected batch size: "
                f"{self._expected_batch_size}\n- Received batch size: {actual}"
            )

    def _config_dropout_masks(self, sequences: Any, states: list[Any]) -> None:
        """Keras draws the cell's dropout masks before the loop, training or not."""
        if hasattr(self.cell, "get_dropout_mask"):
            self.cell.get_dropout_mask(sequences[:, 0, :])
            self.cell.get_recurrent_dropout_mask(states[0])

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        out = mask if self.return_sequences else None
        if self.return_state:
            return [out] + [None] * len(self.state_size)
        return out


def _params(fn: Any) -> Any:
    import inspect

    return inspect.signature(fn).parameters


_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")


def _init_rnn(layer: Any, cell_class: type, cell_name: str, args: dict[str, Any]) -> None:
    """SimpleRNN / LSTM / GRU: an RNN over a cell made from the layer's own arguments."""
    args = dict(args)
    args.pop("self")
    kwargs = args.pop("kwargs")
    args.pop("use_cudnn", None)
    rnn_args = {k: args.pop(k) for k in _RNN_ARGS}
    activity = args.pop("activity_regularizer")
    cell = cell_class(
        **args, dtype=kwargs.get("dtype"), trainable=kwargs.get("trainable", True), name=cell_name
    )
    RNN.__init__(layer, cell, activity_regularizer=activity, **rnn_args, **kwargs)
    layer.units = cell.units
    layer.input_spec = InputSpec(ndim=3)  # (SimpleRNN, LSTM, GRU: Keras's; a plain RNN has none)


class SimpleRNN(RNN):
    def __init__(
        self, units: Any, activation: Any = "tanh", use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform", recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None, bias_regularizer: Any = None,
        activity_regularizer: Any = None, kernel_constraint: Any = None,
        recurrent_constraint: Any = None, bias_constraint: Any = None, dropout: Any = 0.0,
        recurrent_dropout: Any = 0.0, return_sequences: bool = False,
        return_state: bool = False, go_backwards: bool = False, stateful: bool = False,
        unroll: bool = False, seed: Any = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        _init_rnn(self, SimpleRNNCell, "simple_rnn_cell", locals())


class LSTM(RNN):
    def __init__(
        self, units: Any, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
        use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True, kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None, bias_regularizer: Any = None,
        activity_regularizer: Any = None, kernel_constraint: Any = None,
        recurrent_constraint: Any = None, bias_constraint: Any = None, dropout: Any = 0.0,
        recurrent_dropout: Any = 0.0, seed: Any = None, return_sequences: bool = False,
        return_state: bool = False, go_backwards: bool = False, stateful: bool = False,
        unroll: bool = False, use_cudnn: Any = "auto", **kwargs: Any,
    ) -> None:  # fmt: skip
        _init_rnn(self, LSTMCell, "lstm_cell", locals())


class GRU(RNN):
    def __init__(
        self, units: Any, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
        use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
        bias_regularizer: Any = None, activity_regularizer: Any = None,
        kernel_constraint: Any = None, recurrent_constraint: Any = None,
        bias_constraint: Any = None, dropout: Any = 0.0, recurrent_dropout: Any = 0.0,
        seed: Any = None, return_sequences: bool = False, return_state: bool = False,
        go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
        reset_after: bool = True, use_cudnn: Any = "auto", **kwargs: Any,
    ) -> None:  # fmt: skip
        _init_rnn(self, GRUCell, "gru_cell", locals())


class Bidirectional(Layer):
    def __init__(
        self,
        layer: Any,
        merge_mode: Any = "concat",
        weights: Any = None,
        backward_layer: Any = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Please initialize `Bidirectional` layer with a `keras.layers.Layer` "
                f"instance. Received: {layer}"
            )
        if merge_mode not in ["sum", "mul", "ave", "concat", None]:
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        super().__init__(**kwargs)
        base = layer.name.removeprefix("forward_")
        self.forward_layer = clone_layer(layer, name=f"forward_{base}")
        if backward_layer is None:
            back = layer.name.removeprefix("backward_")
            self.backward_layer = clone_layer(layer, name=f"backward_{back}", go_backwards=True)
        else:
            self.backward_layer = backward_layer
        for sub in (self.forward_layer, self.backward_layer):
            sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences, self.return_state = layer.return_sequences, layer.return_state
        self.supports_masking = True

    def build(self, sequences_shape: Any, initial_state_shape: Any = None) -> None:
        from symgrad.keras.layers.variables import name_scope

        for sub in (self.forward_layer, self.backward_layer):
            with name_scope(sub.name, caller=sub):
                sub.build(sequences_shape)
            sub.built = True
        self.built = True

    def call(
        self, sequences: Any, initial_state: Any = None, mask: Any = None, training: Any = None
    ) -> Any:
        half = None if initial_state is None else len(initial_state) // 2
        fw_state = None if half is None else initial_state[:half]
        bw_state = None if half is None else initial_state[half:]
        y = self.forward_layer(sequences, initial_state=fw_state, mask=mask, training=training)
        y_rev = self.backward_layer(sequences, initial_state=bw_state, mask=mask, training=training)
        states: list[Any] = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output: Any = concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = add(y, y_rev)
        elif self.merge_mode == "ave":
            output = multiply(add(y, y_rev), 0.5)
        elif self.merge_mode == "mul":
            output = multiply(y, y_rev)
        else:
            output = [y, y_rev]
        if self.return_state:
            return [*(output if isinstance(output, list) else [output]), *states]
        return output

    def _check_stateful_batch(self, sequences: Any) -> None:
        actual = sequences.shape.as_list()[0]
        if self.stateful and actual is not None and actual != self._expected_batch_size:
            raise ValueError(
                "If an RNN is stateful, the batch size of the input sequences must be the "
                "same as the batch size of the initial state. \n- Expected batch size: "
                f"{self._expected_batch_size}\n- Received batch size: {actual}"
            )

    def _config_dropout_masks(self, sequences: Any, states: list[Any]) -> None:
        """Keras draws the cell's dropout masks before the loop, training or not."""
        if hasattr(self.cell, "get_dropout_mask"):
            self.cell.get_dropout_mask(sequences[:, 0, :])
            self.cell.get_recurrent_dropout_mask(states[0])

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        return mask if self.return_sequences else None


class TimeDistributed(Layer):
    """Apply ``layer`` to every time step (its ``call`` on each slice, stacked back)."""

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Please initialize `TimeDistributed` layer with a `keras.layers.Layer` "
                f"instance. Received: {layer}"
            )
        super().__init__(**kwargs)
        self.layer = layer
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        from symgrad.keras.layers.variables import name_scope

        with name_scope(self.layer.name, caller=self.layer):
            self.layer.build((input_shape[0], *input_shape[2:]))
        self.layer.built = True
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        kwargs: dict[str, Any] = {}
        params = _params(self.layer.call)
        if "training" in params:
            kwargs["training"] = training
        steps = unstack(inputs, axis=1)
        masks = unstack(mask, axis=1) if mask is not None and "mask" in params else None
        outs = []
        for t, x_t in enumerate(steps):
            extra = {"mask": masks[t]} if masks is not None else {}
            outs.append(self.layer.call(x_t, **kwargs, **extra))
        return stack(outs, axis=1)
