"""``tf.keras.optimizers``: Keras 3's SGD, Adam, AdamW, Adamax, Nadam, RMSprop, Adagrad,
Adadelta, Ftrl, Lion and Adafactor, and their learning rate schedules (re-exports only)."""

from __future__ import annotations

from typing import Any

from symgrad.keras.optimizers import schedules
from symgrad.keras.optimizers.algorithms import (
    SGD,
    Adagrad,
    Adam,
    Adamax,
    AdamW,
    Nadam,
    RMSprop,
)
from symgrad.keras.optimizers.base import Optimizer
from symgrad.keras.optimizers.loss_scale import LossScaleOptimizer
from symgrad.keras.optimizers.more_algorithms import Adadelta, Adafactor, Ftrl, Lion

__all__ = [
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Ftrl",
    "Lion",
    "LossScaleOptimizer",
    "Nadam",
    "Optimizer",
    "RMSprop",
    "get",
    "schedules",
]

_BY_NAME: dict[str, Any] = {
    c.__name__.lower(): c
    for c in (SGD, Adadelta, Adafactor, Adagrad, Adam, AdamW, Adamax, Ftrl, Lion, Nadam, RMSprop)
}
_BY_NAME["lossscaleoptimizer"] = LossScaleOptimizer  # only from a config dict


def get(identifier: Any) -> Optimizer:
    """An optimizer from a name (``"adam"``), a config dict, or an optimizer itself."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        cls = _BY_NAME.get(str(identifier.get("class_name", "")).lower())
        if cls is not None:
            return cls.from_config(identifier.get("config", {}))
    elif isinstance(identifier, str) and identifier.lower() in _BY_NAME.keys() - {
        "lossscaleoptimizer"  # it needs an inner optimizer
    }:
        return _BY_NAME[identifier.lower()]()  # type: ignore[no-any-return]
    raise ValueError(
        f"Could not interpret optimizer identifier: {identifier} (symgrad has "
        f"{', '.join(sorted(_BY_NAME))})"
    )


def __getattr__(name: str) -> Any:
    raise AttributeError(
        f"symgrad implements tf.keras.optimizers SGD, Adam, AdamW, Adamax, Nadam, RMSprop, "
        f"Adagrad, Adadelta, Ftrl, Lion and Adafactor (and their schedules), not "
        f"tf.keras.optimizers.{name}"
    )
