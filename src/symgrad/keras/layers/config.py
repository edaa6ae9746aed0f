"""``get_config``/``from_config`` for every built-in layer, as Keras 3's dicts.

Keras writes, for each layer, its constructor arguments as the layer holds them after
standardizing (``kernel_size=3`` comes back as ``(3, 3)``), objects as
``{"module", "class_name", "config", "registered_name"}`` and activations by name, under
the base keys ``name``, ``trainable`` and ``dtype`` (a ``DTypePolicy`` dict).  symgrad
derives that dict from the constructor's signature and the layer's attributes; the few
layers whose Keras config leaves an argument out or adds one are listed in ``_DROP`` and
``_EXTRA`` (tests/keras/test_keras_configs.py compares every layer with Keras-on-TF's dict).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from symgrad.keras.object_registration import (
    custom_config,
    custom_object_scope,
    function_config,
    is_registered,
    lookup,
    scope_dict,
)

_BASE = ("self", "name", "dtype", "trainable")

# Arguments a layer takes that Keras 3.15's get_config leaves out.
# (Keras's base Layer.get_config adds ``activity_regularizer`` when one is set.)
_DROP: dict[str, tuple[str, ...]] = {
    "Dense": ("activity_regularizer", "lora_rank", "lora_alpha"),
    "EinsumDense": ("lora_rank", "lora_alpha", "gptq_unpacked_column_size"),
    "Embedding": ("lora_rank", "lora_alpha", "input_length", "sparse", "weights"),
    "Bidirectional": ("weights",),
    "SimpleRNN": ("seed",),
    "LSTM": ("use_cudnn",),
    "GRU": ("use_cudnn",),
    "MultiHeadAttention": ("flash_attention",),
}  # fmt: skip
# Layers whose Keras 3.15 config has no ``trainable`` and the dtype as a plain name.
_PLAIN = ("SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D")
# Arguments Keras 3.15 writes only when they are not None.
_IF_SET: dict[str, tuple[str, ...]] = {
    "Dense": ("activity_regularizer",),
    "Lambda": ("output_shape", "mask"),
}
# Config keys read from another attribute than the argument's name.
_ATTR: dict[str, dict[str, str]] = {"Bidirectional": {"layer": "forward_layer"}}
_RNN_EXTRA = {"zero_output_for_mask": False}
# Keys Keras 3.15's get_config adds that the constructor does not take: the attribute
# the layer holds them in, or this default.
_EXTRA: dict[str, dict[str, Any]] = {
    "SimpleRNN": _RNN_EXTRA,
    "LSTM": _RNN_EXTRA,
    "GRU": _RNN_EXTRA,
    "RNN": _RNN_EXTRA,
    "LayerNormalization": {"rms_scaling": False},
    "Dense": {"quantization_config": None},
    "EinsumDense": {"quantization_config": None, "activity_regularizer": None},
    "Embedding": {"quantization_config": None, "activity_regularizer": None},
}


def dtype_policy(name: str) -> dict[str, Any]:
    return {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": name},
        "registered_name": None,
    }


def serialize_object(obj: Any) -> Any:
    """Keras's ``serialize_keras_object`` for what a layer config holds."""
    from symgrad.keras import activations, constraints, initializers, regularizers
    from symgrad.keras.layers.layer import Layer

    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return type(obj)(serialize_object(v) for v in obj)
    if isinstance(obj, dict):
        return {k: serialize_object(v) for k, v in obj.items()}
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    for module, base in (
        ("keras.initializers", initializers.Initializer),
        ("keras.regularizers", regularizers.Regularizer),
        ("keras.constraints", constraints.Constraint),
    ):
        if isinstance(obj, base):
            return _wrap(module, obj, obj.get_config())
    if isinstance(obj, Layer):
        return serialize_layer(obj)
    if callable(obj) and is_registered(obj):
        return function_config(obj)
    if callable(obj):
        return activations.serialize(obj)
    return obj


def _wrap(module: str, obj: Any, config: Any) -> dict[str, Any]:
    custom = custom_config(obj, config)
    if custom is not None:
        return custom
    return {
        "module": module,
        "class_name": type(obj).__name__,
        "config": config,
        "registered_name": None,
    }


def serialize_layer(layer: Any) -> dict[str, Any]:
    return _wrap("keras.layers", layer, layer.get_config())


def constructor_config(layer: Any) -> dict[str, Any]:
    """The constructor arguments as ``layer`` holds them (see the module docstring)."""
    cls = type(layer)
    signature = inspect.signature(cls.__init__)
    args, kwargs = getattr(layer, "_init_args", ((), {}))
    try:
        given = signature.bind_partial(layer, *args, **kwargs).arguments
    except TypeError:
        given = dict(kwargs)
    kind = cls.__name__
    drop, attrs = _DROP.get(kind, ()), _ATTR.get(kind, {})
    config: dict[str, Any] = {}
    for name, p in signature.parameters.items():
        if name in _BASE or name in drop or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        attr = attrs.get(name, name)
        if hasattr(layer, attr) and not callable(getattr(type(layer), attr, None)):
            value = getattr(layer, attr)
        else:
            value = given.get(name, p.default)
        if value is None and name in _IF_SET.get(kind, ()):
            continue
        config[name] = serialize_object(_standard(name, value))
    if "activity_regularizer" in _IF_SET.get(kind, ()) and layer.activity_regularizer is not None:
        config["activity_regularizer"] = serialize_object(layer.activity_regularizer)
    for key, default in _EXTRA.get(kind, {}).items():
        config[key] = serialize_object(getattr(layer, key, default))
    return config


def _standard(name: str, value: Any) -> Any:
    """An argument as Keras standardizes it in the constructor (names to objects)."""
    from symgrad.keras import backend, constraints, initializers, regularizers

    if name == "data_format" and value is None:
        return backend.image_data_format()
    if name == "output_shape" and isinstance(value, int):
        return (value,)
    for suffix, module in (
        ("_initializer", initializers),
        ("_regularizer", regularizers),
        ("_constraint", constraints),
    ):
        if name.endswith(suffix) and isinstance(value, (str, dict)):
            return module.get(value)
    return value


def layer_config(layer: Any) -> dict[str, Any]:
    policy = getattr(layer, "dtype_policy", None)
    name = policy.name if policy is not None else layer.dtype
    base = {"name": layer.name, "trainable": layer.trainable, "dtype": dtype_policy(name)}
    if type(layer).__name__ in _PLAIN:
        base = {"name": layer.name, "dtype": layer.dtype}
    return {**base, **constructor_config(layer)}


def deserialize_layer(config: Any, custom_objects: Any = None) -> Any:
    """A layer from ``{"class_name", "config", ...}`` (Keras's ``layers.deserialize``)."""
    from symgrad.keras import layers

    cls = lookup(config, custom_objects, _builtin_layers(layers))
    with custom_object_scope({**(custom_objects or {}), **scope_dict()}):  # Keras's
        return cls.from_config(config["config"])  # (nested layers see custom_objects)


# The model classes a config may nest (Sequential, Functional, Model): keras.models, a
# package above keras.layers, registers them here when it is imported.
MODEL_CLASSES: dict[str, Any] = {}


def _builtin_layers(layers: Any) -> dict[str, Any]:
    found = {
        n: getattr(layers, n) for n in layers.__all__ if isinstance(getattr(layers, n, None), type)
    }
    found.update(MODEL_CLASSES)
    return found


def from_config(cls: Any, config: dict[str, Any]) -> Any:
    """Keras's ``Layer.from_config``: the dtype policy to its name, nested objects to
    objects, then ``cls(**config)``."""
    config = dict(config)
    if isinstance(config.get("dtype"), dict):
        config["dtype"] = config["dtype"]["config"]["name"]
    later = {}
    for key, extra in _EXTRA.get(cls.__name__, {}).items():
        value = config.pop(key, extra)
        if key == "activity_regularizer":  # every layer takes it as a keyword
            config[key] = value
        elif value != extra:
            later[key] = value
    for key, value in config.items():
        if isinstance(value, dict) and _is_layer_config(value):
            config[key] = deserialize_layer(value)
        elif isinstance(value, dict) and value.get("module") == "keras.constraints":
            from symgrad.keras import constraints

            config[key] = constraints.deserialize(value)
    layer = cls(**config)
    for key, value in later.items():
        setattr(layer, key, value)
    return layer


def _is_layer_config(value: dict[str, Any]) -> bool:
    """A nested layer's dict: a built-in's (``keras.layers``) or a user's class that the
    registry or scope knows."""
    if value.get("module") == "keras.layers":
        return True
    from symgrad.keras.layers.layer import Layer
    from symgrad.keras.object_registration import get_registered_object

    if "class_name" not in value or "config" not in value:
        return False
    found = get_registered_object(value.get("registered_name") or value["class_name"])
    return isinstance(found, type) and issubclass(found, Layer)
