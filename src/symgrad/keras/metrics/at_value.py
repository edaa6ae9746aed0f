"""Keras 3's "one rate at a constraint on another" metrics: ``SensitivityAtSpecificity``,
``SpecificityAtSensitivity``, ``PrecisionAtRecall``, ``RecallAtPrecision``."""

from __future__ import annotations

from typing import Any

from symgrad.api import math as tm
from symgrad.core.graph import Tensor
from symgrad.keras.metrics import confusion_utils as cu
from symgrad.keras.metrics.base import Metric
from symgrad.ops.array import structure as array


class _AtValue(Metric):
    """Confusion counts at ``num_thresholds`` evenly spaced thresholds in [0, 1]; the
    result is the best ``dependent`` rate among thresholds whose ``constrained`` rate
    reaches ``value``."""

    _what = "value"

    def __init__(
        self, value: float, num_thresholds: int = 200, class_id: int | None = None,
        name: str | None = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        if value < 0 or value > 1:
            raise ValueError(
                f"Argument `{self._what}` must be in the range [0, 1]. Received: "
                f"{self._what}={value}"
            )
        if num_thresholds <= 0:
            raise ValueError(
                "Argument `num_thresholds` must be an integer > 0. Received: "
                f"num_thresholds={num_thresholds}"
            )
        super().__init__(name=name, dtype=dtype)
        setattr(self, self._what, value)
        self.value, self.num_thresholds, self.class_id = value, num_thresholds, class_id
        if num_thresholds == 1:
            self.thresholds, self._evenly = [0.5], False
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds, self._evenly = [0.0, *inner, 1.0], True
        n = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape=n, initializer="zeros", name="true_positives")
        self.false_positives = self.add_variable(
            shape=n, initializer="zeros", name="false_positives"
        )
        self.true_negatives = self.add_variable(shape=n, initializer="zeros", name="true_negatives")
        self.false_negatives = self.add_variable(
            shape=n, initializer="zeros", name="false_negatives"
        )

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        variables = {
            cu.TP: self.true_positives, cu.TN: self.true_negatives,
            cu.FP: self.false_positives, cu.FN: self.false_negatives,
        }  # fmt: skip
        cu.update(
            variables, y_true, y_pred, self.thresholds, class_id=self.class_id,
            sample_weight=sample_weight, evenly=self._evenly,
        )  # fmt: skip

    def _rates(self) -> dict[str, Any]:
        tp, fp, tn, fn = (
            self.true_positives,
            self.false_positives,
            self.true_negatives,
            self.false_negatives,
        )
        return {
            "sensitivity": tm.divide_no_nan(tp, tp + fn),
            "specificity": tm.divide_no_nan(tn, tn + fp),
            "precision": tm.divide_no_nan(tp, tp + fp),
        }

    def _best(self, constrained: Any, dependent: Any) -> Tensor:
        feasible = tm.greater_equal(constrained, self.value)
        chosen = array.where(feasible, dependent, array.zeros_like(dependent))
        return tm.maximum(tm.reduce_max(chosen), 0.0)

    def get_config(self) -> dict[str, Any]:
        config = {"num_thresholds": self.num_thresholds, "class_id": self.class_id}
        return {**super().get_config(), self._what: self.value, **config}


class SensitivityAtSpecificity(_AtValue):
    _what = "specificity"

    def __init__(
        self, specificity: float, num_thresholds: int = 200, class_id: int | None = None,
        name: str | None = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def result(self) -> Tensor:
        r = self._rates()
        return self._best(r["specificity"], r["sensitivity"])


class SpecificityAtSensitivity(_AtValue):
    _what = "sensitivity"

    def __init__(
        self, sensitivity: float, num_thresholds: int = 200, class_id: int | None = None,
        name: str | None = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def result(self) -> Tensor:
        r = self._rates()
        return self._best(r["sensitivity"], r["specificity"])


class PrecisionAtRecall(_AtValue):
    _what = "recall"

    def __init__(
        self, recall: float, num_thresholds: int = 200, class_id: int | None = None,
        name: str | None = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def result(self) -> Tensor:
        r = self._rates()
        return self._best(r["sensitivity"], r["precision"])


class RecallAtPrecision(_AtValue):
    _what = "precision"

    def __init__(
        self, precision: float, num_thresholds: int = 200, class_id: int | None = None,
        name: str | None = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def result(self) -> Tensor:
        r = self._rates()
        return self._best(r["precision"], r["sensitivity"])
