"""symgrad's own ``tf.keras.callbacks.GradientMonitor`` (issue 26 point 6): the first NaN or
Inf of a diverging ``fit`` reported with the layer and op that made it, and per-layer
gradient norms per epoch. Keras has no such callback, so there are no TF numbers: the
norms are checked against a GradientTape computation of the same gradients."""

from __future__ import annotations

import re

import numpy as np
import pytest

import symgrad as tf
from symgrad.tools import numerics

keras = tf.keras


@pytest.fixture(autouse=True)
def _fresh_names():
    yield
    keras.backend.clear_session()


class Log(keras.layers.Layer):
    def call(self, x):
        return tf.math.log(x)  # NaN where x < 0


class Root(keras.layers.Layer):
    def call(self, x):
        return tf.math.sqrt(x)  # finite at 0, its gradient is not


def dense(units: int, name: str, seed: int, **kw) -> keras.layers.Dense:
    init = keras.initializers.GlorotUniform(seed=seed)
    return keras.layers.Dense(units, name=name, kernel_initializer=init, **kw)


def data() -> tuple[np.ndarray, np.ndarray]:
    x = np.random.RandomState(0).randn(8, 3).astype(np.float32)
    return x, np.ones((8, 1), np.float32)


def test_log_of_a_negative_names_the_layer_and_op(capsys) -> None:
    x, y = data()
    model = keras.Sequential(
        [keras.Input((3,)), dense(4, "d1", 1), Log(name="my_log"), dense(1, "d2", 2)]
    )
    model.compile("sgd", "mse")
    monitor = keras.callbacks.GradientMonitor()
    model.fit(x, y, batch_size=4, epochs=3, verbose=0, callbacks=[monitor])
    report = monitor.report
    assert report is not None
    assert (report["layer"], report["op_type"], report["gradient"]) == ("my_log", "Log", False)
    out = capsys.readouterr().out
    # an eager op's name counts up within the process: 'Log', 'Log_1', ...
    assert re.search(r"NaN values in layer 'my_log', op 'Log(_\d+)?' \(type Log\)", out)
    assert not numerics.check_numerics_enabled()  # the process-wide switch put back
    assert "call" not in vars(model.layers[1])  # the layers' calls unwrapped


def test_inf_gradient_names_the_forward_op_it_is_the_gradient_of() -> None:
    x, y = data()
    model = keras.Sequential(
        [
            keras.Input((3,)),
            dense(4, "d1", 1, activation="relu"),
            Root(name="root"),
            dense(1, "d2", 2),
        ]
    )
    model.compile("sgd", "mse")
    monitor = keras.callbacks.GradientMonitor(verbose=0)
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, callbacks=[monitor])
    report = monitor.report
    assert report is not None and report["gradient"] is True
    assert report["layer"] == "root" and report["forward_op"].startswith("Sqrt")
    assert "the gradient of layer 'root''s op 'Sqrt" in report["message"]
    assert len(history.history["loss"]) == 1  # stopped in the first epoch


def test_huge_learning_rate_diverges_in_a_layers_forward_pass() -> None:
    x, y = data()
    model = keras.Sequential([keras.Input((3,)), dense(4, "a", 1), dense(1, "b", 2)])
    model.compile(keras.optimizers.SGD(1e18), "mse")
    monitor = keras.callbacks.GradientMonitor(verbose=0)
    model.fit(x, y * 1e3, batch_size=4, epochs=3, verbose=0, callbacks=[monitor])
    assert monitor.report is not None
    assert monitor.report["layer"] in ("a", "b") and monitor.report["op_type"] == "MatMul"


def test_gradient_norms_per_layer_per_epoch_match_the_tape() -> None:
    x, y = data()
    model = keras.Sequential(
        [keras.Input((3,)), dense(4, "a", 1, activation="tanh"), dense(1, "b", 2)]
    )
    model.compile(keras.optimizers.SGD(0.1), "mse")
    want = {}
    with tf.GradientTape() as tape:
        loss = keras.losses.MeanSquaredError()(y, model(x))
    grads = tape.gradient(loss, model.trainable_weights)
    for layer in model.layers:
        mine = [
            g
            for g, v in zip(grads, model.trainable_weights)
            if any(v is w for w in layer.trainable_weights)
        ]
        want[layer.name] = float(np.sqrt(sum(np.sum(np.square(g.numpy())) for g in mine)))
    monitor = keras.callbacks.GradientMonitor()
    history = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False, callbacks=[monitor])
    assert monitor.report is None and list(monitor.gradient_norms) == ["a", "b"]
    for name, norms in monitor.gradient_norms.items():
        assert len(norms) == 3
        np.testing.assert_allclose(norms[0], want[name], rtol=1e-5)  # the first step's norm
        assert norms[2] < norms[0]  # training converges
    assert len(history.history["loss"]) == 3


def test_gradient_norms_average_the_epochs_steps() -> None:
    x, y = data()
    model = keras.Sequential([keras.Input((3,)), dense(1, "only", 1)])
    model.compile(keras.optimizers.SGD(0.0), "mse")  # weights stay: every step is a tape
    steps = []
    for i in (0, 4):
        with tf.GradientTape() as tape:
            loss = keras.losses.MeanSquaredError()(y[i : i + 4], model(x[i : i + 4]))
        steps.append(
            np.sqrt(
                sum(
                    np.sum(np.square(g.numpy()))
                    for g in tape.gradient(loss, model.trainable_weights)
                )
            )
        )
    monitor = keras.callbacks.GradientMonitor(check_numerics=False)
    model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False, callbacks=[monitor])
    np.testing.assert_allclose(monitor.gradient_norms["only"], [np.mean(steps)] * 2, rtol=1e-5)


def test_a_failing_fit_puts_everything_back() -> None:
    class Broken(keras.layers.Layer):
        def call(self, x, training=None):
            if training:  # in fit's step only
                raise ValueError("broken layer")
            return x

    x, y = data()
    model = keras.Sequential([keras.Input((3,)), Broken(name="broken")])
    model.compile("sgd", "mse")
    monitor = keras.callbacks.GradientMonitor()
    with pytest.raises(ValueError, match="broken layer"):
        model.fit(x, y, verbose=0, callbacks=[monitor])
    assert not numerics.check_numerics_enabled()
    assert "call" not in vars(model.layers[0]) and "_prepare" not in vars(model)
    assert monitor.report is None
