"""``tf.keras.layers``: Keras 3's layers on symgrad ops (re-exports only)."""

from __future__ import annotations

from .activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax
from .attention import Attention, EinsumDense, MultiHeadAttention
from .conv_variants import Conv1DTranspose, Conv2DTranspose, DepthwiseConv2D, SeparableConv2D
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
from .merging import Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract
from .normalization import BatchNormalization, LayerNormalization
from .recurrent import GRU, LSTM, RNN, Bidirectional, SimpleRNN, TimeDistributed
from .recurrent_cells import GRUCell, LSTMCell, SimpleRNNCell
from .reshaping import (
    Cropping1D,
    Cropping2D,
    GaussianNoise,
    Permute,
    RepeatVector,
    Rescaling,
    SpatialDropout1D,
    SpatialDropout2D,
    UpSampling1D,
    UpSampling2D,
    ZeroPadding1D,
    ZeroPadding2D,
)

AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D

__all__ = [
    "ELU",
    "GRU",
    "LSTM",
    "RNN",
    "Activation",
    "Add",
    "Attention",
    "Average",
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "BatchNormalization",
    "Bidirectional",
    "Concatenate",
    "Conv1D",
    "Conv1DTranspose",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Cropping1D",
    "Cropping2D",
    "Dense",
    "DepthwiseConv2D",
    "Dot",
    "Dropout",
    "EinsumDense",
    "Embedding",
    "Flatten",
    "GRUCell",
    "GaussianNoise",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
    "Identity",
    "Input",
    "InputLayer",
    "Keras",
    "KerasTensor",
    "LSTMCell",
    "Lambda",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
    "Maximum",
    "Minimum",
    "MultiHeadAttention",
    "Multiply",
    "PReLU",
    "Permute",
    "ReLU",
    "RepeatVector",
    "Rescaling",
    "Reshape",
    "SeparableConv2D",
    "SimpleRNN",
    "SimpleRNNCell",
    "Softmax",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "Subtract",
    "TimeDistributed",
    "UpSampling1D",
    "UpSampling2D",
    "ZeroPadding1D",
    "ZeroPadding2D",
]
