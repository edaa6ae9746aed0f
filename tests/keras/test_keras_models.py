"""Keras models against Keras-on-TF 2.21: tests/keras/models_program.py prints names, paths,
outputs, losses, moving statistics, gradients and seeded initializer values; symgrad's run
must print TF's (data/models_tf.txt): names exactly, numbers within float32 rounding.
Then the tape, function, jacobian and explain tools on Keras models, and summary()."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import symgrad as tf

HERE = Path(__file__).parent
layers = tf.keras.layers


def _values(line: str) -> tuple[str, object]:
    label, _, rest = line.partition(": ")
    return label, ast.literal_eval(rest)


def _compare(got: object, want: object) -> None:
    if isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-5, abs=1e-6)
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w)
    else:
        assert got == want


def test_models_program_prints_keras_on_tf_numbers() -> None:
    out = subprocess.run(
        [sys.executable, str(HERE / "models_program.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    want = (HERE / "data" / "models_tf.txt").read_text().splitlines()
    assert len(out) == len(want)
    for got_line, want_line in zip(out, want):
        g, w = _values(got_line), _values(want_line)
        assert g[0] == w[0]
        _compare(g[1], w[1])


def _small_model() -> tf.keras.Sequential:
    return tf.keras.Sequential(
        [
            tf.keras.Input((3,)),
            layers.Dense(
                4, activation="tanh", kernel_initializer=tf.keras.initializers.GlorotUniform(1)
            ),
            layers.Dense(2, kernel_initializer=tf.keras.initializers.GlorotUniform(2)),
        ]
    )


def test_summary_is_keras_table() -> None:
    tf.keras.backend.clear_session()
    lines: list[str] = []
    _small_model().summary(print_fn=lambda text: lines.extend(text.splitlines()))
    assert lines == [
        'Model: "sequential"',
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓",
        "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃",
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩",
        "│ dense (Dense)                   │ (None, 4)              │            16 │",
        "├─────────────────────────────────┼────────────────────────┼───────────────┤",
        "│ dense_1 (Dense)                 │ (None, 2)              │            10 │",
        "└─────────────────────────────────┴────────────────────────┴───────────────┘",
        " Total params: 26 (104.00 B)",
        " Trainable params: 26 (104.00 B)",
        " Non-trainable params: 0 (0.00 B)",
    ]


def test_summary_after_calls_and_fit_reads_as_keras() -> None:
    """Keras-on-TF 2.21's lines: a model with an Input keeps its symbolic (None, n) after
    eager calls; one without an Input shows its first call's shape; once compiled and its
    optimizer built, the optimizer's variables count in the total (SGD: the int64
    iteration and the float32 learning rate, 12 bytes)."""

    def rows(model: tf.keras.Model) -> list[str]:
        lines: list[str] = []
        model.summary(print_fn=lambda text: lines.extend(text.splitlines()))
        return [line for line in lines if "Dense" in line or "params" in line]

    tf.keras.backend.clear_session()
    m = tf.keras.Sequential([tf.keras.Input((2,)), layers.Dense(4)])
    m(np.zeros((3, 2), np.float32))
    assert (
        rows(m)[0] == "│ dense (Dense)                   │ (None, 4)              │            12 │"
    )
    m = tf.keras.Sequential([layers.Dense(4)])
    m(np.zeros((1, 2), np.float32))
    m(np.zeros((2, 2), np.float32))
    assert (
        rows(m)[0] == "│ dense_1 (Dense)                 │ (1, 4)                 │            12 │"
    )
    m.compile("sgd", "mse")
    assert rows(m)[1] == " Total params: 12 (48.00 B)"  # the optimizer not built yet
    m.fit(np.zeros((8, 2), np.float32), np.zeros((8, 4), np.float32), batch_size=4, verbose=0)
    assert rows(m)[1:] == [
        " Total params: 14 (60.00 B)",
        " Trainable params: 12 (48.00 B)",
        " Non-trainable params: 0 (0.00 B)",
        " Optimizer params: 2 (12.00 B)",
    ]


def test_summary_of_a_graph_has_connected_to() -> None:
    tf.keras.backend.clear_session()
    a, b = tf.keras.Input((3,), name="a"), tf.keras.Input((3,), name="b")
    shared = layers.Dense(4)
    x = layers.Add()([shared(a), shared(b)])
    lines: list[str] = []
    tf.keras.Model([a, b], layers.Dense(2)(x)).summary(
        print_fn=lambda text: lines.extend(text.splitlines())
    )
    assert lines == [
        'Model: "functional"',
        "┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓",
        "┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃",
        "┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩",
        "│ a (InputLayer)      │ (None, 3)         │          0 │ -                 │",
        "├─────────────────────┼───────────────────┼────────────┼───────────────────┤",
        "│ b (InputLayer)      │ (None, 3)         │          0 │ -                 │",
        "├─────────────────────┼───────────────────┼────────────┼───────────────────┤",
        "│ dense (Dense)       │ (None, 4)         │         16 │ a[0][0], b[0][0]  │",
        "├─────────────────────┼───────────────────┼────────────┼───────────────────┤",
        "│ add (Add)           │ (None, 4)         │          0 │ dense[0][0],      │",
        "│                     │                   │            │ dense[1][0]       │",
        "├─────────────────────┼───────────────────┼────────────┼───────────────────┤",
        "│ dense_1 (Dense)     │ (None, 2)         │         10 │ add[0][0]         │",
        "└─────────────────────┴───────────────────┴────────────┴───────────────────┘",
        " Total params: 26 (104.00 B)",
        " Trainable params: 26 (104.00 B)",
        " Non-trainable params: 0 (0.00 B)",
    ]


def test_function_and_eager_agree_and_jacobian_matches_fd() -> None:
    model = _small_model()
    x = tf.constant(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    eager = model(x).numpy()
    np.testing.assert_allclose(tf.function(lambda t: model(t))(x).numpy(), eager, rtol=1e-6)
    x64 = np.linspace(-1, 1, 3).reshape(1, 3)
    with tf.GradientTape() as tape:
        xt = tf.constant(x64, dtype=tf.float32)
        tape.watch(xt)
        y = model(xt)
    jac = tape.jacobian(y, xt).numpy().reshape(2, 3)
    eps = 1e-3
    fd = np.stack(
        [
            (model(x64 + eps * np.eye(3)[i]).numpy() - model(x64 - eps * np.eye(3)[i]).numpy())[0]
            / (2 * eps)
            for i in range(3)
        ],
        axis=1,
    )
    np.testing.assert_allclose(jac, fd, rtol=1e-2, atol=1e-3)


def test_frozen_layer_gets_no_gradient() -> None:
    model = _small_model()
    first = model.layers[0]
    first.trainable = False
    second = model.layers[1]
    assert model.trainable_weights == [second.kernel, second.bias]
    assert model.non_trainable_weights == [first.kernel, first.bias]
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(np.ones((2, 3), np.float32)))
    grads = tape.gradient(loss, [first.kernel, *model.trainable_variables])
    assert grads[0] is None and all(g is not None for g in grads[1:])
    frozen, trained = tf.why_none(loss, [first.kernel, second.kernel])
    assert trained is None
    assert (frozen.result, frozen.reason) == ("None", "not_watched")
    assert "trainable=False" in str(frozen) and "tape.watch" in str(frozen)
    with tf.Graph().as_default():  # tf.gradients differentiates a non-trainable variable
        y = tf.reduce_sum(model(tf.compat.v1.placeholder(tf.float32, [None, 3])))
        assert tf.why_none(y, [first.kernel]) == [None]


def test_kernel_constraint_applied_by_optimizer() -> None:
    layer = layers.Dense(2, kernel_constraint=tf.keras.constraints.NonNeg())
    layer(np.ones((1, 3), np.float32))
    layer.set_weights([np.full((3, 2), 0.1, np.float32), np.zeros(2, np.float32)])
    opt = tf.keras.optimizers.SGD(1.0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(np.ones((1, 3), np.float32)))
    opt.apply_gradients(
        zip(tape.gradient(loss, layer.trainable_variables), layer.trainable_variables)
    )
    np.testing.assert_array_equal(layer.kernel.numpy(), np.zeros((3, 2), np.float32))
    np.testing.assert_array_equal(layer.bias.numpy(), [-1.0, -1.0])


def test_bad_inputs_name_the_problem() -> None:
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Dense"):
        layers.Dense(2, unitz=3)
    with pytest.raises(ValueError, match="expecting 2 weights"):
        layer = layers.Dense(2)
        layer(np.ones((1, 3), np.float32))
        layer.set_weights([np.ones((3, 2))])
    with pytest.raises(ValueError, match="Cannot pass a string as the first positional"):
        layers.Layer().add_weight("w", (2,))


def test_render_and_custom_gradient_see_inside_a_keras_model() -> None:
    model = _small_model()
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        y = tf.reduce_sum(model(x))
        [dx] = tf.gradients(y, [x])
        dot = tf.render.to_dot(y, [x], [dx])
    assert "MatMul" in dot and "Tanh" in dot and "(grad of" in dot

    @tf.custom_gradient
    def blocked(t: object) -> object:
        def grad(dy: object, variables: list = ()) -> object:
            return [tf.zeros_like(t)], [tf.ones_like(v) for v in variables]

        return model(t), grad

    xt = tf.constant(np.ones((2, 3), np.float32))
    with tf.GradientTape() as tape:
        tape.watch(xt)
        out = tf.reduce_sum(blocked(xt))
    dx, dw = tape.gradient(out, [xt, model.layers[0].kernel])
    np.testing.assert_array_equal(dx.numpy(), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(dw.numpy(), np.ones((3, 4), np.float32))  # the grad fn's


def test_headline_program_builds_inside_function_and_gives_tf_losses() -> None:
    """The issue's program: a Sequential without Input, built by its first call inside a
    tf.function train step with Adam; TF 2.21 prints these three losses."""
    tf.keras.backend.clear_session()
    init = tf.keras.initializers
    model = tf.keras.Sequential(
        [
            layers.Conv2D(4, 3, activation="relu", kernel_initializer=init.GlorotUniform(1)),
            layers.MaxPooling2D(),
            layers.Flatten(),
            layers.Dense(10, kernel_initializer=init.GlorotUniform(2)),
        ]
    )
    optimizer = tf.keras.optimizers.Adam(1e-3)

    @tf.function
    def train_step(x: object, y: object) -> object:
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            )
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    rng = np.random.RandomState(0)
    x = rng.rand(8, 10, 10, 1).astype(np.float32)
    y = (np.arange(8) % 10).astype(np.int32)
    losses = [float(train_step(x, y)) for _ in range(3)]
    np.testing.assert_allclose(
        losses, [2.3032243251800537, 2.295607089996338, 2.2878739833831787], rtol=1e-6
    )
    assert [w.path for w in model.weights] == [
        "sequential/conv2d/kernel",
        "sequential/conv2d/bias",
        "sequential/dense/kernel",
        "sequential/dense/bias",
    ]


def test_a_keras_variables_repr_is_keras_3s() -> None:
    """Keras 3 on TF 2.21 prints a layer's weight as ``<Variable path=..., shape=...,
    dtype=..., value=...>``."""
    tf.keras.backend.clear_session()
    d = layers.Dense(2, name="d", kernel_initializer="ones")
    d.build((None, 2))
    assert repr(d.kernel) == (
        "<Variable path=d/kernel, shape=(2, 2), dtype=float32, value=[[1. 1.]\n [1. 1.]]>"
    )
    assert str(d.bias) == "<Variable path=d/bias, shape=(2,), dtype=float32, value=[0. 0.]>"
