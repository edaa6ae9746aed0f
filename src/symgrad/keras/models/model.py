# mypy: disable-error-code="override"
# (Keras layers narrow build/call signatures as Keras 3 does.)
"""``tf.keras.Model``: a subclassed model (layers as attributes, a ``call``), or, called as
``Model(inputs, outputs)``, a functional model (see :mod:`.functional`)."""

from __future__ import annotations

from typing import Any

from symgrad.keras.layers.layer import Layer
from symgrad.keras.models import summary as summary_lib
from symgrad.keras.trainers.trainer import Trainer


def _functional_args(args: Any, kwargs: dict[str, Any]) -> bool:
    return (
        (len(args) == 2)
        or (len(args) == 1 and "outputs" in kwargs)
        or ("inputs" in kwargs and "outputs" in kwargs)
    )


def _inject_functional(cls: type, functional: type) -> None:
    """``class MyModel(keras.Model)`` called as ``MyModel(inputs, outputs)`` becomes a
    functional model with MyModel's methods (a custom ``train_step``), as Keras 3 makes it:
    ``Model`` in its bases is swapped for ``Functional``."""
    if issubclass(cls, functional):
        return
    for klass in cls.__mro__:
        if Model in klass.__bases__:
            klass.__bases__ = tuple(functional if b is Model else b for b in klass.__bases__)
            return


class Model(Trainer, Layer):
    """A layer with training-facing extras: ``summary``, ``get_layer``, ``layers``."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if _functional_args(args, kwargs):
            from symgrad.keras.models.functional import Functional

            if cls is Model:
                return Functional.__new__(Functional, *args, **kwargs)
            _inject_functional(cls, Functional)
        return super().__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _functional_args(args, kwargs):
            from symgrad.keras.models.functional import Functional

            Functional.__init__(self, *args, **kwargs)  # type: ignore[arg-type]
            return
        trainable = kwargs.pop("trainable", True)
        name = kwargs.pop("name", None)
        dtype = kwargs.pop("dtype", None)
        if args or kwargs:
            raise TypeError(
                f"Model.__init__ got unexpected arguments {args} {sorted(kwargs)}: a subclassed "
                "Model takes only name=, trainable= and dtype="
            )
        super().__init__(trainable=trainable, name=name, dtype=dtype)

    @property
    def layers(self) -> list[Layer]:
        return list(self._layers)

    def get_layer(self, name: Any = None, index: Any = None) -> Layer:
        if index is not None and name is not None:
            raise ValueError(
                f"Provide only a layer name or a layer index. Received: index={index}, name={name}."
            )
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model only has "
                    f"{len(self.layers)} layers."
                )
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(
            f"No such layer: {name}. Existing layers are: {[la.name for la in self.layers]}."
        )

    def summary(
        self,
        line_length: Any = None,
        positions: Any = None,
        print_fn: Any = None,
        expand_nested: bool = False,
        show_trainable: bool = False,
        layer_range: Any = None,
    ) -> None:
        summary_lib.summary(
            self,
            self._summary_layers(),
            print_fn,
            line_length,
            positions,
            expand_nested,
            show_trainable,
            layer_range,
        )

    def _summary_layers(self) -> list[Layer]:
        return self.layers

    def save_weights(
        self, filepath: Any, overwrite: bool = True, max_shard_size: Any = None
    ) -> None:
        from symgrad.keras.saving import save_weights

        save_weights(self, filepath, overwrite)

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        """A functional config (``layers``, ``input_layers``) rebuilds a functional model,
        as Keras's ``Model.from_config`` does; otherwise ``cls(**config)``."""
        if "input_layers" in config and "output_layers" in config:
            from symgrad.keras.models.functional import Functional
            from symgrad.keras.models.serialization import functional_from_config

            return functional_from_config(
                Functional if cls is Model else cls, config, custom_objects
            )
        return super().from_config(config)

    def save(
        self, filepath: Any, overwrite: bool = True, zipped: Any = None, **kwargs: Any
    ) -> None:
        from symgrad.keras.saving_lib import save_model

        save_model(self, filepath, overwrite, zipped, **kwargs)

    def to_json(self, **kwargs: Any) -> str:
        """The model's config as JSON (``model_from_json`` reads it): the ``config.json``
        of its ``.keras`` file, as Keras's ``to_json``; ``kwargs`` go to ``json.dumps``."""
        import json

        from symgrad.keras.saving_lib import model_config

        return json.dumps(model_config(self), **kwargs)

    def load_weights(self, filepath: Any, skip_mismatch: bool = False, **kwargs: Any) -> None:
        from symgrad.keras.saving import load_weights

        load_weights(self, filepath, skip_mismatch)
