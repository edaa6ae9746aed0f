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


MENU_4D = [  # keeps a (batch, height, width, channels) input
    "layers.Conv2D({u}, {k}, padding='same', activation='{act}')",
    "layers.Conv2D({u}, 2, strides=2, padding='{pad}', dilation_rate=1)",
    "layers.DepthwiseConv2D({k}, padding='same', depth_multiplier=2)",
    "layers.SeparableConv2D({u}, {k}, padding='same')",
    "layers.Conv2DTranspose({u}, {k}, strides=2, padding='same')",
    "layers.MaxPooling2D(2, strides=1, padding='same')",
    "layers.AveragePooling2D(2, padding='same')",
    "layers.BatchNormalization(momentum=0.7)",
    "layers.LayerNormalization(axis=[1, 2, 3])",
    "layers.GroupNormalization(groups=1)",
    "layers.UpSampling2D(2)",
    "layers.ZeroPadding2D(1)",
    "layers.SpatialDropout2D(0.3, seed=5)",
]
HEADS_4D = ["layers.GlobalAveragePooling2D()", "layers.GlobalMaxPooling2D()", "layers.Flatten()"]


def _draw_4d(seed: int) -> list[str]:
    r = random.Random(1000 + seed)
    fill = {
        "u": r.randint(2, 4),
        "k": r.choice([2, 3]),
        "pad": r.choice(["same", "valid"]),
        "act": r.choice(["relu", "tanh", "elu", "sigmoid", "selu", "leaky_relu"]),
    }
    body = [r.choice(MENU_4D).format(**fill) for _ in range(r.randint(1, 3))]
    return [*body, r.choice(HEADS_4D), "layers.Dense(2)"]


@pytest.mark.parametrize("seed", range(16))
def test_random_keras_conv_models(seed: int) -> None:
    exprs = _draw_4d(seed)
    x = np.random.RandomState(seed).uniform(-1, 1, size=(2, 6, 5, 3)).astype(np.float32)
    training = seed % 2 == 0
    weights, y_tf, g_tf = _run(tensorflow, exprs, x, None, training)
    _, y_sg, g_sg = _run(symgrad, exprs, x, weights, training)
    scale = max(1.0, float(np.abs(y_tf).max()))
    np.testing.assert_allclose(y_sg, y_tf, rtol=1e-4, atol=1e-5 * scale, err_msg=str(exprs))
    for a, b in zip(g_sg, g_tf, strict=True):
        gscale = max(1.0, float(np.abs(b).max()))
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5 * gscale, err_msg=str(exprs))


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


OPS = [  # (keras.ops call, arguments: "x" a float (3, 4) input, "y" another, "i" int indices)
    ("abs", "x"), ("add", "x, y"), ("subtract", "x, 2.0"), ("multiply", "x, y"),
    ("divide", "x, y + 3.0"), ("power", "y + 3.0, x"), ("maximum", "x, y"), ("minimum", "x, 0.5"),
    ("exp", "x"), ("log", "y + 3.0"), ("log1p", "y + 2.0"), ("sqrt", "y + 3.0"),
    ("rsqrt", "y + 3.0"),
    ("square", "x"), ("sin", "x"), ("cos", "x"), ("tanh", "x"), ("sigmoid", "x"), ("erf", "x"),
    ("relu", "x"), ("relu6", "x * 4.0"), ("gelu", "x"), ("gelu", "x, approximate=False"),
    ("elu", "x, alpha=0.5"), ("selu", "x"), ("silu", "x"), ("softplus", "x"),
    ("leaky_relu", "x"), ("softmax", "x, axis=0"), ("log_softmax", "x"),
    ("sum", "x"), ("sum", "x, axis=1, keepdims=True"), ("mean", "x, axis=0"), ("max", "x, axis=1"),
    ("min", "x"), ("prod", "y + 2.0, axis=1"), ("var", "x, axis=1"), ("std", "x"),
    ("logsumexp", "x, axis=1"), ("cumsum", "x, axis=1"), ("cumsum", "x"), ("clip", "x, -0.5, 0.5"),
    ("reshape", "x, (2, 6)"), ("transpose", "x"), ("swapaxes", "x, 0, 1"),
    ("expand_dims", "x, 1"), ("squeeze", "expand_dims(x, 0)"), ("concatenate", "[x, y], axis=1"),
    ("stack", "[x, y], axis=1"), ("tile", "x, (2, 1)"), ("repeat", "x, 2, axis=1"),
    ("repeat", "x, 2"),
    ("flip", "x, axis=1"), ("take", "x, i, axis=1"), ("take", "x, i"), ("tril", "x"),
    ("triu", "x, k=1"), ("where", "greater(x, y), x, y"), ("matmul", "x, transpose(y)"),
    ("einsum", "'ij,kj->ik', x, y"), ("normalize", "x"), ("sort", "x"), ("top_k", "x, 2"),
    ("broadcast_to", "x[0], (3, 4)"), ("split", "x, 2, axis=1"), ("split", "x, [1, 3], axis=1"),
    ("one_hot", "i, 5"), ("arange", "5"), ("arange", "1.0, 3.0, 0.5"), ("eye", "3, 4, k=1"),
    ("argmax", "x, axis=1"), ("argmin", "x"), ("argsort", "x"), ("moments", "x, [0]"),
]  # fmt: skip


@pytest.mark.parametrize("name,args", OPS, ids=[f"{n}({a})" for n, a in OPS])
def test_keras_ops(name: str, args: str) -> None:
    rng = np.random.RandomState(11)
    x = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    y = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    i = np.array([3, 0, 2], np.int32)

    def run(tf: Any) -> list[np.ndarray]:
        ops = tf.keras.ops
        env = {n: getattr(ops, n) for n in dir(ops) if not n.startswith("_")}
        xt, yt = tf.constant(x), tf.constant(y)
        with tf.GradientTape() as tape:
            tape.watch([xt, yt])
            out = eval(f"{name}({args})", {**env, "x": xt, "y": yt, "i": tf.constant(i)})
            flat = list(out) if isinstance(out, (tuple, list)) else [out]
            floats = [o for o in flat if o.dtype.is_floating]
            loss = tf.add_n([tf.reduce_sum(o * o) for o in floats]) if floats else None
        grads = tape.gradient(loss, [xt, yt]) if loss is not None else []
        values = [np.asarray(o) for o in flat]
        return values + [np.asarray(g) for g in grads if g is not None]

    want, got = run(tensorflow), run(symgrad)
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
