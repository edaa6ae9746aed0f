"""Keras 3's ``FBetaScore`` and ``F1Score`` (``keras/src/metrics/f_score_metrics.py``)."""

from __future__ import annotations

from typing import Any

from symgrad.api import math as tm
from symgrad.core.graph import Tensor
from symgrad.keras.losses._common import epsilon, to_tensor
from symgrad.keras.metrics.base import Metric
from symgrad.ops.array import shape
from symgrad.ops.array import structure as array


class FBetaScore(Metric):
    """F-beta per class (``average=None``), or averaged ``micro``/``macro``/``weighted``."""

    def __init__(
        self,
        average: str | None = None,
        beta: float = 1.0,
        threshold: float | None = None,
        name: str = "fbeta_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(
                "Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', "
                f"'weighted'}}. Received: average={average}"
            )
        if not isinstance(beta, float):
            raise ValueError(
                "Invalid `beta` argument value. It should be a Python float. Received: "
                f"beta={beta} of type '{type(beta)}'"
            )
        if beta <= 0.0:
            raise ValueError(
                f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}"
            )
        if threshold is not None and (
            not isinstance(threshold, float) or not 0.0 < threshold <= 1.0
        ):
            raise ValueError(
                "Invalid `threshold` argument value. It should be a Python float with "
                f"0 < threshold <= 1. Received: threshold={threshold!r}"
            )
        self.average, self.beta, self.threshold = average, beta, threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_true_shape: Any, y_pred_shape: Any) -> None:
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2 or y_pred_shape[-1] is None:
            raise ValueError(
                "FBetaScore expects 2D inputs with shape (batch_size, output_dim), with "
                f"output_dim fully defined. Received input shapes: y_pred.shape={y_pred_shape} "
                f"and y_true.shape={y_true_shape}."
            )
        init = () if self.average == "micro" else (y_pred_shape[-1],)

        def zeros(name: str) -> Any:
            return self.add_variable(name=name, shape=init, initializer="zeros", dtype=self.dtype)

        self.true_positives, self.false_positives = (
            zeros("true_positives"),
            zeros("false_positives"),
        )
        self.false_negatives = zeros("false_negatives")
        self.intermediate_weights = zeros("intermediate_weights")
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true, y_pred = to_tensor(y_true, self.dtype), to_tensor(y_pred, self.dtype)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        if self.threshold is None:
            top = tm.reduce_max(y_pred, axis=-1, keepdims=True)
            hits = tm.logical_and(y_pred >= top, tm.abs(y_pred) > 1e-9)
        else:
            hits = y_pred > self.threshold
        y_pred = array.cast(hits, self.dtype)
        w = None if sample_weight is None else to_tensor(sample_weight, self.dtype)

        def weighted_sum(value: Any) -> Any:
            if w is not None:
                value = value * shape.expand_dims(w, 1)
            return tm.reduce_sum(value, axis=self.axis)

        self.true_positives.assign(self.true_positives + weighted_sum(y_pred * y_true))
        self.false_positives.assign(self.false_positives + weighted_sum(y_pred * (1 - y_true)))
        self.false_negatives.assign(self.false_negatives + weighted_sum((1 - y_pred) * y_true))
        self.intermediate_weights.assign(self.intermediate_weights + weighted_sum(y_true))

    def result(self) -> Tensor:
        tp, eps = self.true_positives, epsilon()
        precision = tm.divide(tp, tp + self.false_positives + eps)
        recall = tm.divide(tp, tp + self.false_negatives + eps)
        mean = tm.divide(precision * recall, self.beta**2 * precision + recall + eps)
        score = mean * (1 + self.beta**2)
        if self.average == "weighted":
            iw = self.intermediate_weights
            return tm.reduce_sum(score * tm.divide(iw, tm.reduce_sum(iw) + eps))
        return score if self.average is None else tm.reduce_mean(score)

    def get_config(self) -> dict[str, Any]:
        config = {"average": self.average, "beta": self.beta, "threshold": self.threshold}
        return {**super().get_config(), **config}


class F1Score(FBetaScore):
    """F-beta with ``beta=1``."""

    def __init__(
        self,
        average: str | None = None,
        threshold: float | None = None,
        name: str = "f1_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["beta"]
        return config
