# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""Symbolic Keras tensors: ``keras.Input`` and what layers return when called on it.

A ``KerasTensor`` is a shape, a dtype and the node that made it (layer, call arguments).
Calling a layer on one traces the layer's ``call`` on placeholders in a scratch graph (this
builds the layer and gives the output shapes symgrad's shape inference finds), then records
the node.  A functional ``Model`` walks the nodes back from its outputs and replays them on
real tensors, so a Keras model's computation is symgrad ops all the way (as Keras 3's
Functional runs its operations).
"""

from __future__ import annotations

from typing import Any

from symgrad.core import dtypes as dt
from symgrad.core import nest
from symgrad.core.context import stop_recording
from symgrad.core.graph import Graph
from symgrad.keras import backend
from symgrad.keras.layers.layer import Layer
from symgrad.ops.core import placeholder


class Node:
    """One call of ``layer`` on symbolic arguments."""

    def __init__(
        self, layer: Any, call_args: Any, call_kwargs: dict[str, Any], outputs: Any
    ) -> None:
        self.layer, self.call_args, self.call_kwargs, self.outputs = (
            layer,
            call_args,
            call_kwargs,
            outputs,
        )

    @property
    def input_tensors(self) -> list[KerasTensor]:
        return [
            x
            for x in nest.flatten([self.call_args, self.call_kwargs])
            if isinstance(x, KerasTensor)
        ]


class KerasTensor:
    """A symbolic tensor: ``shape`` (a tuple, ``None`` for unknown sizes), ``dtype``."""

    def __init__(
        self, shape: Any, dtype: Any = "float32", name: Any = None, node: Any = None
    ) -> None:
        self.shape = tuple(shape)
        self.dtype = backend.standardize_dtype(dtype)
        self.name = name if name is not None else backend.auto_name("keras_tensor")
        self.node: Node | None = node

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return (
            f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse=False, "
            f"ragged=False, name={self.name}>"
        )

    # Arithmetic on a KerasTensor becomes a layer node, as keras.ops does symbolically.
    def _op(self, fn: Any, *others: Any) -> Any:
        from symgrad.keras.layers.core import _OpLayer

        return _OpLayer(fn)(self, *others)

    def __add__(self, o: Any) -> Any:
        return self._op(lambda a, b: a + b, o)

    def __radd__(self, o: Any) -> Any:
        return self._op(lambda a, b: b + a, o)

    def __sub__(self, o: Any) -> Any:
        return self._op(lambda a, b: a - b, o)

    def __rsub__(self, o: Any) -> Any:
        return self._op(lambda a, b: b - a, o)

    def __mul__(self, o: Any) -> Any:
        return self._op(lambda a, b: a * b, o)

    def __rmul__(self, o: Any) -> Any:
        return self._op(lambda a, b: b * a, o)

    def __truediv__(self, o: Any) -> Any:
        return self._op(lambda a, b: a / b, o)

    def __neg__(self) -> Any:
        return self._op(lambda a: -a)

    def __getitem__(self, key: Any) -> Any:
        return self._op(lambda a: a[key])


def symbolic_call(layer: Layer, args: Any, kwargs: dict[str, Any]) -> Any:
    """Build ``layer`` and learn its outputs' shapes by tracing on placeholders."""
    scratch = Graph()
    with stop_recording(), scratch.as_default():
        real_args, real_kwargs = nest.map_structure(_placeholder_for, [list(args), kwargs])
        outputs = layer(*real_args, **real_kwargs)
    layer._losses.clear()  # they belong to the scratch graph
    node = Node(layer, args, kwargs, None)
    symbolic = nest.map_structure(lambda t: _keras_tensor_of(t, node), outputs)
    node.outputs = symbolic
    layer._inbound_nodes.append(node)
    layer._output_shape_seen = nest.map_structure(lambda k: k.shape, symbolic)
    return symbolic


def _placeholder_for(x: Any) -> Any:
    if not isinstance(x, KerasTensor):
        return x
    return placeholder(dt.as_dtype(x.dtype), list(x.shape))


def _keras_tensor_of(t: Any, node: Node) -> Any:
    shape = t.shape.as_list() if t.shape.rank is not None else ()
    return KerasTensor(shape, t.dtype.name, node=node)


class InputLayer(Layer):
    """The layer behind ``keras.Input``: its output is the model's input tensor."""

    def __init__(
        self,
        shape: Any = None,
        batch_size: Any = None,
        dtype: Any = None,
        sparse: Any = None,
        ragged: Any = None,
        batch_shape: Any = None,
        input_tensor: Any = None,
        optional: bool = False,
        name: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, dtype=dtype, **kwargs)
        if shape is not None and batch_shape is not None:
            raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
        if batch_shape is None:
            if shape is None:
                raise ValueError("You must pass a `shape` argument.")
            batch_shape = (batch_size, *shape)
        self._batch_shape = tuple(batch_shape)
        self.built = True
        self.output_tensor = KerasTensor(self._batch_shape, self.dtype, name, node=None)
        node = Node(self, (), {}, self.output_tensor)
        self.output_tensor.node = node
        self._inbound_nodes.append(node)
        self._output_shape_seen = self._batch_shape

    @property
    def batch_shape(self) -> tuple[Any, ...]:
        return self._batch_shape

    def call(self) -> Any:
        return None

    def get_config(self) -> dict[str, Any]:
        return {
            "batch_shape": self._batch_shape, "dtype": self.dtype, "sparse": False,
            "ragged": False, "name": self.name, "optional": False,
        }  # fmt: skip


def Input(
    shape: Any = None,
    batch_size: Any = None,
    dtype: Any = None,
    sparse: Any = None,
    ragged: Any = None,
    batch_shape: Any = None,
    name: Any = None,
    tensor: Any = None,
    optional: bool = False,
) -> KerasTensor:
    """A symbolic input of ``shape`` (without the batch dimension) for a functional model."""
    layer = InputLayer(
        shape=shape, batch_size=batch_size, dtype=dtype, batch_shape=batch_shape, name=name
    )
    return layer.output_tensor
