"""``tf.keras.models``: Model (subclassed or functional) and Sequential."""

from __future__ import annotations

from .functional import Functional
from .model import Model
from .sequential import Sequential

__all__ = ["Functional", "Model", "Sequential"]
