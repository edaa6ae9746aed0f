"""``tf.boolean_mask``: the entries (or slices) of ``tensor`` where ``mask`` is True.

As TF builds it: the mask's axes of ``tensor`` are merged into one, and a ``gather`` of
the indices ``where(mask)`` picks the rows along it, so the gradient is gather's (the
picked rows get theirs, the others zeros).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import constant_value
from symgrad.ops.array import joining
from symgrad.ops.array.gather import gather
from symgrad.ops.array.shape import reshape, shape, squeeze
from symgrad.ops.array.structure import where
from symgrad.ops.core import convert_to_tensor, reduce


def boolean_mask(tensor: Any, mask: Any, axis: Any = None, name: str = "boolean_mask") -> Tensor:
    """``tensor[mask]`` along ``axis`` (default 0); ``mask``'s rank must be known."""
    with name_scope(name):
        t = convert_to_tensor(tensor)
        m = convert_to_tensor(mask)
        if m.dtype is not dt.bool_:
            raise TypeError(f"boolean_mask: mask must be bool, got {m.dtype.name}")
        k = m.shape.rank
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        if k is None:
            raise ValueError(
                "Number of mask dimensions must be specified, even if some dimensions are "
                "None.  E.g. shape=[None] is ok, but shape=None is not."
            )
        a = 0 if axis is None else _static_axis(axis)
        dims = t.shape.dims
        if dims is not None and not t.shape[a : a + k].is_compatible_with(m.shape):
            raise ValueError(
                f"Shapes {t.shape[a : a + k]} and {m.shape} are incompatible "
                f"(boolean_mask: tensor.shape[{a}:{a + k}] must be mask's shape)"
            )
        t = reshape(t, _merged_shape(t, a, k))
        rows = squeeze(where(reshape(m, [-1])), axis=[1])
        return gather(t, rows, axis=a)


def _static_axis(axis: Any) -> int:
    value = constant_value(convert_to_tensor(axis))
    if value is None:
        raise ValueError(f"boolean_mask: axis must be known when the graph is built, got {axis}")
    return int(value)


def _merged_shape(t: Tensor, a: int, k: int) -> Any:
    """``t``'s shape with axes a..a+k-1 merged into one (static where known)."""
    dims = t.shape.dims
    if dims is not None and None not in dims:
        merged = int(np.prod([d or 0 for d in dims[a : a + k]], dtype=np.int64))
        return [*dims[:a], merged, *dims[a + k :]]
    s = shape(t)
    lead = reduce("Prod", s[a : a + k], [0], keep_dims=True)
    return joining.concat([s[:a], lead, s[a + k :]], 0)


def boolean_mask_v1(tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None) -> Tensor:
    """``tf.compat.v1.boolean_mask``: TF1's order (``name`` third)."""
    return boolean_mask(tensor, mask, axis=axis, name=name)
