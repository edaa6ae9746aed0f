"""Log-sum-exp and moments: ``reduce_logsumexp``, ``reduce_variance``, ``reduce_std`` (built
from existing ops, as TF's Python functions are), and the scan CumulativeLogsumexp.

``reduce_logsumexp`` subtracts the group's maximum (held constant by ``stop_gradient``,
0 where it is not finite) before exponentiating, so large inputs do not overflow and the
gradient is softmax; the graph it builds is TF's op for op.  ``reduce_variance`` of a
complex tensor is real (mean of ``conj(d) · d``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call, const
from symgrad.core.cases import Case, ints, randn
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.ops.array import structure as array
from symgrad.ops.core import (
    FLOATS,
    check_dtype,
    convert_to_tensor,
    identity,
    static_ints,
    stop_gradient,
)
from symgrad.ops.math.complex import conj, real
from symgrad.ops.math.elementwise import divide, exp, greater, less, log, not_equal, sqrt, square
from symgrad.ops.math.safe_math import is_finite
from symgrad.ops.reduction import reduce as reduction

# --------------------------------------------------------------------------------------
# reduce_logsumexp, reduce_variance, reduce_std


def reduce_logsumexp(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """log(sum(exp(x))) over ``axis``, computed without overflow."""
    x = convert_to_tensor(input_tensor)
    raw_max = reduction.reduce_max(x, axis, keepdims=True)
    zero = np.zeros((), raw_max.dtype.np)
    my_max = stop_gradient(array.where(is_finite(raw_max), raw_max, zero))
    result = log(reduction.reduce_sum(exp(x - my_max), axis, keepdims=keepdims))
    if not keepdims:
        my_max = array.reshape(my_max, array.shape(result))
    return result + my_max


def reduce_variance(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Mean squared deviation from the mean over ``axis`` (real for complex input)."""
    x = convert_to_tensor(input_tensor)
    if x.dtype.is_integer:
        raise TypeError(
            f"Input must be either real or complex. Received integer type {x.dtype.name}."
        )
    means = reduction.reduce_mean(x, axis, keepdims=True)
    diff = x - means
    squared = real(conj(diff) * diff) if diff.dtype.is_complex else square(diff)
    return reduction.reduce_mean(squared, axis, keepdims=keepdims)


def reduce_std(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Standard deviation over ``axis``: the square root of ``reduce_variance``."""
    return sqrt(reduce_variance(input_tensor, axis, keepdims))


# --------------------------------------------------------------------------------------
# CumulativeLogsumexp


def _cumlse_infer(
    inputs: Sequence[Tensor], *, exclusive: bool = False, reverse: bool = False
) -> Spec:
    x, a = inputs
    check_dtype("CumulativeLogsumexp", x, FLOATS, "x")
    check_dtype("CumulativeLogsumexp", a, array.INDEX, "axis")
    if a.shape.rank not in (None, 0):
        raise ShapeError(f"axis must be a scalar, got shape {a.shape}")
    axes, n = static_ints(a, "axis"), x.shape.rank
    if axes is not None and n is not None and not -n <= axes[0] < max(n, 1):
        raise ShapeError(
            f"axis {axes[0]} is out of range for a tensor of rank {n} (expected {-n} <= axis < {n})"
        )
    return x.shape, x.dtype


def _cumlse_kernel(
    x: np.ndarray, a: np.ndarray, *, exclusive: bool = False, reverse: bool = False
) -> np.ndarray:
    ax = int(a) % max(x.ndim, 1)
    m = np.moveaxis(x, ax, 0)
    m = m[::-1] if reverse else m
    out = np.logaddexp.accumulate(m, axis=0) if m.shape[0] else m.copy()
    if exclusive:
        out = np.concatenate([np.full_like(out[:1], -np.inf), out[:-1]])
    return np.moveaxis(out[::-1] if reverse else out, 0, ax)


def _cumlse_ref(axis: int, exclusive: bool, reverse: bool) -> Any:
    """The log of a cumulative sum of exponentials, in float64 (inputs are small)."""

    def ref(x: np.ndarray, _: Any = None) -> np.ndarray:
        e = np.moveaxis(np.exp(x.astype(np.float64)), axis, 0)
        e = e[::-1] if reverse else e
        c = np.cumsum(e, axis=0)
        if exclusive:
            c = np.concatenate([np.zeros_like(c[:1]), c[:-1]])
        with np.errstate(divide="ignore"):
            out = np.log(c)
        return np.moveaxis(out[::-1] if reverse else out, 0, axis)

    return ref


def _cumlse_batch(c: Call) -> list[Tensor]:
    """The scan axis, shifted past the batch axis."""
    c.only_batched(0)
    (axis,) = c.ints(1)
    return c.apply([c.xs[0], const(c.axis(axis, c.rank(0)), c.xs[1])])


CUMULATIVE_LOGSUMEXP = register_op(
    "CumulativeLogsumexp",
    _cumlse_infer,
    _cumlse_kernel,
    batch=_cumlse_batch,
    cases=[
        Case(
            [randn(3, 4, 2)],
            _cumlse_ref(1, False, False),
            fn=lambda x: cumulative_logsumexp(x, axis=1),
        ),
        Case(
            [randn(4, 3), ints(0)],
            _cumlse_ref(0, False, True),
            attrs={"exclusive": False, "reverse": True},
            name="reverse",
        ),
        Case(
            [randn(3, 5), ints(-1)],
            lambda x, a: _cumlse_ref(1, True, False)(x)[:, 1:],
            fn=lambda x, a: cumulative_logsumexp(x, a, exclusive=True)[:, 1:],
            name="exclusive",
            note="column 0 is -inf: left out of the row",
        ),
    ],
)


def cumulative_logsumexp(
    x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None
) -> Tensor:
    """log(cumsum(exp(x))) along ``axis``, without overflow (op type CumulativeLogsumexp)."""
    a = axis if isinstance(axis, Tensor) else convert_to_tensor(axis, dt.int32)
    return apply_op1(
        "CumulativeLogsumexp",
        [convert_to_tensor(x), a],
        {"exclusive": bool(exclusive), "reverse": bool(reverse)},
        name,
    )


@CUMULATIVE_LOGSUMEXP.gradient
def _cumlse_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """TF's rule: the positive and negative parts of g, each through a reversed
    cumulative_logsumexp in log space: exp(clse(log(±g) - y) + x)."""
    x, axis = op.inputs
    y = op.outputs[0]
    ex, rev = op.get_attr("exclusive"), op.get_attr("reverse")
    fill = np.asarray(np.finfo(grad.dtype.np).min, grad.dtype.np)
    log_pos = array.where(greater(grad, 0), log(grad), fill)
    log_neg = array.where(less(grad, 0), log(-grad), fill)
    pos = exp(cumulative_logsumexp(log_pos - y, axis, ex, not rev) + x)
    neg = exp(cumulative_logsumexp(log_neg - y, axis, ex, not rev) + x)
    return pos - neg, None


def count_nonzero(
    input: Any,
    axis: Any = None,
    keepdims: bool | None = None,
    dtype: Any = dt.int64,
    name: str | None = None,
) -> Tensor:
    """How many entries are not zero (not False), over ``axis``; as TF: an int64 sum of
    the ``x != 0`` predicate, cast to ``dtype``."""
    with name_scope(name, "count_nonzero"):
        x = convert_to_tensor(input)
        pred = x if x.dtype is dt.bool_ else not_equal(x, array.zeros([], dtype=x.dtype))
        total = reduction.reduce_sum(array.cast(pred, dt.int64), axis, keepdims=bool(keepdims))
        return array.cast(total, dt.as_dtype(dtype))


def zero_fraction(value: Any, name: str | None = None) -> Tensor:
    """The fraction of entries that are zero, as float32 (nan for an empty tensor)."""
    with name_scope(name, "zero_fraction"):
        x = convert_to_tensor(value)
        size = array.cast(array.size(x, out_type=dt.int64), dt.float32)
        zeros = size - array.cast(count_nonzero(x), dt.float32)
        return identity(divide(zeros, size), name="fraction")
