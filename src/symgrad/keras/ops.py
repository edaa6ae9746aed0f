"""``tf.keras.ops``: the Keras 3 ops that layers and user code call, NumPy-style names and
arguments mapped onto symgrad ops (so their gradients are symgrad's).  A subset: the
functions listed in ``__all__``."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.keras import backend
from symgrad.keras.layers.core import dynamic_shape
from symgrad.keras.ops_control import convert_to_numpy, fori_loop, scan, vectorized_map
from symgrad.keras.ops_numpy import (
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    ceil,
    cosh,
    cumprod,
    diff,
    exp2,
    expm1,
    full,
    full_like,
    identity,
    isfinite,
    isinf,
    isnan,
    log2,
    log10,
    logaddexp,
    moveaxis,
    nan_to_num,
    ndim,
    round,
    sinh,
    tan,
)
from symgrad.ops.array import structure as array
from symgrad.ops.array.gather import gather
from symgrad.ops.array.joining import concat
from symgrad.ops.array.joining import split as _split
from symgrad.ops.array.joining import stack as _stack
from symgrad.ops.array.reverse import reverse
from symgrad.ops.array.slicing import slice as _slice
from symgrad.ops.array.sorting import argsort as _argsort
from symgrad.ops.array.sorting import sort as _sort
from symgrad.ops.array.sorting import top_k as _top_k
from symgrad.ops.core import constant
from symgrad.ops.core import convert_to_tensor as _convert
from symgrad.ops.core import stop_gradient as _stop_gradient
from symgrad.ops.linalg.contraction import einsum as _einsum
from symgrad.ops.linalg.matmul import matmul as _matmul
from symgrad.ops.math import elementwise as m
from symgrad.ops.nn import basic as nn
from symgrad.ops.nn.activations import elu as _elu
from symgrad.ops.nn.activations import gelu as _gelu
from symgrad.ops.nn.activations import leaky_relu as _leaky_relu
from symgrad.ops.nn.activations import relu6 as _relu6
from symgrad.ops.nn.activations import selu as _selu
from symgrad.ops.nn.activations import silu as _silu
from symgrad.ops.nn.normalization import moments as _moments
from symgrad.ops.reduction import reduce as red
from symgrad.ops.reduction.statistics import reduce_logsumexp

__all__ = [
    "abs",
    "absolute",
    "add",
    "all",
    "any",
    "arange",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "argsort",
    "broadcast_to",
    "cast",
    "ceil",
    "clip",
    "concatenate",
    "convert_to_numpy",
    "convert_to_tensor",
    "cos",
    "cosh",
    "cumprod",
    "cumsum",
    "diff",
    "divide",
    "einsum",
    "elu",
    "equal",
    "erf",
    "exp",
    "exp2",
    "expand_dims",
    "expm1",
    "eye",
    "flip",
    "floor",
    "fori_loop",
    "full",
    "full_like",
    "gelu",
    "greater",
    "greater_equal",
    "identity",
    "isfinite",
    "isinf",
    "isnan",
    "leaky_relu",
    "less",
    "less_equal",
    "log",
    "log1p",
    "log2",
    "log10",
    "log_softmax",
    "logaddexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logsumexp",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "moments",
    "moveaxis",
    "multiply",
    "nan_to_num",
    "ndim",
    "negative",
    "normalize",
    "not_equal",
    "one_hot",
    "ones",
    "ones_like",
    "power",
    "prod",
    "relu",
    "relu6",
    "repeat",
    "reshape",
    "round",
    "rsqrt",
    "scan",
    "selu",
    "shape",
    "sigmoid",
    "sign",
    "silu",
    "sin",
    "sinh",
    "slice",
    "softmax",
    "softplus",
    "sort",
    "split",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "stop_gradient",
    "subtract",
    "sum",
    "swapaxes",
    "take",
    "tan",
    "tanh",
    "tile",
    "top_k",
    "transpose",
    "tril",
    "triu",
    "var",
    "vectorized_map",
    "where",
    "zeros",
    "zeros_like",
]  # fmt: skip


def convert_to_tensor(x: Any, dtype: Any = None, sparse: Any = None, ragged: Any = None) -> Any:
    return _convert(x, dtype=dtype)


def _t(x: Any) -> Any:
    return _convert(x)


def _pair(x1: Any, x2: Any) -> tuple[Any, Any]:
    """Keras's dtype promotion for two operands, reduced to its common case: a Python
    number takes the tensor's dtype."""
    if not hasattr(x1, "dtype") and hasattr(x2, "dtype"):
        x2 = _t(x2)
        return _convert(x1, dtype=x2.dtype), x2
    x1 = _t(x1)
    return x1, _convert(x2, dtype=x1.dtype) if not hasattr(x2, "dtype") else x2


def add(x1: Any, x2: Any) -> Any:
    return m.add(*_pair(x1, x2))


def subtract(x1: Any, x2: Any) -> Any:
    return m.subtract(*_pair(x1, x2))


def multiply(x1: Any, x2: Any) -> Any:
    return m.multiply(*_pair(x1, x2))


def divide(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    if not a.dtype.is_floating:
        a, b = array.cast(a, backend.floatx()), array.cast(b, backend.floatx())
    return m.divide(a, b)


def power(x1: Any, x2: Any) -> Any:
    return m.pow(*_pair(x1, x2))


def maximum(x1: Any, x2: Any) -> Any:
    return m.maximum(*_pair(x1, x2))


def minimum(x1: Any, x2: Any) -> Any:
    return m.minimum(*_pair(x1, x2))


def _compare(fn: Any) -> Any:
    def op(x1: Any, x2: Any) -> Any:
        return fn(*_pair(x1, x2))

    op.__name__ = fn.__name__
    return op


equal, not_equal = _compare(m.equal), _compare(m.not_equal)
greater, greater_equal = _compare(m.greater), _compare(m.greater_equal)
less, less_equal = _compare(m.less), _compare(m.less_equal)


def logical_and(x1: Any, x2: Any) -> Any:
    return m.logical_and(array.cast(x1, dt.bool_), array.cast(x2, dt.bool_))


def logical_or(x1: Any, x2: Any) -> Any:
    return m.logical_or(array.cast(x1, dt.bool_), array.cast(x2, dt.bool_))


def logical_not(x: Any) -> Any:
    return m.logical_not(array.cast(x, dt.bool_))


def _unary(fn: Any, name: str) -> Any:
    def op(x: Any) -> Any:
        return fn(_t(x))

    op.__name__ = name
    return op


abs = _unary(m.abs, "abs")
absolute = abs
negative, sign, square = (
    _unary(m.negative, "negative"),
    _unary(m.sign, "sign"),
    _unary(m.square, "square"),
)
exp, log, log1p = _unary(m.exp, "exp"), _unary(m.log, "log"), _unary(m.log1p, "log1p")
sqrt, rsqrt = _unary(m.sqrt, "sqrt"), _unary(m.rsqrt, "rsqrt")
sin, cos, tanh = _unary(m.sin, "sin"), _unary(m.cos, "cos"), _unary(m.tanh, "tanh")
sigmoid, erf = _unary(m.sigmoid, "sigmoid"), _unary(m.erf, "erf")
relu, softplus = _unary(nn.relu, "relu"), _unary(nn.softplus, "softplus")


def floor(x: Any) -> Any:
    from symgrad.ops.math.rounding import floor as _floor

    return _floor(_t(x))


def elu(x: Any, alpha: Any = 1.0) -> Any:
    res = _elu(x)
    return res if alpha == 1 else array.where(m.greater(x, 0), res, m.multiply(alpha, res))


def gelu(x: Any, approximate: bool = True) -> Any:
    return _gelu(x, approximate=approximate)


def leaky_relu(x: Any, negative_slope: Any = 0.2) -> Any:
    return _leaky_relu(x, alpha=negative_slope)


def softmax(x: Any, axis: Any = -1) -> Any:
    return nn.softmax(x, axis=axis)


def log_softmax(x: Any, axis: Any = -1) -> Any:
    return nn.log_softmax(x, axis=axis)


def _reduce(fn: Any, name: str) -> Any:
    def op(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return fn(_t(x), axis=axis, keepdims=keepdims)

    op.__name__ = name
    return op


sum = _reduce(red.reduce_sum, "sum")
all = _reduce(lambda x, **k: red.reduce_all(array.cast(x, dt.bool_), **k), "all")
any = _reduce(lambda x, **k: red.reduce_any(array.cast(x, dt.bool_), **k), "any")
logsumexp = _reduce(reduce_logsumexp, "logsumexp")


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = _t(x)
    if not x.dtype.is_floating:
        x = array.cast(x, backend.floatx())
    return red.reduce_mean(x, axis=axis, keepdims=keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
    out = red.reduce_max(_t(x), axis=axis, keepdims=keepdims)
    return out if initial is None else m.maximum(out, array.cast(initial, out.dtype))


def min(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
    out = red.reduce_min(_t(x), axis=axis, keepdims=keepdims)
    return out if initial is None else m.minimum(out, array.cast(initial, out.dtype))


def prod(x: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Any:
    x = _t(x) if dtype is None else array.cast(x, dtype)
    return red.reduce_prod(x, axis=axis, keepdims=keepdims)


def var(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = _t(x)
    if not x.dtype.is_floating:
        x = array.cast(x, backend.floatx())
    axes = list(range(x.shape.rank)) if axis is None else axis
    return _moments(x, axes, keepdims=keepdims)[1]


def std(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return m.sqrt(var(x, axis=axis, keepdims=keepdims))


def moments(x: Any, axes: Any, keepdims: bool = False, synchronized: bool = False) -> Any:
    return _moments(_t(x), axes, keepdims=keepdims)


def argmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _arg(red.argmax, x, axis, keepdims)


def argmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _arg(red.argmin, x, axis, keepdims)


def _arg(fn: Any, x: Any, axis: Any, keepdims: bool) -> Any:
    x = _t(x)
    if axis is None:
        out = fn(array.reshape(x, [-1]), axis=0, output_type=dt.int32)
        return array.reshape(out, [1] * x.shape.rank) if keepdims else out
    out = fn(x, axis=axis, output_type=dt.int32)
    return array.expand_dims(out, axis) if keepdims else out


def cumsum(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    x = _t(x) if dtype is None else array.cast(x, dtype)
    if axis is None:
        return red.cumsum(array.reshape(x, [-1]), axis=0)
    return red.cumsum(x, axis=axis)


def clip(x: Any, x_min: Any, x_max: Any) -> Any:
    x = _t(x)
    return m.minimum(m.maximum(x, array.cast(x_min, x.dtype)), array.cast(x_max, x.dtype))


def cast(x: Any, dtype: Any) -> Any:
    return array.cast(x, dtype)


def shape(x: Any) -> tuple[Any, ...]:
    return tuple(dynamic_shape(_t(x)))


def reshape(x: Any, newshape: Any) -> Any:
    return array.reshape(x, list(newshape) if isinstance(newshape, tuple) else newshape)


def transpose(x: Any, axes: Any = None) -> Any:
    return array.transpose(x, axes)


def swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    x = _t(x)
    perm = list(range(x.shape.rank))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return array.transpose(x, perm)


def expand_dims(x: Any, axis: Any) -> Any:
    return array.expand_dims(x, axis)


def squeeze(x: Any, axis: Any = None) -> Any:
    return array.squeeze(x, axis)


def broadcast_to(x: Any, shape: Any) -> Any:
    return array.broadcast_to(x, shape)


def concatenate(xs: Any, axis: Any = 0) -> Any:
    return concat(list(xs), axis=axis)


def stack(x: Any, axis: Any = 0) -> Any:
    return _stack(list(x), axis=axis)


def split(x: Any, indices_or_sections: Any, axis: Any = 0) -> Any:
    x = _t(x)
    if isinstance(indices_or_sections, int):
        return _split(x, indices_or_sections, axis=axis)
    size = x.shape.as_list()[axis]
    bounds = [0, *indices_or_sections, size]
    return _split(x, [b - a for a, b in itertools.pairwise(bounds)], axis=axis)


def tile(x: Any, repeats: Any) -> Any:
    x = _t(x)
    reps = list(repeats) if isinstance(repeats, (list, tuple)) else [repeats]
    reps = [1] * (x.shape.rank - len(reps)) + reps
    return array.tile(x, reps)


def repeat(x: Any, repeats: Any, axis: Any = None) -> Any:
    from symgrad.keras.layers.reshaping import repeat as _repeat

    x = _t(x)
    if axis is None:
        x, axis = array.reshape(x, [-1]), 0
    return _repeat(x, int(repeats), axis)


def flip(x: Any, axis: Any = None) -> Any:
    x = _t(x)
    axes = (
        list(range(x.shape.rank))
        if axis is None
        else ([axis] if isinstance(axis, int) else list(axis))
    )
    return reverse(x, axes)


def take(x: Any, indices: Any, axis: Any = None) -> Any:
    x, indices = _t(x), _t(indices)
    if axis is None:
        x, axis = array.reshape(x, [-1]), 0
    size = array.cast(array.shape(x)[axis], indices.dtype)
    indices = array.where(m.less(indices, 0), m.add(indices, size), indices)
    return gather(x, indices, axis=axis)


def where(condition: Any, x1: Any = None, x2: Any = None) -> Any:
    condition = array.cast(condition, dt.bool_)
    if x1 is None and x2 is None:  # NumPy's nonzero: one index vector per dimension
        coords = array.where(condition)
        return tuple(coords[:, i] for i in range(condition.shape.rank))
    a, b = _pair(x1, x2)
    return array.where(condition, a, b)


def zeros(shape: Any, dtype: Any = None) -> Any:
    return array.zeros(shape, dtype=dtype or backend.floatx())


def ones(shape: Any, dtype: Any = None) -> Any:
    return array.ones(shape, dtype=dtype or backend.floatx())


def zeros_like(x: Any, dtype: Any = None) -> Any:
    return array.zeros_like(x, dtype=dtype)


def ones_like(x: Any, dtype: Any = None) -> Any:
    return array.ones_like(x, dtype=dtype)


def eye(N: Any, M: Any = None, k: Any = 0, dtype: Any = None) -> Any:
    return constant(np.eye(N, M, k), dtype=dtype or backend.floatx())


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if dtype is None:
        floats = [v for v in (start, stop, step) if isinstance(v, float)]
        dtype = backend.floatx() if floats else "int32"
    return array.range(start, stop, step, dtype=dtype)


def one_hot(
    x: Any, num_classes: Any, axis: Any = -1, dtype: Any = None, sparse: bool = False
) -> Any:
    return array.one_hot(
        array.cast(x, dt.int32), num_classes, axis=axis, dtype=dtype or backend.floatx()
    )


def tril(x: Any, k: int = 0) -> Any:
    return _band(x, k, lower=True)


def triu(x: Any, k: int = 0) -> Any:
    return _band(x, k, lower=False)


def _band(x: Any, k: int, lower: bool) -> Any:
    x = _t(x)
    rows, cols = x.shape.as_list()[-2:]
    mask = (
        np.tril(np.ones((rows, cols), bool), k)
        if lower
        else np.triu(np.ones((rows, cols), bool), k)
    )
    return array.where(constant(mask), x, array.zeros_like(x))


def sort(x: Any, axis: int = -1) -> Any:
    return _sort(x, axis=axis)


def argsort(x: Any, axis: int = -1) -> Any:
    return _argsort(x, axis=axis, stable=True)


def top_k(x: Any, k: int, sorted: bool = True) -> Any:
    return tuple(_top_k(x, k, sorted=sorted))


def slice(inputs: Any, start_indices: Any, shape: Any) -> Any:
    return _slice(inputs, list(start_indices), list(shape))


def normalize(x: Any, axis: int = -1, order: int = 2, epsilon: Any = None) -> Any:
    """``x / max(norm(x, ord=order), epsilon)`` (a p-norm along ``axis``); for order 2
    Keras's ``x * min(rsqrt(sum(x^2)), 1/eps)``."""
    x = _t(x)
    eps = backend.epsilon() if epsilon is None else epsilon
    if order != 2:  # Keras: x / maximum(norm(x, ord=order), epsilon)
        if order == 1:
            norm = red.reduce_sum(m.abs(x), axis=axis, keepdims=True)
        else:
            p = array.cast(order, x.dtype)
            total = red.reduce_sum(m.pow(m.abs(x), p), axis=axis, keepdims=True)
            norm = m.pow(total, m.divide(array.cast(1.0, x.dtype), p))
        return m.divide(x, m.maximum(norm, array.cast(eps, x.dtype)))
    inv = m.rsqrt(red.reduce_sum(m.square(x), axis=axis, keepdims=True))
    return m.multiply(x, m.minimum(inv, array.cast(1.0 / eps, x.dtype)))


def einsum(subscripts: str, *operands: Any, **kwargs: Any) -> Any:
    return _einsum(subscripts, *operands)


def matmul(x1: Any, x2: Any) -> Any:
    return _matmul(x1, x2)


def stop_gradient(variable: Any) -> Any:
    return _stop_gradient(variable)


relu6, selu, silu = _unary(_relu6, "relu6"), _unary(_selu, "selu"), _unary(_silu, "silu")
