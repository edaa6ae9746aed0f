"""Keras 3's InputSpec: a layer refuses an input of the wrong rank or size with the layer's
name and the shape it got (it was the first op's error: ``MatMul ... inner dimensions 4
and 3 differ``).  TensorFlow 2.21's texts, from the same calls."""

import numpy as np
import pytest

import symgrad as tf

K = tf.keras


def _built(layer, shape):
    layer(np.ones(shape, np.float32))
    return layer


def _ones(*shape):
    return np.ones(shape, np.float32)


class Mine(K.layers.Layer):
    def __init__(self) -> None:
        super().__init__(name="mine")
        self.input_spec = K.layers.InputSpec(ndim=2, axes={1: 3})

    def call(self, x):
        return x


def _wrong(layer: str, what: str) -> str:
    return f"Input 0 with name 'None' of layer '{layer}' is incompatible with the layer: {what}"


CASES = {
    "dense axis": (
        lambda: _built(K.layers.Dense(2, name="d"), (1, 3))(_ones(1, 4)),
        _wrong(
            "d",
            "expected axis -1 of input shape to have value 3, but received input with shape (1, 4)",
        ),
    ),
    "dense ndim": (
        lambda: K.layers.Dense(2, name="d2")(_ones(3)),
        _wrong(
            "d2",
            "expected min_ndim=2, found ndim=1. Full shape received: (3,)",
        ),
    ),
    "conv ndim": (
        lambda: K.layers.Conv2D(2, 3, name="c")(_ones(1, 8, 8)),
        _wrong(
            "c",
            "expected min_ndim=4, found ndim=3. Full shape received: (1, 8, 8)",
        ),
    ),
    "conv channels": (
        lambda: _built(K.layers.Conv2D(2, 3, name="c2"), (1, 8, 8, 3))(_ones(1, 8, 8, 4)),
        _wrong(
            "c2",
            "expected axis -1 of input shape to have value 3, but "
            "received input with shape (1, 8, 8, 4)",
        ),
    ),
    "pool ndim": (
        lambda: K.layers.MaxPooling2D(name="mp")(_ones(1, 8, 8)),
        _wrong(
            "mp",
            "expected ndim=4, found ndim=3. Full shape received: (1, 8, 8)",
        ),
    ),
    "gap ndim": (
        lambda: K.layers.GlobalAveragePooling1D(name="gap")(_ones(1, 8)),
        _wrong(
            "gap",
            "expected ndim=3, found ndim=2. Full shape received: (1, 8)",
        ),
    ),
    "lstm ndim": (
        lambda: K.layers.LSTM(2, name="l")(_ones(1, 8)),
        _wrong(
            "l",
            "expected ndim=3, found ndim=2. Full shape received: (1, 8)",
        ),
    ),
    "bn axis": (
        lambda: _built(K.layers.BatchNormalization(name="bn"), (2, 3))(_ones(2, 4)),
        _wrong(
            "bn",
            "expected axis -1 of input shape to have value 3, but received input with shape (2, 4)",
        ),
    ),
    "bn ndim": (
        lambda: _built(K.layers.BatchNormalization(name="bn"), (2, 3))(_ones(2, 2, 3)),
        _wrong(
            "bn",
            "expected ndim=2, found ndim=3. Full shape received: (2, 2, 3)",
        ),
    ),
    "flatten": (
        lambda: K.layers.Flatten(name="f")(np.float32(1.0)),
        _wrong(
            "f",
            "expected min_ndim=1, found ndim=0. Full shape received: ()",
        ),
    ),
    "custom bad": (
        lambda: Mine()(_ones(2, 4)),
        _wrong(
            "mine",
            "expected axis 1 of input shape to have value 3, but received input with shape (2, 4)",
        ),
    ),
    "functional": (
        lambda: K.Model(K.Input((4,)), _built(K.layers.Dense(2, name="d"), (1, 3))(K.Input((4,)))),
        _wrong(
            "d",
            "expected axis -1 of input shape to have value 3, but "
            "received input with shape (None, 4)",
        ),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_wrong_input_names_the_layer(case) -> None:
    call, message = CASES[case]
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == message


def test_inputs_that_meet_the_spec() -> None:
    dense = _built(K.layers.Dense(2), (1, 3))
    assert dense(_ones(2, 5, 3)).shape == (2, 5, 2)  # min_ndim=2: a batch of sequences
    assert Mine()(_ones(2, 3)).shape == (2, 3)
    assert repr(K.layers.InputSpec(ndim=2, axes={1: 3})) == "InputSpec(ndim=2, axes={1: 3})"
