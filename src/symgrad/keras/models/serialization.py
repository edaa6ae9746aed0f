"""Sequential and functional models to Keras 3's config dicts and back.

A functional config lists every operation (input layers included) in the model's order,
each with its ``inbound_nodes``: the call's arguments with each symbolic tensor written as
``{"class_name": "__keras_tensor__", "config": {"shape", "dtype", "keras_history":
[layer_name, node_index, tensor_index]}}``; ``input_layers``/``output_layers`` hold the
same triples in the structure of the model's inputs and outputs.  Rebuilding replays the
calls in order (a node waits until the tensors it reads exist), as Keras's
``functional_from_config`` does, so a config written by Keras-on-TF rebuilds here.
"""

from __future__ import annotations

from typing import Any

from symgrad.core import nest
from symgrad.keras.layers.config import deserialize_layer, dtype_policy, serialize_layer
from symgrad.keras.layers.keras_tensor import InputLayer, KerasTensor


def with_build_config(layer: Any) -> dict[str, Any]:
    """``serialize_keras_object(layer)``: its config plus ``build_config`` once built."""
    out = serialize_layer(layer)
    shapes = getattr(layer, "_build_shapes_dict", None)
    if shapes:
        if len(shapes) == 1:
            out["build_config"] = {"input_shape": next(iter(shapes.values()))}
        else:
            out["build_config"] = {"shapes_dict": shapes}
    return out


def build_from_config(layer: Any, config: Any) -> None:
    if not config or layer.built:
        return
    if "input_shape" in config and _default_model_build(layer):
        # Keras's Model.build: a subclassed model makes its weights by a call on an input
        # of that shape
        from symgrad.keras.layers.keras_tensor import Input

        shape = _tuples(config["input_shape"])
        layer(Input(batch_shape=shape))
        object.__setattr__(layer, "_build_shapes_dict", {"input_shape": shape})
    elif "input_shape" in config:
        layer.build(_tuples(config["input_shape"]))
    elif "shapes_dict" in config:
        layer.build(**{k: _tuples(v) for k, v in config["shapes_dict"].items()})


def _default_model_build(layer: Any) -> bool:
    from symgrad.keras.layers.layer import Layer

    is_model = any(c.__name__ == "Model" for c in type(layer).__mro__)
    own = type(layer).__name__ in ("Sequential", "Functional") or hasattr(layer, "_seq")
    return is_model and not own and type(layer).build is Layer.build


def _tuples(shape: Any) -> Any:
    """A JSON shape back to Keras's tuples (a list of shapes stays a list)."""
    if shape is None:
        return None
    if all(s is None or isinstance(s, int) for s in shape):
        return tuple(shape)
    return [_tuples(s) for s in shape]


# -- Sequential
def sequential_config(model: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "name": model.name,
        "trainable": model.trainable,
        "dtype": dtype_policy(model.dtype),
        "layers": [with_build_config(layer) for layer in model._seq],
    }
    if model._seq and isinstance(model._seq[0], InputLayer):
        config["build_input_shape"] = model._seq[0].batch_shape
    return config


def sequential_from_config(cls: Any, config: dict[str, Any], custom_objects: Any = None) -> Any:
    model = cls(name=config["name"], trainable=config.get("trainable", True))
    for layer_config in config["layers"]:
        model.add(deserialize_layer(layer_config, custom_objects))
    shape = config.get("build_input_shape")
    if not model.built and isinstance(shape, (list, tuple)):
        model.build(tuple(shape))
    return model


# -- functional
def _history(t: KerasTensor) -> list[Any]:
    node = t.node
    assert node is not None
    index = next(i for i, n in enumerate(node.layer._inbound_nodes) if n is node)
    flat = nest.flatten(node.outputs)
    return [node.layer.name, index, next(i for i, o in enumerate(flat) if o is t)]


def _arg(x: Any) -> Any:
    if isinstance(x, KerasTensor):
        config = {"shape": list(x.shape), "dtype": x.dtype, "keras_history": _history(x)}
        return {"class_name": "__keras_tensor__", "config": config}
    if isinstance(x, (list, tuple)):
        return [_arg(v) for v in x]
    if isinstance(x, dict):
        return {k: _arg(v) for k, v in x.items()}
    return x


def functional_config(model: Any) -> dict[str, Any]:
    layers = []
    for layer in model._ops:
        entry = with_build_config(layer)
        entry["name"] = layer.name
        nodes = [n for n in layer._inbound_nodes if any(n is m for m in model._nodes)]
        entry["inbound_nodes"] = [
            {"args": _arg(list(n.call_args)), "kwargs": _arg(dict(n.call_kwargs))}
            for n in nodes
            if not isinstance(layer, InputLayer)
        ]
        layers.append(entry)
    return {
        "name": model.name,
        "trainable": model.trainable,
        "layers": layers,
        "input_layers": nest.map_structure(_history, model._inputs_struct),
        "output_layers": nest.map_structure(_history, model._outputs_struct),
    }


def functional_from_config(cls: Any, config: dict[str, Any], custom_objects: Any = None) -> Any:
    created: dict[str, Any] = {}
    pending: list[tuple[Any, dict[str, Any]]] = []
    for entry in config["layers"]:
        layer = deserialize_layer(entry, custom_objects)
        created[entry.get("name", layer.name)] = layer
        pending.extend((layer, node) for node in entry.get("inbound_nodes", []))
    while pending:
        waiting = [(la, n) for la, n in pending if not _ready(n, created)]
        for layer, node in pending:
            if all(layer is not w[0] or node is not w[1] for w in waiting):
                args = _resolve(node.get("args", []), created)
                layer(*args, **_resolve(node.get("kwargs", {}), created))
        if len(waiting) == len(pending):
            raise ValueError(f"Cannot rebuild the functional model: unresolved {waiting[0][1]}")
        pending = waiting
    inputs = _tensors(config["input_layers"], created)
    outputs = _tensors(config["output_layers"], created)
    return cls(inputs, outputs, name=config.get("name"), trainable=config.get("trainable", True))


def _is_history(x: Any) -> bool:
    return isinstance(x, list) and len(x) == 3 and isinstance(x[0], str)


def _tensor(history: list[Any], created: dict[str, Any]) -> Any:
    name, node_index, tensor_index = history
    layer = created[name]
    if isinstance(layer, InputLayer):
        return layer.output_tensor
    return nest.flatten(layer._inbound_nodes[node_index].outputs)[tensor_index]


def _tensors(spec: Any, created: dict[str, Any]) -> Any:
    if _is_history(spec):
        return _tensor(spec, created)
    if isinstance(spec, dict):
        return {k: _tensors(v, created) for k, v in spec.items()}
    out = [_tensors(v, created) for v in spec]
    return out[0] if len(out) == 1 else out


def _keras_tensors(x: Any) -> list[Any]:
    if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
        return [x]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _keras_tensors(v)]
    if isinstance(x, list):
        return [t for v in x for t in _keras_tensors(v)]
    return []


def _ready(node: dict[str, Any], created: dict[str, Any]) -> bool:
    for t in _keras_tensors([node.get("args", []), node.get("kwargs", {})]):
        name, index, _ = t["config"]["keras_history"]
        layer = created.get(name)
        if layer is None or (
            not isinstance(layer, InputLayer) and len(layer._inbound_nodes) <= index
        ):
            return False
    return True


def _resolve(x: Any, created: dict[str, Any]) -> Any:
    if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
        return _tensor(x["config"]["keras_history"], created)
    if isinstance(x, dict):
        return {k: _resolve(v, created) for k, v in x.items()}
    if isinstance(x, list):
        return [_resolve(v, created) for v in x]
    return x
