"""``model.save("m.keras")`` / ``keras.models.load_model`` in Keras 3's ``.keras`` format.

The file is a zip holding ``metadata.json`` (Keras version, date), ``config.json`` (the
model's serialized config: ``module``/``class_name``/``config``, ``build_config`` and the
``compile_config`` of a compiled model) and ``model.weights.h5``, the same h5 layout as
``save_weights`` plus the optimizer's variables under ``optimizer/vars`` (Keras's order:
``iteration``, ``learning_rate`` unless it is a schedule, then each slot variable).  So a
Sequential or functional model saved by Keras-on-TF loads here with the same outputs, and
back.  A subclassed model needs a ``from_config`` and its class registered
(``keras.utils.register_keras_serializable``), in a ``custom_object_scope`` or in
``custom_objects``.
"""

from __future__ import annotations

import datetime
import io
import json
import os
import warnings
import zipfile
from typing import Any

import numpy as np

from symgrad.keras import saving
from symgrad.keras.layers.config import deserialize_layer
from symgrad.keras.models.serialization import build_from_config, with_build_config

KERAS_VERSION = "3.15.1"  # the Keras that TF 2.21 ships: the format this file writes


def save_model(
    model: Any, filepath: Any, overwrite: bool = True, zipped: Any = None, **kwargs: Any
) -> None:
    """Keras 3's ``saving.save_model`` (the ``.keras`` zip; ``zipped=False`` is not read)."""
    path = os.fspath(filepath)
    if not path.endswith(".keras"):
        raise ValueError(
            "Invalid filepath extension for saving. Please add either a `.keras` extension "
            f"for the native Keras format (recommended) or a `.h5` extension. Received: "
            f"filepath={path}."
        )
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists and overwrite=False")
    _check_serializable(model)
    metadata = {
        "keras_version": KERAS_VERSION,
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
    }
    weights = io.BytesIO()
    h5py = saving._h5py()
    with h5py.File(weights, "w") as f:
        saving.write_weights(model, f)
        _write_optimizer(model, f)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("metadata.json", json.dumps(metadata))
        z.writestr("config.json", json.dumps(model_config(model)))
        z.writestr("model.weights.h5", weights.getvalue())
        for where, layer in saving.walk_layers(model):
            files = layer.save_assets() if hasattr(layer, "save_assets") else None
            for name, text in (files or {}).items():
                z.writestr(f"assets/{where}/{name}", text)


def _check_serializable(model: Any) -> None:
    """Keras writes a Lambda's function as Python bytecode (and refuses to load it in
    safe mode); symgrad does not write bytecode, so it says so before writing anything."""
    for layer in model._flatten_layers():
        if type(layer).__name__ == "Lambda":
            raise ValueError(
                f"Cannot save model '{model.name}' to a .keras file: its Lambda layer "
                f"'{layer.name}' holds a Python function, which symgrad does not write as "
                "bytecode. Use a custom Layer subclass with get_config, or save_weights."
            )


def model_config(model: Any) -> dict[str, Any]:
    out = with_build_config(model)
    if type(model).__name__ == "Functional":
        out.update(module="keras.src.models.functional", registered_name="Functional")
    elif type(model).__name__ == "Sequential":
        out["module"] = "keras"
    shape = _input_shape(model)
    if shape is not None or "build_config" not in out:  # (a subclassed model: its own)
        out["build_config"] = {"input_shape": shape}
    out["compile_config"] = compile_config(model)
    return out


def _input_shape(model: Any) -> Any:
    seq = getattr(model, "_seq", None)
    if seq and type(seq[0]).__name__ == "InputLayer":
        return list(seq[0].batch_shape)
    return None


def compile_config(model: Any) -> Any:
    args = getattr(model, "_compile_args", None)
    if args is None:
        return {} if type(model).__name__ in ("Functional", "Sequential") else None
    from symgrad.keras import losses, metrics

    def ser(obj: Any, module: Any) -> Any:
        if obj is None or isinstance(obj, str):
            return obj
        if isinstance(obj, (list, tuple)):
            return [ser(o, module) for o in obj]
        if isinstance(obj, dict):
            return {k: ser(v, module) for k, v in obj.items()}
        return module.serialize(obj)

    optimizer = args.get("optimizer") or model.optimizer  # as passed: not the loss-scale wrapper
    return {
        "optimizer": {
            "module": "keras.optimizers",
            "class_name": type(optimizer).__name__,
            "config": optimizer.get_config(),
            "registered_name": None,
        },
        "loss": ser(args["loss"], losses),
        "loss_weights": args["loss_weights"],
        "metrics": ser(args["metrics"], metrics),
        "weighted_metrics": ser(args["weighted_metrics"], metrics),
        "run_eagerly": bool(args["run_eagerly"]),
        "steps_per_execution": args["steps_per_execution"],
        "jit_compile": bool(getattr(model, "jit_compile", False)),
    }


def _write_optimizer(model: Any, f: Any) -> None:
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or getattr(model, "_compile_args", None) is None:
        return
    group = f.require_group("optimizer/vars")
    group.attrs["name"] = optimizer.name
    for i, v in enumerate(optimizer.variables):
        group.create_dataset(str(i), data=v.numpy())


def _read_optimizer(model: Any, f: Any) -> None:
    optimizer = getattr(model, "optimizer", None)
    stored = f.get("optimizer/vars")
    if optimizer is None or stored is None or len(stored) == 0:
        return
    if not optimizer.built:
        optimizer.build(model.trainable_variables)
    own = optimizer.variables
    if len(own) != len(stored):  # (saved before it was built: Keras warns and skips)
        warnings.warn(
            f"Skipping variable loading for optimizer '{optimizer.name}', because it has "
            f"{len(own)} variables whereas the saved optimizer has {len(stored)} variables. ",
            stacklevel=4,  # the user's load_model call
        )
        return
    for i, v in enumerate(own):
        v.assign(np.asarray(stored[str(i)]))


def load_model(
    filepath: Any, custom_objects: Any = None, compile: bool = True, safe_mode: bool = True
) -> Any:
    path = os.fspath(filepath)
    if not path.endswith(".keras"):
        raise ValueError(
            f"File format not supported: filepath={path}. symgrad reads Keras 3's `.keras` "
            "files (model.save('m.keras'))."
        )
    with zipfile.ZipFile(path, "r") as z:
        config = json.loads(z.read("config.json"))
        weights = z.read("model.weights.h5")
        assets = {n: z.read(n).decode() for n in z.namelist() if n.startswith("assets/")}
    model = deserialize_layer(config, custom_objects)
    build_from_config(model, config.get("build_config"))
    compiled = config.get("compile_config")
    if compile and compiled:
        _compile_from_config(model, compiled, custom_objects)
    with saving._h5py().File(io.BytesIO(weights), "r") as f:
        saving.read_weights(model, f, skip_mismatch=False)
        if compile and compiled:
            _read_optimizer(model, f)
    for where, layer in saving.walk_layers(model):  # after the variables, as Keras
        prefix = f"assets/{where}/"
        files = {n[len(prefix) :]: t for n, t in assets.items() if n.startswith(prefix)}
        if files and hasattr(layer, "load_assets"):
            layer.load_assets(files)
    return model


def model_from_config_dict(config: dict[str, Any], custom_objects: Any = None) -> Any:
    """A new model from ``model_config``'s dict: its layers (fresh weights), built, and
    compiled where the config says how (Keras's ``deserialize_keras_object``)."""
    model = deserialize_layer(config, custom_objects)
    build_from_config(model, config.get("build_config"))
    compiled = config.get("compile_config")
    if compiled:
        _compile_from_config(model, compiled, custom_objects)
    return model


def _compile_from_config(model: Any, config: dict[str, Any], custom_objects: Any) -> None:
    from symgrad.keras import losses, metrics, optimizers

    def objects(value: Any, module: Any) -> Any:
        """Config dicts back to losses/metrics (registered functions and classes too)."""
        if isinstance(value, dict) and "class_name" in value:
            return module.deserialize(value, custom_objects)
        if isinstance(value, (list, tuple)):
            return [objects(v, module) for v in value]
        if isinstance(value, dict):
            return {k: objects(v, module) for k, v in value.items()}
        return value

    model.compile(
        optimizer=optimizers.get(config["optimizer"]),
        loss=objects(config.get("loss"), losses),
        loss_weights=config.get("loss_weights"),
        metrics=objects(config.get("metrics"), metrics),
        weighted_metrics=objects(config.get("weighted_metrics"), metrics),
        run_eagerly=config.get("run_eagerly", False),
        steps_per_execution=config.get("steps_per_execution", 1),
        jit_compile=config.get("jit_compile", "auto"),
    )
