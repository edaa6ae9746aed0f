"""``dice`` and ``tversky`` (Keras 3's overlap losses) and their classes."""

from __future__ import annotations

from typing import Any

from symgrad.api import math as tm
from symgrad.core.graph import Tensor
from symgrad.keras.losses._common import epsilon, to_tensor
from symgrad.keras.losses.classes import Loss, LossFunctionWrapper
from symgrad.ops.core import convert_to_tensor


def dice(y_true: Any, y_pred: Any, axis: Any = None) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    intersection = tm.reduce_sum(y_true * y_pred, axis=axis)
    total = tm.reduce_sum(y_true, axis=axis) + tm.reduce_sum(y_pred, axis=axis) + epsilon()
    return 1 - tm.divide(2.0 * intersection, total)


def tversky(
    y_true: Any, y_pred: Any, alpha: float = 0.5, beta: float = 0.5, axis: Any = None
) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    intersection = tm.reduce_sum(y_true * y_pred, axis=axis)
    fp = tm.reduce_sum((1 - y_pred) * y_true, axis=axis)
    fn = tm.reduce_sum(y_pred * (1 - y_true), axis=axis)
    return 1 - tm.divide(intersection, intersection + fp * alpha + fn * beta + epsilon())


class Dice(LossFunctionWrapper):
    def __init__(
        self,
        reduction: Any = "sum_over_batch_size",
        name: str = "dice",
        axis: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(dice, name=name, reduction=reduction, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        return {**Loss.get_config(self), "axis": self.axis}


class Tversky(LossFunctionWrapper):
    def __init__(
        self,
        alpha: float = 0.5,
        beta: float = 0.5,
        reduction: Any = "sum_over_batch_size",
        name: str = "tversky",
        axis: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            tversky, name=name, reduction=reduction, dtype=dtype, alpha=alpha, beta=beta, axis=axis
        )
        self.alpha, self.beta, self.axis = alpha, beta, axis

    def get_config(self) -> dict[str, Any]:
        return {**Loss.get_config(self), "alpha": self.alpha, "beta": self.beta, "axis": self.axis}
