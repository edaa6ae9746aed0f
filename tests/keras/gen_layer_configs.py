"""Record Keras-on-TF's ``get_config()`` dicts for the layer table's layers (and a few more).

Run with TensorFlow 2.21 / Keras 3 (the TF venv), from the repository root:
    TF_CPP_MIN_LOG_LEVEL=3 /work/main/.venv-tf/bin/python tests/keras/gen_layer_configs.py
Each layer is made from the same source text in both libraries; the JSON form of its config
(tuples as lists) is what tests/keras/test_keras_configs.py compares with symgrad's.
"""

from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from gen_layer_table import CASES

EXTRA: list[str] = [
    "layers.Dense(4, kernel_regularizer='l2', activity_regularizer=keras.regularizers.L1(0.1),"
    " kernel_constraint='max_norm', bias_initializer='ones', name='d')",
    "layers.Conv2D(2, 3, kernel_initializer=keras.initializers.HeNormal(seed=3))",
    "layers.LSTM(3, return_sequences=True, dropout=0.1, recurrent_dropout=0.2, seed=2)",
    "layers.GRU(2, stateful=True, unroll=True, go_backwards=True)",
    "layers.GRU(3, reset_after=False)",
    "layers.SimpleRNN(2, go_backwards=True)",
    "layers.Bidirectional(layers.LSTM(2), merge_mode='sum')",
    "layers.TimeDistributed(layers.Dense(2))",
    "layers.Embedding(10, 3, mask_zero=True)",
    "layers.Identity()",
    "layers.MaxPooling3D()",
    "layers.AveragePooling3D(2)",
    "layers.GlobalMaxPooling1D()",
    "layers.GlobalAveragePooling3D(keepdims=True)",
    "layers.GlobalMaxPooling3D()",
    "layers.Lambda(lambda x: x)",
    "layers.InputLayer(shape=(3,))",
    "layers.SimpleRNNCell(3)",
    "layers.LSTMCell(3)",
    "layers.GRUCell(3)",
    "layers.RNN(layers.SimpleRNNCell(3), return_sequences=True)",
    "layers.Cropping1D((1, 2))",
    "layers.UpSampling1D(3)",
    "layers.AdditiveAttention(use_scale=False, dropout=0.2, seed=3)",
    "layers.GaussianDropout(0.3)",
    "layers.GaussianNoise(0.2, seed=4)",
    "layers.AlphaDropout(0.1, noise_shape=(2, 1), seed=3)",
    "layers.CategoryEncoding(3, output_mode='binary')",
    "layers.Discretization(num_bins=5, epsilon=0.05, output_mode='count')",
    "layers.IntegerLookup(max_tokens=6, num_oov_indices=2, oov_token=-7)",
    "layers.IntegerLookup(vocabulary=[3, 1], output_mode='tf_idf', idf_weights=[0.5, 0.25])",
    "layers.IntegerLookup(vocabulary=[3, 1], invert=True, mask_token=0)",
    "layers.StackedRNNCells([layers.LSTMCell(2), layers.GRUCell(3)])",
]


def exprs() -> list[str]:
    seen: list[str] = []
    for case in CASES:
        if case[1] not in seen:
            seen.append(case[1])
    return seen + EXTRA


def _jsonable(x):
    return json.loads(json.dumps(x, default=lambda o: f"<{type(o).__name__}>"))


def main() -> None:
    import keras
    from keras import layers

    out = {}
    for expr in exprs():
        layer = eval(expr, {"layers": layers, "keras": keras})
        out[expr] = _jsonable(layer.get_config())
    path = pathlib.Path(__file__).parent / "data" / "layer_configs.json"
    path.write_text(json.dumps({"keras": keras.__version__, "configs": out}, indent=1) + "\n")
    print(f"wrote {len(out)} configs to {path}")


if __name__ == "__main__":
    main()
