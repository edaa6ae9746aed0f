# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""The functional model: ``Model(inputs, outputs)`` over the graph of layer calls that
``KerasTensor``s recorded; calling it replays those calls on real tensors, in the order
Keras 3 runs them."""

from __future__ import annotations

from typing import Any

from symgrad.core import nest
from symgrad.keras import backend
from symgrad.keras.layers.keras_tensor import InputLayer, KerasTensor, Node
from symgrad.keras.layers.layer import Layer
from symgrad.keras.models.model import Model


def _post_order(outputs: list[KerasTensor]) -> list[Node]:
    """Every node the outputs depend on, each after the nodes it reads (Keras's build map)."""
    order: list[Node] = []
    seen: set[int] = set()
    for out in outputs:
        stack: list[tuple[Node, bool]] = [(out.node, False)] if out.node is not None else []
        while stack:
            node, expanded = stack.pop()
            if id(node) in seen:
                continue
            if expanded:
                seen.add(id(node))
                order.append(node)
                continue
            stack.append((node, True))
            for t in reversed(node.input_tensors):
                if t.node is not None and id(t.node) not in seen:
                    stack.append((t.node, False))
    return order


def _operations(nodes: list[Node]) -> list[Layer]:
    """The layers in Keras's order: by depth from the outputs, deepest first."""
    depth: dict[int, int] = {}
    for node in reversed(nodes):
        d = depth.setdefault(id(node), 0)
        for t in node.input_tensors:
            if t.node is not None:
                depth[id(t.node)] = max(depth.get(id(t.node), 0), d + 1)
    layer_depth: dict[int, tuple[int, int, Layer]] = {}
    for i, node in enumerate(nodes):
        key = id(node.layer)
        d = depth[id(node)]
        if key not in layer_depth or layer_depth[key][0] < d:
            first = layer_depth[key][1] if key in layer_depth else i
            layer_depth[key] = (d, first, node.layer)
    return [v[2] for v in sorted(layer_depth.values(), key=lambda v: (-v[0], v[1]))]


def _chain_like(nodes: list[Node]) -> bool:
    """Keras's "sequential-like": one node per depth, each reading at most one tensor, and
    no layer called twice (summary() then has no "Connected to" column)."""
    layers = [id(n.layer) for n in nodes]
    if len(set(layers)) != len(layers):
        return False
    if any(len(n.input_tensors) > 1 for n in nodes):
        return False
    return sum(isinstance(n.layer, InputLayer) for n in nodes) <= 1


class Functional(Model):
    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return Layer.__new__(cls)

    def __init__(self, inputs: Any, outputs: Any, name: Any = None, **kwargs: Any) -> None:
        trainable = kwargs.pop("trainable", True)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to Functional: {kwargs}")
        flat_in, flat_out = nest.flatten(inputs), nest.flatten(outputs)
        for t in flat_in + flat_out:
            if not isinstance(t, KerasTensor):
                raise ValueError(
                    "All `inputs` and `outputs` values must be KerasTensors (from keras.Input "
                    f"and layers called on it). Received: {t!r}"
                )
        Layer.__init__(self, name=name or backend.auto_name("functional"), trainable=trainable)
        self._inputs_struct, self._outputs_struct = inputs, outputs
        self._in, self._out = flat_in, flat_out
        self._nodes = _post_order(flat_out)
        self._ops = _operations(self._nodes)
        self._chain_like = _chain_like(self._nodes)
        self.built = True

    @property
    def _layers(self) -> list[Layer]:
        return self.layers

    @property
    def layers(self) -> list[Layer]:
        # arithmetic on KerasTensors is an operation, not a layer, in Keras 3
        return [op for op in self._ops if not getattr(op, "_is_operation", False)]

    @property
    def inputs(self) -> list[KerasTensor]:
        return list(self._in)

    @property
    def outputs(self) -> list[KerasTensor]:
        return list(self._out)

    @property
    def output_names(self) -> list[str]:
        """The names of the layers that make the outputs, in ``outputs``' order (a dict's
        by sorted key), as Keras 3's."""
        return [t.node.layer.name for t in self._out]

    @property
    def input(self) -> Any:
        return self._inputs_struct

    @property
    def output(self) -> Any:
        return self._outputs_struct

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        flat = nest.flatten(inputs)
        if len(flat) != len(self._in):
            raise ValueError(
                f"Model {self.name} expects {len(self._in)} input(s), but it received "
                f"{len(flat)} input tensors."
            )
        values: dict[int, Any] = {id(k): self._convert(v) for k, v in zip(self._in, flat)}
        for node in self._nodes:
            if isinstance(node.layer, InputLayer):
                continue

            def fetch(x: Any) -> Any:
                return values[id(x)] if isinstance(x, KerasTensor) else x

            args, kwargs = nest.map_structure(fetch, [list(node.call_args), dict(node.call_kwargs)])
            result = node.layer(*args, **kwargs)
            for k, v in zip(nest.flatten(node.outputs), nest.flatten(result)):
                values[id(k)] = v
        return nest.map_structure(lambda k: values[id(k)], self._outputs_struct)

    def _summary_layers(self) -> list[Layer]:
        return self.layers

    def get_config(self) -> dict[str, Any]:
        from symgrad.keras.models.serialization import functional_config

        return functional_config(self)

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        from symgrad.keras.models.serialization import functional_from_config

        return functional_from_config(cls, config, custom_objects)
