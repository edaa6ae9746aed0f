"""Elementwise ops with guarded edge cases: Xlogy, Xdivy, Xlog1py, DivNoNan, MulNoNan,
TruncateDiv,
TruncateMod, Expm1, IsNan/IsInf/IsFinite, Softsign (with SoftsignGrad), and
NextAfter.

The ``x*`` and ``*_no_nan`` ops exist so that 0·log(0), 0/0 and 0·inf give 0 where a
probability or a mask is zero: ``xlogy(0, y) = 0`` for every y (nan included), while
``div_no_nan(x, 0) = 0`` and ``multiply_no_nan(x, 0) = 0`` for every x.  Gradient rules are
TensorFlow's (math_grad.py, nn_grad.py), written with the same guarded ops, so they keep the
guards; TruncateDiv and the IsNan family have none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core import dtypes as dt
from symgrad.core.cases import (
    COMPLEX,
    Case,
    complex_randn,
    fixed,
    ints,
    positive,
    randn,
    uniform,
)
from symgrad.core.errors import InternalError
from symgrad.core.gradient_registry import RegisterGradient, no_gradient
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.ops import cast_select
from symgrad.ops.array_vjp import MUL, NEG, binary_array_rule, kernel, unary_array_rule
from symgrad.ops.array_vjp import conj as conj_a
from symgrad.ops.core import (
    FLOAT_COMPLEX,
    FLOATS,
    REAL,
    binary_grad,
    binary_op,
    check_dtype,
    same_dtype,
    unary_op,
    wanted,
)
from symgrad.ops.math.complex import conj
from symgrad.ops.math.elementwise import exp, negative, not_equal, sign, square


def _where_x_zero(fn: Any) -> Any:
    """``fn(x, y)``, but 0 wherever x is 0 (whatever y is)."""

    def kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.where(x == 0, np.zeros((), x.dtype), fn(x, y)).astype(x.dtype, copy=False)

    return kernel


def _nonzero(x: Tensor) -> Tensor:
    """1 where x != 0, else 0, in x's dtype (TF's ``not_zero_x``)."""
    return cast_select.cast(not_equal(x, cast_select.zeros_like(x)), x.dtype)


def _xlogy_ref(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(x == 0, 0, x * np.log(y))  # type: ignore[no-any-return]


# --------------------------------------------------------------------------------------
# Xlogy, Xdivy, Xlog1py

xlogy = binary_op(
    "Xlogy",
    _where_x_zero(lambda x, y: x * np.log(y)),
    "xlogy",
    FLOAT_COMPLEX,
    cases=[
        Case([uniform(0.1, 2, 2, 3, 4), positive(3, 1)], _xlogy_ref),
        Case(
            [fixed([0.0, 1.5, 0.0]), fixed([0.0, 2.0, np.nan])],
            lambda x, y: np.array([0.0, 1.5 * np.log(2.0), 0.0]),
            order=0,
            name="zero_x",
            note="x = 0 gives 0 even at y = 0 or nan",
        ),
    ],
)


@binary_grad("Xlogy")
def _xlogy_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(g · xlogy(x != 0, y), g · xdivy(x, y))."""
    x, y = op.inputs
    return wanted(op, lambda: grad * xlogy(_nonzero(x), y), lambda: grad * xdivy(x, y))


xdivy = binary_op(
    "Xdivy",
    _where_x_zero(np.true_divide),
    "xdivy",
    FLOAT_COMPLEX,
    cases=[Case([randn(2, 3, 4), positive(3, 1)], np.true_divide)],
)


@binary_grad("Xdivy")
def _xdivy_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(g · xdivy(x != 0, y), g · xdivy(-x, y²))."""
    x, y = op.inputs
    return wanted(
        op, lambda: grad * xdivy(_nonzero(x), y), lambda: grad * xdivy(negative(x), square(y))
    )


xlog1py = binary_op(
    "Xlog1py",
    _where_x_zero(lambda x, y: x * np.log1p(y)),
    "xlog1py",
    FLOAT_COMPLEX,
    cases=[Case([randn(2, 3, 4), uniform(-0.5, 2, 3, 1)], lambda x, y: x * np.log1p(y))],
)


@binary_grad("Xlog1py")
def _xlog1py_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(g · xlog1py(x != 0, y), g · xdivy(x, y + 1))."""
    x, y = op.inputs
    return wanted(op, lambda: grad * xlog1py(_nonzero(x), y), lambda: grad * xdivy(x, y + 1))


# --------------------------------------------------------------------------------------
# DivNoNan, MulNoNan, TruncateDiv


def _div_no_nan(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(y == 0, np.zeros((), x.dtype), x / y).astype(x.dtype, copy=False)


def _mul_no_nan(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(y == 0, np.zeros((), x.dtype), x * y).astype(x.dtype, copy=False)


divide_no_nan = binary_op(
    "DivNoNan",
    _div_no_nan,
    "divide_no_nan",
    FLOAT_COMPLEX,
    cases=[
        Case([randn(2, 3, 4), positive(3, 1)], np.true_divide),
        Case(
            [fixed([1.0, np.nan, 3.0]), fixed([0.0, 0.0, 2.0])],
            lambda x, y: np.array([0.0, 0.0, 1.5]),
            order=0,
            name="zero_y",
            note="y = 0 gives 0 even for x = nan",
        ),
    ],
)
div_no_nan = divide_no_nan


@binary_grad("DivNoNan")
def _div_no_nan_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(div_no_nan(g, conj(y)), g · div_no_nan(div_no_nan(-conj(x), conj(y)), conj(y)))."""
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    return wanted(
        op,
        lambda: divide_no_nan(grad, y),
        lambda: grad * divide_no_nan(divide_no_nan(negative(x), y), y),
    )


@binary_array_rule("DivNoNan")
def _div_no_nan_array(x: Any, y: Any, z: Any, g: Any, needs: Any) -> Any:
    x, y = conj_a(x), conj_a(y)
    return (
        _DIV_NO_NAN(g, y) if needs[0] else None,
        MUL(g, _DIV_NO_NAN(_DIV_NO_NAN(NEG(x), y), y)) if needs[1] else None,
    )


multiply_no_nan = binary_op(
    "MulNoNan",
    _mul_no_nan,
    "multiply_no_nan",
    FLOAT_COMPLEX,
    cases=[
        Case([randn(2, 3, 4), randn(3, 1)], np.multiply),
        Case(
            [fixed([np.inf, np.nan, 3.0]), fixed([0.0, 0.0, 2.0])],
            lambda x, y: np.array([0.0, 0.0, 6.0]),
            order=0,
            name="zero_y",
            note="y = 0 gives 0 even for x = inf or nan",
        ),
    ],
)
mul_no_nan = multiply_no_nan


@binary_grad("MulNoNan")
def _mul_no_nan_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(mul_no_nan(g, y), mul_no_nan(x, g)): TF's rule, without conj."""
    x, y = op.inputs
    return wanted(op, lambda: multiply_no_nan(grad, y), lambda: multiply_no_nan(x, grad))


def _truncate_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        if x.size and np.any(y == 0):
            raise ZeroDivisionError("Integer division by zero")
        q = np.floor_divide(x, y)
        return q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0)))  # type: ignore[no-any-return]
    return np.trunc(x / y)  # type: ignore[no-any-return]


truncatediv = binary_op(
    "TruncateDiv",
    _truncate_div,
    "truncatediv",
    REAL,
    cases=[
        Case(
            [
                lambda rng, d: np.array([[-7, 7], [-7, 7]], d),
                lambda rng, d: np.array([[2, 2], [-2, -2]], d),
            ],
            lambda x, y: np.array([[-3, 3], [3, -3]], np.int32),
            dtypes=(np.int32, np.int64),
            order=0,
            name="int",
            note="integer division: no gradient",
        ),
        Case(
            [uniform(-9, 9, 3, 4), uniform(1, 3, 4)],
            lambda x, y: np.trunc(x / y),
            order=0,
            note="piecewise constant: TF's rule returns None",
        ),
    ],
)


@binary_grad("TruncateDiv")
def _truncate_div_grad(op: Any, grad: Tensor) -> tuple[None, None]:
    """(None, None), as TF."""
    return None, None


def _truncate_mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu" and x.size and np.any(y == 0):
        raise InternalError(
            "Unexpected error in binary operator (only integer div and mod should have errors)"
        )
    return np.fmod(x, y)  # type: ignore[no-any-return]


truncatemod = binary_op(
    "TruncateMod",
    _truncate_mod,
    "truncatemod",
    REAL,
    cases=[
        Case(
            [ints([[7, -7], [7, -7]]), ints([[3, 3], [-3, -3]])],
            lambda x, y: np.array([[1, -1], [1, -1]], np.int32),
            dtypes=(np.int32,),
            order=0,
            name="int",
            note="the remainder takes the dividend's sign (C's %)",
        ),
        Case(
            [uniform(-9, 9, 3, 4), uniform(1, 3, 4)],
            np.fmod,
            order=0,
            note="TF registers no gradient for TruncateMod",
        ),
    ],
)


@RegisterGradient("TruncateMod")
def _truncate_mod_grad(op: Any, grad: Tensor) -> None:
    """TF registers no gradient for TruncateMod: differentiating it is TF's LookupError."""
    raise LookupError("gradient registry has no entry for: TruncateMod")


# --------------------------------------------------------------------------------------
# Expm1, IsNan, IsInf, IsFinite

expm1 = unary_op(
    "Expm1",
    np.expm1,
    "expm1",
    cases=[
        Case([randn(3, 4)], np.expm1),
        Case([complex_randn(2, 3)], np.expm1, dtypes=COMPLEX, name="complex"),
    ],
)


@RegisterGradient("Expm1")
def _expm1_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · exp(conj(x))."""
    return grad * exp(conj(op.inputs[0]))


@unary_array_rule("Expm1")
def _expm1_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(g, _EXP(conj_a(x)))


_DIV_NO_NAN, _EXP = kernel("DivNoNan"), kernel("Exp")


_SPECIALS = fixed([[1.0, np.nan, np.inf], [-np.inf, 0.0, -2.5]])
_NOT_DIFF = "bool output: not differentiable"
is_nan = unary_op(
    "IsNan",
    np.isnan,
    "is_nan",
    FLOATS,
    lambda d: dt.bool_,
    cases=[Case([_SPECIALS], np.isnan, order=0, note=_NOT_DIFF)],
)
is_inf = unary_op(
    "IsInf",
    np.isinf,
    "is_inf",
    FLOATS,
    lambda d: dt.bool_,
    cases=[Case([_SPECIALS], np.isinf, order=0, note=_NOT_DIFF)],
)
is_finite = unary_op(
    "IsFinite",
    np.isfinite,
    "is_finite",
    FLOATS,
    lambda d: dt.bool_,
    cases=[Case([_SPECIALS], np.isfinite, order=0, note=_NOT_DIFF)],
)
for _t in ("IsNan", "IsInf", "IsFinite"):
    no_gradient(_t)


# --------------------------------------------------------------------------------------
# Softsign, SoftsignGrad


def _softsign_grad_infer(inputs: Sequence[Tensor]) -> Spec:
    g, x = inputs
    d = same_dtype(inputs, ("gradients", "features"))
    check_dtype("SoftsignGrad", g, FLOATS, "gradients")
    if not g.shape.is_compatible_with(x.shape):
        raise ShapeError(
            f"gradients and features must have the same shape, got {g.shape} and {x.shape}"
        )
    return g.shape.merge_with(x.shape), d


_softsign = unary_op(
    "Softsign",
    lambda x: x / (1 + np.abs(x)),
    "softsign",
    FLOATS,
    cases=[Case([randn(3, 4)], lambda x: x / (1 + np.abs(x)))],
)


def softsign(features: Any, name: str | None = None) -> Tensor:
    """``features / (1 + |features|)`` (TF's argument name is ``features``)."""
    return _softsign(features, name=name)


SOFTSIGN_GRAD = register_op(
    "SoftsignGrad",
    _softsign_grad_infer,
    lambda g, x: g / np.square(1 + np.abs(x)),
    elementwise=True,
    batch=batching.same_shape,
    cases=[Case([randn(3, 4), uniform(0.2, 2, 3, 4)], lambda g, x: g / np.square(1 + np.abs(x)))],
)


def _softsign_grad_op(g: Tensor, x: Tensor) -> Tensor:
    return apply_op1("SoftsignGrad", [g, x])


@RegisterGradient("Softsign")
def _softsign_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g / (1 + |x|)², as one SoftsignGrad op."""
    return _softsign_grad_op(grad, op.inputs[0])


@SOFTSIGN_GRAD.gradient
def _softsign_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """d g = SoftsignGrad(grad, x); d x = -2 grad · g · sign(x) / (1 + |x|)³.

    TF has no rule for SoftsignGrad (its second derivative raises LookupError); this one
    follows from the formula.
    """
    g, x = op.inputs
    first = _softsign_grad_op(grad, x)
    return first, -2.0 * first * g * sign(x) / (1 + x * sign(x))


# --------------------------------------------------------------------------------------
# NextAfter: the next representable float after x1 towards x2

_nextafter = binary_op(
    "NextAfter",
    np.nextafter,
    "nextafter",
    (dt.float32, dt.float64),
    cases=[Case([randn(2, 3), randn(3)], np.nextafter)],
)


def nextafter(x1: Any, x2: Any, name: str | None = None) -> Tensor:
    """The next float after ``x1`` towards ``x2`` (TF's argument names)."""
    return _nextafter(x1, x2, name=name)


@binary_grad("NextAfter")
def _nextafter_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(g, 0), as TF: nextafter(x1, x2) moves x1 by one ulp, so it follows x1 with slope 1
    and does not depend on x2 (the step direction is piecewise constant)."""
    return wanted(op, lambda: grad, lambda: cast_select.zeros_like(grad))
