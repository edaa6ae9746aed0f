"""Gradient clipping as TensorFlow's ``clip_ops.py`` writes it, from public ops.

Each function is composite (no op type of its own), built from the same ops in the same
order as TF's Python code, so float32 results round as TF's do and gradients come from
the ops' rules: ``clip_by_value`` is ``Maximum(Minimum(t, max), min)`` (ties send the
gradient to ``t``), ``clip_by_norm`` uses TF's two-``where`` guard so a zero tensor gets
a finite gradient, ``global_norm`` sums ``L2Loss`` values and doubles them.

Sparse gradients: an ``IndexedSlices`` is clipped on its ``values`` and rebuilt with the
same indices and dense shape, as TF does; ``global_norm`` counts only its values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.array.joining import stack
from symgrad.ops.core import convert_to_tensor, identity
from symgrad.ops.math import elementwise as math
from symgrad.ops.nn import basic as nn
from symgrad.ops.reduction import reduce as reduction
from symgrad.ops.sparse.indexed_slices import IndexedSlices


def _is_slices(t: Any) -> bool:
    return isinstance(t, IndexedSlices)


def _values(t: Any, name: str = "t") -> Tensor:
    return convert_to_tensor(t.values if _is_slices(t) else t)


def _rebuild(t: Any, values: Tensor) -> Any:
    """``values`` in ``t``'s form: new slices with ``t``'s indices, or the tensor itself."""
    return IndexedSlices(values, t.indices, t.dense_shape) if _is_slices(t) else values


def _check_kept(op: str, values: Tensor, result: Tensor) -> None:
    """TF refuses bounds that would broadcast ``t`` to a bigger shape."""
    if not values.shape.is_compatible_with(result.shape):
        raise ValueError(
            f"{op}: the clip bounds broadcast t of shape {values.shape} to "
            f"shape {result.shape}; they must not enlarge t"
        )


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None) -> Any:
    """``t`` with each entry limited to [clip_value_min, clip_value_max].

    As TF: ``maximum(minimum(t, max), min)``, so the gradient reaches ``t`` where it lies
    inside the bounds (or on them) and the bounds where they bite.
    """
    with name_scope(name, "clip_by_value"):
        values = _values(t)
        t_min = math.minimum(values, clip_value_max)
        _check_kept("clip_by_value", values, t_min)
        t_max = math.maximum(t_min, clip_value_min)
        _check_kept("clip_by_value", values, t_max)
    return _rebuild(t, t_max)


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Any:
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: rescaled so its L2 norm (along
    ``axes``, all by default) is at most ``clip_norm``; a negative clip_norm counts as 0."""
    with name_scope(name, "clip_by_norm"):
        values = _values(t)
        if np.isscalar(clip_norm) and not isinstance(clip_norm, str):
            clip_norm = max(clip_norm, 0)  # type: ignore[call-overload,type-var]
        else:
            clip_norm = array.cast(math.maximum(clip_norm, 0), values.dtype)
        l2sum = reduction.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # Two wheres: sqrt sees no zero, so the gradient at t == 0 is finite (TF's trick).
        l2sum_safe = array.where(pred, l2sum, array.ones_like(l2sum))
        l2norm = array.where(pred, math.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        _check_kept("clip_by_norm", values, intermediate)
        clipped = identity(intermediate / math.maximum(l2norm, clip_norm))
    return _rebuild(t, clipped)


def _as_list(t_list: Any, what: str) -> list[Any]:
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def global_norm(t_list: Sequence[Any], name: str | None = None) -> Tensor:
    """sqrt(sum of every entry squared) over a list of tensors (None entries skipped):
    ``sqrt(reduce_sum(stack([l2_loss(t) ...])) * 2)``, as TF computes it."""
    tensors = _as_list(t_list, "global_norm")
    with name_scope(name, "global_norm"):
        values = [_values(t) for t in tensors if t is not None]
        if not values:
            raise ValueError("global_norm needs at least one tensor that is not None")
        half_squared_norm = reduction.reduce_sum(stack([nn.l2_loss(v) for v in values]))
        two = convert_to_tensor(2.0, dtype=half_squared_norm.dtype)
        return math.sqrt(half_squared_norm * two)


def clip_by_global_norm(
    t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None, name: str | None = None
) -> tuple[list[Any], Tensor]:
    """(list clipped by ratio, the global norm): each ``t * clip_norm / max(global_norm,
    clip_norm)``.  ``use_norm`` replaces the computed norm.  An infinite or NaN norm makes
    every entry NaN, as in TF (``scale + (norm - norm)``)."""
    tensors = _as_list(t_list, "clip_by_global_norm")
    if use_norm is None:
        use_norm = global_norm(tensors, name)
    use_norm = convert_to_tensor(use_norm)
    with name_scope(name, "clip_by_global_norm"):
        one = convert_to_tensor(1.0, dtype=use_norm.dtype)
        scale_for_finite = clip_norm * math.minimum(1.0 / use_norm, one / clip_norm)
        scale = scale_for_finite + (use_norm - use_norm)
        clipped: list[Any] = []
        for t in tensors:
            if t is None:
                clipped.append(None)
                continue
            v = _values(t)
            s = scale if v.dtype is scale.dtype else array.cast(scale, v.dtype)
            clipped.append(_rebuild(t, identity(v * s)))
    return clipped, use_norm


def clip_by_average_norm(t: Any, clip_norm: Any, name: str | None = None) -> Tensor:
    """TF1's ``t * clip_norm * min(size(t) / l2norm(t), 1 / clip_norm)`` (deprecated in TF)."""
    with name_scope(name, "clip_by_average_norm"):
        x = convert_to_tensor(t)
        n_element = array.cast(array.size(x), dt.float32)
        l2norm_inv = math.rsqrt(reduction.reduce_sum(x * x))
        one = convert_to_tensor(1.0)
        return identity(x * clip_norm * math.minimum(l2norm_inv * n_element, one / clip_norm))
