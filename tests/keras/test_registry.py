"""keras.utils.register_keras_serializable and the custom-object registry, against
Keras-on-TF 2.21: registered names, configs, ``.keras`` files both ways (the files under
data/ were written by TF: tests/keras/gen_registry_files.py) and Keras's errors."""

from __future__ import annotations

import json
import pathlib
import sys
import zipfile
from typing import Any

import numpy as np
import pytest

import symgrad as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from registry_objects import X, Y, define, sequential, subclassed

keras = tf.keras
DATA = pathlib.Path(__file__).parent / "data"
OBJS = define(tf)
x, y = np.array(X, "float32"), np.array(Y, "float32")
POLICY = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
          "registered_name": None}  # fmt: skip
# TF's outputs (gen_registry_files.py): exact, as the weights are ones
SEQUENTIAL_OUT = [[12.0, 12.0], [9.0, 9.0]]
EVALUATE = [1.5, 1.75]


def test_registered_names_and_objects() -> None:
    u = keras.utils
    assert u.get_registered_name(OBJS["ScaleLayer"]) == "SgReg>Scale"
    assert u.get_registered_name(OBJS["twice_relu"]) == "SgReg>twice_relu"
    assert u.get_registered_name(np.sum) == "sum"  # not registered: its own name
    assert u.get_registered_object("SgReg>Scale") is OBJS["ScaleLayer"]
    assert u.get_registered_object("SgReg>nope") is None
    assert u.get_registered_object("a", custom_objects={"a": 1}) == 1
    assert u.get_registered_object("b", module_objects={"b": 2}) == 2
    assert u.get_custom_objects()["SgReg>Net"] is OBJS["Net"]


def test_a_class_without_get_config_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^Cannot register a class that does not have a "):

        @keras.utils.register_keras_serializable()
        class NoConfig:
            pass


def test_serialized_configs_match_keras() -> None:
    layer = OBJS["ScaleLayer"](3.0, name="sc")
    assert keras.utils.serialize_keras_object(layer) == {
        "module": "registry_objects",
        "class_name": "ScaleLayer",
        "config": {"name": "sc", "trainable": True, "dtype": POLICY, "factor": 3.0},
        "registered_name": "SgReg>Scale",
    }
    fn = {"module": "builtins", "class_name": "function", "config": "SgReg>twice_relu",
          "registered_name": "function"}  # fmt: skip
    assert keras.utils.serialize_keras_object(OBJS["twice_relu"]) == fn
    dense = keras.layers.Dense(2, activation=OBJS["twice_relu"])
    assert dense.get_config()["activation"] == fn
    assert keras.layers.Dense.from_config(dense.get_config()).activation is OBJS["twice_relu"]
    assert keras.losses.serialize(OBJS["double_mae"])["config"] == "SgReg>double_mae"
    assert keras.losses.get(keras.losses.serialize(OBJS["double_mae"])) is OBJS["double_mae"]
    assert keras.metrics.get(keras.metrics.serialize(OBJS["mean_pred"])) is OBJS["mean_pred"]
    assert keras.utils.deserialize_keras_object("SgReg>twice_relu") is OBJS["twice_relu"]
    back = keras.utils.deserialize_keras_object(keras.utils.serialize_keras_object(layer))
    assert type(back) is OBJS["ScaleLayer"] and back.factor == 3.0 and back.name == "sc"


def _strip(config: Any) -> Any:
    """A config without Keras's shared_object_id bookkeeping."""
    if isinstance(config, dict):
        return {k: _strip(v) for k, v in config.items() if k != "shared_object_id"}
    if isinstance(config, list):
        return [_strip(v) for v in config]
    return config


@pytest.mark.parametrize(
    "name,make",
    [("sequential", lambda: sequential(tf, OBJS)), ("subclassed", lambda: subclassed(tf, OBJS))],
)
def test_files_round_trip_and_match_tf_config(name: str, make: Any, tmp_path: Any) -> None:
    pytest.importorskip("h5py")  # .keras files: symgrad[keras]
    model = make()
    if name == "subclassed":
        assert model.evaluate(x, y, verbose=0) == EVALUATE
    else:
        assert model(x).numpy().tolist() == SEQUENTIAL_OUT
    path = tmp_path / "m.keras"
    model.save(path)
    theirs = json.loads(zipfile.ZipFile(DATA / f"tf_registered_{name}.keras").read("config.json"))
    ours = json.loads(zipfile.ZipFile(path).read("config.json"))
    assert ours == _strip(theirs)  # so TF's Keras reads it as its own
    loaded = keras.models.load_model(path)  # no custom_objects: the registry has them
    if name == "subclassed":
        assert type(loaded) is OBJS["Net"]
        assert loaded.evaluate(x, y, verbose=0) == EVALUATE
    else:
        assert type(loaded.layers[1]) is OBJS["ScaleLayer"]
        assert loaded(x).numpy().tolist() == SEQUENTIAL_OUT


def test_tf_files_load_without_custom_objects() -> None:
    pytest.importorskip("h5py")  # .keras files: symgrad[keras]
    m = keras.models.load_model(DATA / "tf_registered_sequential.keras")
    assert type(m.layers[1]) is OBJS["ScaleLayer"] and m.layers[1].factor == 3.0
    assert m.layers[0].activation is OBJS["twice_relu"]
    assert m(x).numpy().tolist() == SEQUENTIAL_OUT
    n = keras.models.load_model(DATA / "tf_registered_subclassed.keras")
    assert type(n) is OBJS["Net"] and n.units == 2
    assert n.evaluate(x, y, verbose=0) == EVALUATE


UNKNOWN = {"module": None, "class_name": "Nope", "config": {}, "registered_name": "Nope"}
LOCATE = (
    "Could not locate class 'Nope'. Make sure custom classes and functions are decorated "
    "with `@keras.saving.register_keras_serializable()`. If they are already decorated, "
    "make sure they are all imported so that the decorator is run before trying to load "
    "them. Full object config: {'module': None, 'class_name': 'Nope', 'config': {}, "
    "'registered_name': 'Nope'}"
)


def test_unknown_class_is_keras_type_error() -> None:
    for call in (keras.utils.deserialize_keras_object, keras.layers.deserialize):
        with pytest.raises(TypeError) as e:
            call(dict(UNKNOWN))
        assert str(e.value) == LOCATE


def test_unregistered_class_in_a_file(tmp_path: Any) -> None:
    pytest.importorskip("h5py")  # .keras files: symgrad[keras]

    class Loose(keras.layers.Layer):
        def call(self, x: Any) -> Any:
            return x

    m = keras.Sequential([keras.Input((3,)), Loose(name="loose")])
    m.save(tmp_path / "m.keras")
    config = json.loads(zipfile.ZipFile(tmp_path / "m.keras").read("config.json"))
    entry = config["config"]["layers"][1]
    assert (entry["class_name"], entry["registered_name"]) == ("Loose", "Loose")
    assert entry["module"] == "test_registry"
    assert entry["build_config"] == {"input_shape": [None, 3]}
    with pytest.raises(TypeError, match=r"^Could not locate class 'Loose'\. Make sure"):
        keras.models.load_model(tmp_path / "m.keras")
    assert type(keras.models.load_model(tmp_path / "m.keras", {"Loose": Loose}).layers[0]) is Loose
    with keras.utils.custom_object_scope({"Loose": Loose}):
        assert type(keras.models.load_model(tmp_path / "m.keras").layers[0]) is Loose
    with pytest.raises(TypeError):  # the scope ends with the block
        keras.models.load_model(tmp_path / "m.keras")


def test_scope_nests_and_restores() -> None:
    scale = OBJS["ScaleLayer"]
    with keras.utils.CustomObjectScope({"Nope": scale}) as scope:
        assert scope.custom_objects == {"Nope": scale}
        made = keras.utils.deserialize_keras_object({**UNKNOWN, "config": {"factor": 2.0}})
        assert type(made) is scale and made.factor == 2.0
        with keras.utils.custom_object_scope({"Other": 1}):
            assert keras.utils.get_registered_object("Nope") is None  # replaced, as Keras
        assert keras.utils.get_registered_object("Nope") is scale
    assert keras.utils.get_registered_object("Nope") is None
    assert "Nope" not in keras.utils.get_custom_objects()


def test_a_layer_without_its_own_constructor_has_the_base_config() -> None:
    class Bare(keras.layers.Layer):
        def call(self, x: Any) -> Any:
            return x

    assert Bare(name="bare").get_config() == {  # TF's dict, its base constructor's arguments
        "name": "bare", "activity_regularizer": None, "trainable": True, "dtype": POLICY,
        "autocast": True,
    }  # fmt: skip
