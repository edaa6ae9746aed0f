"""``tf.keras``: Keras 3's layers, models, initializers, regularizers, constraints,
activations, losses, metrics, optimizers and backend basics, built on symgrad's ops (so
their gradients are symgrad's and the explain tools see inside a model).

``Model.compile``/``fit``/``evaluate``/``predict`` run Keras 3's training loop (see
:mod:`.trainers`), with ``tf.keras.callbacks``.
"""

from __future__ import annotations

from symgrad.core import missing as _missing
from symgrad.keras import (
    activations,
    backend,
    callbacks,
    constraints,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,
    ops,
    optimizers,
    preprocessing,
    random,
    regularizers,
    utils,
)
from symgrad.keras.dtype_policies import DTypePolicy
from symgrad.keras.layers import Input, Layer
from symgrad.keras.models import Model, Sequential

__all__ = [
    "DTypePolicy",
    "Input",
    "Layer",
    "Model",
    "Sequential",
    "activations",
    "backend",
    "callbacks",
    "constraints",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "mixed_precision",
    "models",
    "ops",
    "optimizers",
    "preprocessing",
    "random",
    "regularizers",
    "utils",
]

__getattr__ = _missing.module_getattr("tf.keras")
