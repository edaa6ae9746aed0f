"""``tf.keras.layers``: Keras 3's layers on symgrad ops (re-exports only)."""

from __future__ import annotations

from typing import Any

from symgrad.keras.layers.activation_layers import (
    ELU,
    LeakyReLU,
    PReLU,
    ReLU,
    Softmax,
    ThresholdedReLU,
)
from symgrad.keras.layers.attention import (
    AdditiveAttention,
    Attention,
    EinsumDense,
    MultiHeadAttention,
)
from symgrad.keras.layers.categorical import CategoryEncoding, Discretization, IntegerLookup
from symgrad.keras.layers.conv_variants import (
    Conv1DTranspose,
    Conv2DTranspose,
    Conv3DTranspose,
    DepthwiseConv1D,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
)
from symgrad.keras.layers.convolutional import (
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
from symgrad.keras.layers.core import (
    Activation,
    ActivityRegularization,
    Dense,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    Lambda,
    Masking,
    Reshape,
)
from symgrad.keras.layers.image_affine import RandomRotation, RandomTranslation, RandomZoom
from symgrad.keras.layers.image_preprocessing import (
    CenterCrop,
    RandomBrightness,
    RandomContrast,
    RandomCrop,
    RandomFlip,
    RandomHeight,
    RandomWidth,
    Resizing,
)
from symgrad.keras.layers.input_spec import InputSpec
from symgrad.keras.layers.keras_tensor import Input, InputLayer
from symgrad.keras.layers.layer import Layer
from symgrad.keras.layers.merging import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from symgrad.keras.layers.normalization import (
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    Normalization,
    RMSNormalization,
    UnitNormalization,
)
from symgrad.keras.layers.recurrent import GRU, LSTM, RNN, Bidirectional, SimpleRNN, TimeDistributed
from symgrad.keras.layers.recurrent_cells import GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells
from symgrad.keras.layers.regularization import AlphaDropout, GaussianDropout
from symgrad.keras.layers.reshaping import (
    Cropping1D,
    Cropping2D,
    Cropping3D,
    GaussianNoise,
    Permute,
    RepeatVector,
    Rescaling,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)

AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D
GlobalMaxPool3D = GlobalMaxPooling3D
# Keras 3's long names: the same classes.
Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D
Convolution1DTranspose, Convolution2DTranspose = Conv1DTranspose, Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D


def serialize(layer: Any) -> Any:
    """Keras's config dict for ``layer`` (``build_config`` once built)."""
    from symgrad.keras.object_registration import serialize_keras_object

    return serialize_keras_object(layer)


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """A layer from its config dict: a built-in, a registered class or one in
    ``custom_objects`` / a ``custom_object_scope``."""
    from symgrad.keras.layers.config import deserialize_layer

    return deserialize_layer(config, custom_objects)


__all__ = [
    "ELU",
    "GRU",
    "LSTM",
    "RNN",
    "Activation",
    "ActivityRegularization",
    "Add",
    "AdditiveAttention",
    "AlphaDropout",
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
    "CategoryEncoding",
    "CenterCrop",
    "Concatenate",
    "Conv1D",
    "Conv1DTranspose",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "Convolution1D",
    "Convolution1DTranspose",
    "Convolution2D",
    "Convolution2DTranspose",
    "Convolution3D",
    "Convolution3DTranspose",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "Dense",
    "DepthwiseConv1D",
    "DepthwiseConv2D",
    "Discretization",
    "Dot",
    "Dropout",
    "EinsumDense",
    "Embedding",
    "Flatten",
    "GRUCell",
    "GaussianDropout",
    "GaussianNoise",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalAvgPool3D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPool3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
    "GroupNormalization",
    "Identity",
    "Input",
    "InputLayer",
    "InputSpec",
    "IntegerLookup",
    "Keras",
    "LSTMCell",
    "Lambda",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "Masking",
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
    "Normalization",
    "PReLU",
    "Permute",
    "RMSNormalization",
    "RandomBrightness",
    "RandomContrast",
    "RandomCrop",
    "RandomFlip",
    "RandomHeight",
    "RandomRotation",
    "RandomTranslation",
    "RandomWidth",
    "RandomZoom",
    "ReLU",
    "RepeatVector",
    "Rescaling",
    "Reshape",
    "Resizing",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
    "SimpleRNN",
    "SimpleRNNCell",
    "Softmax",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "SpatialDropout3D",
    "StackedRNNCells",
    "Subtract",
    "ThresholdedReLU",
    "TimeDistributed",
    "UnitNormalization",
    "UpSampling1D",
    "UpSampling2D",
    "UpSampling3D",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "ZeroPadding3D",
    "add",
    "average",
    "concatenate",
    "deserialize",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "serialize",
    "subtract",
]
