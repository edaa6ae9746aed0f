"""Inverses, determinants, Cholesky and linear solves.

Records: MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixSolve,
MatrixTriangularSolve; composites as TF builds them: logdet, cholesky_solve.  Kernels are
``numpy.linalg``'s, which take batches of matrices natively (LAPACK has no float16: half
inputs are computed in float32).
Gradients are TF's (``linalg_grad.py``), written with the public ops so that they can be
differentiated again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.batching import Call
from symgrad.core.cases import COMPLEX, Case
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op, apply_op1, register_op
from symgrad.core.shapes import TensorShape, broadcast_shapes
from symgrad.ops.array import structure as array
from symgrad.ops.core import (
    FLOAT_COMPLEX,
    check_dtype,
    convert_n,
    convert_to_tensor,
    same_dtype,
    unbroadcast,
)
from symgrad.ops.linalg import diag as linalg_diag
from symgrad.ops.linalg.base import (
    adj,
    adjoint,
    band_part,
    in_dtype,
    mat,
    matrix_batch,
    matrix_dims,
    spd,
    square_dims,
    sym,
    wellcond,
)
from symgrad.ops.linalg.diag import identity_like
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.math import complex as complex_ops
from symgrad.ops.math import elementwise as math_ops
from symgrad.ops.reduction import reduce as reduction


def square_infer(op_type: str) -> Any:
    """The shape rule of ops from one square matrix to one of the same shape."""

    def infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
        x = inputs[0]
        check_dtype(op_type, x, FLOAT_COMPLEX, "input")
        square_dims(x, "input")
        return x.shape, x.dtype

    return infer


def _batch_shape(x: Tensor) -> TensorShape:
    return TensorShape(None if x.shape.dims is None else x.shape.dims[:-2])


def _expand2(x: Tensor) -> Tensor:
    return array.expand_dims(array.expand_dims(x, -1), -1)


# --------------------------------------------------------------------------------------
# MatrixInverse, MatrixDeterminant, LogMatrixDeterminant


def _inverse_kernel(x: np.ndarray, *, adjoint: bool = False) -> np.ndarray:
    try:
        return np.linalg.inv(adj(x) if adjoint else x)
    except np.linalg.LinAlgError:
        raise ValueError("Input is not invertible.") from None


INVERSE = register_op(
    "MatrixInverse", square_infer("MatrixInverse"), in_dtype(_inverse_kernel), batch=matrix_batch
)


def inv(input: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """The inverse of each square matrix (of its adjoint, with ``adjoint``)."""
    return apply_op1("MatrixInverse", [convert_to_tensor(input)], {"adjoint": adjoint}, name)


@INVERSE.gradient
def _inverse_grad(op: Any, grad: Tensor) -> Tensor:
    """dA = -A⁻ᴴ g A⁻ᴴ (for ``adjoint``: -A⁻¹ gᴴ A⁻¹, conjugated)."""
    ainv, adj_ = op.outputs[0], op.get_attr("adjoint")
    return -matmul(ainv, matmul(grad, ainv, adjoint_a=adj_, adjoint_b=not adj_), adjoint_a=not adj_)


def _det_infer(inputs: Sequence[Tensor]) -> Spec:
    square_infer("MatrixDeterminant")(inputs)
    return _batch_shape(inputs[0]), inputs[0].dtype


DET = register_op("MatrixDeterminant", _det_infer, in_dtype(np.linalg.det), batch=matrix_batch)


def det(input: Any, name: str | None = None) -> Tensor:
    return apply_op1("MatrixDeterminant", [convert_to_tensor(input)], name=name)


@DET.gradient
def _det_grad(op: Any, grad: Tensor) -> Tensor:
    """dA = g · det(A) · A⁻ᴴ (TF multiplies by det, not conj(det), for complex too)."""
    return _expand2(grad * op.outputs[0]) * inv(op.inputs[0], adjoint=True)


def _slogdet_infer(inputs: Sequence[Tensor]) -> list[Spec]:
    spec = _det_infer(inputs)
    return [spec, spec]


SLOGDET = register_op(
    "LogMatrixDeterminant",
    _slogdet_infer,
    in_dtype(lambda x: tuple(np.linalg.slogdet(x))),
    batch=matrix_batch,
)


def slogdet(input: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(sign, log|det|) of each square matrix: the log does not overflow as det would."""
    op = apply_op("LogMatrixDeterminant", [convert_to_tensor(input)], name=name)
    return op.output(0), op.output(1)


@SLOGDET.gradient
def _slogdet_grad(op: Any, _: Tensor, grad_b: Tensor) -> Tensor:
    """dA = g_log · A⁻ᴴ; the sign is piecewise constant and gets no gradient."""
    return _expand2(grad_b) * inv(op.inputs[0], adjoint=True)


# --------------------------------------------------------------------------------------
# Cholesky and the composites built on it


def _cholesky_kernel(x: np.ndarray) -> np.ndarray:
    """As TF's CPU kernel: a matrix that is not positive definite gets NaN in its lower
    triangle (TF leaves its upper triangle undefined; here 0), and no error is raised."""
    try:
        return np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        pass
    h = np.tril(x) + adj(np.tril(x, -1))  # the Hermitian matrix the lower triangle stands for
    ok = np.asarray((np.linalg.eigvalsh(h) > 0).all(-1))[..., None, None]
    try:
        out = np.linalg.cholesky(np.where(ok, h, np.eye(x.shape[-1], dtype=x.dtype)))
    except np.linalg.LinAlgError:  # positive by its eigenvalues, yet not by LAPACK's pivots
        out = np.zeros_like(x)
        ok = np.zeros_like(ok)
    return np.where(ok, out, np.tril(np.full_like(x, np.nan)))


CHOLESKY = register_op(
    "Cholesky",
    square_infer("Cholesky"),
    in_dtype(_cholesky_kernel),
    batch=matrix_batch,
    no_rule_check="its kernel reads the lower triangle and TF's rule is the gradient within "
    "symmetric matrices: the op-table rows check it through a symmetrising wrapper",
)


def cholesky(input: Any, name: str | None = None) -> Tensor:
    """Lower-triangular L with L Lᴴ = input; only the lower triangle of input is read."""
    return apply_op1("Cholesky", [convert_to_tensor(input)], name=name)


@CHOLESKY.gradient
def _cholesky_grad(op: Any, grad: Tensor) -> Tensor:
    """dA = sym(L⁻ᴴ Φ(Lᴴ g) L⁻¹), Φ = lower triangle with the diagonal halved.

    The rule is symmetric (TF's), although the kernel reads only the lower triangle: it is
    the gradient within symmetric matrices.
    """
    lo = op.outputs[0]
    l_inverse = triangular_solve(lo, identity_like(lo))
    middle = matmul(lo, grad, adjoint_a=True)
    middle = linalg_diag.set_diag(middle, 0.5 * linalg_diag.diag_part(middle))
    middle = band_part(middle, -1, 0)
    grad_a = matmul(matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a += adjoint(grad_a)
    return grad_a * 0.5


def cholesky_solve(chol: Any, rhs: Any, name: str | None = None) -> Tensor:
    """Solve A X = rhs given chol = cholesky(A): two triangular solves, as TF."""
    c, b = convert_n((chol, rhs))
    y = triangular_solve(c, b, lower=True, adjoint=False)
    return triangular_solve(c, y, lower=True, adjoint=True, name=name)


def logdet(matrix: Any, name: str | None = None) -> Tensor:
    """log det of Hermitian positive-definite matrices: 2 Σ log(real(diag(cholesky)))."""
    chol = cholesky(convert_to_tensor(matrix))
    d = complex_ops.real(linalg_diag.diag_part(chol))
    return math_ops.multiply(2.0, reduction.reduce_sum(math_ops.log(d), [-1]), name=name)


# --------------------------------------------------------------------------------------
# MatrixSolve, MatrixTriangularSolve


def _solve_infer(op_type: str, broadcast: bool) -> Any:
    def infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
        a, b = inputs
        same_dtype(inputs, ("matrix", "rhs"))
        check_dtype(op_type, a, FLOAT_COMPLEX, "matrix")
        da, db = square_dims(a, "matrix"), matrix_dims(b, "rhs")
        if da is None or db is None:
            return TensorShape(None), a.dtype
        if da[-1] is not None and db[-2] is not None and da[-1] != db[-2]:
            raise ShapeError(
                f"Dimensions must be equal, but are {da[-1]} and {db[-2]}: the "
                f"matrix has shape {a.shape} and rhs {b.shape}"
            )
        return TensorShape(solve_batch_shape(da, db, broadcast) + [da[-1], db[-1]]), a.dtype

    return infer


def solve_batch_shape(da: list[Any], db: list[Any], broadcast: bool) -> list[Any]:
    ba, bb = TensorShape(da[:-2]), TensorShape(db[:-2])
    if broadcast:
        out = broadcast_shapes(ba, bb)
        if out is None:
            raise ShapeError(f"batch dimensions {ba} and {bb} cannot be broadcast")
        return list(out.dims)  # type: ignore[arg-type]
    if len(da) != len(db):
        raise ShapeError(f"All input tensors must have the same rank, got {len(da)} and {len(db)}")
    if not ba.is_compatible_with(bb):
        raise ShapeError(f"matrix and rhs must have the same batch dimensions, got {ba} and {bb}")
    return list(ba.merge_with(bb).dims)  # type: ignore[arg-type]


def _solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.linalg.solve`` with ``b`` a stack of matrices whatever its rank (NumPy 1.x
    reads a ``b`` of one rank less than ``a`` as a stack of vectors)."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
    return np.linalg.solve(a, b)


def solve_kernel(a: np.ndarray, b: np.ndarray, *, adjoint: bool = False) -> np.ndarray:
    try:
        return _solve(adj(a) if adjoint else a, b)
    except np.linalg.LinAlgError:
        raise ValueError("Input matrix is not invertible.") from None


def _triangular_kernel(
    a: np.ndarray, b: np.ndarray, *, lower: bool = True, adjoint: bool = False
) -> np.ndarray:
    t = np.tril(a) if lower else np.triu(a)
    t = adj(t) if adjoint else t
    try:
        return _solve(t, b)
    except np.linalg.LinAlgError:  # singular: TF substitutes anyway, giving inf and nan
        return _substitute(t, b, lower != adjoint)


def _substitute(t: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """Forward (or back) substitution, one row at a time for the whole batch."""
    shape = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t = np.broadcast_to(t, shape + t.shape[-2:])
    x = np.zeros(shape + b.shape[-2:], np.result_type(t, b))
    n = t.shape[-1]
    for i in range(n) if lower else range(n - 1, -1, -1):
        rest = b[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, :], x)
        x[..., i, :] = rest / t[..., i, i, None]
    return x


def solve_batch(c: Call) -> list[Tensor]:
    """Two matrix inputs of equal batch shapes: an unbatched one is broadcast over K."""
    return c.apply([c.full(0), c.full(1)])


def broadcast_batch(c: Call) -> list[Tensor]:
    """Two matrix inputs with broadcasting batch axes, aligned as elementwise ops are."""
    rank = max(c.rank(0), c.rank(1))
    return c.apply([c.aligned(0, rank), c.aligned(1, rank)])


SOLVE = register_op(
    "MatrixSolve", _solve_infer("MatrixSolve", False), in_dtype(solve_kernel), batch=solve_batch
)
TRIANGULAR_SOLVE = register_op(
    "MatrixTriangularSolve",
    _solve_infer("MatrixTriangularSolve", True),
    in_dtype(_triangular_kernel),
    batch=broadcast_batch,
)


def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """X with matrix X = rhs (matrixᴴ X = rhs with ``adjoint``); batch shapes must match."""
    return apply_op1("MatrixSolve", convert_n((matrix, rhs)), {"adjoint": adjoint}, name)


def triangular_solve(
    matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False, name: str | None = None
) -> Tensor:
    """Solve with the lower (or upper) triangle of ``matrix``; batch axes broadcast."""
    return apply_op1(
        "MatrixTriangularSolve",
        convert_n((matrix, rhs)),
        {"lower": lower, "adjoint": adjoint},
        name,
    )


def _solve_grads(op: Any, grad_b: Tensor) -> Tensor:
    """dA = -db Xᴴ (or -X dbᴴ for ``adjoint``), X the solution."""
    c = op.outputs[0]
    if op.get_attr("adjoint"):
        return -matmul(c, grad_b, adjoint_b=True)
    return -matmul(grad_b, c, adjoint_b=True)


@SOLVE.gradient
def _solve_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """db = A⁻ᴴ g; dA = -db Xᴴ."""
    grad_b = solve(op.inputs[0], grad, adjoint=not op.get_attr("adjoint"))
    return _solve_grads(op, grad_b), grad_b


@TRIANGULAR_SOLVE.gradient
def _triangular_solve_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """db = T⁻ᴴ g; dA = the triangle of -db Xᴴ; both summed over broadcast batch axes."""
    a, b = op.inputs
    lower = op.get_attr("lower")
    grad_b = triangular_solve(a, grad, lower=lower, adjoint=not op.get_attr("adjoint"))
    grad_a = (
        band_part(_solve_grads(op, grad_b), -1, 0)
        if lower
        else band_part(_solve_grads(op, grad_b), 0, -1)
    )
    return unbroadcast(grad_a, a), unbroadcast(grad_b, b)


# --------------------------------------------------------------------------------------
# Op-table cases: well-conditioned inputs, so that finite differences are accurate


_COMPLEX_DET = (
    "TF's rule multiplies by det(A) where the derivative needs conj(det(A)): "
    "copied; tests/ops/test_linalg.py checks TF's numbers"
)
_COMPLEX_SLOGDET = (
    "TF's rule drops the phase of the sign and keeps the imaginary part of "
    "log|det|'s cotangent: copied; tests/ops/test_linalg.py checks TF's numbers"
)

INVERSE.add_cases(
    Case([wellcond(2, 3, 3)], np.linalg.inv, attrs={"adjoint": False}),
    Case(
        [wellcond(3, 3)],
        lambda x: np.linalg.inv(adj(x)),
        fn=lambda x: inv(x, adjoint=True),
        name="adjoint",
    ),
    Case([wellcond(2, 3, 3)], np.linalg.inv, fn=inv, dtypes=COMPLEX, name="complex"),
)
DET.add_cases(
    Case([wellcond(2, 3, 3)], np.linalg.det),
    Case([wellcond(4, 4)], np.linalg.det, fn=det, name="unbatched"),
    Case(
        [wellcond(2, 3, 3)],
        np.linalg.det,
        fn=det,
        dtypes=COMPLEX,
        order=0,
        name="complex",
        note=_COMPLEX_DET,
    ),
)
SLOGDET.add_cases(
    Case([wellcond(2, 3, 3)], lambda x: tuple(np.linalg.slogdet(x))),
    Case(
        [wellcond(2, 3, 3)],
        lambda x: tuple(np.linalg.slogdet(-x)),
        fn=lambda x: slogdet(-x),
        name="negative",
    ),
    Case(
        [wellcond(2, 3, 3)],
        lambda x: np.linalg.slogdet(x)[1],
        fn=lambda x: complex_ops.real(slogdet(x)[1]),
        dtypes=COMPLEX,
        name="complex",
    ),
    Case(
        [wellcond(2, 3, 3)],
        lambda x: tuple(np.linalg.slogdet(x)),
        fn=slogdet,
        order=0,
        dtypes=COMPLEX,
        name="complex_sign",
        note=_COMPLEX_SLOGDET,
    ),
)
CHOLESKY.add_cases(
    Case([spd(2, 3, 3)], np.linalg.cholesky, fn=lambda x: cholesky(sym(x))),
    Case(
        [spd(4, 4)],
        np.linalg.cholesky,
        fn=lambda x: cholesky(sym(x)),
        dtypes=COMPLEX,
        name="complex",
    ),
    Case(
        [spd(2, 3, 3)],
        lambda x: np.linalg.slogdet(x)[1],
        fn=lambda x: logdet(sym(x)),
        name="logdet",
    ),
    Case(
        [spd(3, 3)],
        np.linalg.cholesky,
        fn=cholesky,
        order=0,
        name="lower_only",
        note="the kernel reads one triangle; the rows above check the rule within "
        "symmetric matrices",
    ),
)
SOLVE.add_cases(
    Case([wellcond(2, 3, 3), mat(2, 3, 4)], np.linalg.solve, attrs={"adjoint": False}),
    Case(
        [wellcond(3, 3), mat(3, 2)],
        lambda a, b: np.linalg.solve(adj(a), b),
        fn=lambda a, b: solve(a, b, adjoint=True),
        name="adjoint",
    ),
    Case(
        [wellcond(2, 3, 3), mat(2, 3, 4)], np.linalg.solve, fn=solve, dtypes=COMPLEX, name="complex"
    ),
)
TRIANGULAR_SOLVE.add_cases(
    Case(
        [wellcond(2, 3, 3), mat(2, 3, 4)],
        lambda a, b: np.linalg.inv(np.tril(a)) @ b,
        attrs={"lower": True, "adjoint": False},
    ),
    Case(
        [wellcond(3, 3), mat(3, 2)],
        lambda a, b: np.linalg.inv(adj(np.triu(a))) @ b,
        fn=lambda a, b: triangular_solve(a, b, lower=False, adjoint=True),
        name="upper_adj",
    ),
    Case(
        [wellcond(2, 1, 3, 3), mat(4, 3, 2)],
        lambda a, b: np.linalg.inv(np.tril(a)) @ b,
        fn=triangular_solve,
        name="broadcast",
    ),
    Case(
        [wellcond(3, 3), mat(2, 3, 4)],
        lambda a, b: np.linalg.inv(np.tril(a)) @ b,
        fn=triangular_solve,
        dtypes=COMPLEX,
        name="complex_broadcast",
    ),
    Case(
        [spd(2, 3, 3), mat(2, 3, 4)],
        np.linalg.solve,
        name="cholesky_solve",
        fn=lambda a, b: cholesky_solve(cholesky(sym(a)), b),
    ),
)
