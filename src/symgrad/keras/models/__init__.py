"""``tf.keras.models``: Model (subclassed or functional), Sequential, saving and loading,
``model_from_json`` and ``clone_model``."""

from __future__ import annotations

from typing import Any

from symgrad.keras.layers import config as _layer_config
from symgrad.keras.layers.keras_tensor import Input
from symgrad.keras.models.functional import Functional
from symgrad.keras.models.model import Model
from symgrad.keras.models.sequential import Sequential

_layer_config.MODEL_CLASSES.update(Sequential=Sequential, Functional=Functional, Model=Model)

__all__ = [
    "Model",
    "Sequential",
    "clone_model",
    "load_model",
    "model_from_json",
    "save_model",
]


def save_model(
    model: Any, filepath: Any, overwrite: bool = True, zipped: Any = None, **kwargs: Any
) -> None:
    """``model`` to a Keras 3 ``.keras`` file (see :mod:`symgrad.keras.saving_lib`)."""
    from symgrad.keras.saving_lib import save_model as save

    save(model, filepath, overwrite, zipped, **kwargs)


def load_model(
    filepath: Any, custom_objects: Any = None, compile: bool = True, safe_mode: bool = True
) -> Any:
    """A model from a Keras 3 ``.keras`` file, written by Keras-on-TF or by symgrad."""
    from symgrad.keras.saving_lib import load_model as load

    return load(
        filepath, custom_objects, compile, safe_mode
    )  # Functional is reached through Model(inputs, outputs)


def model_from_json(json_string: str, custom_objects: Any = None) -> Any:
    """A new model from ``model.to_json()``: the same layers, fresh weights (compiled if
    the model was)."""
    import json

    from symgrad.keras.saving_lib import model_from_config_dict

    return model_from_config_dict(json.loads(json_string), custom_objects)


def clone_model(
    model: Any,
    input_tensors: Any = None,
    clone_function: Any = None,
    call_function: Any = None,
    recursive: bool = False,
    **kwargs: Any,
) -> Any:
    """A new model of ``model``'s layers, each made again from its config (fresh weights,
    drawn as the original's initializers draw them), compiled as the original was (a new
    optimizer), as Keras's.  With ``clone_function`` (a Sequential's): each layer
    replaced by what it returns."""
    unsupported = {
        "input_tensors": input_tensors,
        "call_function": call_function,
        "recursive": recursive or None,
        **kwargs,
    }
    given = sorted(k for k, v in unsupported.items() if v is not None)
    if given:
        raise NotImplementedError(
            f"clone_model: symgrad clones a model from its config; {', '.join(given)} not supported"
        )
    from symgrad.keras.saving_lib import _compile_from_config, compile_config, model_config

    if clone_function is None:
        from symgrad.keras.saving_lib import model_from_config_dict

        return model_from_config_dict(model_config(model))
    if not isinstance(model, Sequential):
        raise NotImplementedError(
            "clone_model: symgrad applies clone_function to a Sequential model's layers "
            f"only, not to a {type(model).__name__}"
        )
    seq: list[Any] = model._seq
    head = seq[:1] if seq and type(seq[0]).__name__ == "InputLayer" else []
    layers = [clone_function(layer) for layer in model.layers]
    inputs = [Input(batch_shape=head[0].batch_shape)] if head else []
    clone = Sequential(inputs + layers, name=model.name)
    compiled = compile_config(model)
    if compiled:
        _compile_from_config(clone, compiled, None)
    return clone
