"""``tf.keras.metrics``: Keras 3's stateful metrics on symgrad Variables (so they update in
a tape loop and inside ``function``), with TF 2.21's names and signatures."""

from __future__ import annotations

from typing import Any

from ..losses import (
    KLD,
    MAE,
    MAPE,
    MSE,
    MSLE,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    hinge,
    huber,
    kld,
    kullback_leibler_divergence,
    logcosh,
    mae,
    mape,
    mse,
    msle,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)
from .accuracy import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from .base import Mean, MeanMetricWrapper, Metric, Sum
from .confusion import (
    AUC,
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    TrueNegatives,
    TruePositives,
)
from .regression import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Hinge,
    KLDivergence,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanIoU,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    RootMeanSquaredError,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from .serialization import deserialize, get, serialize

__all__ = [
    "AUC", "KLD", "MAE", "MAPE", "MSE", "MSLE", "Accuracy", "BinaryAccuracy",
    "BinaryCrossentropy", "CategoricalAccuracy", "CategoricalCrossentropy", "CategoricalHinge",
    "CosineSimilarity", "FalseNegatives", "FalsePositives", "Hinge", "KLDivergence",
    "LogCoshError", "Mean", "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanIoU",
    "MeanMetricWrapper", "MeanSquaredError", "MeanSquaredLogarithmicError", "Metric", "Poisson",
    "Precision", "Recall", "RootMeanSquaredError", "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy", "SparseTopKCategoricalAccuracy", "SquaredHinge", "Sum",
    "TopKCategoricalAccuracy", "TrueNegatives", "TruePositives", "binary_accuracy",
    "binary_crossentropy", "binary_focal_crossentropy", "categorical_accuracy",
    "categorical_crossentropy", "categorical_focal_crossentropy", "categorical_hinge",
    "deserialize", "get", "hinge", "huber", "kld", "kullback_leibler_divergence", "logcosh",
    "mae", "mape", "mse", "msle", "poisson", "serialize", "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy", "sparse_top_k_categorical_accuracy", "squared_hinge",
    "top_k_categorical_accuracy",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'tf.keras.metrics' has no attribute '{name}'")
