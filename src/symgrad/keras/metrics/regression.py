"""Keras 3's regression, probabilistic and hinge metrics (means of a loss function per
sample) and ``RootMeanSquaredError``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from symgrad.api import math as tm
from symgrad.core.graph import Tensor
from symgrad.keras.losses import functions as F
from symgrad.keras.losses._common import epsilon, squeeze_or_expand_to_same_rank, to_tensor
from symgrad.keras.metrics.base import Mean, MeanMetricWrapper
from symgrad.ops.core import convert_to_tensor


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """The metric's cosine similarity: the loss's without its minus sign."""
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return tm.reduce_sum(F.l2_normalize(y_true, axis) * F.l2_normalize(y_pred, axis), axis=axis)


def _wrapper(
    cls_name: str,
    fn: Callable[..., Any],
    default_name: str,
    options: tuple[tuple[str, Any], ...] = (),
) -> type:
    """A ``MeanMetricWrapper`` class of ``fn`` with Keras's signature
    ``(name=default_name, dtype=None, *options)``."""

    def __init__(self: Any, name: str = default_name, dtype: Any = None, **kwargs: Any) -> None:
        allowed = dict(options)
        unknown = set(kwargs) - set(allowed)
        if unknown:
            raise TypeError(
                f"{cls_name}.__init__() got an unexpected keyword argument {sorted(unknown)[0]!r}"
            )
        values = {**allowed, **kwargs}
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **values)
        for k, v in values.items():
            setattr(self, k, v)

    def get_config(self: Any) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype, **{k: getattr(self, k) for k, _ in options}}

    __init__.__signature__ = _signature(default_name, options)  # type: ignore[attr-defined]
    doc = f"``tf.keras.metrics.{cls_name}``: the mean of ``{fn.__name__}`` over the samples seen."
    return type(
        cls_name,
        (MeanMetricWrapper,),
        {"__init__": __init__, "get_config": get_config, "__doc__": doc},
    )


def _signature(default_name: str, options: tuple[tuple[str, Any], ...]) -> Any:
    P = inspect.Parameter
    params = [
        P("self", P.POSITIONAL_OR_KEYWORD),
        P("name", P.POSITIONAL_OR_KEYWORD, default=default_name),
    ]
    params.append(P("dtype", P.POSITIONAL_OR_KEYWORD, default=None))
    params += [P(k, P.POSITIONAL_OR_KEYWORD, default=v) for k, v in options]
    return inspect.Signature(params)


MeanSquaredError = _wrapper("MeanSquaredError", F.mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _wrapper("MeanAbsoluteError", F.mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = _wrapper(
    "MeanAbsolutePercentageError",
    F.mean_absolute_percentage_error,
    "mean_absolute_percentage_error",
)
MeanSquaredLogarithmicError = _wrapper(
    "MeanSquaredLogarithmicError",
    F.mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error",
)
CosineSimilarity = _wrapper(
    "CosineSimilarity", cosine_similarity, "cosine_similarity", (("axis", -1),)
)
LogCoshError = _wrapper("LogCoshError", F.log_cosh, "logcosh")
KLDivergence = _wrapper("KLDivergence", F.kl_divergence, "kl_divergence")
Poisson = _wrapper("Poisson", F.poisson, "poisson")
Hinge = _wrapper("Hinge", F.hinge, "hinge")
SquaredHinge = _wrapper("SquaredHinge", F.squared_hinge, "squared_hinge")
CategoricalHinge = _wrapper("CategoricalHinge", F.categorical_hinge, "categorical_hinge")
BinaryCrossentropy = _wrapper(
    "BinaryCrossentropy", F.binary_crossentropy, "binary_crossentropy",
    (("from_logits", False), ("label_smoothing", 0)),
)  # fmt: skip
CategoricalCrossentropy = _wrapper(
    "CategoricalCrossentropy", F.categorical_crossentropy, "categorical_crossentropy",
    (("from_logits", False), ("label_smoothing", 0), ("axis", -1)),
)  # fmt: skip
SparseCategoricalCrossentropy = _wrapper(
    "SparseCategoricalCrossentropy", F.sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy",
    (("from_logits", False), ("ignore_class", None), ("axis", -1)),
)  # fmt: skip


class RootMeanSquaredError(Mean):
    """``sqrt`` of the mean squared error over the samples seen."""

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:  # type: ignore[override]
        y_true = to_tensor(y_true, self.dtype)
        y_pred = to_tensor(y_pred, self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        super().update_state(tm.square(y_pred - y_true), sample_weight=sample_weight)

    def result(self) -> Tensor:
        return tm.sqrt(super().result())


def pearson_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """Keras's Pearson correlation along ``axis``."""
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    t = y_true - tm.reduce_mean(y_true, axis=axis, keepdims=True)
    p = y_pred - tm.reduce_mean(y_pred, axis=axis, keepdims=True)
    t = t / tm.reduce_std(t, axis=axis, keepdims=True)
    p = p / tm.reduce_std(p, axis=axis, keepdims=True)
    return tm.reduce_mean(t * p, axis=axis)


def concordance_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """Keras's concordance correlation along ``axis`` (its covariance term centres
    ``y_true`` on ``y_pred``'s mean, as Keras 3.15 does)."""
    y_pred = convert_to_tensor(y_pred)
    y_true = to_tensor(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    t_mean = tm.reduce_mean(y_true, axis=axis, keepdims=True)
    p_mean = tm.reduce_mean(y_pred, axis=axis, keepdims=True)
    t_var = tm.reduce_variance(y_true - t_mean, axis=axis, keepdims=True)
    p_var = tm.reduce_variance(y_pred - p_mean, axis=axis, keepdims=True)
    covar = (y_true - p_mean) * (y_pred - p_mean)
    norm = t_var + p_var + tm.square(t_mean - p_mean)
    return tm.reduce_mean(2 * covar / (norm + epsilon()), axis=axis)


PearsonCorrelation = _wrapper(
    "PearsonCorrelation", pearson_correlation, "pearson_correlation", (("axis", -1),)
)
ConcordanceCorrelation = _wrapper(
    "ConcordanceCorrelation", concordance_correlation, "concordance_correlation", (("axis", -1),)
)
