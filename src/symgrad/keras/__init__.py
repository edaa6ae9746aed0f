"""``tf.keras``: symgrad provides ``tf.keras.optimizers`` (with its schedules), ``losses`` and
``metrics``.

Keras layers, models and the rest are out of scope: write the model as a ``tf.Module`` (or
plain functions of Variables), compute the loss with ``tf.keras.losses`` or tf ops, and train
it with a ``tf.GradientTape`` and one of these optimizers.
"""

from __future__ import annotations

from typing import Any

from . import optimizers

# Losses and metrics (issue 26, points 1-2).
from . import losses, metrics  # isort: skip

__all__ = ["losses", "metrics", "optimizers"]


def __getattr__(name: str) -> Any:
    raise AttributeError(
        f"symgrad provides only tf.keras.optimizers, losses and metrics, not "
        f"tf.keras.{name}: Keras layers, models and the rest are out of scope; write the "
        "model as a tf.Module and "
        "train it with tf.GradientTape and tf.keras.optimizers"
    )
