"""More of ``keras.ops``'s NumPy-style functions, each as Keras 3's TF backend computes it
(keras/src/backend/tensorflow/numpy.py): the same TF ops and the same result dtypes (an
integer or bool input of a float function becomes ``floatx()``)."""

from __future__ import annotations

import math
from typing import Any

from symgrad.core import dtypes as dt
from symgrad.keras import backend
from symgrad.keras.layers.core import dynamic_shape
from symgrad.ops.array import structure as array
from symgrad.ops.array.slicing import getitem
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.linalg.diag import eye
from symgrad.ops.math import elementwise as m
from symgrad.ops.math import rounding, safe_math, trig
from symgrad.ops.reduction import reduce as red

__all__ = [
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "ceil",
    "cosh",
    "cumprod",
    "diff",
    "exp2",
    "expm1",
    "full",
    "full_like",
    "identity",
    "isfinite",
    "isinf",
    "isnan",
    "log2",
    "log10",
    "logaddexp",
    "moveaxis",
    "nan_to_num",
    "ndim",
    "round",
    "sinh",
    "tan",
]  # fmt: skip

_ORDER = {"float16": 1, "bfloat16": 1, "float32": 2, "float64": 3}


def _float_type(*dtypes: Any) -> Any:
    """Keras's ``result_type(*dtypes, float)`` for the cases these functions meet: the
    widest float among them (float16 with bfloat16 is float32), else ``floatx()``."""
    floats = {d.name for d in dtypes if d.is_floating}
    if not floats:
        return dt.as_dtype(backend.floatx())
    if floats == {"float16", "bfloat16"}:
        return dt.float32
    return dt.as_dtype(max(floats, key=lambda n: _ORDER[n]))


def _to_float(x: Any) -> Any:
    x = convert_to_tensor(x)
    return array.cast(x, _float_type(x.dtype))


def _float_unary(fn: Any, name: str) -> Any:
    def op(x: Any) -> Any:
        return fn(_to_float(x))

    op.__name__ = name
    return op


arccos, arcsin = _float_unary(trig.acos, "arccos"), _float_unary(trig.asin, "arcsin")
arctan, arccosh = _float_unary(trig.atan, "arctan"), _float_unary(trig.acosh, "arccosh")
arcsinh, arctanh = _float_unary(trig.asinh, "arcsinh"), _float_unary(trig.atanh, "arctanh")
cosh, sinh = _float_unary(trig.cosh, "cosh"), _float_unary(trig.sinh, "sinh")
tan, ceil = _float_unary(m.tan, "tan"), _float_unary(rounding.ceil, "ceil")
expm1 = _float_unary(safe_math.expm1, "expm1")


def exp2(x: Any) -> Any:
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        x = array.cast(x, backend.floatx())
    return m.pow(array.cast(2.0, x.dtype), x)


def _log_base(x: Any, base: int) -> Any:
    x = _to_float(x)
    return m.divide(m.log(x), m.log(array.cast(base, x.dtype)))


def log10(x: Any) -> Any:
    return _log_base(x, 10)


def log2(x: Any) -> Any:
    return _log_base(x, 2)


def _float_pair(x1: Any, x2: Any) -> tuple[Any, Any]:
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    d = _float_type(x1.dtype, x2.dtype)
    return array.cast(x1, d), array.cast(x2, d)


def arctan2(x1: Any, x2: Any) -> Any:
    return trig.atan2(*_float_pair(x1, x2))


def logaddexp(x1: Any, x2: Any) -> Any:
    x1, x2 = _float_pair(x1, x2)
    delta = m.subtract(x1, x2)
    tail = m.log1p(m.exp(m.negative(m.abs(delta))))
    return array.where(safe_math.is_nan(delta), m.add(x1, x2), m.add(m.maximum(x1, x2), tail))


def _class_test(fn: Any, integers: bool, name: str) -> Any:
    def op(x: Any) -> Any:
        x = convert_to_tensor(x)
        if not x.dtype.is_floating and not x.dtype.is_complex:
            fill = array.ones if integers else array.zeros
            return fill(dynamic_shape(x), dtype=dt.bool_)
        return fn(x)

    op.__name__ = name
    return op


isfinite = _class_test(safe_math.is_finite, True, "isfinite")
isinf = _class_test(safe_math.is_inf, False, "isinf")
isnan = _class_test(safe_math.is_nan, False, "isnan")


def cumprod(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    x = convert_to_tensor(x, dtype=dtype)
    if x.dtype == dt.bool_:
        x = array.cast(x, dt.int32)
    if axis is None:
        x, axis = array.reshape(x, [-1]), 0
    return red.cumprod(x, axis=axis)


def diff(a: Any, n: int = 1, axis: int = -1) -> Any:
    a = convert_to_tensor(a)
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"Order `n` must be non-negative. Received n={n}")
    rank = a.shape.rank
    if rank == 0:
        raise ValueError(f"`diff` requires input that is at least one dimensional. Received: a={a}")
    axis = axis % rank
    upper = tuple(slice(1, None) if i == axis else slice(None) for i in range(rank))
    lower = tuple(slice(None, -1) if i == axis else slice(None) for i in range(rank))
    for _ in range(n):
        if a.dtype == dt.bool_:
            a = m.not_equal(getitem(a, upper), getitem(a, lower))
        else:
            a = m.subtract(getitem(a, upper), getitem(a, lower))
    return a


def _keras_convert(value: Any, dtype: Any) -> Any:
    """Keras's TF ``convert_to_tensor``: a Python value for an integer or bool dtype is
    converted as it is, then cast (2.5 becomes 2), where TF's conversion would refuse it."""
    d = dt.as_dtype(dtype)
    if (d.is_integer or d == dt.bool_) and not hasattr(value, "dtype"):
        return array.cast(convert_to_tensor(value), d)
    return convert_to_tensor(value, dtype=d)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    value = _keras_convert(fill_value, dtype or backend.floatx())
    return array.broadcast_to(value, shape)


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> Any:
    x = convert_to_tensor(x)
    value = _keras_convert(fill_value, dtype or x.dtype)
    return array.broadcast_to(value, array.shape(x))


def identity(n: Any, dtype: Any = None) -> Any:
    return eye(n, n, dtype=dtype or backend.floatx())


def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    x = convert_to_tensor(x)
    rank = x.shape.rank
    src = tuple(i % rank for i in ((source,) if isinstance(source, int) else source))
    dst = tuple(i % rank for i in ((destination,) if isinstance(destination, int) else destination))
    if len(src) != len(dst):
        raise ValueError(
            "Inconsistent number of `source` and `destination`. "
            f"Received: source={source}, destination={destination}"
        )
    if src == dst:
        return x
    perm = [i for i in range(rank) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return array.transpose(x, perm)


def ndim(x: Any) -> Any:
    return convert_to_tensor(x).shape.rank


def round(x: Any, decimals: int = 0) -> Any:
    """TF's Round (half to even), scaled by 10**decimals as Keras scales it."""
    x = convert_to_tensor(x)
    if decimals == 0:
        return rounding.round(x)
    x_dtype = x.dtype
    if x_dtype.is_integer:
        if decimals > 0:
            return x
        factor = array.cast(math.pow(10, decimals), backend.floatx())
        x = array.cast(x, backend.floatx())
    else:
        factor = array.cast(math.pow(10, decimals), x_dtype)
    x = m.divide(rounding.round(m.multiply(x, factor)), factor)
    return array.cast(x, x_dtype)


def nan_to_num(x: Any, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
    x = convert_to_tensor(x)
    d = x.dtype
    if not d.is_floating:
        return x
    x = array.where(safe_math.is_nan(x), convert_to_tensor(nan, dtype=d), x)
    posinf = d.max if posinf is None else posinf
    big = m.logical_and(safe_math.is_inf(x), m.greater(x, array.cast(0, d)))
    x = array.where(big, convert_to_tensor(posinf, dtype=d), x)
    neginf = d.min if neginf is None else neginf
    small = m.logical_and(safe_math.is_inf(x), m.less(x, array.cast(0, d)))
    return array.where(small, convert_to_tensor(neginf, dtype=d), x)
