"""``tf.keras.constraints``: projections a Keras optimizer applies to a variable after each
update (``variable.assign(constraint(variable))``), as Keras 3 computes them."""

from __future__ import annotations

from typing import Any

from symgrad.api.clip_ops import clip_by_value
from symgrad.keras import backend
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as m
from symgrad.ops.reduction.reduce import reduce_sum

__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "deserialize",
    "get",
    "serialize",
]


class Constraint:
    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**config)


def _norms(w: Any, axis: Any) -> Any:
    return m.sqrt(reduce_sum(m.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    def __init__(self, max_value: Any = 2, axis: Any = 0) -> None:
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = clip_by_value(
            norms, array.cast(0, norms.dtype), array.cast(self.max_value, norms.dtype)
        )
        return m.multiply(w, m.divide(desired, m.add(backend.epsilon(), norms)))

    def get_config(self) -> dict[str, Any]:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        return m.maximum(w, array.cast(0, w.dtype))


class UnitNorm(Constraint):
    def __init__(self, axis: Any = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        return m.divide(w, m.add(backend.epsilon(), _norms(w, self.axis)))

    def get_config(self) -> dict[str, Any]:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    def __init__(
        self, min_value: Any = 0.0, max_value: Any = 1.0, rate: Any = 1.0, axis: Any = 0
    ) -> None:
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        lo, hi = array.cast(self.min_value, norms.dtype), array.cast(self.max_value, norms.dtype)
        desired = m.add(
            m.multiply(self.rate, clip_by_value(norms, lo, hi)), m.multiply(1 - self.rate, norms)
        )
        return m.multiply(w, m.divide(desired, m.add(backend.epsilon(), norms)))

    def get_config(self) -> dict[str, Any]:
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm
_BY_NAME: dict[str, Any] = {
    "MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm,
    "max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm,
}  # fmt: skip


def serialize(constraint: Any) -> Any:
    return {"class_name": type(constraint).__name__, "config": constraint.get_config()}


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    objects = {**_BY_NAME, **(custom_objects or {})}
    return objects[config["class_name"]].from_config(config["config"])


def get(identifier: Any) -> Any:
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret constraint identifier: {identifier}")
        return _BY_NAME[identifier]()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret constraint identifier: {identifier}")
