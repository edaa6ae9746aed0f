"""Keras models in TensorFlow (Keras 3) and symgrad, side by side.

- Weight files: models built alike in both libraries (seeded initializers) write Keras 3
  ``.weights.h5`` files with the same groups and datasets; a file TF wrote loads in symgrad
  and gives TF's outputs, and a file symgrad wrote loads in TF.
- Random models: Sequential stacks drawn from a menu of layers and options, given TF's
  weights with set_weights, compared on outputs and on tape gradients with respect to the
  input and every trainable weight.
"""

from __future__ import annotations

import random
from typing import Any

import h5py
import numpy as np
import pytest
import tensorflow

import symgrad


def _models(tf: Any) -> dict[str, Any]:
    layers, init = tf.keras.layers, tf.keras.initializers
    tf.keras.backend.clear_session()
    seq = tf.keras.Sequential(
        [
            tf.keras.Input((6, 6, 2)),
            layers.Conv2D(3, 3, kernel_initializer=init.GlorotUniform(1)),
            layers.BatchNormalization(),
            layers.Flatten(),
            layers.Dense(4, kernel_initializer=init.GlorotUniform(2)),
        ]
    )
    tokens = tf.keras.Input((5,), dtype="int32")
    x = layers.Embedding(9, 4, embeddings_initializer=init.RandomUniform(seed=3))(tokens)
    x = layers.MultiHeadAttention(2, 2, kernel_initializer=init.GlorotUniform(4))(x, x)
    x = layers.Bidirectional(layers.GRU(3, kernel_initializer=init.GlorotUniform(5)))(x)
    func = tf.keras.Model(tokens, layers.Dense(2, kernel_initializer=init.GlorotUniform(6))(x))
    return {"sequential": (seq, (2, 6, 6, 2), "float32"), "functional": (func, (2, 5), "int32")}


def _inputs(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    rng = np.random.RandomState(7)
    if dtype == "int32":
        return rng.randint(1, 9, size=shape).astype(np.int32)
    return rng.uniform(-1, 1, size=shape).astype(np.float32)


def _tree(path: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.append((n, getattr(o, "shape", None))))
    return out


@pytest.mark.parametrize("name", ["sequential", "functional"])
def test_weight_files_cross_load(name: str, tmp_path: Any) -> None:
    tf_model, shape, dtype = _models(tensorflow)[name]
    sg_model = _models(symgrad)[name][0]
    x = _inputs(shape, dtype)
    tf_path, sg_path = str(tmp_path / "tf.weights.h5"), str(tmp_path / "sg.weights.h5")
    rng = np.random.RandomState(1)
    tf_model.set_weights(
        [rng.uniform(-0.5, 0.5, w.shape).astype(w.dtype) for w in tf_model.get_weights()]
    )
    tf_model.save_weights(tf_path)
    sg_model.save_weights(sg_path)
    assert _tree(sg_path) == _tree(tf_path)
    sg_model.load_weights(tf_path)
    np.testing.assert_allclose(sg_model(x).numpy(), tf_model(x).numpy(), rtol=2e-5, atol=2e-6)
    for w in sg_model.weights:
        w.assign(w.numpy() * 0.5)
    sg_model.save_weights(sg_path)
    tf_model.load_weights(sg_path)
    np.testing.assert_allclose(tf_model(x).numpy(), sg_model(x).numpy(), rtol=2e-5, atol=2e-6)


MENU_3D = [  # (layer expression, keeps a (batch, time, features) input)
    "layers.LSTM({u}, return_sequences=True)",
    "layers.GRU({u}, return_sequences=True, reset_after={b})",
    "layers.SimpleRNN({u}, return_sequences=True, go_backwards={b})",
    "layers.Conv1D({u}, {k}, padding='same', activation='{act}')",
    "layers.Dense({u}, activation='{act}')",
    "layers.LayerNormalization()",
    "layers.Bidirectional(layers.LSTM({u}, return_sequences=True), merge_mode='{merge}')",
    "layers.TimeDistributed(layers.Dense({u}))",
    "layers.BatchNormalization(momentum=0.8)",
]
HEADS = [
    "layers.GlobalAveragePooling1D()",
    "layers.GlobalMaxPooling1D()",
    "layers.LSTM({u})",
    "layers.GRU({u})",
    "layers.Flatten()",
]


def _draw(seed: int) -> list[str]:
    r = random.Random(seed)
    fill = {
        "u": r.randint(2, 4),
        "k": r.choice([2, 3]),
        "b": r.choice([True, False]),
        "act": r.choice(["relu", "tanh", "gelu", "elu", "sigmoid", "softplus", "swish"]),
        "merge": r.choice(["concat", "sum", "ave", "mul"]),
    }
    body = [r.choice(MENU_3D).format(**fill) for _ in range(r.randint(1, 3))]
    return [*body, r.choice(HEADS).format(**fill), "layers.Dense(2)"]


def _run(tf: Any, exprs: list[str], x: np.ndarray, weights: Any, training: bool) -> Any:
    model = tf.keras.Sequential(
        [tf.keras.Input(x.shape[1:]), *[eval(e, {"layers": tf.keras.layers}) for e in exprs]]
    )
    if weights is None:
        rng = np.random.RandomState(3)
        weights = [rng.uniform(-0.6, 0.6, w.shape).astype(w.dtype) for w in model.get_weights()]
        weights = [
            abs(w) + 0.5 if "variance" in v.path else w for w, v in zip(weights, model.weights)
        ]
    model.set_weights(weights)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = model(xt, training=training)
        loss = tf.reduce_sum(y * tf.constant(np.linspace(-1, 1, y.shape[-1], dtype=np.float32)))
    grads = tape.gradient(loss, [xt, *model.trainable_variables])
    return weights, y.numpy(), [tf.convert_to_tensor(g).numpy() for g in grads]


@pytest.mark.parametrize("seed", range(24))
def test_random_keras_models(seed: int) -> None:
    exprs = _draw(seed)
    x = np.random.RandomState(seed).uniform(-1, 1, size=(3, 4, 3)).astype(np.float32)
    training = seed % 2 == 0
    weights, y_tf, g_tf = _run(tensorflow, exprs, x, None, training)
    _, y_sg, g_sg = _run(symgrad, exprs, x, weights, training)
    scale = max(1.0, float(np.abs(y_tf).max()))
    np.testing.assert_allclose(y_sg, y_tf, rtol=1e-4, atol=1e-5 * scale, err_msg=str(exprs))
    for a, b in zip(g_sg, g_tf, strict=True):
        gscale = max(1.0, float(np.abs(b).max()))
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5 * gscale, err_msg=str(exprs))
