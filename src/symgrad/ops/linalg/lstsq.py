"""Least squares: MatrixSolveLs, and ``lstsq``, which TF builds (``fast``, with a known
matrix shape) from the normal equations and Cholesky.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core import hooks
from symgrad.core.batching import Call, NotVectorizable
from symgrad.core.cases import COMPLEX, Case, fixed
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.core import FLOAT_COMPLEX, check_dtype, convert_n, convert_to_tensor, same_dtype
from symgrad.ops.linalg.base import adj, in_dtype, mat, matrix_dims, matrix_transpose
from symgrad.ops.linalg.diag import identity_like
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.linalg.solve import cholesky, cholesky_solve, solve_batch_shape, solve_kernel
from symgrad.ops.math import elementwise as math_ops

# --------------------------------------------------------------------------------------
# MatrixSolveLs and lstsq


def _solve_ls_infer(inputs: Sequence[Tensor], *, fast: bool = True) -> Spec:
    a, b, l2 = inputs
    same_dtype([a, b], ("matrix", "rhs"))
    check_dtype("MatrixSolveLs", a, FLOAT_COMPLEX, "matrix")
    check_dtype("MatrixSolveLs", l2, (dt.float64,), "l2_regularizer")
    if l2.shape.rank not in (None, 0):
        raise ShapeError(f"l2_regularizer must be a scalar, got shape {l2.shape}")
    da, db = matrix_dims(a, "matrix"), matrix_dims(b, "rhs")
    if da is None or db is None:
        return TensorShape(None), a.dtype
    if da[-2] is not None and db[-2] is not None and da[-2] != db[-2]:
        raise ShapeError(
            f"Dimensions must be equal, but are {da[-2]} and {db[-2]}: the "
            f"matrix has shape {a.shape} and rhs {b.shape}"
        )
    return TensorShape(solve_batch_shape(da, db, False) + [da[-1], db[-1]]), a.dtype


def _solve_ls_kernel(
    a: np.ndarray, b: np.ndarray, l2: np.ndarray, *, fast: bool = True
) -> np.ndarray:
    if not fast:  # the minimum-norm least-squares solution; l2_regularizer is ignored
        return np.linalg.pinv(a) @ b
    m, n = a.shape[-2:]
    ah = adj(a)
    if m >= n:
        return solve_kernel(ah @ a + float(l2) * np.eye(n), ah @ b)
    return ah @ solve_kernel(a @ ah + float(l2) * np.eye(m), b)


SOLVE_LS = register_op("MatrixSolveLs", _solve_ls_infer, in_dtype(_solve_ls_kernel))


def _gramian_cholesky(a: Tensor, l2: Any, first_kind: bool) -> Tensor:
    """cholesky(Aᴴ A + λ I) (first kind) or cholesky(A Aᴴ + λ I), as TF's helper."""
    gram = matmul(a, a, adjoint_a=first_kind, adjoint_b=not first_kind)
    if isinstance(l2, Tensor) or l2 != 0:
        lam = array.cast(l2, a.dtype) if isinstance(l2, Tensor) else l2
        gram = gram + lam * identity_like(gram)
    return cholesky(gram)


def lstsq(
    matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True, name: str | None = None
) -> Tensor:
    """Least squares (min-norm when under-determined), regularised by ``l2_regularizer``.

    ``fast`` (with the matrix shape known) builds TF's composite through the normal
    equations and Cholesky; otherwise one MatrixSolveLs op.
    """
    a, b = convert_n((matrix, rhs))
    if a.dtype is dt.complex128 and (isinstance(l2_regularizer, Tensor) or l2_regularizer != 0):
        raise NotImplementedError(
            "matrix_solve_ls is currently disabled for complex128 and "
            "l2_regularizer != 0 due to poor accuracy."
        )
    m, n = (None, None) if a.shape.rank is None else a.shape.dims[-2:]  # type: ignore[index]
    if fast and m is not None and n is not None:
        if m >= n:
            chol = _gramian_cholesky(a, l2_regularizer, True)
            return cholesky_solve(chol, matmul(a, b, adjoint_a=True), name=name)
        chol = _gramian_cholesky(a, l2_regularizer, False)
        return matmul(a, cholesky_solve(chol, b), adjoint_a=True, name=name)
    l2 = convert_to_tensor(l2_regularizer, dt.float64)
    return apply_op1("MatrixSolveLs", [a, b, l2], {"fast": fast}, name)


def _overdetermined_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """m >= n: backprop through the normal equations of the first kind (Aᴴ A + λ I)."""
    a, b = op.inputs[:2]
    l2 = array.cast(op.inputs[2], a.dtype)
    z = cholesky_solve(_gramian_cholesky(a, l2, True), grad)
    xzt = matmul(op.outputs[0], z, adjoint_b=True)
    zx_sym = xzt + matrix_transpose(xzt)  # TF's: a transpose, not an adjoint
    return -matmul(a, zx_sym) + matmul(b, z, adjoint_b=True), matmul(a, z)


def _underdetermined_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """m < n: through the normal equations of the second kind (A Aᴴ + λ I)."""
    a, b = op.inputs[:2]
    chol = _gramian_cholesky(a, array.cast(op.inputs[2], a.dtype), False)
    grad_b = cholesky_solve(chol, matmul(a, grad))
    tmp = cholesky_solve(chol, b)
    a1 = -matmul(grad_b, matmul(tmp, a, adjoint_a=True))
    a2 = matmul(tmp, grad - matmul(a, grad_b, adjoint_a=True), adjoint_b=True)
    return a1 + a2, grad_b


@SOLVE_LS.gradient
def _solve_ls_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
    """TF's rule: the first kind's backprop when m >= n, else the second kind's.  With the
    matrix shape unknown when the gradient is built, a ``cond`` on the run-time shape
    picks the branch, as TF's does (only the taken branch's Cholesky runs: the other
    Gramian is singular)."""
    if not op.get_attr("fast"):
        raise ValueError("Gradient not defined for fast=False")
    dims = op.inputs[0].shape.dims
    if dims is not None and None not in dims[-2:]:
        pick = _overdetermined_grad if dims[-2] >= dims[-1] else _underdetermined_grad
        return (*pick(op, grad), None)
    shape = array.shape(op.inputs[0])
    taller = math_ops.greater_equal(shape[-2], shape[-1])
    da, db = hooks.hook("cond")(
        taller, lambda: _overdetermined_grad(op, grad), lambda: _underdetermined_grad(op, grad)
    )
    return da, db, None


@SOLVE_LS.batching
def _solve_ls_batch(c: Call) -> list[Tensor]:
    if c.batched[2]:
        raise NotVectorizable(c.op, "a batched l2_regularizer")
    return c.apply([c.full(0), c.full(1), c.xs[2]])


_FAST_FALSE = "TF defines no gradient for fast=False (its rule raises ValueError)"

SOLVE_LS.add_cases(
    Case(
        [mat(4, 3), mat(4, 2), fixed(0.0, np.float64)],
        lambda a, b, _: np.linalg.pinv(a) @ b,
        attrs={"fast": True},
        diff=(0, 1),
    ),
    Case(
        [mat(2, 3, 4), mat(2, 3, 2), fixed(0.5, np.float64)],
        lambda a, b, l2: adj(a) @ np.linalg.solve(a @ adj(a) + l2 * np.eye(3), b),
        attrs={"fast": True},
        diff=(0, 1),
        name="under_l2",
    ),
    Case(
        [mat(2, 4, 3), mat(2, 4, 2), fixed(0.0, np.float64)],
        lambda a, b, _: np.linalg.pinv(a) @ b,
        attrs={"fast": False},
        diff=(0, 1),
        order=0,
        name="not_fast",
        note=_FAST_FALSE,
    ),
    Case([mat(2, 5, 3), mat(2, 5, 2)], lambda a, b: np.linalg.pinv(a) @ b, fn=lstsq, name="lstsq"),
    Case(
        [mat(3, 4), mat(3, 2)],
        lambda a, b: np.linalg.pinv(a) @ b,
        fn=lstsq,
        dtypes=COMPLEX,
        name="lstsq_under_complex",
    ),
    Case(
        [mat(4, 3), mat(4, 2)],
        lambda a, b: np.linalg.solve(a.T @ a + 0.5 * np.eye(3), a.T @ b),
        fn=lambda a, b: lstsq(a, b, l2_regularizer=0.5),
        name="lstsq_l2",
    ),
)
