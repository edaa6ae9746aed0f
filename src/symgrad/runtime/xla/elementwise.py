"""JAX lowerings of the elementwise ops: math, activations, safe math, special functions.

Ops whose NumPy kernel is a NumPy ufunc (``np.add``, ``np.exp`` ...) lower to the
``jax.numpy`` function of the same name (``from_numpy_kernels``); the others are written
out below, each the formula of its NumPy kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np

from symgrad.core.op_registry import OPS
from symgrad.ops.nn.activations import SELU_ALPHA, SELU_SCALE

Table = dict[str, Callable[..., Any]]


def unary(f: Callable[[Any], Any]) -> Callable[..., Any]:
    return lambda ctx, op, x: f(x)


def binary(f: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    return lambda ctx, op, x, y: f(x, y)


def from_numpy_kernels() -> Table:
    """The ops whose kernel is a NumPy function that ``jax.numpy`` also has."""
    table: Table = {}
    for name, rec in OPS.items():
        kernel = rec.kernel
        if getattr(kernel, "__module__", None) != "numpy" and not isinstance(kernel, np.ufunc):
            continue
        f = getattr(jnp, getattr(kernel, "__name__", ""), None)
        if f is not None:
            table[name] = _applied(f)
    return table


def _applied(f: Callable[..., Any]) -> Callable[..., Any]:
    return lambda ctx, op, *xs: f(*xs)


def _t(x: Any, v: Any) -> Any:
    """``v`` in ``x``'s dtype (so float32 math stays float32)."""
    return jnp.asarray(v, x.dtype)


def _where_zero(cond: Any, value: Any) -> Any:
    return jnp.where(cond, jnp.zeros_like(value), value)


def _sigmoid(x: Any) -> Any:
    if jnp.iscomplexobj(x):
        return 1 / (1 + jnp.exp(-x))
    e = jnp.exp(-jnp.abs(x))
    return jnp.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _softplus(x: Any) -> Any:
    return jnp.logaddexp(x, jnp.zeros_like(x))


def _trunc_div(x: Any, y: Any) -> Any:
    if jnp.issubdtype(x.dtype, jnp.integer):
        return jax.lax.div(x, y)  # XLA's integer division truncates, as TruncateDiv
    return jnp.trunc(x / y)


def _polygamma(n: Any, x: Any) -> Any:
    return jss.polygamma(n.astype(jnp.int32), x).astype(x.dtype)


def _zeta(x: Any, q: Any) -> Any:
    return jss.zeta(x, q)


def _selu(x: Any) -> Any:
    return jnp.where(x < 0, _t(x, SELU_SCALE * SELU_ALPHA) * jnp.expm1(x), _t(x, SELU_SCALE) * x)


def _selu_grad(g: Any, y: Any) -> Any:
    return jnp.where(y < 0, g * (y + _t(y, SELU_SCALE * SELU_ALPHA)), g * _t(g, SELU_SCALE))


def _leaky(ctx: Any, op: Any, x: Any) -> Any:
    return jnp.where(x > 0, x, x * _t(x, np.float32(op.attrs.get("alpha", 0.2))))


def _leaky_grad(ctx: Any, op: Any, g: Any, f: Any) -> Any:
    return jnp.where(f > 0, g, g * _t(g, np.float32(op.attrs.get("alpha", 0.2))))


def table() -> Table:
    t = from_numpy_kernels()
    t.update(
        {
            # nn and activations
            "Relu": unary(lambda x: jnp.maximum(x, jnp.zeros_like(x))),
            "ReluGrad": binary(lambda g, f: jnp.where(f > 0, g, jnp.zeros_like(g))),
            "Relu6": unary(lambda x: jnp.clip(x, _t(x, 0), _t(x, 6))),
            "Relu6Grad": binary(lambda g, f: g * ((f > 0) & (f < 6)).astype(g.dtype)),
            "Elu": unary(lambda x: jnp.where(x < 0, jnp.expm1(x), x)),
            "EluGrad": binary(lambda g, y: jnp.where(y < 0, g * (y + 1), g)),
            "Selu": unary(_selu),
            "SeluGrad": binary(_selu_grad),
            "LeakyRelu": _leaky,
            "LeakyReluGrad": _leaky_grad,
            "Softplus": unary(_softplus),
            "Softsign": unary(lambda x: x / (1 + jnp.abs(x))),
            "SoftsignGrad": binary(lambda g, x: g / jnp.square(1 + jnp.abs(x))),
            "Sigmoid": unary(_sigmoid),
            "SigmoidGrad": binary(lambda y, dy: dy * (y * (1 - y))),
            "TanhGrad": binary(lambda y, dy: dy * (1 - y * y)),
            "SqrtGrad": binary(lambda y, g: _where_zero(g == 0, 0.5 * g / jnp.conj(y))),
            "Rsqrt": unary(jax.lax.rsqrt),
            "RsqrtGrad": binary(lambda y, g: _where_zero(g == 0, -0.5 * g * jnp.conj(y) ** 3)),
            "Sign": unary(jnp.sign),
            "Erf": unary(jss.erf),
            "Erfc": unary(jss.erfc),
            "Erfinv": unary(jss.erfinv),
            "Lgamma": unary(jss.gammaln),
            "Digamma": unary(jss.digamma),
            "Polygamma": binary(_polygamma),
            "Zeta": binary(_zeta),
            # binary math
            "FloorDiv": binary(jnp.floor_divide),
            "FloorMod": binary(jnp.remainder),
            "Pow": binary(jnp.power),
            "SquaredDifference": binary(lambda x, y: (x - y) * jnp.conj(x - y)),
            "TruncateDiv": binary(_trunc_div),
            "DivNoNan": binary(lambda x, y: _where_zero(y == 0, x / jnp.where(y == 0, 1, y))),
            "MulNoNan": binary(lambda x, y: _where_zero(y == 0, x * y)),
            "Xdivy": binary(lambda x, y: _where_zero(x == 0, x / y)),
            "Xlogy": binary(lambda x, y: _where_zero(x == 0, x * jnp.log(y))),
            "Xlog1py": binary(lambda x, y: _where_zero(x == 0, x * jnp.log1p(y))),
            "Complex": binary(lambda x, y: jax.lax.complex(*jnp.broadcast_arrays(x, y))),
        }
    )
    return t
