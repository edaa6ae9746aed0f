"""TF1's initializers (``tf.compat.v1.glorot_uniform_initializer`` ...), as ``init_ops.py``.

An initializer is called as ``init(shape, dtype)`` and returns the initial value, built
from ``tf.random`` ops with the initializer's ``seed`` as op seed.  So a seeded program
draws TensorFlow's numbers: the global (or graph) seed and the op seed combine by TF's
rules in :mod:`symgrad.ops.random.seeded`, and the draws are scaled with the same float32 ops.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor
from symgrad.ops.array import structure as array
from symgrad.ops.core import constant
from symgrad.ops.linalg.decomp import qr
from symgrad.ops.linalg.diag import diag_part, eye
from symgrad.ops.math import elementwise as math_ops
from symgrad.ops.random import seeded as random


def _float_dtype(dtype: Any) -> dt.DType:
    d = dt.as_dtype(dtype)
    if not d.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {d}.")
    return d


class Initializer:
    """Base class: ``__call__(shape, dtype=None, partition_info=None)`` -> a tensor."""

    dtype: dt.DType = dt.float32

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        return cls(**config)

    def _dtype(self, dtype: Any) -> dt.DType:
        return dt.as_dtype(dtype) if dtype is not None else self.dtype


class Zeros(Initializer):
    def __init__(self, dtype: Any = dt.float32) -> None:
        self.dtype = dt.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return array.zeros(shape, self._dtype(dtype))

    def get_config(self) -> dict[str, Any]:
        return {"dtype": self.dtype.name}


class Ones(Zeros):
    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return array.ones(shape, self._dtype(dtype))


class Constant(Initializer):
    """``value`` (a scalar fills the shape; a list or array must have its size)."""

    def __init__(self, value: Any = 0, dtype: Any = dt.float32, verify_shape: bool = False):
        if not (np.isscalar(value) or isinstance(value, list | tuple | np.ndarray)):
            raise TypeError(
                f"Invalid type for initial value={value} of type: "
                f"{type(value).__name__}. Expected Python scalar, list or tuple "
                "of values, or numpy.ndarray."
            )
        self.value = value
        self.dtype = dt.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        try:
            return constant(self.value, self._dtype(dtype), shape)
        except TypeError as e:
            raise ValueError(f"constant_initializer: {e}") from None

    def get_config(self) -> dict[str, Any]:
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    def __init__(
        self,
        minval: Any = 0.0,
        maxval: Any = None,
        seed: int | None = None,
        dtype: Any = dt.float32,
    ) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = dt.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return random.random_uniform(
            shape, self.minval, self.maxval, self._dtype(dtype), seed=self.seed
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "minval": self.minval,
            "maxval": self.maxval,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class RandomNormal(Initializer):
    _draw = staticmethod(random.random_normal)

    def __init__(
        self, mean: Any = 0.0, stddev: Any = 1.0, seed: int | None = None, dtype: Any = dt.float32
    ) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return self._draw(shape, self.mean, self.stddev, self._dtype(dtype), seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "stddev": self.stddev,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class TruncatedNormal(RandomNormal):
    _draw = staticmethod(random.truncated_normal)


def _compute_fans(shape: Sequence[int]) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight shape; kernels count their receptive field."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    if len(shape) == 2:
        return int(shape[0]), int(shape[1])
    receptive = math.prod(int(d) for d in shape[:-2])
    return int(shape[-2]) * receptive, int(shape[-1]) * receptive


class VarianceScaling(Initializer):
    """Draws scaled by ``scale / fan`` (fan_in, fan_out or their mean), TF1's formulas:
    truncated normal with stddev ``sqrt(scale) / .8796...``, or uniform in ±sqrt(3 scale)."""

    def __init__(
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed: int | None = None,
        dtype: Any = dt.float32,
    ) -> None:
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(
                "Argument `mode` should be one of ('fan_in', 'fan_out', "
                f"'fan_avg'). Received: {mode}"
            )
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(
                "Argument `distribution` should be one of ('normal', 'uniform', "
                f"'truncated_normal', 'untruncated_normal'). Received: "
                f"{distribution}"
            )
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        d = self._dtype(dtype)
        dims = [int(n) for n in shape]
        fan_in, fan_out = _compute_fans(dims)
        scale = self.scale / max(
            1.0,
            {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode],
        )
        if self.distribution in ("normal", "truncated_normal"):
            # .87962566103423978: the stddev of a unit normal truncated to [-2, 2].
            stddev = math.sqrt(scale) / 0.87962566103423978
            return random.truncated_normal(dims, 0.0, stddev, d, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random.random_normal(dims, 0.0, math.sqrt(scale), d, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random.random_uniform(dims, -limit, limit, d, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class GlorotUniform(VarianceScaling):
    """Uniform in ±sqrt(6 / (fan_in + fan_out)): get_variable's default for floats."""

    def __init__(self, seed: int | None = None, dtype: Any = dt.float32) -> None:
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    def __init__(self, seed: int | None = None, dtype: Any = dt.float32) -> None:
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


class UniformUnitScaling(Initializer):
    """Uniform in ±sqrt(3 / input size) · factor, the input size being the product of all
    dimensions but the last (TF deprecates it for ``variance_scaling``)."""

    def __init__(self, factor: float = 1.0, seed: int | None = None, dtype: Any = dt.float32):
        self.factor, self.seed = factor, seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        scale_shape = shape if partition_info is None else partition_info.full_shape
        input_size = max(math.prod(float(d) for d in scale_shape[:-1]), 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return random.random_uniform(shape, -max_val, max_val, self._dtype(dtype), seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


def _two_d(shape: Any, ok: bool) -> None:
    if not ok:
        raise ValueError(
            "The tensor to initialize, specified by argument `shape` must be at least "
            f"two-dimensional. Received shape={shape}"
        )


class Orthogonal(Initializer):
    """An orthogonal matrix (rows or columns, whichever are fewer), from the QR
    decomposition of a normal draw with the signs of R's diagonal, times ``gain``; a shape
    of rank > 2 is made as the matrix (product of all but the last, last) and reshaped."""

    def __init__(self, gain: float = 1.0, seed: int | None = None, dtype: Any = dt.float32):
        self.gain, self.seed = gain, seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        _two_d(shape, len(shape) >= 2)
        rows, cols = int(math.prod(shape[:-1])), int(shape[-1])
        flat = (cols, rows) if rows < cols else (rows, cols)
        a = random.random_normal(flat, dtype=self._dtype(dtype), seed=self.seed)
        q, r = qr(a, full_matrices=False)
        q = q * math_ops.sign(diag_part(r))
        if rows < cols:
            q = array.transpose(q)
        return self.gain * array.reshape(q, shape)

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only)."""

    def __init__(self, gain: float = 1.0, dtype: Any = dt.float32) -> None:
        self.gain = gain
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        full_shape = shape if partition_info is None else partition_info.full_shape
        _two_d(shape, len(full_shape) == 2)
        rows, cols = (int(d) for d in full_shape)
        return self.gain * eye(rows, cols, dtype=self._dtype(dtype))

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain, "dtype": self.dtype.name}


def lecun_normal(seed: int | None = None) -> VarianceScaling:
    """Truncated normal with stddev sqrt(1 / fan_in)."""
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed: int | None = None) -> VarianceScaling:
    """Uniform in ±sqrt(3 / fan_in)."""
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=seed)


def he_normal(seed: int | None = None) -> VarianceScaling:
    """Truncated normal with stddev sqrt(2 / fan_in)."""
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed: int | None = None) -> VarianceScaling:
    """Uniform in ±sqrt(6 / fan_in)."""
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)


# TF1's names (classes, called like functions: ``zeros_initializer()``).
zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
uniform_unit_scaling_initializer = UniformUnitScaling

# ``tf.compat.v1.initializers``.
initializers = SimpleNamespace(
    zeros=Zeros,
    ones=Ones,
    constant=Constant,
    random_uniform=RandomUniform,
    random_normal=RandomNormal,
    truncated_normal=TruncatedNormal,
    variance_scaling=VarianceScaling,
    glorot_uniform=GlorotUniform,
    glorot_normal=GlorotNormal,
    orthogonal=Orthogonal,
    identity=Identity,
    uniform_unit_scaling=UniformUnitScaling,
    he_normal=he_normal,
    he_uniform=he_uniform,
    lecun_normal=lecun_normal,
    lecun_uniform=lecun_uniform,
)
