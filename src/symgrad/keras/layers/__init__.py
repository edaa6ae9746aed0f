"""``tf.keras.layers``: Keras 3's layers on symgrad ops (re-exports only)."""

from __future__ import annotations

from .convolutional import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    Conv1D,
    Conv2D,
    Conv3D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
)
from .core import Activation, Dense, Dropout, Embedding, Flatten, Identity, Lambda, Reshape
from .keras_tensor import Input, InputLayer, KerasTensor
from .layer import Layer
from .normalization import BatchNormalization, LayerNormalization

AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D

__all__ = [
    "Activation", "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "AvgPool1D",
    "AvgPool2D", "AvgPool3D", "BatchNormalization", "Conv1D", "Conv2D", "Conv3D", "Dense",
    "Dropout", "Embedding", "Flatten", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
    "GlobalAveragePooling3D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalMaxPool1D",
    "GlobalMaxPool2D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D",
    "Identity", "Input", "InputLayer", "KerasTensor", "Lambda", "Layer", "LayerNormalization",
    "MaxPool1D", "MaxPool2D", "MaxPool3D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
    "Reshape",
]  # fmt: skip
