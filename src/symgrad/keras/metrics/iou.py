"""Keras 3's IoU metrics (``keras/src/metrics/iou_metrics.py``): a confusion matrix (int64
by default) accumulated over batches; IoU per target class, averaged over valid classes."""

from __future__ import annotations

from typing import Any

from symgrad.api import math as tm
from symgrad.api.linalg import diag_part
from symgrad.core.graph import Tensor
from symgrad.keras.losses._common import epsilon, to_tensor
from symgrad.keras.metrics.base import Metric
from symgrad.ops.array import shape
from symgrad.ops.array import structure as array
from symgrad.ops.array.gather import gather, scatter_nd
from symgrad.ops.array.joining import stack


class IoU(Metric):
    """Intersection over union of the classes in ``target_class_ids``, averaged."""

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Any,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ) -> None:
        super().__init__(name=name, dtype=dtype or "int64")
        self.num_classes, self.ignore_class, self.axis = num_classes, ignore_class, axis
        self.sparse_y_true, self.sparse_y_pred = sparse_y_true, sparse_y_pred
        if max(target_class_ids) >= num_classes:
            raise ValueError(
                f"Target class id {max(target_class_ids)} is out of range, which is "
                f"[0, {num_classes})."
            )
        self.target_class_ids = list(target_class_ids)
        self.total_cm = self.add_variable(
            name="total_confusion_matrix",
            shape=(num_classes, num_classes),
            initializer="zeros",
            dtype=self.dtype,
        )

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        if not self.sparse_y_true:
            y_true = tm.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = tm.argmax(y_pred, axis=self.axis)
        y_true = shape.reshape(to_tensor(y_true, self.dtype), [-1])
        y_pred = shape.reshape(to_tensor(y_pred, self.dtype), [-1])
        w = shape.reshape(
            to_tensor(1 if sample_weight is None else sample_weight, self.dtype), [-1]
        )
        w = array.broadcast_to(w, shape.shape(y_true))
        n = to_tensor(self.num_classes, y_true.dtype)
        ok = tm.logical_and(
            tm.logical_and(tm.greater_equal(y_true, 0), tm.less(y_true, n)),
            tm.logical_and(tm.greater_equal(y_pred, 0), tm.less(y_pred, n)),
        )
        if self.ignore_class is not None:
            ok = tm.logical_and(
                ok, tm.not_equal(y_true, to_tensor(self.ignore_class, y_true.dtype))
            )
        zeros = array.zeros_like(y_true)
        y_true, y_pred = array.where(ok, y_true, zeros), array.where(ok, y_pred, zeros)
        w = array.where(ok, w, array.zeros_like(w))
        indices = array.cast(stack([y_true, y_pred], axis=1), "int64")
        cm = scatter_nd(indices, w, [self.num_classes, self.num_classes])
        self.total_cm.assign(self.total_cm + cm)

    def result(self) -> Tensor:
        cm = self.total_cm
        rows = array.cast(tm.reduce_sum(cm, axis=0), self.dtype)
        cols = array.cast(tm.reduce_sum(cm, axis=1), self.dtype)
        tp = array.cast(diag_part(cm), self.dtype)
        ids = to_tensor(self.target_class_ids, "int32")
        tp = array.cast(gather(tp, ids, axis=-1), "float32")
        denominator = array.cast(
            gather(rows + cols - array.cast(diag_part(cm), self.dtype), ids, axis=-1), "float32"
        )
        valid = array.cast(tm.greater(denominator, 1e-9), "float32")
        iou = tp / (denominator + epsilon())
        iou = array.where(array.cast(valid, "bool"), iou, array.zeros_like(iou))
        return tm.reduce_sum(iou, axis=self.axis) / (tm.reduce_sum(valid) + epsilon())

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(), "num_classes": self.num_classes,
            "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }  # fmt: skip


class BinaryIoU(IoU):
    """IoU of predictions thresholded at ``threshold`` (``>=``), classes 0 and 1."""

    def __init__(
        self,
        target_class_ids: Any = (0, 1),
        threshold: float = 0.5,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true = to_tensor(y_true, self.dtype)
        y_pred = array.cast(
            tm.greater_equal(to_tensor(y_pred, "float32"), self.threshold), self.dtype
        )
        super().update_state(y_true, y_pred, sample_weight)

    def get_config(self) -> dict[str, Any]:
        return {
            "target_class_ids": self.target_class_ids,
            "threshold": self.threshold,
            "name": self.name,
            "dtype": self.dtype,
        }


class MeanIoU(IoU):
    """IoU averaged over all ``num_classes`` classes."""

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ) -> None:
        super().__init__(
            num_classes, list(range(num_classes)), name=name, dtype=dtype,
            ignore_class=ignore_class, sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred, axis=axis,
        )  # fmt: skip

    def get_config(self) -> dict[str, Any]:
        return {
            "num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
            "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred, "axis": self.axis,
        }  # fmt: skip


class OneHotIoU(IoU):
    """IoU with one-hot labels (and, unless ``sparse_y_pred``, per-class scores)."""

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Any,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ) -> None:
        super().__init__(
            num_classes, target_class_ids, name=name, dtype=dtype, ignore_class=ignore_class,
            sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis,
        )  # fmt: skip


class OneHotMeanIoU(MeanIoU):
    """MeanIoU with one-hot labels (and, unless ``sparse_y_pred``, per-class scores)."""

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ) -> None:
        super().__init__(
            num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
            sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis,
        )  # fmt: skip
