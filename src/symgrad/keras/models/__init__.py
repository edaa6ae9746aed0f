"""``tf.keras.models``: Model (subclassed or functional) and Sequential."""

from __future__ import annotations

from typing import Any

from symgrad.keras.layers import config as _layer_config
from symgrad.keras.models.functional import Functional
from symgrad.keras.models.model import Model
from symgrad.keras.models.sequential import Sequential

_layer_config.MODEL_CLASSES.update(Sequential=Sequential, Functional=Functional, Model=Model)

__all__ = ["Model", "Sequential", "load_model", "save_model"]


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
