"""``tf.keras.models``: Model (subclassed or functional) and Sequential."""

from __future__ import annotations

from .model import Model
from .sequential import Sequential

__all__ = ["Model", "Sequential"]  # Functional is reached through Model(inputs, outputs)
