"""``model.save("m.keras")`` and ``keras.models.load_model`` in Keras 3's ``.keras`` format.

The two files under data/ were written by Keras-on-TF 2.21 (``gen_keras_files.py``); the
literals are TF's outputs for the same input.  conformance/test_keras_files.py checks the
other direction (a file symgrad wrote, loaded by TF) with TF at test time.
"""

from __future__ import annotations

import json
import pathlib
import zipfile

import numpy as np
import pytest

import symgrad as tf

pytest.importorskip("h5py", reason="the .keras files hold their weights in HDF5: symgrad[keras]")

DATA = pathlib.Path(__file__).parent / "data"
X = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)
TOL = dict(rtol=2e-6, atol=1e-7)
TF_SEQUENTIAL = [
    [0.4664994776248932, 0.40514394640922546],
    [-0.5234723687171936, 0.024180110543966293],
    [-1.0101683139801025, -0.37800782918930054],
]
TF_FUNCTIONAL = [
    [[-2.710735321044922], [-0.5266836881637573], [1.6573677062988281]],
    [
        [1.6168642044067383, 1.1132744550704956, 1.3669312000274658],
        [0.013723250478506088, 0.3321782052516937, 0.2624770402908325],
        [-1.5894176959991455, -0.4489179849624634, -0.8419770002365112],
    ],
]
TF_ADAM_BIAS_SLOTS = [  # optimizer vars 4 and 5: the first Dense bias's m and v
    [-0.18059760332107544, 0.10538233816623688, -0.1554657518863678],
    [0.0020339530892670155, 0.000615216325968504, 0.0013352739624679089],
]


def test_tf_sequential_file_loads_compiled() -> None:
    model = tf.keras.models.load_model(DATA / "tf_sequential.keras")
    assert type(model).__name__ == "Sequential"
    assert [type(la).__name__ for la in model.layers] == ["Dense", "Dropout", "Dense"]
    np.testing.assert_allclose(model.predict(X, verbose=0), TF_SEQUENTIAL, **TOL)
    assert model.optimizer.name == "adam" and int(model.optimizer.iterations.numpy()) == 2
    np.testing.assert_allclose(model.optimizer.variables[4].numpy(), TF_ADAM_BIAS_SLOTS[0])
    np.testing.assert_allclose(model.optimizer.variables[5].numpy(), TF_ADAM_BIAS_SLOTS[1])
    assert model.loss == "mse"
    history = model.fit(X, np.ones((3, 2), "float32"), verbose=0)  # it trains on from there
    assert set(history.history) == {"loss", "mae"}


def test_tf_functional_file_loads() -> None:
    model = tf.keras.models.load_model(DATA / "tf_functional.keras")
    assert type(model).__name__ == "Functional" and model.name == "fun"
    assert [la.name for la in model.layers] == ["inp", "d1", "aux", "cat", "out"]
    out = model.predict([X, X[:, :2]], verbose=0)
    for got, want in zip(out, TF_FUNCTIONAL, strict=True):
        np.testing.assert_allclose(got, want, **TOL)


@pytest.mark.parametrize("name", ["tf_sequential.keras", "tf_functional.keras"])
def test_save_load_round_trip_writes_keras_layout(name: str, tmp_path: pathlib.Path) -> None:
    model = tf.keras.models.load_model(DATA / name)
    path = tmp_path / "again.keras"
    model.save(path)
    with zipfile.ZipFile(path) as ours, zipfile.ZipFile(DATA / name) as theirs:
        assert sorted(ours.namelist()) == sorted(theirs.namelist())
        assert json.loads(ours.read("metadata.json"))["keras_version"] == "3.15.1"
        a, b = json.loads(ours.read("config.json")), json.loads(theirs.read("config.json"))
    assert a["class_name"] == b["class_name"] and a["compile_config"] == b["compile_config"]
    assert [la["class_name"] for la in a["config"]["layers"]] == [
        la["class_name"] for la in b["config"]["layers"]
    ]
    again = tf.keras.models.load_model(path)
    xs = X if "sequential" in name else [X, X[:, :2]]
    for got, want in zip(again.predict(xs, verbose=0), model.predict(xs, verbose=0)):
        np.testing.assert_array_equal(got, want)


def test_save_needs_keras_extension(tmp_path: pathlib.Path) -> None:
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    with pytest.raises(ValueError, match=r"\.keras"):
        model.save(tmp_path / "m.h6")
    with pytest.raises(ValueError, match="File format not supported"):
        tf.keras.models.load_model(tmp_path / "m.weights.h5")


def test_a_lambda_layer_is_refused_before_writing(tmp_path: pathlib.Path) -> None:
    model = tf.keras.Sequential(
        [tf.keras.Input((2,)), tf.keras.layers.Lambda(lambda x: x * 2), tf.keras.layers.Dense(1)]
    )
    with pytest.raises(ValueError, match="Lambda layer"):
        model.save(tmp_path / "m.keras")
    assert not (tmp_path / "m.keras").exists()
