"""``tf.keras.callbacks``: hooks into ``fit``/``evaluate``/``predict`` as Keras 3 calls them."""

from __future__ import annotations

from .base import Callback, CallbackList, History, LambdaCallback, TerminateOnNaN
from .gradients import GradientMonitor
from .loggers import CSVLogger, LearningRateScheduler
from .monitors import EarlyStopping, ModelCheckpoint, ReduceLROnPlateau
from .progbar import ProgbarLogger

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
    "TerminateOnNaN",
]
