"""``tf.keras.models``: Model (subclassed or functional) and Sequential."""

from __future__ import annotations

from symgrad.keras.models.model import Model
from symgrad.keras.models.sequential import Sequential

__all__ = ["Model", "Sequential"]  # Functional is reached through Model(inputs, outputs)
