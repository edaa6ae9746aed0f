"""``tf.keras.backend``: Keras 3's global settings (float type, fuzz factor, data format) and
``clear_session``, which restarts layer naming (``dense``, ``dense_1``, ... as Keras's
``auto_name`` counts them, shared with the optimizers' names)."""

from __future__ import annotations

import re
from typing import Any

from symgrad.core.dtypes import as_dtype
from symgrad.keras.optimizers.base import _NAME_UIDS

_UIDS: dict[str, int] = {}
_CONFIG: dict[str, Any] = {"floatx": "float32", "epsilon": 1e-7, "data_format": "channels_last"}

__all__ = [
    "clear_session",
    "epsilon",
    "floatx",
    "get_uid",
    "image_data_format",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
]


def floatx() -> str:
    return str(_CONFIG["floatx"])


def set_floatx(value: str) -> None:
    if value not in ("bfloat16", "float16", "float32", "float64"):
        raise ValueError(
            f"Unknown `floatx` value: {value}. Expected one of float16, float32, float64"
        )
    _CONFIG["floatx"] = value


def epsilon() -> float:
    return float(_CONFIG["epsilon"])


def set_epsilon(value: float) -> None:
    _CONFIG["epsilon"] = value


def image_data_format() -> str:
    return str(_CONFIG["data_format"])


def set_image_data_format(data_format: str) -> None:
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(
            f"The `data_format` argument must be one of {{'channels_first', "
            f"'channels_last'}}. Received: data_format={data_format}"
        )
    _CONFIG["data_format"] = data_format


def clear_session(free_memory: bool = True) -> None:
    """Forget the names given so far (the next Dense is ``dense`` again) and the unseeded
    random generator's state."""
    _NAME_UIDS.clear()
    _UIDS.clear()
    from symgrad.keras import random as keras_random

    keras_random._GLOBAL["generator"] = None


def get_uid(prefix: str = "") -> int:
    """1 for the first ``prefix``, then 2, 3, ... (Keras's ``backend.get_uid``)."""
    _UIDS[prefix] = _UIDS.get(prefix, 0) + 1
    return _UIDS[prefix]


def snake_case(name: str) -> str:
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def auto_name(cls_name: str) -> str:
    """Keras's ``auto_name``: ``dense`` for the first Dense, then ``dense_1``, ..."""
    name = snake_case(cls_name)
    count = _NAME_UIDS[name]
    _NAME_UIDS[name] += 1
    return name if count == 0 else f"{name}_{count}"


def standardize_dtype(dtype: Any) -> str:
    if dtype is None:
        return floatx()
    return str(as_dtype(dtype).name)
