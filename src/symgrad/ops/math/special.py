"""Special functions as ops: Erfc, Erfinv, Lgamma, Digamma, Polygamma, Zeta.

The kernels are ``ops.specfun``'s float64 NumPy functions (SciPy is not a dependency),
cast back to the input's dtype.  The gradient rules are TensorFlow's (math_grad.py):
Lgamma's is Digamma, Digamma's is Polygamma(1, x), Polygamma(n, x)'s is Polygamma(n + 1, x),
so every order of derivative is available.  Polygamma and Zeta, like TF's, have no
gradient with respect to their order / exponent (None).

The op-table rows apply each op by type, so ``check-gradients`` checks the rules on their
domains (away from the poles).  Their references are independent of the kernels:
``math.erfc`` and ``math.lgamma`` from Python's standard library, Newton on ``math.erf``
for erfinv, and plain Euler-Maclaurin sums with many terms for digamma, polygamma and zeta.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.core.cases import Case, uniform
from symgrad.core.gradient_registry import RegisterGradient
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import OPS
from symgrad.ops.core import FLOATS, binary_grad, binary_op, unary_op
from symgrad.ops.math import specfun
from symgrad.ops.math.elementwise import exp, square

_TWO_OVER_ROOT_PI = 2.0 / math.sqrt(math.pi)


def _in_dtype(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """A float64 kernel of ``specfun`` as an op kernel that keeps the input's dtype."""

    def kernel(*xs: np.ndarray) -> np.ndarray:
        return np.asarray(fn(*xs), dtype=xs[-1].dtype)

    kernel.__name__ = fn.__name__
    return kernel


# -- references for the op-table rows (independent of specfun)


def _vectorized(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: np.vectorize(fn, otypes=[np.float64])(np.asarray(x, np.float64))


def _erfinv_scalar(y: float) -> float:
    x = 0.0
    for _ in range(60):  # Newton on erf from 0: monotone and convex on each side
        x -= (math.erf(x) - y) / (_TWO_OVER_ROOT_PI * math.exp(-x * x))
    return x


def _zeta_ref(s: np.ndarray, q: np.ndarray, n: int = 200) -> np.ndarray:
    """Σ_{k<n} (q+k)^-s plus the first Euler-Maclaurin terms of the tail."""
    s, q = np.asarray(s, np.float64), np.asarray(q, np.float64)
    head = sum(np.power(q + k, -s) for k in range(n))
    w = q + n
    return (
        head
        + w ** (1 - s) / (s - 1)
        + 0.5 * w**-s
        + s * w ** (-s - 1) / 12
        - s * (s + 1) * (s + 2) * w ** (-s - 3) / 720
    )  # type: ignore[no-any-return]


def _digamma_ref(x: np.ndarray, n: int = 200) -> np.ndarray:
    x = np.asarray(x, np.float64)
    w = x + n
    head = sum(1.0 / (x + k) for k in range(n))
    return np.log(w) - 0.5 / w - 1 / (12 * w**2) + 1 / (120 * w**4) - head  # type: ignore[no-any-return]


def _polygamma_ref(order: np.ndarray, x: np.ndarray) -> np.ndarray:
    n = np.asarray(order, np.float64)
    sign = np.where(n % 2 == 1, 1.0, -1.0)
    fact = np.vectorize(lambda v: float(math.factorial(int(v))))(n)
    return sign * fact * _zeta_ref(n + 1, x)  # type: ignore[no-any-return]


def _away_from_poles(lo: float = 0.2) -> Any:
    """Positive arguments from ``lo`` and some negative ones between poles (-2.8, -2.2)."""

    def gen(rng: np.random.Generator, d: Any) -> np.ndarray:
        x = rng.uniform(lo, 4.0, (3, 4))
        x[0, :2] = rng.uniform(-2.8 + lo / 4, -2.2 - lo / 4, 2)
        return x.astype(d)

    return gen


def _orders(*values: float) -> Any:
    """Integer-valued orders (n of polygamma, s of zeta) in the row's float dtype."""
    return lambda rng, d: np.array(values, d).reshape(-1, 1)


# --------------------------------------------------------------------------------------
# Erfc, Erfinv


erfc = unary_op("Erfc", _in_dtype(specfun.erfc), "erfc", FLOATS)
OPS["Erfc"].add_cases(Case([uniform(-3, 3, 3, 4)], _vectorized(math.erfc), rtol=1e-6, atol=1e-12))


@RegisterGradient("Erfc")
def _erfc_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = -g · 2/√π · exp(-x²)."""
    return grad * -_TWO_OVER_ROOT_PI * exp(-square(op.inputs[0]))


erfinv = unary_op("Erfinv", _in_dtype(specfun.erfinv), "erfinv", FLOATS)
OPS["Erfinv"].add_cases(
    Case([uniform(-0.9, 0.9, 3, 4)], _vectorized(_erfinv_scalar), rtol=1e-6, atol=1e-12)
)


@RegisterGradient("Erfinv")
def _erfinv_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · √π/2 · exp(y²)."""
    return grad * (1.0 / _TWO_OVER_ROOT_PI) * exp(square(op.outputs[0]))


# --------------------------------------------------------------------------------------
# Lgamma, Digamma, Polygamma, Zeta


lgamma = unary_op("Lgamma", _in_dtype(specfun.lgamma), "lgamma", FLOATS)
OPS["Lgamma"].add_cases(Case([_away_from_poles()], _vectorized(math.lgamma), rtol=1e-6, atol=1e-12))


@RegisterGradient("Lgamma")
def _lgamma_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · digamma(x)."""
    return grad * digamma(op.inputs[0])


digamma = unary_op("Digamma", _in_dtype(specfun.digamma), "digamma", FLOATS)
OPS["Digamma"].add_cases(Case([_away_from_poles()], _digamma_ref, rtol=1e-6, atol=1e-12))


@RegisterGradient("Digamma")
def _digamma_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · polygamma(1, x)."""
    x = op.inputs[0]
    return grad * polygamma(np.ones((), x.dtype.np), x)


_polygamma = binary_op("Polygamma", _in_dtype(specfun.polygamma), "polygamma", FLOATS)
OPS["Polygamma"].add_cases(
    Case(
        [_orders(1, 2, 3), _away_from_poles(0.8)],
        _polygamma_ref,
        diff=[1],
        rtol=1e-6,
        atol=1e-12,
        note="no gradient for the order a (None, as TF)",
    )
)


def polygamma(a: Any, x: Any, name: str | None = None) -> Tensor:
    """ψ⁽ᵃ⁾(x), the a-th derivative of digamma, for integer-valued a >= 0; nan for other a."""
    return _polygamma(a, x, name=name)


@binary_grad("Polygamma")
def _polygamma_grad(op: Any, grad: Tensor) -> tuple[None, Tensor]:
    """(None, g · polygamma(a + 1, x)): TF has no derivative in the order a."""
    a, x = op.inputs
    return None, grad * polygamma(a + 1, x)


_zeta = binary_op("Zeta", _in_dtype(specfun.zeta), "zeta", FLOATS)
OPS["Zeta"].add_cases(
    Case(
        [_orders(2, 3.5, 5), uniform(1, 3, 3, 4)],
        _zeta_ref,
        diff=[1],
        rtol=1e-6,
        atol=1e-12,
        note="no gradient for the exponent x (None, as TF)",
    )
)


def zeta(x: Any, q: Any, name: str | None = None) -> Tensor:
    """Hurwitz ζ(x, q) = Σ_k (q + k)^-x: inf at x = 1, nan for x < 1."""
    return _zeta(x, q, name=name)


@binary_grad("Zeta")
def _zeta_grad(op: Any, grad: Tensor) -> tuple[None, Tensor]:
    """(None, -g · x · zeta(x + 1, q)): TF has no derivative in the exponent x."""
    x, q = op.inputs
    return None, grad * -x * zeta(x + 1, q)
