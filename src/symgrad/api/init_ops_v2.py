"""TF2's initializers at the top level (``tf.random_normal_initializer`` ..., TF's
``init_ops_v2``): no ``dtype`` argument (``__call__(shape, dtype=tf.float32)`` takes it),
TF2's defaults (``stddev=0.05``, ``minval=-0.05, maxval=0.05``), and with a seed the
stateless ops with seed ``[seed, 0]`` (as TF's ``_RandomGenerator``); without one the
stateful ops.  TF1's classes stay under ``tf.compat.v1`` (:mod:`symgrad.api.init_ops`).
"""

from __future__ import annotations

from typing import Any

from symgrad.api import init_ops as _v1
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor
from symgrad.ops.array import structure as array
from symgrad.ops.random import seeded as random
from symgrad.ops.random import stateless as _stateless


class Initializer:
    """Base class: ``__call__(shape, dtype=tf.float32, **kwargs)`` -> a tensor."""

    def __call__(self, shape: Any, dtype: Any = dt.float32, **kwargs: Any) -> Tensor:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        return cls(**config)


class Zeros(Initializer):
    def __call__(self, shape: Any, dtype: Any = dt.float32, **kwargs: Any) -> Tensor:
        return array.zeros(shape, dtype)


class Ones(Initializer):
    def __call__(self, shape: Any, dtype: Any = dt.float32, **kwargs: Any) -> Tensor:
        return array.ones(shape, dtype)


class Constant(Initializer):
    def __init__(self, value: Any = 0, support_partition: bool = False) -> None:
        self._v1 = _v1.Constant(value)
        self.value, self.support_partition = value, support_partition

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
        return self._v1(shape, dtype)

    def get_config(self) -> dict[str, Any]:
        return {"value": self.value}


class RandomUniform(Initializer):
    def __init__(self, minval: Any = -0.05, maxval: Any = 0.05, seed: int | None = None) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape: Any, dtype: Any = dt.float32, **kwargs: Any) -> Tensor:
        if self.seed is None:
            return random.random_uniform(shape, self.minval, self.maxval, dtype)
        return _stateless.stateless_random_uniform(
            shape, [self.seed, 0], self.minval, self.maxval, dtype
        )

    def get_config(self) -> dict[str, Any]:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class RandomNormal(Initializer):
    def __init__(self, mean: Any = 0.0, stddev: Any = 0.05, seed: int | None = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape: Any, dtype: Any = dt.float32, **kwargs: Any) -> Tensor:
        d = _v1._float_dtype(dtype)
        if self.seed is None:
            return random.random_normal(shape, self.mean, self.stddev, d)
        return _stateless.stateless_random_normal(shape, [self.seed, 0], self.mean, self.stddev, d)

    def get_config(self) -> dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
