"""``model.save_weights`` / ``load_weights`` in Keras 3's ``.weights.h5`` layout.

Keras walks a model as ``saving_lib`` does: each layer writes its own variables
(trainable, then non-trainable, in creation order) as datasets ``vars/0``, ``vars/1``, ...
under its path; the path of a child is the attribute holding it (public names in sorted
order, then private ones; ``layers`` first for Sequential and functional models), and a
layer in a list is named by its class in snake case, numbered (``layers/dense_1``).  An
object is written once, at the first path that reaches it.  So a file TF's Keras saved
loads here, and back.  h5py is the optional extra ``symgrad[keras]``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from symgrad.keras.backend import snake_case
from symgrad.keras.layers.layer import Layer

_SKIP: dict[str, set[str]] = {}


def _h5py() -> Any:
    try:
        import h5py
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("save_weights/load_weights need h5py: pip install symgrad[keras]") from e
    return h5py


def _skipset(obj: Layer) -> set[str]:
    kind = type(obj).__name__ if type(obj).__name__ in ("Sequential", "Functional") else "Layer"
    if kind not in _SKIP:
        skip = set(dir(Layer())) | {"_init_args", "_inbound_nodes", "_call_signature"}
        skip |= {"Sequential": {"_seq"}, "Functional": {"_ops", "_nodes"}}.get(kind, set())
        _SKIP[kind] = skip
    return _SKIP[kind]


def _children(obj: Layer) -> Iterator[tuple[str, Any]]:
    if type(obj).__name__ in ("Sequential", "Functional") or hasattr(obj, "_seq"):
        yield "layers", obj.layers  # type: ignore[attr-defined]
    skip = _skipset(obj)
    names = set(vars(obj)) | {
        n for n in dir(type(obj)) if isinstance(getattr(type(obj), n, None), property)
    }
    for name in sorted(names, key=lambda n: f"~{n}" if n.startswith("_") else n):
        if name.startswith("__") or name in skip:
            continue
        try:
            yield name, getattr(obj, name)
        except Exception:  # Keras skips attributes that fail to read
            continue


def _walk(obj: Layer, path: str, seen: set[int]) -> Iterator[tuple[str, Layer]]:
    """(path, layer) for every layer, each once, in Keras's order."""
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield path, obj
    for name, child in _children(obj):
        sub = f"{path}/{name}" if path else name
        if isinstance(child, Layer):
            yield from _walk(child, sub, seen)
        elif isinstance(child, (list, tuple, dict)):
            used: dict[str, int] = {}
            for item in child.values() if isinstance(child, dict) else child:
                if isinstance(item, Layer):
                    key = snake_case(type(item).__name__)
                    used[key] = used.get(key, -1) + 1
                    label = key if used[key] == 0 else f"{key}_{used[key]}"
                    yield from _walk(item, f"{sub}/{label}", seen)


def _own_variables(layer: Layer) -> list[Any]:
    return list(layer._trainable_variables) + list(layer._non_trainable_variables)


def save_weights(model: Layer, filepath: Any, overwrite: bool = True) -> None:
    path = str(filepath)
    if not path.endswith(".weights.h5"):
        raise ValueError("The filename must end in `.weights.h5`. Received: filepath=" + path)
    import os

    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists and overwrite=False")
    h5py = _h5py()
    with h5py.File(path, "w") as f:
        write_weights(model, f)


def walk_layers(model: Layer) -> Iterator[tuple[str, Layer]]:
    """(path, layer) for every layer of ``model``, as Keras names their places in a file."""
    return _walk(model, "", set())


def write_weights(model: Layer, f: Any) -> None:
    """Every layer's variables into the open h5 file ``f`` (Keras's layout)."""
    for where, layer in _walk(model, "", set()):
        group = f.require_group(f"{where}/vars" if where else "vars")
        group.attrs["name"] = layer.name
        for i, v in enumerate(_own_variables(layer)):
            group.create_dataset(str(i), data=v.numpy())
        if hasattr(layer, "save_own_variables"):  # a layer's own named arrays (Keras's hook)
            store: dict[str, Any] = {}
            layer.save_own_variables(store)
            for name, value in store.items():
                group.create_dataset(name, data=np.asarray(value))


def load_weights(model: Layer, filepath: Any, skip_mismatch: bool = False) -> None:
    path = str(filepath)
    if not path.endswith(".weights.h5"):
        raise ValueError(
            "File format not supported: filepath=" + path + ". symgrad reads Keras 3's "
            "`.weights.h5` files."
        )
    h5py = _h5py()
    with h5py.File(path, "r") as f:
        read_weights(model, f, skip_mismatch)


def read_weights(model: Layer, f: Any, skip_mismatch: bool = False) -> None:
    """Every layer's variables from the open h5 file ``f`` (Keras's layout)."""
    for where, layer in _walk(model, "", set()):
        key = f"{where}/vars" if where else "vars"
        own = _own_variables(layer)
        stored = f.get(key, {})
        if hasattr(layer, "load_own_variables"):
            layer.load_own_variables({k: np.asarray(stored[k]) for k in stored})
            continue
        if len(stored) != len(own):
            if skip_mismatch:
                continue
            raise ValueError(
                f"Layer '{layer.name}' expected {len(own)} variables, but received "
                f"{len(stored)} variables during loading. Expected: {[v.name for v in own]}"
            )
        for i, v in enumerate(own):
            value = np.asarray(stored[str(i)])
            if tuple(v.shape.as_list()) != value.shape:
                if skip_mismatch:
                    continue
                raise ValueError(
                    f"Layer '{layer.name}' weight {v.name} has shape "
                    f"{tuple(v.shape.as_list())}; the file holds shape {value.shape}."
                )
            v.assign(value)
