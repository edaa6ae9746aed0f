"""Keras 3's ``update_confusion_matrix_variables`` (``metrics_utils.py``): counts of true
and false positives and negatives per threshold, by Keras's two algorithms (compare each
prediction with each threshold; or, for evenly spaced thresholds, bucket the predictions
and take reverse cumulative sums), since the two can differ at a threshold's edge."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.api import math as tm
from symgrad.api import nn as tnn
from symgrad.api.clip_ops import clip_by_value
from symgrad.keras.losses._common import epsilon, squeeze_or_expand_to_same_rank
from symgrad.ops.array import shape
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor

NEG_INF = -1e10
TP, FP, TN, FN = "tp", "fp", "tn", "fn"


def parse_thresholds(thresholds: Any, default: float) -> list[float]:
    if thresholds is not None:
        values = list(thresholds) if isinstance(thresholds, list | tuple) else [thresholds]
        bad = [t for t in values if t is None or t < 0 or t > 1]
        if bad:
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {bad}")
    chosen = default if thresholds is None else thresholds
    return list(chosen) if isinstance(chosen, list | tuple) else [chosen]


def evenly_distributed(thresholds: Any) -> bool:
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(thresholds, even, atol=epsilon()))


def _filter_top_k(x: Any, k: int) -> Any:
    _, idx = tnn.top_k(x, k)
    mask = tm.reduce_sum(array.one_hot(idx, x.shape[-1], dtype=x.dtype), axis=-2)
    return x * mask + NEG_INF * (1 - mask)


def update(
    variables: dict[str, Any],
    y_true: Any,
    y_pred: Any,
    thresholds: Any,
    top_k: int | None = None,
    class_id: int | None = None,
    sample_weight: Any = None,
    label_weights: Any = None,
    evenly: bool = False,
    multi_label: bool = False,
) -> None:
    """Add this batch's counts to ``variables`` (keys ``tp``/``fp``/``tn``/``fn``)."""
    vdtype = next(iter(variables.values())).dtype
    y_true = array.cast(convert_to_tensor(y_true), vdtype)
    y_pred = array.cast(convert_to_tensor(y_pred), vdtype)
    with_eps = bool(evenly and (thresholds[0] < 0.0 or thresholds[-1] > 1.0))
    thresholds = convert_to_tensor(np.asarray(thresholds, vdtype.np))
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = shape.expand_dims(array.cast(convert_to_tensor(sample_weight), vdtype), -1)
        _, sample_weight = squeeze_or_expand_to_same_rank(
            y_true, sample_weight, expand_rank_1=False
        )
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if len(y_pred.shape) == 1:
            raise ValueError(
                "When class_id is provided, y_pred must be a 2D array with shape (num_samples, "
                f"num_classes), found shape: {y_pred.shape}"
            )
        y_true, y_pred = y_true[..., class_id, None], y_pred[..., class_id, None]
    # Counting works on [predictions, labels]: one column unless multi_label (Keras
    # flattens then), and gives [thresholds, labels] counts.
    columns = (lambda t: t) if multi_label else (lambda t: shape.reshape(t, [-1, 1]))
    weights = _weights(y_pred, sample_weight, label_weights)
    weights = None if weights is None else columns(weights)
    y_true, y_pred = columns(y_true), columns(y_pred)
    if evenly:
        counts = _bucketed(set(variables), y_true, y_pred, thresholds, weights, with_eps)
    else:
        counts = _compared(set(variables), y_true, y_pred, thresholds, weights)
    for key, var in variables.items():
        value = counts[key] if multi_label else shape.reshape(counts[key], [-1])
        var.assign(var + array.cast(value, var.dtype))


def _weights(y_pred: Any, sample_weight: Any, label_weights: Any) -> Any:
    """Weights of each prediction, in ``y_pred``'s shape (None when neither is given)."""
    w = None
    if sample_weight is not None:
        w = array.broadcast_to(array.cast(sample_weight, y_pred.dtype), shape.shape(y_pred))
    if label_weights is not None:
        lw = array.broadcast_to(
            shape.expand_dims(convert_to_tensor(label_weights), 0), shape.shape(y_pred)
        )
        w = lw if w is None else w * lw
    return w


def _compared(keys: set[str], y_true: Any, y_pred: Any, thresholds: Any, weights: Any) -> Any:
    """Each prediction against each threshold: ``[T, N, L]`` booleans summed over N."""
    preds = shape.expand_dims(y_pred, 0)
    pred_pos = tm.greater(preds, shape.reshape(thresholds, [-1, 1, 1]))
    label_pos = tm.logical_and(
        shape.expand_dims(array.cast(y_true, "bool"), 0), array.ones_like(pred_pos)
    )
    pred_neg, label_neg = tm.logical_not(pred_pos), tm.logical_not(label_pos)
    pairs = {
        TP: (label_pos, pred_pos),
        FN: (label_pos, pred_neg),
        FP: (label_neg, pred_pos),
        TN: (label_neg, pred_neg),
    }
    out = {}
    for key in keys:
        both = tm.logical_and(*pairs[key])
        if weights is None:
            hits = array.cast(both, y_pred.dtype)
        else:
            w = array.broadcast_to(shape.expand_dims(weights, 0), shape.shape(both))
            hits = array.where(both, w, array.zeros_like(w))
        out[key] = tm.reduce_sum(hits, 1)
    return out


def _bucketed(
    keys: set[str], y_true: Any, y_pred: Any, thresholds: Any, weights: Any, with_eps: bool
) -> Any:
    """Keras's fast path for evenly spaced thresholds: each prediction's bucket, per-label
    sums per bucket, reverse cumulative sums over the buckets."""
    n = thresholds.shape[0]
    w = array.cast(weights, y_true.dtype) if weights is not None else 1.0
    y_pred = clip_by_value(y_pred, 0.0, 1.0)
    y_true = array.cast(array.cast(y_true, "bool"), y_true.dtype)
    true_labels, false_labels = y_true * w, (1.0 - y_true) * w
    buckets = tm.ceil(y_pred * (array.cast(n, y_pred.dtype) - 1)) - 1
    if with_eps:
        buckets = tnn.relu(buckets)
    buckets = array.cast(buckets, "int32")
    labels = y_pred.shape[1]
    # one segment per (label, bucket); a bucket of -1 (a prediction of 0) counts nowhere
    offsets = shape.reshape(convert_to_tensor(np.arange(labels, dtype=np.int32) * n), [1, -1])
    ids = _label_major(array.where(buckets >= 0, buckets + offsets, buckets))

    def reverse_cumsum(values: Any) -> Any:
        per_bucket = tm.unsorted_segment_sum(_label_major(values), ids, n * labels)
        per_label = shape.transpose(shape.reshape(per_bucket, [labels, n]))
        return tm.cumsum(per_label, axis=0, reverse=True)

    tp, fp = reverse_cumsum(true_labels), reverse_cumsum(false_labels)
    return {
        TP: tp, FP: fp,
        TN: tm.reduce_sum(false_labels, axis=0) - fp,
        FN: tm.reduce_sum(true_labels, axis=0) - tp,
    }  # fmt: skip


def _label_major(x: Any) -> Any:
    """``[N, L]`` flattened label by label (each label's predictions in order, as Keras
    sums them)."""
    return shape.reshape(shape.transpose(x), [-1])
