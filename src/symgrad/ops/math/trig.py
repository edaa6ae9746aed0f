"""Hyperbolic and inverse trigonometric ops: Sinh, Cosh, Asin, Acos, Atan, Atan2, Asinh,
Acosh, Atanh.

Each declaration has its gradient rule right under it, TensorFlow's (math_grad.py):
Asinh and Acosh differentiate through their output (1/cosh(y), 1/sinh(y)) as TF does.
Complex rules conjugate what they multiply by (``g · conj(f'(z))``); Atan2 is real only.
Asin, Acos and Atanh also have a row applied by type, inside their domain, which
``check-gradients`` uses as its sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core.cases import COMPLEX, Case, complex_randn, positive, randn, uniform
from symgrad.core.gradient_registry import RegisterGradient
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import OPS
from symgrad.ops.array_vjp import (
    ADD,
    DIV,
    MUL,
    NEG,
    SUB,
    binary_array_rule,
    kernel,
    scalar,
    unary_array_rule,
)
from symgrad.ops.array_vjp import conj as conj_a
from symgrad.ops.core import FLOATS, binary_grad, binary_op, unary_op
from symgrad.ops.math.complex import conj
from symgrad.ops.math.elementwise import reciprocal, sqrt, square

sinh = unary_op(
    "Sinh",
    np.sinh,
    "sinh",
    cases=[
        Case([randn(3, 4)], np.sinh),
        Case([complex_randn(2, 3)], np.sinh, dtypes=COMPLEX, name="complex"),
    ],
)


@RegisterGradient("Sinh")
def _sinh_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · cosh(conj(x))."""
    return grad * cosh(conj(op.inputs[0]))


@unary_array_rule("Sinh")
def _sinh_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(g, _COSH(conj_a(x)))


cosh = unary_op("Cosh", np.cosh, "cosh", cases=[Case([randn(3, 4)], np.cosh)])


@RegisterGradient("Cosh")
def _cosh_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · sinh(conj(x))."""
    return grad * sinh(conj(op.inputs[0]))


@unary_array_rule("Cosh")
def _cosh_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(g, _SINH(conj_a(x)))


asin = unary_op(
    "Asin",
    np.arcsin,
    "asin",
    cases=[Case([complex_randn(2, 3)], np.arcsin, dtypes=COMPLEX, name="complex")],
)
OPS["Asin"].add_cases(Case([uniform(-0.9, 0.9, 3, 4)], np.arcsin, name="by_type"))


@RegisterGradient("Asin")
def _asin_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g / sqrt(1 - conj(x)²)."""
    return grad * reciprocal(sqrt(1 - square(conj(op.inputs[0]))))


@unary_array_rule("Asin")
def _asin_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(g, _RECIPROCAL(_SQRT(_one_minus_square(x))))


acos = unary_op("Acos", np.arccos, "acos", cases=[Case([uniform(-0.9, 0.9, 3, 4)], np.arccos)])
OPS["Acos"].add_cases(Case([uniform(-0.8, 0.8, 2, 5)], np.arccos, name="by_type"))


@RegisterGradient("Acos")
def _acos_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = -g / sqrt(1 - conj(x)²)."""
    return -grad * reciprocal(sqrt(1 - square(conj(op.inputs[0]))))


@unary_array_rule("Acos")
def _acos_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(NEG(g), _RECIPROCAL(_SQRT(_one_minus_square(x))))


atan = unary_op("Atan", np.arctan, "atan", cases=[Case([randn(3, 4)], np.arctan)])


@RegisterGradient("Atan")
def _atan_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g / (1 + conj(x)²)."""
    return grad * reciprocal(1 + square(conj(op.inputs[0])))


@unary_array_rule("Atan")
def _atan_array(x: Any, y: Any, g: Any) -> Any:
    sq = _SQUARE(conj_a(x))
    return MUL(g, _RECIPROCAL(ADD(scalar(1, sq), sq)))


asinh = unary_op(
    "Asinh",
    np.arcsinh,
    "asinh",
    cases=[
        Case([randn(3, 4)], np.arcsinh),
        Case([complex_randn(2, 3)], np.arcsinh, dtypes=COMPLEX, name="complex"),
    ],
)


@RegisterGradient("Asinh")
def _asinh_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g / cosh(conj(y))."""
    return grad / cosh(conj(op.outputs[0]))


@unary_array_rule("Asinh")
def _asinh_array(x: Any, y: Any, g: Any) -> Any:
    return DIV(g, _COSH(conj_a(y)))


acosh = unary_op("Acosh", np.arccosh, "acosh", cases=[Case([uniform(1.2, 4, 3, 4)], np.arccosh)])


@RegisterGradient("Acosh")
def _acosh_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g / sinh(conj(y))."""
    return grad / sinh(conj(op.outputs[0]))


@unary_array_rule("Acosh")
def _acosh_array(x: Any, y: Any, g: Any) -> Any:
    return DIV(g, _SINH(conj_a(y)))


atanh = unary_op("Atanh", np.arctanh, "atanh", cases=[Case([uniform(-0.9, 0.9, 3, 4)], np.arctanh)])
OPS["Atanh"].add_cases(Case([uniform(-0.8, 0.8, 2, 5)], np.arctanh, name="by_type"))


@RegisterGradient("Atanh")
def _atanh_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g / (1 - conj(x)²)."""
    return grad * reciprocal(1 - square(conj(op.inputs[0])))


@unary_array_rule("Atanh")
def _atanh_array(x: Any, y: Any, g: Any) -> Any:
    return MUL(g, _RECIPROCAL(_one_minus_square(x)))


def _one_minus_square(x: Any) -> Any:
    """``1 - square(conj(x))`` as the rules above build it."""
    sq = _SQUARE(conj_a(x))
    return SUB(scalar(1, sq), sq)


_atan2 = binary_op(
    "Atan2",
    np.arctan2,
    "atan2",
    FLOATS,
    cases=[
        Case([randn(2, 3, 4), positive(3, 1)], np.arctan2),
        Case([randn(3, 4), uniform(-2, -0.5, 4)], np.arctan2, name="left_half_plane"),
    ],
)


def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """The angle of the point (x, y): atan(y / x) in its quadrant, with broadcasting."""
    return _atan2(y, x, name=name)


@binary_grad("Atan2")
def _atan2_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """(g · x / (x² + y²), -g · y / (x² + y²)) for the inputs (y, x)."""
    y, x = op.inputs
    g = grad / (square(y) + square(x))
    return x * g, -y * g


@binary_array_rule("Atan2")
def _atan2_array(y: Any, x: Any, z: Any, g: Any, needs: Any) -> Any:
    g = DIV(g, ADD(_SQUARE(y), _SQUARE(x)))
    return MUL(x, g), MUL(NEG(y), g)


_SINH, _COSH, _SQRT = kernel("Sinh"), kernel("Cosh"), kernel("Sqrt")
_SQUARE, _RECIPROCAL = kernel("Square"), kernel("Reciprocal")
