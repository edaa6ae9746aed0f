"""``tf.keras.callbacks``: hooks into ``fit``/``evaluate``/``predict`` as Keras 3 calls them."""

from __future__ import annotations

from .base import Callback, CallbackList, History, LambdaCallback, TerminateOnNaN
from .progbar import ProgbarLogger

__all__ = [
    "Callback",
    "CallbackList",
    "History",
    "LambdaCallback",
    "ProgbarLogger",
    "TerminateOnNaN",
]
