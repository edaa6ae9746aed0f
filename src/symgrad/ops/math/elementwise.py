"""Elementwise arithmetic, comparisons and logic: one declaration per op.

Each op is declared once (kernel, dtypes, op-table cases, traits; ``unary_op`` and
``binary_op`` add the elementwise batching rule) and its gradient rule stands right under
it.  Rules are written with the public ops, so they build graph ops or run eagerly by mode
and can be differentiated again.  Complex rules conjugate the saved operands: for
holomorphic f the gradient passed back is ``grad * conj(f'(z))`` (TensorFlow's convention).
AddN is in ``add_n`` (re-exported here); MatMul and BatchMatMulV2 are linear algebra
(``ops.linalg.matmul``).
"""

from __future__ import annotations

import math as _pymath
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core import dtypes as dt
from symgrad.core.cases import (
    COMPLEX,
    FLOAT,
    Case,
    Gen,
    away,
    complex_randn,
    fixed,
    positive,
    randn,
    uniform,
)
from symgrad.core.gradient_registry import RegisterGradient, array_rule, no_gradient
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.ops import cast_select
from symgrad.ops.array_vjp import (
    ADD,
    DIV,
    MUL,
    NEG,
    SELECT,
    SUB,
    ZEROS_LIKE,
    binary_array_rule,
    kernel,
    scalar,
    unary_array_rule,
    unbroadcast,
)
from symgrad.ops.array_vjp import conj as conj_a
from symgrad.ops.core import (
    ALL,
    FLOAT_COMPLEX,
    FLOATS,
    INTS,
    NUMERIC,
    REAL,
    binary_grad,
    binary_op,
    check_dtype,
    convert_n,
    convert_to_tensor,
    same_dtype,
    unary_op,
    wanted,
)
from symgrad.ops.math import complex as complex_ops
from symgrad.ops.math.add_n import add_n as add_n

conj = complex_ops.conj


def _backward_op(
    op_type: str, kernel: Callable[..., np.ndarray], case: Case
) -> Callable[[Tensor, Tensor], Tensor]:
    """Declare ``op_type(y, dy)``, the backward kernel of a unary op as TF's graphs have it
    (SqrtGrad, TanhGrad...: one op instead of three); returns the function applying it."""

    def infer(inputs: Sequence[Tensor]) -> Spec:
        y, dy = inputs
        d = same_dtype(inputs, ("y", "dy"))
        check_dtype(op_type, y, FLOAT_COMPLEX, "y")
        if y.shape.dims == dy.shape.dims:
            return y.shape, d
        if not y.shape.is_compatible_with(dy.shape):
            raise ShapeError(f"y and dy must have the same shape, got {y.shape} and {dy.shape}")
        return y.shape.merge_with(dy.shape), d

    def apply(y: Tensor, dy: Tensor) -> Tensor:
        return apply_op1(op_type, [y, dy])

    register_op(op_type, infer, kernel, elementwise=True, batch=batching.same_shape, cases=[case])
    return apply


# --------------------------------------------------------------------------------------
# Unary


negative = unary_op(
    "Neg",
    np.negative,
    "negative",
    NUMERIC,
    inplace=np.negative,
    cases=[Case([randn(3, 4)], np.negative)],
)
neg = negative


@RegisterGradient("Neg")
def _neg_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = -g."""
    return -grad


@unary_array_rule("Neg")
def _neg_array(x: Any, y: Any, g: Any) -> Any:
    return NEG(g)


exp = unary_op(
    "Exp",
    np.exp,
    "exp",
    inplace=np.exp,
    cases=[
        Case([randn(3, 4)], np.exp),
        Case([complex_randn(3, 4)], np.exp, dtypes=COMPLEX, name="complex"),
    ],
)


@RegisterGradient("Exp")
def _exp_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · conj(y)."""
    return grad * conj(op.outputs[0])


@unary_array_rule("Exp")
def _exp_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(g, conj_a(y))


log = unary_op(
    "Log",
    np.log,
    "log",
    cases=[
        Case([positive(3, 4)], np.log),
        Case([complex_randn(3, 4)], np.log, dtypes=COMPLEX, name="complex"),
    ],
)


@RegisterGradient("Log")
def _log_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g / conj(x)."""
    return grad * reciprocal(conj(op.inputs[0]))


@unary_array_rule("Log")
def _log_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(g, _RECIPROCAL(conj_a(x)))


log1p = unary_op("Log1p", np.log1p, "log1p", cases=[Case([positive(3, 4)], np.log1p)])


@RegisterGradient("Log1p")
def _log1p_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g / (1 + conj(x))."""
    return grad * reciprocal(1 + conj(op.inputs[0]))


@unary_array_rule("Log1p")
def _log1p_array(x: Any, y: Any, g: Any) -> Any:
    cx = conj_a(x)
    return MUL(g, _RECIPROCAL(ADD(scalar(1, cx), cx)))


sqrt = unary_op("Sqrt", np.sqrt, "sqrt", cases=[Case([positive(3, 4)], np.sqrt)])


@RegisterGradient("Sqrt")
def _sqrt_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = 0.5 · g / conj(y), and 0 wherever g is 0."""
    return _sqrt_grad_op(op.outputs[0], grad)


@unary_array_rule("Sqrt")
def _sqrt_array(x: Any, y: Any, g: Any) -> Any:
    return _SQRT_GRAD(y, g)


def _sqrt_grad_kernel(y: np.ndarray, g: np.ndarray) -> np.ndarray:
    # Where g == 0 the result is 0 even at y == 0, so `where` masks over sqrt give no nan.
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 0.5 * g / np.conj(y)
    return np.where(g == 0, 0, out).astype(y.dtype)


_sqrt_grad_op = _backward_op(
    "SqrtGrad", _sqrt_grad_kernel, Case([positive(3, 4), randn(3, 4)], lambda y, g: 0.5 * g / y)
)


@RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """z = 0.5 b / conj(a): da = -conj(g z / a), db = 0.5 g / conj(a)."""
    a = op.inputs[0]
    ga = grad / a
    return -conj(ga) * op.outputs[0], 0.5 * ga


rsqrt = unary_op(
    "Rsqrt",
    lambda x: np.reciprocal(np.sqrt(x)),
    "rsqrt",
    cases=[Case([positive(3, 4)], lambda x: 1 / np.sqrt(x))],
)


@RegisterGradient("Rsqrt")
def _rsqrt_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = -0.5 · g · conj(y)^3, and 0 wherever g is 0."""
    return _rsqrt_grad_op(op.outputs[0], grad)


@unary_array_rule("Rsqrt")
def _rsqrt_array(x: Any, y: Any, g: Any) -> Any:
    return _RSQRT_GRAD(y, g)


def _rsqrt_grad_kernel(y: np.ndarray, g: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        out = -0.5 * g * np.conj(y) ** 3
    return np.where(g == 0, 0, out).astype(y.dtype)


_rsqrt_grad_op = _backward_op(
    "RsqrtGrad",
    _rsqrt_grad_kernel,
    Case([positive(3, 4), randn(3, 4)], lambda y, g: -0.5 * g * y**3),
)


@RegisterGradient("RsqrtGrad")
def _rsqrt_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """z = -0.5 b conj(a)^3: da = -1.5 g b conj(a)^2, db = -0.5 g conj(a)^3."""
    a, b = op.inputs
    ca = conj(a)
    return -1.5 * grad * conj(b) * ca * ca, -0.5 * grad * ca * ca * ca


square = unary_op("Square", np.square, "square", NUMERIC, cases=[Case([randn(3, 4)], np.square)])


@RegisterGradient("Square")
def _square_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = 2 · g · conj(x)."""
    return grad * (2 * conj(op.inputs[0]))


@unary_array_rule("Square")
def _square_array(x: Any, y: Any, g: Any) -> Any:
    cx = conj_a(x)
    return MUL(g, MUL(scalar(2, cx), cx))


_real_abs = unary_op("Abs", np.abs, "abs", REAL, cases=[Case([away(3, 4)], np.abs)])


@RegisterGradient("Abs")
def _abs_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · sign(x); 0 at x = 0."""
    return grad * sign(op.inputs[0])


@unary_array_rule("Abs")
def _abs_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(g, _SIGN(x))


def abs(x: Any, name: str | None = None) -> Tensor:
    """|x|; for complex x the magnitude (op type ComplexAbs), real-valued, as TF."""
    t = convert_to_tensor(x)
    if t.dtype.is_complex:
        return apply_op1("ComplexAbs", [t], name=name)
    return _real_abs(t, name=name)


register_op(
    "ComplexAbs",
    complex_ops.part_infer("ComplexAbs"),
    np.abs,
    elementwise=True,
    batch=batching.elementwise,
    cases=[Case([complex_randn(3, 4)], np.abs, fn=abs, dtypes=COMPLEX)],
)


@RegisterGradient("ComplexAbs")
def _complex_abs_grad(op: Any, grad: Tensor) -> Tensor:
    """dz = g · z / |z|, and 0 where |z| = 0."""
    z, r = op.inputs[0], op.outputs[0]
    safe_r = cast_select.where(equal(r, 0), cast_select.ones_like(r), r)
    unit = cast_select.where(
        equal(r, 0),
        cast_select.zeros_like(z),
        z / complex_ops.complex(safe_r, cast_select.zeros_like(r)),
    )
    return complex_ops.complex(grad, cast_select.zeros_like(grad)) * unit


def _real_or_complex_sign(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        mag = np.abs(x)
        return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag)).astype(x.dtype)
    return np.sign(x)


sign = unary_op("Sign", _real_or_complex_sign, "sign", NUMERIC, cases=[Case([away(3, 4)], np.sign)])


@RegisterGradient("Sign")
def _sign_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = 0 (a real zero gradient, as TF, not None)."""
    return cast_select.zeros_like(op.inputs[0])


@unary_array_rule("Sign")
def _sign_array(x: Any, y: Any, g: Any) -> Any:
    return ZEROS_LIKE(x)


sin = unary_op("Sin", np.sin, "sin", cases=[Case([randn(3, 4)], np.sin)])


@RegisterGradient("Sin")
def _sin_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · conj(cos x)."""
    return grad * conj(cos(op.inputs[0]))


@unary_array_rule("Sin")
def _sin_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(g, conj_a(_COS(x)))


cos = unary_op("Cos", np.cos, "cos", cases=[Case([randn(3, 4)], np.cos)])


@RegisterGradient("Cos")
def _cos_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = -g · conj(sin x)."""
    return -grad * conj(sin(op.inputs[0]))


@unary_array_rule("Cos")
def _cos_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(NEG(g), conj_a(_SIN(x)))


tan = unary_op("Tan", np.tan, "tan", cases=[Case([uniform(-1, 1, 3, 4)], np.tan)])


@RegisterGradient("Tan")
def _tan_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · conj(1 / cos² x)."""
    c = reciprocal(cos(op.inputs[0]))
    return grad * conj(c * c)


@unary_array_rule("Tan")
def _tan_array(x: Any, y: Any, g: Any) -> Any:
    c = _RECIPROCAL(_COS(x))
    return MUL(g, conj_a(MUL(c, c)))


tanh = unary_op("Tanh", np.tanh, "tanh", inplace=np.tanh, cases=[Case([randn(3, 4)], np.tanh)])


@RegisterGradient("Tanh")
def _tanh_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · conj(1 - y²), as one TanhGrad op."""
    return _tanh_grad_op(conj(op.outputs[0]), grad)


@unary_array_rule("Tanh")
def _tanh_array(x: Any, y: Any, g: Any) -> Any:
    return _TANH_GRAD(conj_a(y), g)


# `y` arrives conjugated from the rule above.
_tanh_grad_op = _backward_op(
    "TanhGrad",
    lambda y, dy: dy * (1 - y * y),
    Case([uniform(-0.9, 0.9, 3, 4), randn(3, 4)], lambda y, dy: dy * (1 - y * y)),
)


@RegisterGradient("TanhGrad")
def _tanh_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """d y = -2 g · conj(dy) · conj(y); d dy = TanhGrad(conj(y), g)."""
    y, dy = conj(op.inputs[0]), conj(op.inputs[1])
    return grad * -2.0 * dy * y, _tanh_grad_op(y, grad)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # Split by sign so that neither branch overflows exp.
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


sigmoid = unary_op(
    "Sigmoid", _sigmoid, "sigmoid", cases=[Case([randn(3, 4)], lambda x: 1 / (1 + np.exp(-x)))]
)


@RegisterGradient("Sigmoid")
def _sigmoid_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · conj(y (1 - y)), as one SigmoidGrad op."""
    return _sigmoid_grad_op(conj(op.outputs[0]), grad)


@unary_array_rule("Sigmoid")
def _sigmoid_array(x: Any, y: Any, g: Any) -> Any:
    return _SIGMOID_GRAD(conj_a(y), g)


# `y` arrives conjugated from the rule above.
_sigmoid_grad_op = _backward_op(
    "SigmoidGrad",
    lambda y, dy: dy * (y * (1 - y)),
    Case([uniform(0.1, 0.9, 3, 4), randn(3, 4)], lambda y, dy: dy * y * (1 - y)),
)


@RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """d y = g · conj(dy) · (1 - 2 conj(y)); d dy = SigmoidGrad(conj(y), g)."""
    y, dy = conj(op.inputs[0]), conj(op.inputs[1])
    gb = grad * dy
    return gb - 2.0 * gb * y, _sigmoid_grad_op(y, grad)


reciprocal = unary_op(
    "Reciprocal", np.reciprocal, "reciprocal", cases=[Case([positive(3, 4)], lambda x: 1 / x)]
)


@RegisterGradient("Reciprocal")
def _reciprocal_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = -g · conj(y²)."""
    y = conj(op.outputs[0])
    return -grad * (y * y)


@unary_array_rule("Reciprocal")
def _reciprocal_array(x: Any, y: Any, g: Any) -> Any:
    cy = conj_a(y)
    return MUL(NEG(g), MUL(cy, cy))


_erf = np.frompyfunc(_pymath.erf, 1, 1)
erf = unary_op(
    "Erf",
    lambda x: np.asarray(_erf(x), dtype=x.dtype),
    "erf",
    FLOATS,
    cases=[Case([randn(3, 4)], np.vectorize(_pymath.erf))],
)


@RegisterGradient("Erf")
def _erf_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · 2/√π · exp(-x²)."""
    x = op.inputs[0]
    return grad * (2 / np.sqrt(np.pi)) * exp(-square(x))


# --------------------------------------------------------------------------------------
# Binary (broadcasting; binary_grad reduces each result back to its input's shape)

_BROADCAST = (randn(2, 3, 4), randn(3, 1))  # operands of different shapes

add = binary_op(
    "AddV2",
    np.add,
    "add",
    NUMERIC,
    op_name="add",
    fn_name="Add",
    inplace=np.add,
    cases=[Case(_BROADCAST, np.add)],
)


@binary_grad("AddV2")
def _add_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(g, g)."""
    return grad, grad


@array_rule("AddV2")
def _add_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    """``binary_array_rule``'s form of (g, g), written out (no rule to call: a layer's bias
    add, each step): g for each input wanted, un-broadcast to its shape."""
    x, y = xs
    g = grads[0]
    return [
        None if not needs[0] else g if g.shape == x.shape else unbroadcast(g, x.shape),
        None if not needs[1] else g if g.shape == y.shape else unbroadcast(g, y.shape),
    ]


subtract = binary_op(
    "Sub",
    np.subtract,
    "subtract",
    NUMERIC,
    op_name="sub",
    fn_name="Sub",
    inplace=np.subtract,
    cases=[Case(_BROADCAST, np.subtract)],
)
sub = subtract


@binary_grad("Sub")
def _sub_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(g, -g)."""
    return wanted(op, lambda: grad, lambda: -grad)


@binary_array_rule("Sub")
def _sub_array(x: Any, y: Any, z: Any, g: Any, needs: Any) -> Any:
    return g, NEG(g) if needs[1] else None


def _times_one(*positions: int) -> Any:
    """``forwards`` of Mul / RealDiv: operand i, when the other is a constant 1 that cannot
    broadcast it to another shape (``x * 1.0``, ``x / 1``)."""

    def forwards(op: Any, consts: list[Any]) -> int | None:
        out = op.output_shapes[0]
        for i in positions:
            one, x = consts[1 - i], op.inputs[i]
            if one is None or x.dtype is not op.output_dtypes[0]:
                continue
            a = np.asarray(one)
            if a.dtype.kind not in "fciu" or a.size == 0 or not np.all(a == 1):
                continue
            if (x.shape.is_fully_defined() and x.shape.dims == out.dims) or (
                x.shape.rank is not None and a.size == 1 and a.ndim <= x.shape.rank
            ):
                return i
        return None

    return forwards


multiply = binary_op(
    "Mul",
    np.multiply,
    "multiply",
    NUMERIC,
    op_name="mul",
    fn_name="Mul",
    inplace=np.multiply,
    forwards=_times_one(0, 1),
    cases=[
        Case(_BROADCAST, np.multiply),
        Case([complex_randn(2, 3), complex_randn(3)], np.multiply, dtypes=COMPLEX, name="complex"),
    ],
)
mul = multiply


@binary_grad("Mul")
def _mul_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(g · conj(y), conj(x) · g)."""
    x, y = op.inputs
    return wanted(op, lambda: grad * conj(y), lambda: conj(x) * grad)


@binary_array_rule("Mul")
def _mul_array(x: Any, y: Any, z: Any, g: Any, needs: Any) -> Any:
    return (
        MUL(g, conj_a(y)) if needs[0] else None,
        MUL(conj_a(x), g) if needs[1] else None,
    )


real_div = binary_op(
    "RealDiv",
    np.true_divide,
    "realdiv",
    FLOAT_COMPLEX,
    op_name="truediv",
    inplace=np.true_divide,
    forwards=_times_one(0),
    cases=[Case([randn(2, 3, 4), positive(3, 1)], np.divide)],
)


@binary_grad("RealDiv")
def _realdiv_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(g / conj(y), g · (-conj(x) / conj(y)) / conj(y))."""
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    return wanted(op, lambda: grad / y, lambda: grad * ((-x / y) / y))


@binary_array_rule("RealDiv")
def _realdiv_array(x: Any, y: Any, z: Any, g: Any, needs: Any) -> Any:
    x, y = conj_a(x), conj_a(y)
    return (
        DIV(g, y) if needs[0] else None,
        MUL(g, DIV(DIV(NEG(x), y), y)) if needs[1] else None,
    )


def divide(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x / y`` as Python 3 does it: integers are cast to float64 first (TF's truediv)."""
    a, b = convert_n((x, y))
    if a.dtype in INTS:
        same_dtype([a, b])
        a, b = cast_select.cast(a, dt.float64), cast_select.cast(b, dt.float64)
    return real_div(a, b, name=name)


truediv = divide
div = divide


def _floordiv(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu" and x.size and np.any(y == 0):  # (as TF: none for no elements)
        raise ZeroDivisionError("Integer division by zero")
    return np.floor_divide(x, y)


_FLOOR_ARGS = (uniform(1, 5, 2, 3, 4), uniform(1.5, 2, 3, 1))  # away from the jumps
floordiv = binary_op(
    "FloorDiv",
    _floordiv,
    "floordiv",
    REAL,
    op_name="floordiv",
    cases=[
        Case(_FLOOR_ARGS, np.floor_divide, order=0, note="piecewise constant: NoGradient, as TF")
    ],
)
floor_div = floordiv
no_gradient("FloorDiv")


def _floormod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu" and x.size and np.any(y == 0):  # (as TF: none for no elements)
        raise ZeroDivisionError("Integer division by zero")
    return np.mod(x, y)


floormod = binary_op(
    "FloorMod",
    _floormod,
    "floormod",
    REAL,
    op_name="mod",
    fn_name="FloorMod",
    cases=[Case(_FLOOR_ARGS, np.mod)],
)
mod = floormod


@binary_grad("FloorMod")
def _floormod_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(g, -g · floor(x / y))."""
    x, y = op.inputs
    return grad, -grad * floordiv(x, y)


def _pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu" and np.any(y < 0):
        raise ValueError("Integers to negative integer powers are not allowed")
    return np.power(x, y)


pow = binary_op(
    "Pow",
    _pow,
    "pow",
    NUMERIC,
    op_name="pow",
    fn_name="Pow",
    cases=[Case([positive(2, 3, 4), randn(3, 1)], np.power)],
)


@binary_grad("Pow")
def _pow_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = g·y·x^(y-1); dy = g·z·log(x) where x > 0 (x != 0 for complex), else 0."""
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    z = conj(op.outputs[0])
    dx = grad * y * pow(x, y - 1)
    safe = not_equal(x, 0) if x.dtype.is_complex else greater(x, 0)
    log_x = cast_select.where(
        safe, log(cast_select.where(safe, x, cast_select.ones_like(x))), cast_select.zeros_like(x)
    )
    return dx, grad * z * log_x


@binary_array_rule("Pow")
def _pow_array(x: Any, y: Any, z: Any, g: Any, needs: Any) -> Any:
    x, y = conj_a(x), conj_a(y)
    dx = MUL(MUL(g, y), _POW(x, SUB(y, scalar(1, y))))  # always, as the rule (it may raise)
    if x.dtype.kind in "iu":  # the rule's Log refuses integers
        raise TypeError(f"Pow's gradient takes float or complex operands, got {x.dtype}")
    if not needs[1]:
        return dx, None
    zero = scalar(0, x)
    safe = _NOT_EQUAL(x, zero) if x.dtype.kind == "c" else _GREATER(x, zero)
    log_x = SELECT(safe, _LOG(SELECT(safe, x, _ONES_LIKE(x))), ZEROS_LIKE(x))
    return dx, MUL(MUL(g, conj_a(z)), log_x)


maximum = binary_op("Maximum", np.maximum, "maximum", REAL, cases=[Case(_BROADCAST, np.maximum)])


@binary_grad("Maximum")
def _maximum_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """Ties go to x: dx = g where x >= y, dy = g where x < y."""
    x, y = op.inputs
    zeros = cast_select.zeros_like(grad)
    mask = greater_equal(x, y)
    return cast_select.where(mask, grad, zeros), cast_select.where(mask, zeros, grad)


@binary_array_rule("Maximum")
def _maximum_array(x: Any, y: Any, z: Any, g: Any, needs: Any) -> Any:
    return _masked(g, _GREATER_EQUAL(x, y), needs)


def _masked(g: Any, mask: Any, needs: Any) -> tuple[Any, Any]:
    zeros = ZEROS_LIKE(g)
    return (
        SELECT(mask, g, zeros) if needs[0] else None,
        SELECT(mask, zeros, g) if needs[1] else None,
    )


minimum = binary_op("Minimum", np.minimum, "minimum", REAL, cases=[Case(_BROADCAST, np.minimum)])


@binary_grad("Minimum")
def _minimum_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """Ties go to x: dx = g where x <= y, dy = g where x > y."""
    x, y = op.inputs
    zeros = cast_select.zeros_like(grad)
    mask = less_equal(x, y)
    return cast_select.where(mask, grad, zeros), cast_select.where(mask, zeros, grad)


@binary_array_rule("Minimum")
def _minimum_array(x: Any, y: Any, z: Any, g: Any, needs: Any) -> Any:
    return _masked(g, _LESS_EQUAL(x, y), needs)


squared_difference = binary_op(
    "SquaredDifference",
    lambda x, y: np.square(x - y) if x.dtype.kind != "c" else (x - y) * np.conj(x - y),
    "squared_difference",
    NUMERIC,
    cases=[Case(_BROADCAST, lambda x, y: (x - y) ** 2)],
)


@binary_grad("SquaredDifference")
def _squared_difference_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = 2 g (x - y), dy = -dx (conjugated for complex)."""
    x, y = op.inputs
    dx = 2 * grad * conj(x - y)
    return dx, -dx


@binary_array_rule("SquaredDifference")
def _squared_difference_array(x: Any, y: Any, z: Any, g: Any, needs: Any) -> Any:
    dx = MUL(MUL(scalar(2, g), g), conj_a(SUB(x, y)))
    return dx, NEG(dx) if needs[1] else None


# --------------------------------------------------------------------------------------
# Comparisons and logic: never differentiable (NoGradient, as TF); their rows check the
# forward values and the shape rule.


def _predicate(ref: Callable[..., Any], *inputs: Gen, dtypes: Sequence[Any] = FLOAT) -> list[Case]:
    return [Case(inputs, ref, dtypes=dtypes, order=0, note="boolean output: NoGradient")]


_BOOL = (np.bool_,)
equal = binary_op(
    "Equal",
    np.equal,
    "equal",
    ALL,
    dt.bool_,
    cases=_predicate(
        np.equal, fixed([1, 2, 3], np.int32), fixed([1, 0, 3], np.int32), dtypes=(np.int32,)
    ),
)
not_equal = binary_op(
    "NotEqual",
    np.not_equal,
    "not_equal",
    ALL,
    dt.bool_,
    cases=_predicate(np.not_equal, randn(3, 4), randn(4)),
)
less = binary_op(
    "Less", np.less, "less", REAL, dt.bool_, cases=_predicate(np.less, randn(3, 4), randn(4))
)
less_equal = binary_op(
    "LessEqual",
    np.less_equal,
    "less_equal",
    REAL,
    dt.bool_,
    cases=_predicate(np.less_equal, randn(3, 4), randn(4)),
)
greater = binary_op(
    "Greater",
    np.greater,
    "greater",
    REAL,
    dt.bool_,
    cases=_predicate(np.greater, randn(3, 4), randn(4)),
)
greater_equal = binary_op(
    "GreaterEqual",
    np.greater_equal,
    "greater_equal",
    REAL,
    dt.bool_,
    cases=_predicate(np.greater_equal, randn(3, 4), randn(4)),
)
logical_and = binary_op(
    "LogicalAnd",
    np.logical_and,
    "logical_and",
    (dt.bool_,),
    cases=_predicate(
        np.logical_and, fixed([True, False, True]), fixed([True, True, False]), dtypes=_BOOL
    ),
)
logical_or = binary_op(
    "LogicalOr",
    np.logical_or,
    "logical_or",
    (dt.bool_,),
    cases=_predicate(
        np.logical_or, fixed([True, False, True]), fixed([False, False, True]), dtypes=_BOOL
    ),
)
logical_not = unary_op(
    "LogicalNot",
    np.logical_not,
    "logical_not",
    (dt.bool_,),
    cases=_predicate(np.logical_not, fixed([True, False]), dtypes=_BOOL),
)
for _t in (
    "Equal",
    "NotEqual",
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
    "LogicalAnd",
    "LogicalOr",
    "LogicalNot",
):
    no_gradient(_t)


def logical_xor(x: Any, y: Any, name: str | None = "LogicalXor") -> Tensor:
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# The kernels the array rules above run (``array_vjp.kernel``: looked up when called).
_RECIPROCAL, _SIGN, _SIN, _COS = (kernel(t) for t in ("Reciprocal", "Sign", "Sin", "Cos"))
_LOG, _POW, _ONES_LIKE = kernel("Log"), kernel("Pow"), kernel("OnesLike")
_SQRT_GRAD, _RSQRT_GRAD = kernel("SqrtGrad"), kernel("RsqrtGrad")
_TANH_GRAD, _SIGMOID_GRAD = kernel("TanhGrad"), kernel("SigmoidGrad")
_GREATER, _NOT_EQUAL = kernel("Greater", np.bool_), kernel("NotEqual", np.bool_)
_GREATER_EQUAL, _LESS_EQUAL = kernel("GreaterEqual", np.bool_), kernel("LessEqual", np.bool_)
