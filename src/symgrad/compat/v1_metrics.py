"""``tf.compat.v1.metrics``: TF1's streaming metrics, built as TF's ``metrics_impl``.

Each metric keeps its running state in local variables (collections ``LOCAL_VARIABLES``
and ``METRIC_VARIABLES``, zeros until ``local_variables_initializer()`` runs) and returns
``(value, update_op)``: ``value`` reads the state, ``update_op`` adds a batch to it and
gives the new value.  As in TF they are graph-only: eagerly they raise ``RuntimeError``.
"""

from __future__ import annotations

from typing import Any

from symgrad.api.variable_scope import GraphKeys, add_to_collections, variable_scope
from symgrad.compat.v1_variable import VariableV1
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, executing_eagerly
from symgrad.ops import control, core
from symgrad.ops.array import structure as array
from symgrad.ops.math import elementwise as math
from symgrad.ops.math.safe_math import divide_no_nan
from symgrad.ops.reduction import reduce as reduction
from symgrad.ops.state.variables import assign_add

__all__ = ["accuracy", "auc", "mean"]


def _metric_variable(shape: list[int], name: str) -> VariableV1:
    return VariableV1(
        lambda: array.zeros(shape, dt.float32),
        trainable=False,
        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
        name=name,
    )


def _graph_only(what: str) -> None:
    if executing_eagerly():
        raise RuntimeError(f"tf.metrics.{what} is not supported when eager execution is enabled.")


def _finish(value: Tensor, update: Tensor, metrics: Any, updates: Any) -> tuple[Tensor, Tensor]:
    if metrics:
        add_to_collections(metrics, value)
    if updates:
        add_to_collections(updates, update)
    return value, update


def mean(
    values: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The (weighted) mean of every value seen: ``total / count``."""
    _graph_only("mean")
    with variable_scope(name, "mean"):
        values = array.cast(values, dt.float32)
        total = _metric_variable([], "total")
        count = _metric_variable([], "count")
        if weights is None:
            n = array.cast(array.size(values), dt.float32)
        else:
            w = math.multiply(array.cast(weights, dt.float32), array.ones_like(values))
            values = math.multiply(values, w)
            n = reduction.reduce_sum(w)
        update_total = assign_add(total, reduction.reduce_sum(values))
        with control.control_dependencies([values]):
            update_count = assign_add(count, n)
        value = divide_no_nan(total, math.maximum(count, 0.0), name="value")
        update = divide_no_nan(update_total, math.maximum(update_count, 0.0), name="update_op")
        return _finish(value, update, metrics_collections, updates_collections)


def accuracy(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """How often ``predictions`` equals ``labels``: the mean of the matches."""
    _graph_only("accuracy")
    y, p = core.convert_to_tensor(labels), core.convert_to_tensor(predictions)
    if not p.shape.is_compatible_with(y.shape):
        raise ValueError(f"Shapes {p.shape} and {y.shape} are incompatible")
    if p.dtype is not y.dtype:
        p = array.cast(p, y.dtype)
    correct = array.cast(math.equal(p, y), dt.float32)
    return mean(correct, weights, metrics_collections, updates_collections, name or "accuracy")


def _thresholds(num_thresholds: int, thresholds: Any) -> list[float]:
    eps = 1e-7  # as TF: the end points catch predictions of exactly 0 and 1
    if thresholds is not None:
        inner = sorted(thresholds)
    else:
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - eps, *inner, 1.0 + eps]


def _confusion(labels: Any, predictions: Any, thresholds: list[float], weights: Any) -> Any:
    """Variables tp, fn, tn, fp per threshold and the ops that add a batch to them."""
    p = array.reshape(array.cast(predictions, dt.float32), [-1, 1])
    y = array.reshape(array.cast(labels, dt.bool_), [1, -1])
    k = len(thresholds)
    above = math.greater(array.transpose(p), array.reshape(core.constant(thresholds), [k, 1]))
    label_pos = array.tile(y, [k, 1])
    w = None
    if weights is not None:
        w = math.multiply(array.cast(weights, dt.float32), array.ones_like(p[:, 0]))
        w = array.reshape(w, [1, -1])
    cases = {
        "tp": (label_pos, above),
        "fn": (label_pos, math.logical_not(above)),
        "tn": (math.logical_not(label_pos), math.logical_not(above)),
        "fp": (math.logical_not(label_pos), above),
    }
    names = {"tp": "true_positives", "fn": "false_negatives"}
    names.update({"tn": "true_negatives", "fp": "false_positives"})
    values, updates = {}, {}
    for key, (a, b) in cases.items():
        var = _metric_variable([k], names[key])
        hit = array.cast(math.logical_and(a, b), dt.float32)
        hit = math.multiply(hit, w) if w is not None else hit
        updates[key] = assign_add(var, reduction.reduce_sum(hit, 1))
        values[key] = var
    return values, updates


def _area(c: dict[str, Any], n: int, curve: str, summation: str, name: str) -> Tensor:
    eps = 1.0e-6
    tp, fn, tn, fp = (core.convert_to_tensor(c[key]) for key in ("tp", "fn", "tn", "fp"))
    rec = math.divide(tp + eps, tp + fn + eps)
    if curve == "ROC":
        x, y = math.divide(fp, fp + tn + eps), rec
    else:
        x, y = rec, math.divide(tp + eps, tp + fp + eps)
    dx = x[: n - 1] - x[1:]
    if summation == "minoring":
        height = math.minimum(y[: n - 1], y[1:])
    elif summation == "majoring":
        height = math.maximum(y[: n - 1], y[1:])
    else:
        height = (y[: n - 1] + y[1:]) / 2.0
    return reduction.reduce_sum(math.multiply(dx, height), name=name)


def auc(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    num_thresholds: int = 200,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    curve: str = "ROC",
    name: str | None = None,
    summation_method: str = "trapezoidal",
    thresholds: Any = None,
) -> tuple[Tensor, Tensor]:
    """The area under the ROC (or PR) curve, from counts at ``num_thresholds`` thresholds
    (Riemann sums: trapezoidal, minoring or majoring)."""
    _graph_only("auc")
    if curve not in ("ROC", "PR"):
        raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
    if summation_method not in ("trapezoidal", "minoring", "majoring"):
        raise ValueError(
            f"summation_method {summation_method!r}: symgrad has 'trapezoidal', 'minoring' "
            "and 'majoring' (not TF's 'careful_interpolation' yet)"
        )
    with variable_scope(name, "auc"):
        ts = _thresholds(num_thresholds, thresholds)
        values, updates = _confusion(labels, predictions, ts, weights)
        value = _area(values, len(ts), curve, summation_method, "value")
        update = _area(updates, len(ts), curve, summation_method, "update_op")
        return _finish(value, update, metrics_collections, updates_collections)
