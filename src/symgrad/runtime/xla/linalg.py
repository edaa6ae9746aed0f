"""JAX lowerings of the matrix ops (``jax.numpy.linalg`` / ``jax.scipy.linalg``).

Decompositions whose vectors' signs XLA chooses differently from LAPACK (QR, SVD,
eigenvectors) run on the host (``host.HOST_REASONS``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl

from symgrad.runtime.xla.host import static

Table = dict[str, Callable[..., Any]]


def _adj(x: Any) -> Any:
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def _band(ctx: Any, op: Any, x: Any, lo: Any, hi: Any) -> Any:
    m, n = x.shape[-2:]
    lo_, hi_ = int(static(op, lo, "num_lower")), int(static(op, hi, "num_upper"))
    d = jnp.arange(n)[None, :] - jnp.arange(m)[:, None]
    keep = ((lo_ < 0) | (-d <= lo_)) & ((hi_ < 0) | (d <= hi_))
    return jnp.where(keep, x, jnp.zeros_like(x))


def _cholesky(ctx: Any, op: Any, x: Any) -> Any:
    # XLA's Cholesky reads the lower triangle and gives NaN where the matrix is not
    # positive definite, as TF's kernel; the upper triangle is zeroed as symgrad does.
    return jnp.tril(jax.lax.linalg.cholesky(x, symmetrize_input=False))


def _triangular(ctx: Any, op: Any, a: Any, b: Any) -> Any:
    lower, adjoint = op.attrs.get("lower", True), op.attrs.get("adjoint", False)
    t = jnp.tril(a) if lower else jnp.triu(a)
    batch = jnp.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t = jnp.broadcast_to(t, (*batch, *t.shape[-2:]))
    b = jnp.broadcast_to(b, (*batch, *b.shape[-2:]))
    return jax.lax.linalg.triangular_solve(
        t, b, left_side=True, lower=lower, transpose_a=adjoint, conjugate_a=adjoint
    )


def table() -> Table:
    return {
        "MatrixBandPart": _band,
        "Cholesky": _cholesky,
        "MatrixInverse": lambda ctx, op, x: jnp.linalg.inv(
            _adj(x) if op.attrs.get("adjoint") else x
        ),
        "MatrixDeterminant": lambda ctx, op, x: jnp.linalg.det(x),
        "LogMatrixDeterminant": lambda ctx, op, x: tuple(jnp.linalg.slogdet(x)),
        "MatrixSolve": lambda ctx, op, a, b: jnp.linalg.solve(
            _adj(a) if op.attrs.get("adjoint") else a, b
        ),
        "MatrixTriangularSolve": _triangular,
        "MatrixExponential": lambda ctx, op, x: jsl.expm(x),
    }
