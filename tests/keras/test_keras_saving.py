"""save_weights/load_weights: Keras 3's ``.weights.h5`` files (h5py, the optional extra
``symgrad[keras]``).  The files' layout against TF's own is checked in conformance/test_keras.py."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

import symgrad as tf

layers = tf.keras.layers


def _model() -> Any:
    return tf.keras.Sequential(
        [tf.keras.Input((3,)), layers.Dense(4), layers.BatchNormalization(), layers.Dense(2)]
    )


def test_missing_h5py_says_how_to_install(monkeypatch: Any, tmp_path: Any) -> None:
    monkeypatch.setitem(sys.modules, "h5py", None)  # import h5py now raises ImportError
    with pytest.raises(ImportError, match=r"pip install symgrad\[keras\]"):
        _model().save_weights(str(tmp_path / "m.weights.h5"))


def test_filename_must_be_weights_h5(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`"):
        _model().save_weights(str(tmp_path / "m.h5"))


def test_round_trip(tmp_path: Any) -> None:
    pytest.importorskip("h5py")
    a, b = _model(), _model()
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    a(x, training=True)  # moves the moving statistics away from their start
    path = str(tmp_path / "m.weights.h5")
    a.save_weights(path)
    b.load_weights(path)
    for wa, wb in zip(a.get_weights(), b.get_weights(), strict=True):
        np.testing.assert_array_equal(wa, wb)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())


def _functional(tf: Any) -> Any:
    g = tf.keras.initializers.GlorotUniform
    inp = tf.keras.Input((3,), name="inp")
    h = layers.Dense(5, activation="tanh", kernel_initializer=g(seed=1), name="h")(inp)
    h2 = layers.Dense(5, activation="relu", kernel_initializer=g(seed=2), name="h2")(inp)
    n = layers.LayerNormalization(name="ln")(layers.Concatenate(name="cat")([h, h2]))
    out = layers.Dense(1, kernel_initializer=g(seed=3), name="out")(n)
    return tf.keras.Model(inp, out, name="m")


X = np.linspace(-1, 1, 96, dtype=np.float32).reshape(32, 3)[:2]


def test_to_json_model_from_json_and_clone_model_are_keras() -> None:
    """TF 2.21 (Keras 3): the JSON's keys; a model from it and a clone have the same
    layers and fresh weights drawn by the seeded initializers (so TF's numbers), and are
    compiled as the original was, with a new optimizer."""
    model = _functional(tf)
    model.compile(optimizer="adam", loss="mse")
    model.fit(X, np.ones((2, 1), np.float32), epochs=2, verbose=0)  # trained: not the clone's
    j = model.to_json()
    assert sorted(__import__("json").loads(j)) == [
        "build_config", "class_name", "compile_config", "config", "module", "registered_name",
    ]  # fmt: skip
    fresh = [[2.3599801063537598], [2.3660500049591064]]  # TF 2.21's, printed to 5 places
    for copy in (tf.keras.models.model_from_json(j), tf.keras.models.clone_model(model)):
        assert [layer.name for layer in copy.layers] == [
            "inp", "h", "h2", "cat", "ln", "out",
        ]  # fmt: skip
        np.testing.assert_allclose(copy.predict(X, verbose=0), fresh, atol=1e-5)
        assert copy.compiled and copy.optimizer is not model.optimizer
    assert not tf.keras.models.clone_model(_functional(tf)).compiled


def test_clone_model_with_a_clone_function() -> None:
    g = tf.keras.initializers.GlorotUniform
    s = tf.keras.Sequential(
        [
            tf.keras.Input((3,)),
            layers.Dense(2, kernel_initializer=g(seed=7), name="a"),
            layers.Dense(1, kernel_initializer=g(seed=8), name="b"),
        ]
    )

    def rename(layer: Any) -> Any:
        return layer.__class__.from_config({**layer.get_config(), "name": layer.name + "_c"})

    c = tf.keras.models.clone_model(s, clone_function=rename)
    assert [layer.name for layer in c.layers] == ["a_c", "b_c"] and not c.compiled
    s.compile(optimizer="sgd", loss="mse")
    assert tf.keras.models.clone_model(s, clone_function=rename).compiled  # TF's: as s
    want = [[-0.13274000585079193], [-0.12432000041007996]]  # TF 2.21, printed to 5 places
    np.testing.assert_allclose(c.predict(X, verbose=0), want, atol=1e-5)
    with pytest.raises(NotImplementedError, match="input_tensors not supported"):
        tf.keras.models.clone_model(s, input_tensors=[tf.keras.Input((3,))])
    with pytest.raises(NotImplementedError, match="Sequential model's layers only"):
        tf.keras.models.clone_model(_functional(tf), clone_function=rename)


def test_a_model_compiled_with_a_schedule_clones_and_reloads() -> None:
    """An optimizer's config holds its schedule as a dict; from_config makes it again."""
    s = tf.keras.optimizers.schedules
    opt = tf.keras.optimizers.Nadam(s.CosineDecay(0.0, 12, warmup_target=0.05, warmup_steps=6))
    again = tf.keras.optimizers.Nadam.from_config(opt.get_config())
    assert type(again._learning_rate).__name__ == "CosineDecay"
    model = _functional(tf)
    model.compile(optimizer=opt, loss="mse")
    for copy in (
        tf.keras.models.clone_model(model),
        tf.keras.models.model_from_json(model.to_json()),
    ):
        schedule = copy.optimizer._learning_rate
        assert (type(schedule).__name__, schedule.get_config()) == (
            "CosineDecay",
            opt._learning_rate.get_config(),
        )


def test_a_model_saved_before_training_loads_and_predicts(tmp_path: Any) -> None:
    """Saved compiled but never trained, the file's optimizer has only its iteration
    count and rate: loading warns with Keras's text and skips them (it raised); and
    ``predict`` on the loaded compiled model builds no metric (it asked for targets)."""
    pytest.importorskip("h5py")
    a, b = tf.keras.Input((5,), name="a"), tf.keras.Input((3,), name="b")
    h = layers.Concatenate()([layers.Dense(4, activation="tanh")(a), b])
    outputs = {"reg": layers.Dense(1, name="reg")(h), "cls": layers.Dense(3, name="cls")(h)}
    model = tf.keras.Model({"a": a, "b": b}, outputs)
    model.compile("adam", loss={"reg": "mse", "cls": "mse"}, metrics={"cls": ["mae"]})
    path = str(tmp_path / "m.keras")
    model.save(path)
    with pytest.warns(UserWarning) as seen:
        loaded = tf.keras.models.load_model(path)
    name = loaded.optimizer.name  # adam, or adam_<n> after other tests' optimizers
    assert str(seen[0].message) == (
        f"Skipping variable loading for optimizer '{name}', because it has 14 variables "
        "whereas the saved optimizer has 2 variables. "
    )
    assert seen[0].filename == __file__  # the warning names the user's load_model line
    x = {"a": np.ones((2, 5), np.float32), "b": np.ones((2, 3), np.float32)}
    got, want = loaded.predict(x, verbose=0), model.predict(x, verbose=0)
    assert sorted(got) == ["cls", "reg"]
    np.testing.assert_array_equal(got["reg"], want["reg"])
