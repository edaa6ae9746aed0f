"""RNN layer options against TF 2.21: ``stateful=True`` (states carried across calls and
``function`` calls, ``reset_states``, not among the weights), ``return_state`` with
``go_backwards``; dropout, recurrent_dropout and unroll are in the layer table."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import symgrad as tf
from tests.keras.rnn_options_program import run_all

TF = json.loads((pathlib.Path(__file__).parent / "data" / "rnn_options_tf.json").read_text())
TOL = dict(rtol=2e-6, atol=1e-7)


@pytest.fixture(scope="module")
def ours() -> dict:
    return run_all(tf, tf.keras)


@pytest.mark.parametrize("name", ["SimpleRNN", "LSTM", "GRU"])
def test_stateful_rnn_matches_tf(ours: dict, name: str) -> None:
    got, want = ours[name], TF[name]
    for a, b in zip(got["outputs"], want["outputs"], strict=True):
        np.testing.assert_allclose(a, b, **TOL)
    for a, b in zip(got["states"], want["states"], strict=True):
        np.testing.assert_allclose(a, b, **TOL)
    assert got["weights"] == want["weights"]
    y1, y2, y3, y4, y5 = got["outputs"]
    assert y1 == y3 and y2 == y4 and y1 != y2 != y5  # reset_states starts over


def test_return_state_go_backwards_matches_tf(ours: dict) -> None:
    assert len(ours["lstm_return_state"]) == 3  # sequences, h, c
    for a, b in zip(ours["lstm_return_state"], TF["lstm_return_state"], strict=True):
        np.testing.assert_allclose(a, b, **TOL)


def test_stateful_errors_are_keras_errors() -> None:
    layer = tf.keras.layers.GRU(2, stateful=True)
    with pytest.raises(ValueError, match="batch size must be static"):
        tf.keras.Sequential([tf.keras.Input((3, 2)), layer])
    layer = tf.keras.layers.GRU(2, stateful=True)
    tf.keras.Sequential([tf.keras.Input(batch_shape=(2, 3, 2)), layer])
    with pytest.raises(ValueError, match="Expected batch size: 2"):
        layer(np.zeros((4, 3, 2), np.float32))
    with pytest.raises(ValueError, match="Cannot unroll a RNN"):
        tf.keras.Sequential([tf.keras.Input((None, 2)), tf.keras.layers.LSTM(2, unroll=True)])
