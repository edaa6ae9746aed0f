"""``tf.keras.losses``: Keras 3's losses on symgrad's ops (values and gradients as TF's).

The names are those TF 2.21's ``tf.keras.losses`` exports (so ``mse``/``MSE`` but no
``mean_squared_error``, as there).  ``CTC`` and ``Circle`` are not provided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

from symgrad.keras.losses.classes import (
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Hinge,
    Huber,
    KLDivergence,
    LogCosh,
    Loss,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from symgrad.keras.losses.extra import Dice, Tversky, dice, tversky
from symgrad.keras.losses.functions import (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    cosine_similarity,
    hinge,
    huber,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)
from symgrad.keras.losses.functions import kl_divergence as kld
from symgrad.keras.losses.functions import log_cosh as logcosh
from symgrad.keras.losses.functions import mean_absolute_error as mae
from symgrad.keras.losses.functions import mean_absolute_percentage_error as mape
from symgrad.keras.losses.functions import mean_squared_error as mse
from symgrad.keras.losses.functions import mean_squared_logarithmic_error as msle
from symgrad.keras.losses.serialization import Reduction, deserialize, get, serialize

KLD = kullback_leibler_divergence = kld
MAE, MAPE, MSE, MSLE = mae, mape, mse, msle

__all__ = [
    "KLD", "MAE", "MAPE", "MSE", "MSLE", "BinaryCrossentropy", "BinaryFocalCrossentropy",
    "CategoricalCrossentropy", "CategoricalFocalCrossentropy", "CategoricalHinge",
    "CosineSimilarity", "Dice", "Hinge", "Huber", "KLDivergence", "LogCosh", "Loss",
    "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanSquaredError", "MeanSquaredLogarithmicError", "Poisson", "Reduction",
    "SparseCategoricalCrossentropy", "SquaredHinge", "Tversky", "binary_crossentropy",
    "binary_focal_crossentropy", "categorical_crossentropy", "categorical_focal_crossentropy",
    "categorical_hinge", "cosine_similarity", "deserialize", "dice", "get", "hinge", "huber",
    "kld", "kullback_leibler_divergence", "logcosh", "mae", "mape", "mse", "msle", "poisson",
    "serialize", "sparse_categorical_crossentropy", "squared_hinge", "tversky",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'tf.keras.losses' has no attribute '{name}'")
