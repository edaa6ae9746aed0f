"""Whole-model ``.keras`` files (Keras 3's zip: config.json, model.weights.h5, metadata.json)
written by TensorFlow load in symgrad with TF's outputs, and back, for a Sequential CNN
(Conv2D, BatchNormalization) and a functional text model (Embedding, MultiHeadAttention,
Bidirectional GRU), compiled and trained one epoch so the optimizer's state travels too."""

from __future__ import annotations

import json
import zipfile
from typing import Any

import numpy as np
import pytest
import tensorflow
from test_keras import _inputs, _models

import symgrad

TOL = dict(rtol=2e-5, atol=2e-6)


def _trained(tf: Any, name: str) -> tuple[Any, np.ndarray]:
    model, shape, dtype = _models(tf)[name]
    x = _inputs(shape, dtype)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    y = np.linspace(-1, 1, 2 * 4 if name == "sequential" else 2 * 2, dtype=np.float32)
    model.fit(x, y.reshape(2, -1), epochs=1, verbose=0)
    return model, x


def _check_same_model(a: Any, b: Any, x: np.ndarray) -> None:
    np.testing.assert_allclose(np.asarray(a(x)), np.asarray(b(x)), **TOL)
    assert [w.shape for w in a.get_weights()] == [tuple(w.shape) for w in b.get_weights()]
    for va, vb in zip(a.optimizer.variables, b.optimizer.variables, strict=True):
        np.testing.assert_allclose(np.asarray(va), np.asarray(vb), **TOL)


@pytest.mark.parametrize("name", ["sequential", "functional"])
def test_tf_keras_file_loads_in_symgrad(name: str, tmp_path: Any) -> None:
    tf_model, x = _trained(tensorflow, name)
    path = str(tmp_path / "tf.keras")
    tf_model.save(path)
    sg_model = symgrad.keras.models.load_model(path)
    assert type(sg_model).__name__ == type(tf_model).__name__
    assert [la.name for la in sg_model.layers] == [la.name for la in tf_model.layers]
    _check_same_model(sg_model, tf_model, x)


@pytest.mark.parametrize("name", ["sequential", "functional"])
def test_symgrad_keras_file_loads_in_tf(name: str, tmp_path: Any) -> None:
    sg_model, x = _trained(symgrad, name)
    tf_model, _ = _trained(tensorflow, name)
    tf_model.save(str(tmp_path / "tf.keras"))
    path = str(tmp_path / "sg.keras")
    sg_model.save(path)
    with zipfile.ZipFile(path) as z, zipfile.ZipFile(str(tmp_path / "tf.keras")) as t:
        assert sorted(z.namelist()) == sorted(t.namelist())
        ours, theirs = json.loads(z.read("config.json")), json.loads(t.read("config.json"))
    assert ours["class_name"] == theirs["class_name"]
    assert ours["compile_config"] == theirs["compile_config"]
    loaded = tensorflow.keras.models.load_model(path)
    _check_same_model(loaded, sg_model, x)


def _registry_objects() -> Any:
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "tests" / "keras"))
    import registry_objects

    return registry_objects


@pytest.mark.parametrize("kind", ["sequential", "subclassed"])
def test_registered_custom_objects_travel_both_ways(kind: str, tmp_path: Any) -> None:
    """A registered custom layer, activation, subclassed model, loss and metric: each side's
    file loads on the other without custom_objects, with the same outputs."""
    reg = _registry_objects()
    x, y = np.array(reg.X, "float32"), np.array(reg.Y, "float32")
    models = {}
    for name, lib in (("tf", tensorflow), ("sg", symgrad)):
        objs = reg.define(lib)
        models[name] = getattr(reg, kind)(lib, objs)
        models[name](x)
        models[name].save(str(tmp_path / f"{name}.keras"))
    for writer, reader in (("tf", symgrad), ("sg", tensorflow)):
        loaded = reader.keras.models.load_model(str(tmp_path / f"{writer}.keras"))
        np.testing.assert_array_equal(np.asarray(loaded(x)), np.asarray(models[writer](x)))
        if kind == "subclassed":
            assert type(loaded).__name__ == "Net"
            assert loaded.evaluate(x, y, verbose=0) == [1.5, 1.75]
