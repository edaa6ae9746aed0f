"""``tf.keras``: Keras 3's layers, models, initializers, regularizers, constraints,
activations, optimizers and backend basics, built on symgrad's ops (so their gradients are
symgrad's and the explain tools see inside a model).

Losses, metrics, ``compile``/``fit`` and the rest of Keras are not here yet: compute the
loss with tf ops and train in a ``tf.GradientTape`` loop with ``tf.keras.optimizers``.
"""

from __future__ import annotations

from typing import Any

from . import (
    activations,
    backend,
    constraints,
    initializers,
    layers,
    models,
    ops,
    optimizers,
    random,
    regularizers,
)
from .layers import Input, Layer
from .models import Model, Sequential

__all__ = [
    "Input",
    "Layer",
    "Model",
    "Sequential",
    "activations",
    "backend",
    "constraints",
    "initializers",
    "layers",
    "models",
    "ops",
    "optimizers",
    "random",
    "regularizers",
]


def __getattr__(name: str) -> Any:
    raise AttributeError(
        f"symgrad does not provide tf.keras.{name} yet: it has tf.keras.layers, models, "
        "initializers, regularizers, constraints, activations, optimizers, ops, random "
        "and backend; compute losses with tf ops and train with tf.GradientTape"
    )
