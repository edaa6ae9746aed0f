"""TF1's op aliases in ``tf.compat.v1``: ``to_float`` ... ``to_complex128`` (a ``Cast``
named ``ToFloat`` ..., none when ``x`` has the dtype already, as ``tf.cast``) and ``div``
(Python 2's division: ``FloorDiv`` for integers, ``RealDiv`` for floats, an op named
"div").  TF 2.21 also has ``to_bfloat16``; symgrad has no bfloat16 dtype.

>>> import symgrad as tf
>>> print(tf.compat.v1.div(tf.constant([7, -7]), 2))
symgrad.Tensor([ 3 -4], shape=(2,), dtype=int32)
>>> tf.compat.v1.to_float(tf.constant([1, 2])).dtype
tf.float32
"""

from __future__ import annotations

from typing import Any

from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.cast_select import cast
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math.elementwise import floor_div, real_div

__all__ = ["div", "to_complex64", "to_complex128", "to_double", "to_float", "to_int32", "to_int64"]


def to_float(x: Any, name: str = "ToFloat") -> Tensor:
    """``cast(x, tf.float32)``."""
    return cast(x, dt.float32, name=name)


def to_double(x: Any, name: str = "ToDouble") -> Tensor:
    """``cast(x, tf.float64)``."""
    return cast(x, dt.float64, name=name)


def to_int32(x: Any, name: str = "ToInt32") -> Tensor:
    """``cast(x, tf.int32)`` (floats truncate toward zero)."""
    return cast(x, dt.int32, name=name)


def to_int64(x: Any, name: str = "ToInt64") -> Tensor:
    """``cast(x, tf.int64)`` (floats truncate toward zero)."""
    return cast(x, dt.int64, name=name)


def to_complex64(x: Any, name: str = "ToComplex64") -> Tensor:
    return cast(x, dt.complex64, name=name)


def to_complex128(x: Any, name: str = "ToComplex128") -> Tensor:
    return cast(x, dt.complex128, name=name)


def div(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x / y`` as Python 2 divides: floored for integers (``FloorDiv``), true division
    for floats and complex (``RealDiv``); ``y`` converts to ``x``'s dtype."""
    with name_scope(name, "div") as scope:
        a = convert_to_tensor(x)
        b = convert_to_tensor(y, dtype=a.dtype)
        if a.dtype is not b.dtype:
            raise TypeError(
                f"`x` and `y` must have the same dtype, got {a.dtype!r} != {b.dtype!r}."
            )
        if a.dtype.is_floating or a.dtype.is_complex:
            return real_div(a, b, name=scope)
        return floor_div(a, b, name=scope)
