"""``tf.keras.utils``: ``set_random_seed`` (Python's, NumPy's and the global TF seed, as
Keras 3 sets them, so unseeded initializers and ``fit(shuffle=True)`` repeat TF's draws)
and the data helpers ``unpack_x_y_sample_weight``/``pack_x_y_sample_weight`` and
``PyDataset`` (``Sequence``)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from symgrad.core import missing as _missing
from symgrad.keras.trainers.data import unpack_x_y_sample_weight
from symgrad.keras.utils_data import PyDataset, Sequence
from symgrad.ops.random import seeded as tf_random

__all__ = [
    "PyDataset",
    "Sequence",
    "pack_x_y_sample_weight",
    "set_random_seed",
    "unpack_x_y_sample_weight",
]


def set_random_seed(seed: Any) -> None:
    if not isinstance(seed, int):
        raise ValueError(
            f"Expected `seed` argument to be an integer. Received: seed={seed} (of type "
            f"{type(seed)})"
        )
    random.seed(seed)
    np.random.seed(seed)
    tf_random.set_random_seed(seed)


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


__getattr__ = _missing.module_getattr("tf.keras.utils")
