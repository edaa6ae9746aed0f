"""What Keras 3's losses and metrics share: ``epsilon``/``floatx`` (read from
``tf.keras.backend`` where it exists), Keras masks, and ``squeeze_or_expand_to_same_rank``."""

from __future__ import annotations

import functools
import re
import weakref
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor
from symgrad.ops.array import shape
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor


@functools.cache
def _backend() -> Any:
    """``tf.keras.backend`` where symgrad has one (its ``epsilon``/``floatx`` are the
    settings), else None; looked up once (a failed import is not cached by Python)."""
    try:
        from symgrad.keras import backend  # type: ignore[attr-defined]
    except ImportError:
        return None
    return backend


def epsilon() -> float:
    backend = _backend()
    return 1e-7 if backend is None else float(backend.epsilon())


def floatx() -> str:
    backend = _backend()
    return "float32" if backend is None else str(backend.floatx())


_NAME_UIDS: dict[str, int] = {}


def auto_name(class_name: str) -> str:
    """Keras's ``auto_name``: the class name in snake case, made unique (``auc``, ``auc_1``)."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", class_name)
    name = re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
    uid = _NAME_UIDS.get(name, 0)
    _NAME_UIDS[name] = uid + 1
    return f"{name}_{uid}" if uid else name


_MASKS: dict[int, tuple[Any, Any]] = {}


@functools.cache
def _layer_masks() -> Any:
    """The masks Keras layers attach (``keras/layers/masks.py``) where symgrad has them."""
    try:
        from symgrad.keras.layers.masks import get_mask as layer_mask  # type: ignore[import-not-found]
    except ImportError:
        return None
    return layer_mask


def get_mask(x: Any) -> Any:
    """A Keras mask attached to ``x`` (by a masking layer or by a loss), or None."""
    layer_mask = _layer_masks()
    if layer_mask is not None and layer_mask(x) is not None:
        return layer_mask(x)
    entry = _MASKS.get(id(x))
    return entry[1] if entry is not None and entry[0]() is x else None


def set_mask(x: Any, mask: Any) -> None:
    key = id(x)
    _MASKS[key] = (weakref.ref(x, lambda _r: _MASKS.pop(key, None)), mask)


def to_tensor(x: Any, dtype: Any = None) -> Tensor:
    """Keras's ``ops.convert_to_tensor``: a tensor of another dtype is cast, not refused."""
    if dtype is None:
        return convert_to_tensor(x)
    d = dt.as_dtype(dtype)
    if isinstance(x, Tensor):
        return x if x.dtype is d else array.cast(x, d)
    if hasattr(x, "read_value"):
        v = x.read_value()
        return v if v.dtype is d else array.cast(v, d)
    if d.is_floating:  # TF converts NumPy/Python values straight to a float dtype
        return convert_to_tensor(np.asarray(x, dtype=d.np))
    t = convert_to_tensor(x)
    return t if t.dtype is d else array.cast(t, d)


def rank(x: Tensor) -> int:
    return len(x.shape)


def squeeze_or_expand_to_same_rank(x1: Any, x2: Any, expand_rank_1: bool = True) -> Any:
    """Keras: squeeze/expand the last dim when ranks differ by exactly one."""
    r1, r2 = rank(x1), rank(x2)
    if r1 == r2:
        return x1, x2
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = shape.expand_dims(x2, -1)
        else:
            x1 = shape.squeeze(x1, [-1])
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = shape.expand_dims(x1, -1)
        else:
            x2 = shape.squeeze(x2, [-1])
    return x1, x2
