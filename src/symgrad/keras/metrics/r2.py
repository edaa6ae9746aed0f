"""Keras 3's ``R2Score`` (``keras/src/metrics/regression_metrics.py``)."""

from __future__ import annotations

import warnings
from typing import Any

from symgrad.api import math as tm
from symgrad.core.graph import Tensor
from symgrad.keras.losses._common import squeeze_or_expand_to_same_rank, to_tensor
from symgrad.keras.metrics.base import Metric
from symgrad.ops.array import shape
from symgrad.ops.array import structure as array

_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """The coefficient of determination per output, aggregated; adjusted for
    ``num_regressors`` when given."""

    def __init__(
        self,
        class_aggregation: str | None = "uniform_average",
        num_regressors: int = 0,
        name: str = "r2_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in _AGGREGATIONS:
            raise ValueError(
                "Invalid value for argument `class_aggregation`. Expected one of "
                f"{_AGGREGATIONS}. Received: class_aggregation={class_aggregation}"
            )
        if num_regressors < 0:
            raise ValueError(
                "Invalid value for argument `num_regressors`. Expected a value >= 0. "
                f"Received: num_regressors={num_regressors}"
            )
        self.class_aggregation, self.num_regressors = class_aggregation, num_regressors
        self.num_samples = self.add_variable(shape=(), initializer="zeros", name="num_samples")
        self._built = False

    def _build(self, y_true_shape: Any, y_pred_shape: Any) -> None:
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2 or y_pred_shape[-1] is None:
            raise ValueError(
                "R2Score expects 2D inputs with shape (batch_size, output_dim), with output_dim "
                f"fully defined. Received input shapes: y_pred.shape={y_pred_shape} and "
                f"y_true.shape={y_true_shape}."
            )
        n = [y_pred_shape[-1]]
        self.squared_sum = self.add_variable(name="squared_sum", shape=n, initializer="zeros")
        self.sum = self.add_variable(name="sum", shape=n, initializer="zeros")
        self.total_mse = self.add_variable(name="residual", shape=n, initializer="zeros")
        self.count = self.add_variable(name="count", shape=n, initializer="zeros")
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true, y_pred = to_tensor(y_true, self.dtype), to_tensor(y_pred, self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        w = to_tensor(1 if sample_weight is None else sample_weight, self.dtype)
        if len(w.shape) == 1:
            w = shape.expand_dims(w, 1)
        w = array.broadcast_to(w, shape.shape(y_true))
        weighted = y_true * w
        self.sum.assign(self.sum + tm.reduce_sum(weighted, axis=0))
        self.squared_sum.assign(self.squared_sum + tm.reduce_sum(y_true * weighted, axis=0))
        self.total_mse.assign(self.total_mse + tm.reduce_sum((y_true - y_pred) ** 2 * w, axis=0))
        self.count.assign(self.count + tm.reduce_sum(w, axis=0))
        self.num_samples.assign(self.num_samples + array.cast(shape.size(y_true), self.dtype))

    def result(self) -> Tensor:
        mean = self.sum / self.count
        total = self.squared_sum - self.sum * mean
        raw = 1 - self.total_mse / total
        raw = array.where(tm.is_inf(raw), array.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            score = tm.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = tm.reduce_sum(total * raw) / tm.reduce_sum(total)
        else:
            score = raw
        return self._adjusted(score) if self.num_regressors else score

    def _adjusted(self, score: Any) -> Any:
        samples = float(self.num_samples.numpy())
        if self.num_regressors > samples - 1:
            warnings.warn(
                "More independent predictors than datapoints in adjusted R2 score. Falling "
                "back to standard R2 score.",
                stacklevel=3,
            )
            return score
        if self.num_regressors == samples - 1:
            warnings.warn(
                "Division by zero in Adjusted R2 score. Falling back to standard R2 score.",
                stacklevel=3,
            )
            return score
        n = array.cast(self.num_samples, "float32")
        return 1.0 - (1.0 - score) * (n - 1.0) / (n - float(self.num_regressors) - 1.0)

    def get_config(self) -> dict[str, Any]:
        config = {
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }
        return {**super().get_config(), **config}
