"""Rounding (Floor, Ceil, Rint, Round), InTopKV2, and the small tf.math functions TF
builds from existing ops (reciprocal_no_nan, scalar_mul).

The rounding ops are piecewise constant: TF registers gradients that return None for
them (math_grad.py's ``_FloorGrad`` and its siblings), which is what ``no_gradient``
gives here (a None gradient, no error).  ``Round`` and ``Rint`` round halves to even, as
NumPy's ``rint`` does.  ``in_top_k`` has no gradient either (TF: NotDifferentiable).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, fixed, ints, uniform
from symgrad.core.gradient_registry import no_gradient
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.core import FLOATS, REAL, check_dtype, convert_to_tensor, unary_op
from symgrad.ops.math import elementwise as math
from symgrad.ops.math import safe_math

# Away from the jumps at the integers (and halves, for Round/Rint), so a row's float32
# and float64 answers agree.
_STEPS = uniform(-3.7, 3.7, 2, 3, 4)
_HALVES = fixed([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.7, 1.2])


def _rounding(op_type: str, kernel: Any, api_name: str, allowed: Sequence[dt.DType]) -> Any:
    wrapper = unary_op(
        op_type,
        kernel,
        api_name,
        allowed,
        cases=[
            Case([_STEPS], kernel, order=0, note="piecewise constant: None gradient, as TF"),
            Case([_HALVES], kernel, order=0, name="halves", note="ties to even"),
        ],
    )
    no_gradient(op_type)
    return wrapper


floor = _rounding("Floor", np.floor, "floor", FLOATS)
ceil = _rounding("Ceil", np.ceil, "ceil", FLOATS)
rint = _rounding("Rint", np.rint, "rint", FLOATS)
_round = _rounding("Round", np.rint, "round", REAL)


def round(x: Any, name: str | None = None) -> Tensor:
    """Round to the nearest integer, halves to even; integer tensors come back as they are
    (TF's ``math_ops.round`` adds no op for them)."""
    x = convert_to_tensor(x)
    return x if x.dtype.is_integer else _round(x, name=name)


# --------------------------------------------------------------------------------------
# InTopKV2


def _in_top_k_kernel(p: np.ndarray, t: np.ndarray, k: np.ndarray) -> np.ndarray:
    """TF's rule: a target is in the top k when fewer than k classes score strictly
    higher; a target out of range, or any non-finite score in its row, gives False."""
    n, classes = p.shape
    if t.shape[0] != n:
        raise ShapeError(
            f"First dimension of predictions {n} must match length of targets {t.shape[0]}"
        )
    inside = (t >= 0) & (t < classes)
    own = p[np.arange(n), np.where(inside, t, 0)] if classes else np.zeros(n, p.dtype)
    higher = (p > own[:, None]).sum(axis=1)
    finite = np.isfinite(p).all(axis=1)
    return np.asarray(inside & finite & (higher < int(k)), bool)


def _in_top_k_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    p, t, k = inputs
    check_dtype("InTopKV2", p, (dt.float32,), "predictions")
    check_dtype("InTopKV2", t, (dt.int32, dt.int64), "targets")
    if k.dtype is not t.dtype:
        raise TypeError(f"input 'k' has dtype {k.dtype.name}, expected {t.dtype.name}")
    if p.shape.rank not in (None, 2):
        raise ShapeError(f"Shape must be rank 2 but is rank {p.shape.rank} for 'predictions'")
    if t.shape.rank not in (None, 1):
        raise ShapeError(f"Shape must be rank 1 but is rank {t.shape.rank} for 'targets'")
    if k.shape.rank not in (None, 0):
        raise ShapeError(f"Shape must be rank 0 but is rank {k.shape.rank} for 'k'")
    rows = p.shape.dims[0] if p.shape.dims is not None else None
    length = t.shape.dims[0] if t.shape.dims is not None else None
    if rows is not None and length is not None and rows != length:
        raise ShapeError(
            f"First dimension of predictions {rows} must match length of targets {length}"
        )
    rows = length if rows is None else rows
    return TensorShape([rows]), dt.bool_


IN_TOP_K = register_op(
    "InTopKV2",
    _in_top_k_infer,
    _in_top_k_kernel,
    batch="a boolean of indices and scores: no gradient, nothing to batch",
    cases=[
        Case(
            [uniform(0, 1, 4, 5), ints([0, 4, 2, 7]), ints(2)],
            lambda p, t, k: _in_top_k_kernel(p, t, k),
            dtypes=(np.float32,),
            order=0,
            note="a boolean: TF's NotDifferentiable",
        )
    ],
)
IN_TOP_K.no_gradient()


def in_top_k(targets: Any, predictions: Any, k: Any, name: str | None = None) -> Tensor:
    """Whether each row's target class is among its ``k`` highest predictions (ties at
    the boundary count as in).

    TF2's argument order (``tf.math.in_top_k(targets, predictions, k)``).  TF1's
    ``tf.compat.v1.nn.in_top_k(predictions, targets, k)`` reaches this function too (its
    namespace is this one), so positional arguments given as (float scores, integer
    classes) are taken in TF1's order: the dtypes decide, since either order is an
    error the other way round.
    """
    with name_scope(name, "in_top_k"):
        t = convert_to_tensor(targets)
        p = convert_to_tensor(predictions)
        if t.dtype.is_floating and p.dtype.is_integer:
            t, p = p, t
        k_t = convert_to_tensor(k, dtype=t.dtype if t.dtype in (dt.int32, dt.int64) else None)
        return apply_op1("InTopKV2", [p, t, k_t])


# --------------------------------------------------------------------------------------
# Composites (TF's Python-level functions)


def reciprocal_no_nan(x: Any, name: str | None = None) -> Tensor:
    """1 / x, and 0 where x is 0: ``DivNoNan(1, x)`` as TF builds it."""
    with name_scope(name, "reciprocal_no_nan"):
        x = convert_to_tensor(x)
        return safe_math.divide_no_nan(convert_to_tensor(1, dtype=x.dtype), x)


def scalar_mul(scalar: Any, x: Any, name: str | None = None) -> Tensor:
    """``scalar * x`` for a 0-D ``scalar`` converted to x's dtype (one Mul op)."""
    x = convert_to_tensor(x)
    s = convert_to_tensor(scalar, dtype=x.dtype)
    if s.shape.rank != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {s.shape}.")
    return math.multiply(s, x, name=name)
