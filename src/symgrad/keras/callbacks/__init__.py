"""``tf.keras.callbacks``: hooks into ``fit``/``evaluate``/``predict`` as Keras 3 calls them."""

from __future__ import annotations

from symgrad.keras.callbacks.base import (
    Callback,
    CallbackList,
    History,
    LambdaCallback,
    TerminateOnNaN,
)
from symgrad.keras.callbacks.gradients import GradientMonitor
from symgrad.keras.callbacks.loggers import CSVLogger, LearningRateScheduler
from symgrad.keras.callbacks.monitors import EarlyStopping, ModelCheckpoint, ReduceLROnPlateau
from symgrad.keras.callbacks.progbar import ProgbarLogger
from symgrad.keras.callbacks.tensorboard import TensorBoard

__all__ = [
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "GradientMonitor",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "TensorBoard",
    "TerminateOnNaN",
]
