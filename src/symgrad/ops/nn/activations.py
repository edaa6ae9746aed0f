"""Activations: LeakyRelu, Elu, Selu, Relu6 (each with its Grad op), gelu, silu / swish.

The four ops with kernels follow TF's CPU functors, including their choices: Elu and Selu
compute ``exp(x) - 1`` (not ``expm1``); the gradients of Elu, Selu and Relu6 read the op's
output, not its input, as TF's rules do; each Grad op has TF's gradient rule, so second
derivatives work.  gelu and silu / swish are TF's compositions of elementwise ops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, away, randn
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import Spec, apply_op1, register_op
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import kernel
from symgrad.ops.core import FLOATS, REAL, check_dtype, convert_to_tensor, same_dtype
from symgrad.ops.math import elementwise as math
from symgrad.ops.math import special

SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def _infer(op_type: str, allowed: Sequence[dt.DType]) -> Callable[..., Spec]:
    def infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
        check_dtype(op_type, inputs[0], allowed, "features")
        return inputs[0].shape, inputs[0].dtype

    return infer


def _grad_infer(op_type: str, allowed: Sequence[dt.DType], second: str) -> Callable[..., Spec]:
    def infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
        g, f = inputs
        d = same_dtype(inputs, ("gradients", second))
        check_dtype(op_type, g, allowed, "gradients")
        if not g.shape.is_compatible_with(f.shape):
            raise ValueError(
                f"gradients and {second} must have the same shape, got {g.shape} and {f.shape}"
            )
        return g.shape.merge_with(f.shape), d

    return infer


def _pair(
    op_type: str,
    kernel: Any,
    grad_kernel: Any,
    allowed: Sequence[dt.DType],
    second: str,
    cases: list[Case],
    grad_cases: list[Case],
) -> tuple[Any, Any]:
    """Declare an activation and its Grad op (gradients, features-or-outputs)."""
    fwd = register_op(
        op_type,
        _infer(op_type, allowed),
        kernel,
        elementwise=True,
        batch=batching.elementwise,
        cases=cases,
    )
    grad = register_op(
        f"{op_type}Grad",
        _grad_infer(f"{op_type}Grad", allowed, second),
        grad_kernel,
        elementwise=True,
        batch=batching.same_shape,
        cases=grad_cases,
    )
    return fwd, grad


def _apply(
    op_type: str,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any] | None = None,
    name: str | None = None,
) -> Tensor:
    return apply_op1(op_type, inputs, attrs, name)


def _kinks(*shape: int) -> Any:
    """Values away from Relu6's kinks at 0 and 6 (some below, between and above)."""

    def gen(rng: np.random.Generator, d: Any) -> np.ndarray:
        v = rng.uniform(0.2, 2.8, shape) * rng.choice([-1.0, 1.0, 2.0, 2.5], shape)
        return (v + 1.2 * (v > 2.8 * 2)).astype(d)  # pushes 5.6..7 to 6.8..8.2

    return gen


# --------------------------------------------------------------------------------------
# LeakyRelu


def _alpha(alpha: float, dtype: Any) -> Any:
    """TF's ``alpha`` attr is a 32-bit float: float64 features see float32(0.2), not 0.2."""
    return dtype.type(np.float32(alpha))


def _leaky(x: np.ndarray, *, alpha: float = 0.2) -> np.ndarray:
    return np.where(x > 0, x, x * _alpha(alpha, x.dtype))


def _leaky_grad(g: np.ndarray, f: np.ndarray, *, alpha: float = 0.2) -> np.ndarray:
    return np.where(f > 0, g, g * _alpha(alpha, g.dtype))


LEAKY_RELU, LEAKY_RELU_GRAD = _pair(
    "LeakyRelu",
    _leaky,
    _leaky_grad,
    FLOATS,
    "features",
    [
        Case([away(3, 4)], lambda x: np.where(x > 0, x, 0.2 * x)),
        Case(
            [away(2, 3, 4)],
            lambda x: np.where(x > 0, x, 0.01 * x),
            attrs={"alpha": 0.01},
            name="alpha",
        ),
    ],
    [
        Case(
            [randn(3, 4), away(3, 4)],
            lambda g, f: np.where(f > 0, g, 0.3 * g),
            attrs={"alpha": 0.3},
        )
    ],
)


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """x if x > 0 else alpha·x (op type ``LeakyRelu``); integer features become float32."""
    x = convert_to_tensor(features)
    if x.dtype.is_integer:
        x = array.cast(x, dt.float32)
    return _apply("LeakyRelu", [x], {"alpha": float(np.asarray(alpha))}, name)


@LEAKY_RELU.gradient
def _leaky_relu_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g if x > 0 else alpha·g."""
    return _apply("LeakyReluGrad", [grad, op.inputs[0]], op.attrs)


@array_rule("LeakyRelu")
def _leaky_relu_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [_LEAKY_RELU_GRAD(grads[0], xs[0], **attrs)]


_LEAKY_RELU_GRAD = kernel("LeakyReluGrad")


@LEAKY_RELU_GRAD.gradient
def _leaky_relu_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """d gradients = LeakyReluGrad(grad, x); d features = 0 (piecewise constant)."""
    x = op.inputs[1]
    return _apply("LeakyReluGrad", [grad, x], op.attrs), array.zeros_like(x)


# --------------------------------------------------------------------------------------
# Elu, Selu (their Grad ops take the forward op's outputs)


def _elu(x: np.ndarray) -> np.ndarray:
    return np.where(x < 0, np.exp(x) - 1, x)


def _selu(x: np.ndarray) -> np.ndarray:
    t = x.dtype.type
    return np.where(x < 0, t(SELU_SCALE * SELU_ALPHA) * (np.exp(x) - 1), t(SELU_SCALE) * x)


def _elu_grad(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(y < 0, g * (y + 1), g)


def _selu_grad(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    t = y.dtype.type
    return np.where(y < 0, g * (y + t(SELU_SCALE * SELU_ALPHA)), g * t(SELU_SCALE))


ELU, ELU_GRAD = _pair(
    "Elu",
    _elu,
    _elu_grad,
    FLOATS,
    "outputs",
    [Case([away(3, 4)], lambda x: np.where(x < 0, np.expm1(x), x))],
    [Case([randn(3, 4), away(3, 4)], lambda g, y: np.where(y < 0, g * (y + 1), g))],
)
SELU, SELU_GRAD = _pair(
    "Selu",
    _selu,
    _selu_grad,
    FLOATS,
    "outputs",
    [Case([away(2, 3, 4)], lambda x: SELU_SCALE * np.where(x < 0, SELU_ALPHA * np.expm1(x), x))],
    [
        Case(
            [randn(3, 4), away(3, 4)],
            lambda g, y: np.where(y < 0, g * (y + SELU_SCALE * SELU_ALPHA), g * SELU_SCALE),
        )
    ],
)


def elu(features: Any, name: str | None = None) -> Tensor:
    """x if x > 0 else exp(x) - 1 (op type ``Elu``)."""
    return _apply("Elu", [convert_to_tensor(features)], name=name)


def selu(features: Any, name: str | None = None) -> Tensor:
    """scale·x if x > 0 else scale·alpha·(exp(x) - 1), TF's constants (op type ``Selu``)."""
    return _apply("Selu", [convert_to_tensor(features)], name=name)


def _output_grad_grad(op_type: str) -> Callable[..., tuple[Tensor, Tensor]]:
    def rule(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        """d gradients = XGrad(grad, y); d y = grad·gradients where y < 0 else 0."""
        g, y = op.inputs
        return (_apply(op_type, [grad, y]), array.where(y < 0, grad * g, array.zeros_like(y)))

    return rule


@ELU.gradient
def _elu_grad_rule(op: Any, grad: Tensor) -> Tensor:
    """dx = EluGrad(g, y): g·(y + 1) where y < 0, else g."""
    return _apply("EluGrad", [grad, op.outputs[0]])


@array_rule("Elu")
def _elu_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [_ELU_GRAD(grads[0], ys[0])]


@SELU.gradient
def _selu_grad_rule(op: Any, grad: Tensor) -> Tensor:
    """dx = SeluGrad(g, y): g·(y + scale·alpha) where y < 0, else g·scale."""
    return _apply("SeluGrad", [grad, op.outputs[0]])


@array_rule("Selu")
def _selu_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [_SELU_GRAD(grads[0], ys[0])]


_ELU_GRAD, _SELU_GRAD = kernel("EluGrad"), kernel("SeluGrad")


ELU_GRAD.gradient(_output_grad_grad("EluGrad"))
SELU_GRAD.gradient(_output_grad_grad("SeluGrad"))


# --------------------------------------------------------------------------------------
# Relu6


def _relu6(x: np.ndarray) -> np.ndarray:
    t = x.dtype.type
    return np.minimum(np.maximum(x, t(0)), t(6))


def _relu6_grad(g: np.ndarray, f: np.ndarray) -> np.ndarray:
    return g * ((f > 0) & (f < 6))


RELU6, RELU6_GRAD = _pair(
    "Relu6",
    _relu6,
    _relu6_grad,
    REAL,
    "features",
    [
        Case([_kinks(3, 5)], lambda x: np.clip(x, 0, 6)),
        Case(
            [lambda rng, d: rng.integers(-3, 10, (3, 4)).astype(d)],
            lambda x: np.clip(x, 0, 6),
            dtypes=(np.int32, np.int64),
            order=0,
            name="int",
            note="integer: not differentiable",
        ),
    ],
    [Case([randn(3, 5), _kinks(3, 5)], lambda g, f: g * ((f > 0) & (f < 6)))],
)


def relu6(features: Any, name: str | None = None) -> Tensor:
    """min(max(x, 0), 6) (op type ``Relu6``)."""
    return _apply("Relu6", [convert_to_tensor(features)], name=name)


@RELU6.gradient
def _relu6_grad_rule(op: Any, grad: Tensor) -> Tensor:
    """dx = g where 0 < y < 6 (TF passes the output as the features)."""
    return _apply("Relu6Grad", [grad, op.outputs[0]])


@array_rule("Relu6")
def _relu6_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [_RELU6_GRAD(grads[0], ys[0])]


_RELU6_GRAD = kernel("Relu6Grad")


@RELU6_GRAD.gradient
def _relu6_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """d gradients = Relu6Grad(grad, features); d features = 0."""
    x = op.inputs[1]
    return _apply("Relu6Grad", [grad, x]), array.zeros_like(x)


# --------------------------------------------------------------------------------------
# gelu, silu / swish: compositions, as in TF


def gelu(features: Any, approximate: bool = False, name: str | None = None) -> Tensor:
    """x·Φ(x); ``approximate`` uses TF's tanh form 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).

    The exact form is 0.5·x·(1 + erf(x/√2)), computed as TF does as 0.5·x·erfc(-x/√2):
    for large negative x, 1 + erf(x/√2) cancels to 0 (or a few digits) where erfc keeps
    the tail, so the values and gradients there are TF's.
    """
    with name_scope(name, "Gelu"):
        x = convert_to_tensor(features)
        if not x.dtype.is_floating:
            raise ValueError(
                "`features.dtype` must be a floating point tensor."
                f"Received:features.dtype={x.dtype}"
            )
        if approximate:
            coeff = array.cast(0.044715, x.dtype)
            inner = 0.7978845608028654 * (x + coeff * math.pow(x, 3))
            return 0.5 * x * (1.0 + math.tanh(inner))
        half_x = 0.5 * x
        return half_x * special.erfc(-x * array.cast(0.7071067811865476, x.dtype))


def swish(features: Any, beta: Any = 1.0) -> Tensor:
    """x·sigmoid(beta·x).  TF wraps it in a custom gradient (for memory); the gradient
    derived from the composition is the same function."""
    x = convert_to_tensor(features)
    b = array.cast(convert_to_tensor(beta), x.dtype)
    return x * math.sigmoid(b * x)


silu = swish
