"""Keras 3's serialization registry (``keras.utils.register_keras_serializable``,
``get_custom_objects``, ``custom_object_scope``, ``get_registered_name``/``object``).

A decorated class or function is stored under ``"package>name"``; serializing it writes
that key as the config's ``registered_name`` (a function's config is the key itself), and
every place symgrad turns a config back into an object (layers, models, activations,
losses, metrics, ``deserialize_keras_object``) looks the key up here first: the innermost
``custom_object_scope``, then the global registry, then the ``custom_objects`` argument,
as Keras's ``_retrieve_class_or_fn`` does.  An unknown class raises Keras's TypeError
"Could not locate class ...".
"""

from __future__ import annotations

import inspect
import threading
from typing import Any

GLOBAL_CUSTOM_OBJECTS: dict[str, Any] = {}
GLOBAL_CUSTOM_NAMES: dict[Any, str] = {}
_STATE = threading.local()


def scope_dict() -> dict[str, Any]:
    return getattr(_STATE, "scope", {})  # type: ignore[no-any-return]


class CustomObjectScope:
    """``with custom_object_scope({"name": obj}):`` makes ``obj`` known to every
    deserialization inside the block (the scope replaces the outer one, as Keras's)."""

    def __init__(self, custom_objects: Any) -> None:
        self.custom_objects = custom_objects or {}
        self.backup: dict[str, Any] | None = None

    def __enter__(self) -> CustomObjectScope:
        self.backup = scope_dict().copy()
        _STATE.scope = dict(self.custom_objects)
        return self

    def __exit__(self, *args: Any, **kwargs: Any) -> None:
        _STATE.scope = dict(self.backup or {})


custom_object_scope = CustomObjectScope


def get_custom_objects() -> dict[str, Any]:
    """The live global registry (``"package>name"`` -> class or function)."""
    return GLOBAL_CUSTOM_OBJECTS


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Any:
    def decorator(arg: Any) -> Any:
        class_name = name if name is not None else arg.__name__
        registered_name = f"{package}>{class_name}"
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        GLOBAL_CUSTOM_NAMES[arg] = registered_name
        return arg

    return decorator


def get_registered_name(obj: Any) -> str:
    if obj in GLOBAL_CUSTOM_NAMES:
        return GLOBAL_CUSTOM_NAMES[obj]
    return obj.__name__  # type: ignore[no-any-return]


def get_registered_object(name: Any, custom_objects: Any = None, module_objects: Any = None) -> Any:
    scope = scope_dict()
    if name in scope:
        return scope[name]
    if name in GLOBAL_CUSTOM_OBJECTS:
        return GLOBAL_CUSTOM_OBJECTS[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


def is_registered(obj: Any) -> bool:
    try:
        return obj in GLOBAL_CUSTOM_NAMES
    except TypeError:  # unhashable
        return False


def could_not_locate(obj_type: str, name: str, full_config: Any) -> TypeError:
    return TypeError(
        f"Could not locate {obj_type} '{name}'. Make sure custom classes and functions are "
        "decorated with `@keras.saving.register_keras_serializable()`. If they are already "
        "decorated, make sure they are all imported so that the decorator is run before "
        f"trying to load them. Full object config: {full_config}"
    )


def lookup(config: dict[str, Any], custom_objects: Any, builtins: dict[str, Any]) -> Any:
    """The class (or function) a ``{"class_name", "registered_name", ...}`` config names:
    the registry and scope by registered name, ``custom_objects`` by either name, then
    the built-ins by class name; else Keras's TypeError."""
    name = config["class_name"]
    if name == "function":
        key = config["config"]
        found = get_registered_object(key, custom_objects, builtins)
        if found is None:
            raise could_not_locate("function", key, config)
        return found
    registered = config.get("registered_name", name)
    found = get_registered_object(registered, custom_objects) if registered else None
    if found is None:
        found = get_registered_object(name, custom_objects, builtins)
    if found is None:
        raise could_not_locate("class", name, config)
    return found


def custom_config(obj: Any, config: Any) -> dict[str, Any] | None:
    """Keras's dict for an object whose class is not symgrad's own (a user's class):
    its module (None for ``__main__``) and registered name; None for a built-in."""
    cls = obj if inspect.isclass(obj) else type(obj)
    module = cls.__module__
    if module.startswith("symgrad.") and not is_registered(cls):
        return None
    return {
        "module": None if module == "__main__" else module,
        "class_name": cls.__name__,
        "config": config,
        "registered_name": get_registered_name(cls),
    }


def function_config(fn: Any) -> dict[str, Any] | None:
    """Keras's dict for a registered function (None when it is not registered)."""
    if not is_registered(fn):
        return None
    key = GLOBAL_CUSTOM_NAMES[fn]
    return {"module": "builtins", "class_name": "function", "config": key,
            "registered_name": "function"}  # fmt: skip


def serialize_keras_object(obj: Any) -> Any:
    """Keras's dict for a layer, loss, metric, initializer, regularizer, constraint or
    registered function (plain values as they are)."""
    from symgrad.keras import losses, metrics
    from symgrad.keras.layers.config import serialize_object
    from symgrad.keras.layers.layer import Layer
    from symgrad.keras.models.serialization import with_build_config

    if isinstance(obj, Layer):
        return with_build_config(obj)
    if isinstance(obj, losses.Loss):
        return losses.serialize(obj)
    if isinstance(obj, metrics.Metric):
        return metrics.serialize(obj)
    return serialize_object(obj)


def deserialize_keras_object(
    config: Any, custom_objects: Any = None, safe_mode: bool = True, **kwargs: Any
) -> Any:
    """The object a Keras config dict (or a registered name) stands for."""
    if config is None or isinstance(config, (bool, int, float)):
        return config
    if isinstance(config, str):
        found = get_registered_object(config, custom_objects)
        if found is None:
            raise could_not_locate("function", config, config)
        return found
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(c, custom_objects) for c in config]
    if not isinstance(config, dict) or "class_name" not in config:
        raise TypeError(f"Could not parse config: {config}")
    found = lookup(config, custom_objects, _builtins(config.get("module")))
    if config["class_name"] == "function":
        return found
    if hasattr(found, "from_config"):
        from symgrad.keras.layers.layer import Layer

        if isinstance(found, type) and issubclass(found, Layer):
            from symgrad.keras.saving_lib import model_from_config_dict

            return model_from_config_dict(config, custom_objects)
        return found.from_config(config.get("config") or {})
    return found(**(config.get("config") or {}))


def _builtins(module: Any) -> dict[str, Any]:
    """Keras's public classes under ``module`` (``keras.layers``, ``keras.losses``, ...)."""
    import symgrad.keras as keras

    if not isinstance(module, str) or not module.startswith("keras"):
        return {}
    parts = module.split(".")[1:]
    target: Any = keras
    for part in parts:
        target = getattr(target, part, None)
        if target is None:
            return {}
    names = getattr(target, "__all__", None) or [n for n in dir(target) if not n.startswith("_")]
    out = {}
    for n in names:
        try:
            out[n] = getattr(target, n)
        except AttributeError:
            continue
    return out
