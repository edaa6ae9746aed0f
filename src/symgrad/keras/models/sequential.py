# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""``tf.keras.Sequential``: layers applied one after another; built from an ``Input`` (or a
first layer's ``input_shape=``) at once, or from the first call's input shape, always inside
the model's name scope (weights ``sequential/dense/kernel``) as Keras 3 builds it."""

from __future__ import annotations

from typing import Any

from symgrad.keras.backend import auto_name
from symgrad.keras.layers.keras_tensor import InputLayer, KerasTensor
from symgrad.keras.layers.layer import Layer
from symgrad.keras.layers.variables import name_scope
from symgrad.keras.models.model import Model


class Sequential(Model):
    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return Layer.__new__(cls)

    def __init__(self, layers: Any = None, trainable: bool = True, name: Any = None) -> None:
        Model.__init__(self, trainable=trainable, name=name)
        self._seq: list[Layer] = []
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_rebuild()

    def add(self, layer: Any, rebuild: bool = True) -> None:
        if isinstance(layer, KerasTensor) and layer.node is not None:
            layer = layer.node.layer
        if not isinstance(layer, Layer):
            raise ValueError(
                "Only instances of `keras.Layer` can be added to a Sequential model. "
                f"Received: {layer} (of type {type(layer)})"
            )
        if isinstance(layer, InputLayer) and self._seq and isinstance(self._seq[0], InputLayer):
            raise ValueError(
                f"Sequential model '{self.name}' has already been configured to use input "
                f"shape {self._seq[0].batch_shape}. You cannot add a different Input layer to it."
            )
        if (
            not self._seq
            and not isinstance(layer, InputLayer)
            and layer._input_shape_arg is not None
        ):
            self._seq.append(InputLayer(batch_shape=layer._input_shape_arg))
        self._seq.append(layer)
        if rebuild:
            self._maybe_rebuild()

    def pop(self, rebuild: bool = True) -> Layer:
        layers = self.layers
        if not layers:
            raise IndexError("There are no layers in the model.")
        layer = layers[-1]
        self._seq.remove(layer)
        self.built = False
        if rebuild:
            self._maybe_rebuild()
        return layer

    def _maybe_rebuild(self) -> None:
        self.built = False
        if self._seq and isinstance(self._seq[0], InputLayer) and len(self._seq) > 1:
            self.build(self._seq[0].batch_shape)

    def build(self, input_shape: Any = None) -> None:
        if not self._seq or not isinstance(self._seq[0], InputLayer):
            self._seq.insert(0, InputLayer(batch_shape=tuple(input_shape)))
        x: Any = self._seq[0].output_tensor  # type: ignore[attr-defined]
        with name_scope(self.name, caller=self):
            for layer in self.layers:
                x = layer(x)
        auto_name("Functional")  # Keras builds a Functional here: it takes that name
        self.built = True

    @property
    def _layers(self) -> list[Layer]:
        return [la for la in self._seq if not isinstance(la, InputLayer)]

    @property
    def layers(self) -> list[Layer]:
        return self._layers

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        x = inputs
        for layer in self.layers:
            x = layer(x)
        return x

    def get_config(self) -> dict[str, Any]:
        from symgrad.keras.models.serialization import sequential_config

        return sequential_config(self)

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        from symgrad.keras.models.serialization import sequential_from_config

        return sequential_from_config(cls, config, custom_objects)
