"""Stateful RNNs (states carried across calls, ``reset_states``, inside ``function``) and
``return_state`` with ``go_backwards``: one program for TensorFlow and symgrad
(tests/keras/test_keras_rnn_options.py holds TF 2.21's output, data/rnn_options_tf.json).

    TF_CPP_MIN_LOG_LEVEL=3 /work/main/.venv-tf/bin/python tests/keras/rnn_options_program.py
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np


def run_all(tf: Any, keras: Any) -> dict[str, Any]:
    layers, constant = keras.layers, keras.initializers.Constant
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(2, 3, 2)
    out: dict[str, Any] = {}
    for name in ["SimpleRNN", "LSTM", "GRU"]:
        layer = getattr(layers, name)(
            3, stateful=True, kernel_initializer=constant(0.3),
            recurrent_initializer=constant(-0.2), bias_initializer=constant(0.1),
        )  # fmt: skip
        model = keras.Sequential([keras.Input(batch_shape=(2, 3, 2)), layer])
        y1, y2 = model(x), model(x)
        states = [np.asarray(v).tolist() for v in layer.states]
        layer.reset_states()
        y3 = model(x)
        f = tf.function(lambda a, model=model: model(a))
        y4, y5 = f(x), f(x)
        ys = [np.asarray(y).tolist() for y in (y1, y2, y3, y4, y5)]
        out[name] = {"outputs": ys, "states": states, "weights": len(model.weights)}
    lstm = layers.LSTM(
        2, return_state=True, go_backwards=True, return_sequences=True,
        kernel_initializer=constant(0.5), recurrent_initializer=constant(0.1),
    )  # fmt: skip
    out["lstm_return_state"] = [np.asarray(r).tolist() for r in lstm(x)]
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["symgrad"]:
        import symgrad

        print(json.dumps(run_all(symgrad, symgrad.keras)))
    else:
        import keras as keras_module
        import tensorflow

        print(json.dumps(run_all(tensorflow, keras_module)))
