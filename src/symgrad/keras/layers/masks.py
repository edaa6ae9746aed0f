"""Keras masks: Keras 3 attaches a boolean mask to a tensor (``_keras_mask``); symgrad's
tensors have fixed slots, so the masks live here, keyed by the tensor's identity and dropped
with it."""

from __future__ import annotations

import weakref
from typing import Any

from symgrad.core import nest

_MASKS: dict[int, tuple[Any, Any]] = {}


def get_mask(x: Any) -> Any:
    entry = _MASKS.get(id(x))
    if entry is None or entry[0]() is not x:
        return None
    return entry[1]


def set_mask(x: Any, mask: Any) -> None:
    if mask is None or not hasattr(x, "__weakref__"):
        return
    key = id(x)
    try:
        ref = weakref.ref(x, _dropper(key))
    except TypeError:
        return
    _MASKS[key] = (ref, mask)


def _dropper(key: int) -> Any:
    def drop(_ref: Any) -> None:
        _MASKS.pop(key, None)

    return drop


def copy_mask(src: Any, dst: Any) -> None:
    set_mask(dst, get_mask(src))


def set_output_masks(layer: Any, inputs: Any, outputs: Any, previous_mask: Any) -> None:
    """Give each output the mask ``layer.compute_mask`` returns (Keras's _set_mask_metadata)."""
    flat = nest.flatten(outputs)
    if any(get_mask(o) is not None for o in flat):
        return
    mask = layer.compute_mask(inputs, previous_mask)
    if mask is None:
        return
    flat_masks = nest.flatten(mask) if isinstance(mask, (list, tuple)) else [mask] * len(flat)
    for out, m in zip(flat, flat_masks):
        set_mask(out, m)
