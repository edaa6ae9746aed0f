"""Keras 3's ``Metric`` base and the reduction metrics ``Sum``, ``Mean``,
``MeanMetricWrapper`` (``keras/src/metrics/metric.py``, ``reduction_metrics.py``).

A metric's state is symgrad Variables (not trainable), so ``update_state`` works eagerly,
in a tape loop and inside ``function`` (the assignments are stateful ops there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.api import math as tm
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.keras.losses._common import (
    auto_name,
    floatx,
    get_mask,
    squeeze_or_expand_to_same_rank,
    to_tensor,
)
from symgrad.keras.losses.classes import apply_mask
from symgrad.ops.array import shape
from symgrad.ops.array import structure as array
from symgrad.ops.state.variable_enums import VariableSynchronization
from symgrad.ops.state.variables import Variable


class Metric:
    """``tf.keras.metrics.Metric``: state in variables, ``update_state``/``result``."""

    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        self.name = name or auto_name(type(self).__name__)
        self._dtype = dt.as_dtype(dtype or floatx()).name
        self._variables: list[Variable] = []
        self._metrics: list[Metric] = []

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def variables(self) -> list[Variable]:
        out = list(self._variables)
        for m in self._metrics:
            out.extend(m.variables)
        return out

    def add_variable(
        self,
        shape: Any,
        initializer: Any,
        dtype: Any = None,
        aggregation: str = "sum",
        name: str | None = None,
    ) -> Any:
        if not hasattr(self, "_variables"):
            raise RuntimeError(
                "You forgot to call `super().__init__()` in the `__init__()` method. Go add it!"
            )
        d = dt.as_dtype(dtype or self.dtype)
        value = _initial(initializer, tuple(shape), d)
        with name_scope(self.name.replace("/", ">")):
            v = Variable(
                value, trainable=False, name=name, dtype=d,
                synchronization=VariableSynchronization.ON_READ,  # Keras 3's, for tf.distribute
            )  # fmt: skip
        self._variables.append(v)
        return v

    def add_weight(
        self, shape: Any = (), initializer: Any = None, dtype: Any = None, name: str | None = None
    ) -> Any:
        return self.add_variable(shape=shape, initializer=initializer, dtype=dtype, name=name)

    def reset_state(self) -> None:
        for v in self.variables:
            v.assign(np.zeros(v.shape.as_list(), v.dtype.np))

    def update_state(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def result(self) -> Any:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"

    __str__ = __repr__


def _initial(initializer: Any, shape: tuple[int, ...], d: dt.DType) -> Any:
    if initializer is None or initializer in ("zeros", "Zeros"):
        return np.zeros(shape, d.np)
    if initializer in ("ones", "Ones"):
        return np.ones(shape, d.np)
    if callable(initializer):
        return initializer(shape, dtype=d)
    raise ValueError(f"Metric.add_variable: unknown initializer {initializer!r}")


def reduce_to_samplewise_values(
    values: Any, sample_weight: Any, reduce_fn: Callable[..., Any], dtype: Any
) -> Any:
    """Keras: reduce to one value per sample, weighting by ``sample_weight``."""
    mask = get_mask(values)
    values = array.cast(values, dtype)
    if sample_weight is not None:
        sample_weight = to_tensor(sample_weight, dtype)
        if mask is not None:
            sample_weight = apply_mask(sample_weight, mask, dtype, "sum")
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        w_ndim, v_ndim = len(sample_weight.shape), len(values.shape)
        if v_ndim > w_ndim:
            values = reduce_fn(values, axis=list(range(w_ndim, v_ndim)))
        sample_weight = array.broadcast_to(sample_weight, shape.shape(values))
        values = values * sample_weight
        if w_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, w_ndim)))
    if len(values.shape) > 1:
        values = reduce_fn(values, axis=list(range(1, len(values.shape))))
    return values, sample_weight


class Sum(Metric):
    """The weighted sum of the values seen."""

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="total"
        )

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        values, _ = reduce_to_samplewise_values(values, sample_weight, tm.reduce_sum, self.dtype)
        self.total.assign_add(tm.reduce_sum(values))

    def result(self) -> Tensor:
        return array.cast(self.total, self.dtype)


class Mean(Metric):
    """The weighted mean of the values seen: ``total / count``."""

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="total"
        )
        self.count = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="count"
        )

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        values, sample_weight = reduce_to_samplewise_values(
            values, sample_weight, tm.reduce_mean, self.dtype
        )
        self.total.assign_add(tm.reduce_sum(values))
        if sample_weight is not None:
            num: Any = tm.reduce_sum(sample_weight)
        elif len(values.shape) >= 1:
            num = shape.shape(values)[0]
        else:
            num = 1
        self.count.assign_add(array.cast(num, self.dtype))

    def result(self) -> Tensor:
        return tm.divide_no_nan(self.total, array.cast(self.count, self.dtype))


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)`` over the samples seen."""

    def __init__(
        self, fn: Callable[..., Any], name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(name=name, dtype=dtype)  # type: ignore[arg-type]
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:  # type: ignore[override]
        mask = get_mask(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        sample_weight = apply_mask(sample_weight, mask, self.dtype, "sum")
        super().update_state(values, sample_weight=sample_weight)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "fn": getattr(self._fn, "__name__", str(self._fn)),
            **self._fn_kwargs,
        }
