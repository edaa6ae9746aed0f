"""``tf.keras.regularizers``: weight penalties (L1, L2, L1L2) that ``layer.losses`` adds up,
computed as Keras 3 computes them."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import elementwise as m
from symgrad.ops.reduction.reduce import reduce_sum

__all__ = [
    "L1",
    "L1L2",
    "L2",
    "OrthogonalRegularizer",
    "Regularizer",
    "deserialize",
    "get",
    "l1",
    "l1_l2",
    "l2",
    "orthogonal_regularizer",
    "serialize",
]


class Regularizer:
    """Base class: ``regularizer(x)`` is a scalar penalty."""

    def __call__(self, x: Any) -> Any:
        return 0.0

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError(f"{self} does not implement get_config()")

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**config)


def _validate(value: Any, name: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ValueError(
            f"Invalid value for argument {name}: expected a float. Received: {name}={value}"
        )
    return float(value)


def _l1(x: Any, factor: float) -> Any:
    return m.multiply(array.cast(factor, x.dtype), reduce_sum(m.abs(x)))


def _l2(x: Any, factor: float) -> Any:
    return m.multiply(array.cast(factor, x.dtype), reduce_sum(m.square(x)))


class L1L2(Regularizer):
    def __init__(self, l1: Any = 0.0, l2: Any = 0.0) -> None:
        self.l1 = _validate(0.0 if l1 is None else l1, "l1")
        self.l2 = _validate(0.0 if l2 is None else l2, "l2")

    def __call__(self, x: Any) -> Any:
        x = convert_to_tensor(x)
        total = convert_to_tensor(0.0, dtype=x.dtype)
        if self.l1 != 0.0:
            total = m.add(total, _l1(x, self.l1))
        if self.l2 != 0.0:
            total = m.add(total, _l2(x, self.l2))
        return total

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    def __init__(self, l1: Any = 0.01) -> None:
        # Keras 3's L1 keeps its factor as a float32 tensor (L2 keeps a Python float).
        self.l1 = float(np.float32(_validate(0.01 if l1 is None else l1, "l1")))

    def __call__(self, x: Any) -> Any:
        return _l1(convert_to_tensor(x), self.l1)

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1}


class L2(Regularizer):
    def __init__(self, l2: Any = 0.01) -> None:
        self.l2 = _validate(0.01 if l2 is None else l2, "l2")

    def __call__(self, x: Any) -> Any:
        return _l2(convert_to_tensor(x), self.l2)

    def get_config(self) -> dict[str, Any]:
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Keras 3's: ``factor * 0.5 * sum(|off-diagonal of the normalized rows' (or
    columns') Gram matrix|) / pairs`` for a rank-2 weight; ``factor`` held as float32."""

    def __init__(self, factor: Any = 0.01, mode: str = "rows") -> None:
        if (
            not isinstance(value := factor, (float, int))
            or np.isinf(value) or np.isnan(value) or value < 0
        ):  # fmt: skip
            raise ValueError(
                "Invalid value for argument factor: expected a non-negative float."
                f"Received: factor={factor}"
            )
        self.factor = np.float32(factor)
        if mode not in {"rows", "columns"}:
            raise ValueError(
                "Invalid value for argument `mode`. Expected one of "
                f'{{"rows", "columns"}}. Received: mode={mode}'
            )
        self.mode = mode

    def __call__(self, inputs: Any) -> Any:
        from symgrad.keras import ops

        inputs = convert_to_tensor(inputs)
        if len(inputs.shape) != 2:
            raise ValueError(
                "Inputs to OrthogonalRegularizer must have rank 2. Received: "
                f"inputs.shape={tuple(inputs.shape.as_list())}"
            )
        if self.mode == "rows":
            inputs = ops.normalize(inputs, axis=1)
            product = ops.matmul(inputs, ops.transpose(inputs))
            size = inputs.shape[0]
        else:
            inputs = ops.normalize(inputs, axis=0)
            product = ops.matmul(ops.transpose(inputs), inputs)
            size = inputs.shape[1]
        off = m.multiply(product, m.subtract(1.0, ops.eye(size, dtype=inputs.dtype)))
        num_pairs = size * (size - 1.0) / 2.0
        factor = m.multiply(array.cast(self.factor, inputs.dtype), 0.5)
        return m.divide(m.multiply(factor, reduce_sum(m.abs(off))), num_pairs)

    def get_config(self) -> dict[str, Any]:
        return {"factor": float(self.factor), "mode": self.mode}


l1, l2, l1_l2 = L1, L2, L1L2
orthogonal_regularizer = OrthogonalRegularizer
_BY_NAME: dict[str, Any] = {"L1": L1, "L2": L2, "L1L2": L1L2, "l1": L1, "l2": L2, "l1_l2": L1L2,
                            "OrthogonalRegularizer": OrthogonalRegularizer,
                            "orthogonal_regularizer": OrthogonalRegularizer}  # fmt: skip


def serialize(regularizer: Any) -> Any:
    """Keras's dict: ``module``, ``class_name``, ``config``, ``registered_name``."""
    from symgrad.keras.layers.config import serialize_object

    return serialize_object(regularizer)


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    return {**_BY_NAME, **(custom_objects or {})}[config["class_name"]].from_config(
        config["config"]
    )


def get(identifier: Any) -> Any:
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
        return _BY_NAME[identifier]()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
