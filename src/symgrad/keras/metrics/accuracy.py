"""Keras 3's accuracy metrics (``keras/src/metrics/accuracy_metrics.py``)."""

from __future__ import annotations

from typing import Any

from symgrad.api import math as tm
from symgrad.core.graph import Tensor
from symgrad.keras.losses._common import floatx, squeeze_or_expand_to_same_rank, to_tensor
from symgrad.keras.metrics.base import MeanMetricWrapper
from symgrad.ops.array import shape
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor


def _float(x: Tensor) -> Tensor:
    return array.cast(x, floatx())


def accuracy(y_true: Any, y_pred: Any) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return _float(tm.equal(y_true, y_pred))


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    y_pred = array.cast(tm.greater(y_pred, to_tensor(threshold, y_pred.dtype)), y_true.dtype)
    return _float(tm.equal(y_true, y_pred))


def _argmax_matches(y_true: Tensor, y_pred: Tensor, squeeze_last: bool) -> Tensor:
    original = shape.shape(y_true)
    reshape = False
    if len(y_true.shape) == len(y_pred.shape) and squeeze_last:
        y_true = shape.squeeze(y_true, [-1])
        reshape = True
    pred = tm.argmax(y_pred, axis=-1)
    if pred.dtype is not y_true.dtype:
        pred = array.cast(pred, y_true.dtype)
    matches = _float(tm.equal(y_true, pred))
    if reshape:
        matches = shape.reshape(matches, original)
    return matches


def categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    y_true = tm.argmax(convert_to_tensor(y_true), axis=-1)
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    return _argmax_matches(y_true, y_pred, True)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    last_is_one = len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1
    matches = _argmax_matches(y_true, y_pred, last_is_one)
    if len(matches.shape) > 1 and matches.shape[-1] == 1:
        matches = shape.squeeze(matches, [-1])
    return matches


def _flat_top_k(y_true: Tensor, y_pred: Tensor) -> tuple[Tensor, Tensor, Any]:
    original = shape.shape(y_true)
    if len(y_pred.shape) > 2:
        y_pred = shape.reshape(y_pred, [-1, y_pred.shape[-1]])
    reshape = None
    if len(y_true.shape) > 1:
        reshape = original
        y_true = shape.reshape(y_true, [-1])
    return y_true, y_pred, reshape


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = tm.argmax(to_tensor(y_true, y_pred.dtype), axis=-1)
    y_true, y_pred, reshape = _flat_top_k(y_true, y_pred)
    matches = _float(tm.in_top_k(array.cast(y_true, "int32"), y_pred, k))
    return matches if reshape is None else shape.reshape(matches, reshape)


def sparse_top_k_categorical_accuracy(
    y_true: Any, y_pred: Any, k: int = 5, from_sorted_ids: bool = False
) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype if from_sorted_ids else "int32")
    y_true, y_pred, reshape = _flat_top_k(y_true, y_pred)
    if from_sorted_ids:
        hits = tm.equal(shape.expand_dims(y_true, 1), y_pred[:, :k])
        matches = tm.reduce_any(hits, axis=1)
    else:
        matches = tm.in_top_k(y_true, y_pred, k)
    matches = _float(matches)
    return matches if reshape is None else shape.reshape(matches, reshape)


class Accuracy(MeanMetricWrapper):
    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(fn=accuracy, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype}


class BinaryAccuracy(MeanMetricWrapper):
    def __init__(
        self, name: str = "binary_accuracy", dtype: Any = None, threshold: float = 0.5
    ) -> None:
        super().__init__(fn=binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype, "threshold": self.threshold}


class CategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(fn=categorical_accuracy, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype}


class SparseCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(fn=sparse_categorical_accuracy, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype}


class TopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(
        self, k: int = 5, name: str = "top_k_categorical_accuracy", dtype: Any = None
    ) -> None:
        super().__init__(fn=top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype, "k": self.k}


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(
        self,
        k: int = 5,
        name: str = "sparse_top_k_categorical_accuracy",
        dtype: Any = None,
        from_sorted_ids: bool = False,
    ) -> None:
        super().__init__(
            fn=sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k,
            from_sorted_ids=from_sorted_ids,
        )  # fmt: skip
        self.k = k
        self.from_sorted_ids = from_sorted_ids

    def get_config(self) -> dict[str, Any]:
        config = {"name": self.name, "dtype": self.dtype, "k": self.k}
        if self.from_sorted_ids:
            config["from_sorted_ids"] = True
        return config
