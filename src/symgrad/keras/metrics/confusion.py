"""Keras 3's confusion-matrix metrics: ``TruePositives``...``FalseNegatives``,
``Precision``, ``Recall``, ``AUC`` (``keras/src/metrics/confusion_metrics.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.api import math as tm
from symgrad.core.graph import Tensor
from symgrad.keras.losses._common import epsilon
from symgrad.keras.metrics import confusion_utils as cu
from symgrad.keras.metrics.base import Metric
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor


class _ConditionCount(Metric):
    _cond = cu.TP

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = cu.parse_thresholds(thresholds, 0.5)
        self._evenly = cu.evenly_distributed(self.thresholds)
        self.accumulator = self.add_variable(
            shape=(len(self.thresholds),), initializer="zeros", name="accumulator"
        )

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        cu.update(
            {self._cond: self.accumulator}, y_true, y_pred, self.thresholds,
            sample_weight=sample_weight, evenly=self._evenly,
        )  # fmt: skip

    def result(self) -> Tensor:
        return (
            self.accumulator[0]
            if len(self.thresholds) == 1
            else convert_to_tensor(self.accumulator)
        )

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_ConditionCount):
    _cond = cu.TP


class FalsePositives(_ConditionCount):
    _cond = cu.FP


class TrueNegatives(_ConditionCount):
    _cond = cu.TN


class FalseNegatives(_ConditionCount):
    _cond = cu.FN


class _PrecisionRecall(Metric):
    _other = cu.FP

    def __init__(
        self, thresholds: Any = None, top_k: int | None = None, class_id: int | None = None,
        name: str | None = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id
        self.thresholds = cu.parse_thresholds(thresholds, 0.5 if top_k is None else cu.NEG_INF)
        self._evenly = cu.evenly_distributed(self.thresholds)
        n = len(self.thresholds)
        self.true_positives = self.add_variable(
            shape=(n,), initializer="zeros", name="true_positives"
        )
        other = "false_positives" if self._other == cu.FP else "false_negatives"
        setattr(self, other, self.add_variable(shape=(n,), initializer="zeros", name=other))
        self._other_var = getattr(self, other)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        cu.update(
            {cu.TP: self.true_positives, self._other: self._other_var}, y_true, y_pred,
            self.thresholds, top_k=self.top_k, class_id=self.class_id,
            sample_weight=sample_weight, evenly=self._evenly,
        )  # fmt: skip

    def result(self) -> Tensor:
        tp = self.true_positives
        value = tm.divide_no_nan(tp, tp + self._other_var)
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict[str, Any]:
        config = {
            "thresholds": self.init_thresholds,
            "top_k": self.top_k,
            "class_id": self.class_id,
        }
        return {**super().get_config(), **config}


class Precision(_PrecisionRecall):
    """``tp / (tp + fp)`` at each threshold (one threshold: a scalar)."""

    _other = cu.FP


class Recall(_PrecisionRecall):
    """``tp / (tp + fn)`` at each threshold (one threshold: a scalar)."""

    _other = cu.FN


_CURVES = {
    "roc": "ROC",
    "ROC": "ROC",
    "pr": "PR",
    "PR": "PR",
    "prgain": "PRGAIN",
    "PRGAIN": "PRGAIN",
}
_METHODS = {
    k: k.lower()
    for k in ("interpolation", "Interpolation", "majoring", "Majoring", "minoring", "Minoring")
}


class AUC(Metric):
    """Area under the ROC or PR curve by a Riemann sum over ``num_thresholds`` thresholds
    (Keras's, with its interpolation for PR)."""

    def __init__(
        self,
        num_thresholds: int = 200,
        curve: str = "ROC",
        summation_method: str = "interpolation",
        name: str | None = None,
        dtype: Any = None,
        thresholds: Any = None,
        multi_label: bool = False,
        num_labels: int | None = None,
        label_weights: Any = None,
        from_logits: bool = False,
    ) -> None:
        self._init_from_thresholds = thresholds is not None
        self.num_thresholds, self._evenly, self._thresholds = _auc_thresholds(
            num_thresholds, thresholds
        )
        if curve not in _CURVES:
            raise ValueError(
                f'Invalid AUC curve value: "{curve}". Expected values are ["PR", "ROC", "PRGAIN"]'
            )
        if summation_method not in _METHODS:
            raise ValueError(
                f'Invalid AUC summation method value: "{summation_method}". Expected values are '
                '["interpolation", "majoring", "minoring"]'
            )
        self.curve, self.summation_method = _CURVES[curve], _METHODS[summation_method]
        super().__init__(name=name, dtype=dtype)
        if num_labels and not multi_label:
            raise ValueError("`num_labels` is needed only when `multi_label` is True.")
        self.multi_label, self.num_labels = multi_label, num_labels
        self.label_weights = (
            None if label_weights is None else np.asarray(label_weights, self.dtype)
        )
        self._from_logits = from_logits
        self._built = False
        if not multi_label or num_labels:
            self._build([None, num_labels] if multi_label else None)

    def _build(self, input_shape: Any) -> None:
        """The counts' variables: ``[thresholds]``, or ``[thresholds, labels]`` with
        ``multi_label`` (made at the first update when ``num_labels`` was not given)."""
        if self.multi_label:
            if len(input_shape) != 2:
                raise ValueError(
                    "`y_pred` must have rank 2 when `multi_label=True`. Found rank "
                    f"{len(input_shape)}. Full shape received for `y_pred`: {input_shape}"
                )
            self._num_labels = input_shape[1]
        shape = [self.num_thresholds, *([self._num_labels] if self.multi_label else [])]
        self._built = True

        def count(name: str) -> Any:
            return self.add_variable(shape=shape, initializer="zeros", name=name)

        self.true_positives, self.false_positives = (
            count("true_positives"),
            count("false_positives"),
        )
        self.true_negatives, self.false_negatives = (
            count("true_negatives"),
            count("false_negatives"),
        )

    @property
    def thresholds(self) -> list[float]:
        return list(self._thresholds)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_pred = convert_to_tensor(y_pred)
        if not self._built:
            self._build(y_pred.shape)
        if self._from_logits:
            y_pred = tm.sigmoid(y_pred)
        variables = {
            cu.TP: self.true_positives,
            cu.TN: self.true_negatives,
            cu.FP: self.false_positives,
            cu.FN: self.false_negatives,
        }
        cu.update(
            variables, y_true, y_pred, self._thresholds, sample_weight=sample_weight,
            label_weights=None if self.multi_label else self.label_weights,
            evenly=self._evenly, multi_label=self.multi_label,
        )  # fmt: skip

    def interpolate_pr_auc(self) -> Tensor:
        n, tp = self.num_thresholds, self.true_positives
        dtp = tp[: n - 1] - tp[1:]
        p = tp + self.false_positives
        dp = p[: n - 1] - p[1:]
        slope = tm.divide_no_nan(dtp, tm.maximum(dp, 0))
        intercept = tp[1:] - slope * p[1:]
        both = tm.logical_and(p[: n - 1] > 0, p[1:] > 0)
        ratio = array.where(
            both, tm.divide_no_nan(p[: n - 1], tm.maximum(p[1:], 0)), array.ones_like(p[1:])
        )
        increment = tm.divide_no_nan(
            slope * (dtp + intercept * tm.log(ratio)),
            tm.maximum(tp[1:] + self.false_negatives[1:], 0),
        )
        return self._total(increment)

    def _total(self, terms: Any) -> Tensor:
        """The sum over thresholds; with ``multi_label``, its mean over labels (weighted
        by ``label_weights`` when given)."""
        if not self.multi_label:
            return tm.reduce_sum(terms)
        by_label = tm.reduce_sum(terms, axis=0)
        if self.label_weights is None:
            return tm.reduce_mean(by_label)
        lw = convert_to_tensor(self.label_weights)
        return tm.divide_no_nan(tm.reduce_sum(by_label * lw), tm.reduce_sum(lw))

    def result(self) -> Tensor:
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        tp, fp, tn, fn = (
            self.true_positives,
            self.false_positives,
            self.true_negatives,
            self.false_negatives,
        )
        recall = tm.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = tm.divide_no_nan(fp, fp + tn), recall
        elif self.curve == "PR":
            x, y = recall, tm.divide_no_nan(tp, tp + fp)
        else:
            x, y = _pr_gain(tp, fp, tn, fn)
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = tm.minimum(y[: n - 1], y[1:])
        else:
            heights = tm.maximum(y[: n - 1], y[1:])
        return self._total((x[: n - 1] - x[1:]) * heights)

    def get_config(self) -> dict[str, Any]:
        config = {
            "num_thresholds": self.num_thresholds, "curve": self.curve,
            "summation_method": self.summation_method, "multi_label": self.multi_label,
            "num_labels": self.num_labels, "label_weights": self.label_weights,
            "from_logits": self._from_logits,
        }  # fmt: skip
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return {**super().get_config(), **config}


def _auc_thresholds(num_thresholds: int, thresholds: Any) -> tuple[int, bool, np.ndarray]:
    """Keras's AUC thresholds: the given ones, or ``num_thresholds`` evenly spaced, between
    ``-epsilon`` and ``1 + epsilon``; and whether they are evenly spaced."""
    if thresholds is not None:
        thresholds = sorted(thresholds)
        evenly = cu.evenly_distributed(np.array([0.0, *thresholds, 1.0]))
        n = len(thresholds) + 2
    else:
        if num_thresholds <= 1:
            raise ValueError(
                "Argument `num_thresholds` must be an integer > 1. Received: "
                f"num_thresholds={num_thresholds}"
            )
        n, evenly = num_thresholds, True
        thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return n, evenly, np.array([0.0 - epsilon(), *thresholds, 1.0 + epsilon()])


def _pr_gain(tp: Any, fp: Any, tn: Any, fn: Any) -> tuple[Any, Any]:
    scale = tm.divide_no_nan(tp + fn, tn + fp)
    recall_gain = 1.0 - scale * tm.divide_no_nan(fn, tp)
    precision_gain = 1.0 - scale * tm.divide_no_nan(fp, tp)
    zero = tm.equal(tp, 0.0)
    recall_gain = array.where(zero, array.zeros_like(recall_gain), recall_gain)
    precision_gain = array.where(zero, array.ones_like(precision_gain), precision_gain)
    return tm.maximum(recall_gain, 0.0), precision_gain
