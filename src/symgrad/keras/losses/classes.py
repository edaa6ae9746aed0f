"""Keras 3's ``Loss`` base (reductions, sample weights, masks) and its loss classes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.api import math as tm
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.keras.losses import functions as F
from symgrad.keras.losses._common import (
    auto_name,
    floatx,
    get_mask,
    squeeze_or_expand_to_same_rank,
    to_tensor,
)
from symgrad.ops.array import shape
from symgrad.ops.array import structure as array

REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight")


def standardize_reduction(reduction: Any) -> Any:
    if reduction not in REDUCTIONS:
        raise ValueError(
            f"Invalid value for argument `reduction`. Expected one of {set(REDUCTIONS)}. "
            f"Received: reduction={reduction}"
        )
    return reduction


class Loss:
    """``tf.keras.losses.Loss``: subclass and define ``call(y_true, y_pred)``."""

    def __init__(
        self, name: str | None = None, reduction: Any = "sum_over_batch_size", dtype: Any = None
    ) -> None:
        self.name = name or auto_name(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        self._dtype = dt.as_dtype(dtype or floatx()).name

    @property
    def dtype(self) -> str:
        return self._dtype

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Tensor:
        in_mask = get_mask(y_pred)
        with name_scope(self.name):
            y_pred = to_tensor(y_pred, self.dtype)
            y_true = to_tensor(y_true, self.dtype)
            losses = self.call(y_true, y_pred)
            out_mask = get_mask(losses)
            if in_mask is not None and out_mask is not None:
                mask = tm.logical_and(in_mask, out_mask)
            else:
                mask = in_mask if in_mask is not None else out_mask
            return reduce_weighted_values(losses, sample_weight, mask, self.reduction, self.dtype)

    def call(self, y_true: Any, y_pred: Any) -> Tensor:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**config)


def reduce_values(
    values: Tensor, sample_weight: Any = None, reduction: Any = "sum_over_batch_size"
) -> Tensor:
    if reduction in (None, "none") or tuple(values.shape) in ((), (0,)):
        return values
    loss = tm.reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = array.cast(tm.reduce_sum(sample_weight), loss.dtype)
        else:
            divisor = array.cast(tm.reduce_prod(shape.shape(values)), loss.dtype)
        loss = tm.divide_no_nan(loss, divisor)
    return loss


def reduce_weighted_values(
    values: Any,
    sample_weight: Any = None,
    mask: Any = None,
    reduction: Any = "sum_over_batch_size",
    dtype: Any = None,
) -> Tensor:
    reduction = standardize_reduction(reduction)
    values = to_tensor(values, dtype)
    if sample_weight is not None:
        sample_weight = to_tensor(sample_weight, dtype)
    if mask is not None:
        mask = to_tensor(mask, dtype)
    sample_weight = apply_mask(sample_weight, mask, values.dtype, reduction)
    if sample_weight is not None:
        sample_weight = array.cast(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    return reduce_values(values, sample_weight, reduction)


def apply_mask(sample_weight: Any, mask: Any, dtype: Any, reduction: Any) -> Any:
    """Keras: under a mean, masked-out entries are dropped and the rest reweighted."""
    if mask is None:
        return sample_weight
    if reduction in ("mean", "sum_over_batch_size"):
        total = array.cast(tm.reduce_prod(shape.shape(mask)), dtype)
        valid = tm.reduce_sum(array.cast(mask, dtype))
        weight = tm.divide_no_nan(total, valid)
        float_mask = array.where(
            array.cast(mask, "bool"),
            weight * array.ones_like(array.cast(mask, dtype)),
            array.zeros_like(array.cast(mask, dtype)),
        )
    else:
        float_mask = array.cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    sample_weight = array.cast(sample_weight, dtype)
    float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
    return sample_weight * float_mask


class LossFunctionWrapper(Loss):
    """A ``Loss`` whose ``call`` is ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(
        self,
        fn: Callable[..., Any],
        reduction: Any = "sum_over_batch_size",
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: Any, y_pred: Any) -> Tensor:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)  # type: ignore[no-any-return]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"fn": getattr(self.fn, "__name__", str(self.fn))})
        config.update(self._fn_kwargs)
        return config

    def __repr__(self) -> str:
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"


def _simple(cls_name: str, fn: Callable[..., Any], default_name: str) -> type:
    def __init__(
        self: Any,
        reduction: Any = "sum_over_batch_size",
        name: str = default_name,
        dtype: Any = None,
    ) -> None:
        LossFunctionWrapper.__init__(self, fn, name=name, reduction=reduction, dtype=dtype)

    def get_config(self: Any) -> dict[str, Any]:
        return Loss.get_config(self)

    doc = f"``tf.keras.losses.{cls_name}``: ``{fn.__name__}`` reduced over the batch."
    return type(
        cls_name,
        (LossFunctionWrapper,),
        {"__init__": __init__, "get_config": get_config, "__doc__": doc},
    )


MeanSquaredError = _simple("MeanSquaredError", F.mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _simple("MeanAbsoluteError", F.mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = _simple(
    "MeanAbsolutePercentageError",
    F.mean_absolute_percentage_error,
    "mean_absolute_percentage_error",
)
MeanSquaredLogarithmicError = _simple(
    "MeanSquaredLogarithmicError",
    F.mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error",
)
LogCosh = _simple("LogCosh", F.log_cosh, "log_cosh")
Hinge = _simple("Hinge", F.hinge, "hinge")
SquaredHinge = _simple("SquaredHinge", F.squared_hinge, "squared_hinge")
CategoricalHinge = _simple("CategoricalHinge", F.categorical_hinge, "categorical_hinge")
KLDivergence = _simple("KLDivergence", F.kl_divergence, "kl_divergence")
Poisson = _simple("Poisson", F.poisson, "poisson")


class _Configured(LossFunctionWrapper):
    """A wrapper whose config lists its options (Keras's per-class get_config)."""

    _options: tuple[str, ...] = ()

    def get_config(self) -> dict[str, Any]:
        config = Loss.get_config(self)
        config.update({k: getattr(self, k) for k in self._options})
        return config


class CosineSimilarity(LossFunctionWrapper):
    def __init__(
        self,
        axis: int = -1,
        reduction: Any = "sum_over_batch_size",
        name: str = "cosine_similarity",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            F.cosine_similarity, name=name, reduction=reduction, dtype=dtype, axis=axis
        )

    def get_config(self) -> dict[str, Any]:
        return Loss.get_config(self)


class Huber(LossFunctionWrapper):
    def __init__(
        self,
        delta: float = 1.0,
        reduction: Any = "sum_over_batch_size",
        name: str = "huber_loss",
        dtype: Any = None,
    ) -> None:
        super().__init__(F.huber, name=name, reduction=reduction, dtype=dtype, delta=delta)

    def get_config(self) -> dict[str, Any]:
        return Loss.get_config(self)  # Keras 3.15 leaves delta out too


class BinaryCrossentropy(_Configured):
    _options = ("from_logits", "label_smoothing", "axis")

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: Any = "sum_over_batch_size",
        name: str = "binary_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            F.binary_crossentropy, name=name, reduction=reduction, dtype=dtype,
            from_logits=from_logits, label_smoothing=label_smoothing, axis=axis,
        )  # fmt: skip
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis


class BinaryFocalCrossentropy(_Configured):
    _options = ("from_logits", "label_smoothing", "axis", "apply_class_balancing", "alpha", "gamma")

    def __init__(
        self,
        apply_class_balancing: bool = False,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: Any = "sum_over_batch_size",
        name: str = "binary_focal_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            F.binary_focal_crossentropy, name=name, reduction=reduction, dtype=dtype,
            apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
            from_logits=from_logits, label_smoothing=label_smoothing, axis=axis,
        )  # fmt: skip
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis
        self.apply_class_balancing, self.alpha, self.gamma = apply_class_balancing, alpha, gamma


class CategoricalCrossentropy(_Configured):
    _options = ("from_logits", "label_smoothing", "axis")

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: Any = "sum_over_batch_size",
        name: str = "categorical_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            F.categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
            from_logits=from_logits, label_smoothing=label_smoothing, axis=axis,
        )  # fmt: skip
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis


class CategoricalFocalCrossentropy(_Configured):
    _options = ("from_logits", "label_smoothing", "axis", "alpha", "gamma")

    def __init__(
        self,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: Any = "sum_over_batch_size",
        name: str = "categorical_focal_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            F.categorical_focal_crossentropy, name=name, reduction=reduction, dtype=dtype,
            alpha=alpha, gamma=gamma, from_logits=from_logits,
            label_smoothing=label_smoothing, axis=axis,
        )  # fmt: skip
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis
        self.alpha, self.gamma = alpha, gamma


class SparseCategoricalCrossentropy(_Configured):
    _options = ("from_logits", "ignore_class")

    def __init__(
        self,
        from_logits: bool = False,
        ignore_class: int | None = None,
        reduction: Any = "sum_over_batch_size",
        axis: int = -1,
        name: str = "sparse_categorical_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            F.sparse_categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
            from_logits=from_logits, ignore_class=ignore_class, axis=axis,
        )  # fmt: skip
        self.from_logits, self.ignore_class = from_logits, ignore_class
