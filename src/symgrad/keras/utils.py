"""``tf.keras.utils``: ``set_random_seed`` (Python's, NumPy's and the global TF seed, as
Keras 3 sets them, so unseeded initializers and ``fit(shuffle=True)`` repeat TF's draws)
the data helpers ``unpack_x_y_sample_weight``/``pack_x_y_sample_weight`` and
``PyDataset`` (``Sequence``), and ``to_categorical``."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core import missing as _missing
from symgrad.core.graph import Tensor
from symgrad.keras.object_registration import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from symgrad.keras.sequence_utils import pad_sequences
from symgrad.keras.timeseries import timeseries_dataset_from_array
from symgrad.keras.trainers.data import unpack_x_y_sample_weight
from symgrad.keras.utils_data import PyDataset, Sequence
from symgrad.ops.array.structure import cast, one_hot, squeeze
from symgrad.ops.random import seeded as tf_random
from symgrad.ops.reduction.reduce import reduce_max

__all__ = [
    "CustomObjectScope",
    "PyDataset",
    "Sequence",
    "custom_object_scope",
    "deserialize_keras_object",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "normalize",
    "pack_x_y_sample_weight",
    "pad_sequences",
    "register_keras_serializable",
    "serialize_keras_object",
    "set_random_seed",
    "timeseries_dataset_from_array",
    "to_categorical",
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


def to_categorical(x: Any, num_classes: int | None = None) -> Any:
    """Class indices as one-hot rows, as Keras 3's: a tensor gives a float32 tensor
    (``one_hot``); anything else a float64 NumPy array.  A trailing axis of size 1 is
    dropped first; ``num_classes`` where not given is one more than the largest index."""
    if isinstance(x, Tensor):
        if x.shape.rank is not None and x.shape.rank > 1 and x.shape[-1] == 1:
            x = squeeze(x, -1)
        x = cast(x, dt.int64)
        if num_classes is None:
            num_classes = int(reduce_max(x).numpy()) + 1
        return one_hot(x, num_classes)
    x = np.array(x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if not num_classes:
        num_classes = int(np.max(x)) + 1
    out = np.zeros((x.shape[0], num_classes))
    out[np.arange(x.shape[0]), x] = 1
    return out.reshape(shape + (num_classes,))


def normalize(x: Any, axis: Any = -1, order: Any = 2) -> Any:
    """Keras 3's ``utils.normalize``: a NumPy array by NumPy's norm (zero norms as 1; an
    ``axis`` of 0 or None is taken as -1, as Keras's ``axis or -1``), a tensor by
    ``keras.ops.normalize``."""
    if isinstance(x, np.ndarray):
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        return x / np.expand_dims(norm, axis or -1)
    from symgrad.keras import ops

    return ops.normalize(x, axis=axis, order=order)


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


__getattr__ = _missing.module_getattr("tf.keras.utils")
