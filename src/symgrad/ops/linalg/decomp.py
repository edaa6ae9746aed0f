"""Decompositions: Qr, Svd, SelfAdjointEigV2, and the composites TF builds on them
(eigvalsh, pinv; ``norm`` lives in ops/reduction/norms.py with the other norms).

Kernels are ``numpy.linalg``'s (batched natively).  Singular vectors and eigenvectors are
unique only up to sign (a phase, for complex inputs): NumPy's LAPACK and TF's Eigen may
choose differently, so compare them through quantities that do not depend on the choice.
Gradients are TF's; those of Svd and SelfAdjointEigV2 assume distinct singular values /
eigenvalues (docs/linalg.md says what happens otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.batching import Call
from symgrad.core.cases import COMPLEX, Case
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import Spec, apply_op, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import joining
from symgrad.ops.array import structure as array
from symgrad.ops.core import FLOAT_COMPLEX, FLOATS, check_dtype, convert_to_tensor
from symgrad.ops.linalg import diag as linalg_diag
from symgrad.ops.linalg.base import (
    adj,
    adjoint,
    band_part,
    hermitian,
    in_dtype,
    mat,
    matrix_batch,
    matrix_dims,
    square_dims,
    sym,
)
from symgrad.ops.linalg.diag import identity_like
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.linalg.solve import triangular_solve
from symgrad.ops.math import complex as complex_ops
from symgrad.ops.math import elementwise as math_ops
from symgrad.ops.reduction import reduce as reduction
from symgrad.ops.reduction.norms import norm


def _safe_reciprocal(x: Tensor, epsilon: float = 1e-20) -> Tensor:
    """x / (x² + ε): TF's Lorentz broadening, 0 (not inf) where x == 0."""
    return x * math_ops.reciprocal(x * x + epsilon)


def _outer_differences(e: Tensor) -> Tensor:
    """f[i, j] = 1 / (e[j] - e[i]) off the diagonal (safely), 0 on it."""
    diffs = array.expand_dims(e, -2) - array.expand_dims(e, -1)
    return linalg_diag.set_diag(_safe_reciprocal(diffs), array.zeros_like(e))


def _spectral_batch(c: Call) -> list[Tensor]:
    """Values-only calls (compute_uv / compute_v False) keep their [0]-shaped vector
    outputs empty for each example: [K, 0]."""
    outs = matrix_batch(c)
    if c.op.attrs.get("compute_uv", c.op.attrs.get("compute_v", True)):
        return outs
    empty = array.zeros([c.k, 0], c.op.inputs[0].dtype)
    return [outs[0]] + [empty] * (len(outs) - 1)


def _known_matrix(x: Tensor, what: str) -> tuple[int, int]:
    dims = x.shape.dims
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise NotImplementedError(
            f"{what} has not been implemented for input with unknown "
            f"inner matrix shape (got {x.shape})."
        )
    return int(dims[-2]), int(dims[-1])


# --------------------------------------------------------------------------------------
# Qr


def _qr_infer(inputs: Sequence[Tensor], *, full_matrices: bool = False) -> list[Spec]:
    x = inputs[0]
    check_dtype("Qr", x, FLOAT_COMPLEX, "input")
    dims = matrix_dims(x, "input")
    if dims is None:
        return [(TensorShape(None), x.dtype)] * 2
    batch, (m, n) = dims[:-2], dims[-2:]
    p = m if full_matrices else None if m is None or n is None else min(m, n)
    return [(TensorShape(batch + [m, p]), x.dtype), (TensorShape(batch + [p, n]), x.dtype)]


QR = register_op(
    "Qr",
    _qr_infer,
    in_dtype(
        lambda x, *, full_matrices=False: tuple(
            np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
        )
    ),
    batch=matrix_batch,
)


def qr(input: Any, full_matrices: bool = False, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(q, r) with q's columns orthonormal and r upper triangular (Householder's signs)."""
    op = apply_op("Qr", [convert_to_tensor(input)], {"full_matrices": full_matrices}, name)
    return op.output(0), op.output(1)


def _tri_solve_right(x: Tensor, r: Tensor) -> Tensor:
    """x r⁻ᴴ for upper-triangular r."""
    return adjoint(triangular_solve(r, adjoint(x), lower=False, adjoint=False))


def _qr_grad_deep(q: Tensor, r: Tensor, dq: Tensor, dr: Tensor) -> Tensor:
    """TF's rule for m >= n (arXiv:2009.10071), with its complex correction."""
    qdq = matmul(q, dq, adjoint_a=True)
    rdr = matmul(r, dr, adjoint_b=True)
    tril = band_part(qdq - adjoint(qdq) + rdr - adjoint(rdr), -1, 0)
    ret = matmul(q, dr + _tri_solve_right(tril, r)) + _tri_solve_right(dq - matmul(q, qdq), r)
    if q.dtype.is_complex:
        m = rdr - adjoint(qdq)
        eyem = linalg_diag.set_diag(array.zeros_like(m), linalg_diag.diag_part(m))
        correction = eyem - array.cast(complex_ops.real(eyem), q.dtype)
        ret = ret + _tri_solve_right(matmul(q, adjoint(correction)), r)
    return ret


@QR.gradient
def _qr_grad(op: Any, dq: Tensor, dr: Tensor) -> Tensor:
    """Square and deep: TF's formula; wide (m < n): split a = [x, y] into the square case."""
    q, r = op.outputs
    rows, cols = _known_matrix(r, "QrGrad")
    if rows > cols and q.shape.dims[-1] == q.shape.dims[-2]:  # type: ignore[index]
        raise NotImplementedError(
            f"QrGrad not implemented when nrows > ncols and "
            f"full_matrices is true. Received r.shape={r.shape}."
        )
    m = int(q.shape.dims[-2])  # type: ignore[index,arg-type]
    if m >= cols:
        return _qr_grad_deep(q, r, dq, dr)
    y = op.inputs[0][..., :, m:]
    u, dv, du = r[..., :, :m], dr[..., :, m:], dr[..., :, :m]
    dx = _qr_grad_deep(q, u, dq + matmul(y, dv, adjoint_b=True), du)
    return joining.concat([dx, matmul(q, dv)], -1)


# --------------------------------------------------------------------------------------
# Svd


def _svd_infer(
    inputs: Sequence[Tensor], *, compute_uv: bool = True, full_matrices: bool = False
) -> list[Spec]:
    x = inputs[0]
    check_dtype("Svd", x, FLOAT_COMPLEX, "input")
    dims = matrix_dims(x, "input")
    if dims is None:
        return [(TensorShape(None), x.dtype)] * 3
    batch, (m, n) = dims[:-2], dims[-2:]
    p = None if m is None or n is None else min(m, n)
    if not compute_uv:
        return [(TensorShape(batch + [p]), x.dtype)] + [(TensorShape([0]), x.dtype)] * 2
    u, v = (m, n) if full_matrices else (p, p)
    return [
        (TensorShape(batch + [p]), x.dtype),
        (TensorShape(batch + [m, u]), x.dtype),
        (TensorShape(batch + [n, v]), x.dtype),
    ]


def _svd_kernel(
    x: np.ndarray, *, compute_uv: bool = True, full_matrices: bool = False
) -> tuple[np.ndarray, ...]:
    if not compute_uv:
        none = np.zeros([0], x.dtype)
        return np.linalg.svd(x, compute_uv=False), none, none
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return s, u, adj(vh)


SVD = register_op("Svd", _svd_infer, in_dtype(_svd_kernel), batch=_spectral_batch)


def svd(
    tensor: Any, full_matrices: bool = False, compute_uv: bool = True, name: str | None = None
) -> Any:
    """(s, u, v) with tensor = u diag(s) vᴴ (v, not vᴴ as NumPy); s real, descending."""
    op = apply_op(
        "Svd",
        [convert_to_tensor(tensor)],
        {"compute_uv": compute_uv, "full_matrices": full_matrices},
        name,
    )
    s = complex_ops.real(op.output(0))
    return (s, op.output(1), op.output(2)) if compute_uv else s


def _svd_core(
    s: Tensor,
    u: Tensor,
    v: Tensor,
    grad_s: Tensor,
    grad_u: Tensor,
    grad_v: Tensor,
    m: int,
    n: int,
    full: bool,
) -> Tensor:
    """TF's gradient for m <= n (Giles 2008; Townsend's full_matrices=False case)."""
    s_mat, s2 = linalg_diag.diag(s), math_ops.square(s)
    f = _outer_differences(s2)
    s_inv_mat = linalg_diag.diag(_safe_reciprocal(s))
    v1, grad_v1 = v[..., :, :m], grad_v[..., :, :m]
    f_u = f * matmul(u, grad_u, adjoint_a=True)
    v_gv = matmul(v1, grad_v1, adjoint_a=True)
    f_v = f * v_gv
    term1_nouv = (
        linalg_diag.diag(grad_s)
        + matmul(f_u + adjoint(f_u), s_mat)
        + matmul(s_mat, f_v + adjoint(f_v))
    )
    grad = matmul(u, matmul(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = adjoint(grad_v1)
        term2_nous = gv1t - matmul(matmul(gv1t, v1), v1, adjoint_b=True)
        if full:
            v2, grad_v2 = v[..., :, m:n], grad_v[..., :, m:n]
            term2_nous -= matmul(matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True)
        grad += matmul(matmul(u, s_inv_mat), term2_nous)
    if s.dtype.is_complex:
        diag_vgv = identity_like(v_gv) * v_gv
        term3_nouv = matmul(s_inv_mat, adjoint(diag_vgv) - diag_vgv)
        grad += 0.5 * matmul(u, matmul(term3_nouv, v1, adjoint_b=True))
    return grad


@SVD.gradient
def _svd_grad(op: Any, grad_s: Tensor, grad_u: Tensor, grad_v: Tensor) -> Tensor:
    """TF's rule; for m > n it differentiates aᴴ = v sᵀ uᴴ and takes the adjoint."""
    a = op.inputs[0]
    if not op.get_attr("compute_uv"):
        _, u, v = svd(a, compute_uv=True)
        return matmul(u, matmul(linalg_diag.diag(grad_s), v, adjoint_b=True))
    full = op.get_attr("full_matrices")
    m, n = _known_matrix(a, "SVD gradient")
    s, u, v = op.outputs
    use_adjoint = m > n
    if use_adjoint:
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    if full and abs(m - n) > 1:
        raise NotImplementedError(
            f"svd gradient is not implemented for abs(m - n) > 1 when "
            f"full_matrices is True. Received: m={m} and n={n}."
        )
    grad = _svd_core(s, u, v, grad_s, grad_u, grad_v, m, n, full)
    return adjoint(grad) if use_adjoint else grad


# --------------------------------------------------------------------------------------
# SelfAdjointEigV2


def _eigh_infer(inputs: Sequence[Tensor], *, compute_v: bool = True) -> list[Spec]:
    x = inputs[0]
    check_dtype("SelfAdjointEigV2", x, FLOAT_COMPLEX, "input")
    dims = square_dims(x, "input")
    if dims is None:
        return [(TensorShape(None), x.dtype)] * 2
    v = x.shape if compute_v else TensorShape([0])
    return [(TensorShape(dims[:-1]), x.dtype), (v, x.dtype)]


def _eigh_kernel(x: np.ndarray, *, compute_v: bool = True) -> tuple[np.ndarray, np.ndarray]:
    if not compute_v:
        return np.linalg.eigvalsh(x, UPLO="L"), np.zeros([0], x.dtype)
    e, v = np.linalg.eigh(x, UPLO="L")
    return e, v


EIGH = register_op("SelfAdjointEigV2", _eigh_infer, in_dtype(_eigh_kernel), batch=_spectral_batch)


def eigh(tensor: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(e, v): ascending eigenvalues and eigenvectors (columns); reads the lower triangle.
    For complex input e is complex too (zero imaginary part), as in TF."""
    op = apply_op("SelfAdjointEigV2", [convert_to_tensor(tensor)], {"compute_v": True}, name)
    return op.output(0), op.output(1)


def eigvalsh(tensor: Any, name: str | None = None) -> Tensor:
    return apply_op1("SelfAdjointEigV2", [convert_to_tensor(tensor)], {"compute_v": False}, name)


@EIGH.gradient
def _eigh_grad(op: Any, grad_e: Tensor, grad_v: Tensor) -> Tensor:
    """dA = v (diag(g_e) + f ∘ vᴴ g_v) vᴴ, f = 1/(e_j - e_i) (0 for equal e), then
    symmetrised and folded into the lower triangle the kernel reads (TF's quirk)."""
    e = op.outputs[0]
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        inner = linalg_diag.diag(grad_e) + _outer_differences(e) * matmul(v, grad_v, adjoint_a=True)
    else:
        _, v = eigh(op.inputs[0])
        inner = linalg_diag.diag(grad_e)
    grad_a = matmul(v, matmul(inner, v, adjoint_b=True))
    grad_a = band_part(grad_a + adjoint(grad_a), -1, 0)
    return linalg_diag.set_diag(grad_a, 0.5 * linalg_diag.diag_part(grad_a))


# --------------------------------------------------------------------------------------
# pinv: a composite, as TF builds it (norm is ops/reduction/norms.py)


def pinv(a: Any, rcond: Any = None, validate_args: bool = False, name: str | None = None) -> Tensor:
    """Moore-Penrose pseudo-inverse via the SVD; singular values below
    ``rcond · max(s)`` (default ``10 · max(m, n) · eps``) count as zero."""
    x = convert_to_tensor(a)
    check_dtype("pinv", x, FLOATS, "a")
    dims = matrix_dims(x, "a")
    np_dtype = x.dtype.np
    if rcond is None:
        if dims is not None and dims[-2] is not None and dims[-1] is not None:
            rows_cols: Any = float(max(dims[-2], dims[-1]))
        else:
            shape = array.shape(x)
            rows_cols = array.cast(math_ops.maximum(shape[-2], shape[-1]), x.dtype)
        rcond = 10.0 * rows_cols * np.finfo(np_dtype).eps
    rcond = convert_to_tensor(rcond, None if isinstance(rcond, Tensor) else x.dtype)
    s, u, v = svd(x, full_matrices=False, compute_uv=True)
    cutoff = rcond * reduction.reduce_max(s, -1)
    # Small singular values become inf, so 1/s = 0 without nan gradients (TF's trick).
    s = array.where(s > array.expand_dims(cutoff, -1), s, np.array(np.inf, np_dtype))
    return matmul(v / array.expand_dims(s, -2), u, adjoint_b=True, name=name)


# --------------------------------------------------------------------------------------
# Op-table cases.  Singular vectors and eigenvectors are compared where their sign (real)
# is fixed by LAPACK's choice, which is locally smooth; complex rows go through
# phase-invariant products (u vᴴ, |v|²), as the rules assume of the loss.


def _np_qr(full: bool = False) -> Any:
    return lambda x: tuple(np.linalg.qr(x, mode="complete" if full else "reduced"))


def _np_svd(x: np.ndarray, full: bool = False) -> tuple[np.ndarray, ...]:
    u, s, vh = np.linalg.svd(x, full_matrices=full)
    return s, u, adj(vh)


def _uvh(x: Tensor) -> tuple[Tensor, Tensor]:
    s, u, v = svd(x)
    return s, matmul(u, v, adjoint_b=True)


def _np_uvh(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return s, u @ vh


def _eigh_abs2(x: Tensor) -> tuple[Tensor, Tensor]:
    e, v = eigh(sym(x))
    return complex_ops.real(e), v * complex_ops.conj(v)


def _np_eigh_abs2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    e, v = np.linalg.eigh(x)
    return e, v * np.conj(v)


_NO_FULL_GRAD = "TF has no QR gradient for full_matrices with more rows than columns"

QR.add_cases(
    Case([mat(2, 4, 3)], _np_qr(), attrs={"full_matrices": False}, name="deep"),
    Case([mat(3, 5)], _np_qr(), fn=qr, name="wide"),
    Case([mat(2, 3, 4)], _np_qr(True), fn=lambda x: qr(x, full_matrices=True), name="wide_full"),
    Case([mat(4, 3)], _np_qr(), fn=qr, dtypes=COMPLEX, name="complex"),
    Case(
        [mat(4, 3)],
        _np_qr(True),
        fn=lambda x: qr(x, full_matrices=True),
        order=0,
        name="deep_full",
        note=_NO_FULL_GRAD,
    ),
)
SVD.add_cases(
    Case([mat(2, 4, 3)], _np_svd, attrs={"compute_uv": True, "full_matrices": False}, name="deep"),
    Case([mat(3, 5)], _np_svd, fn=svd, name="wide"),
    Case(
        [mat(2, 4, 3)],
        lambda x: _np_svd(x, True),
        fn=lambda x: svd(x, full_matrices=True),
        name="full",
    ),
    Case(
        [mat(2, 3, 4)],
        lambda x: np.linalg.svd(x, compute_uv=False),
        name="values",
        fn=lambda x: svd(x, compute_uv=False),
    ),
    Case(
        [mat(2, 4, 3)],
        _np_uvh,
        fn=_uvh,
        dtypes=COMPLEX,
        order=1,
        name="complex",
        note="second order: TF's rule keeps the imaginary part of the cotangent of s "
        "(real values in a complex tensor), which the gradient graph itself feeds "
        "it; copied (docs/linalg.md)",
    ),
    Case([mat(2, 4, 3)], np.linalg.pinv, fn=pinv, name="pinv"),
    Case(
        [mat(2, 3, 4)],
        lambda x: np.linalg.norm(x, 2, axis=(-2, -1)),
        fn=lambda x: norm(x, ord=2, axis=(-2, -1)),
        name="norm2",
    ),
    Case(
        [mat(3, 2, 4)],
        lambda x: np.linalg.norm(np.moveaxis(x, 0, -1), 2, axis=(-2, -1)),
        fn=lambda x: norm(x, ord=2, axis=(-1, 0)),
        name="norm2_axes",
    ),
)
EIGH.add_cases(
    Case([hermitian(2, 3, 3)], lambda x: tuple(np.linalg.eigh(x)), fn=lambda x: eigh(sym(x))),
    Case(
        [mat(4, 4)],
        lambda x: tuple(np.linalg.eigh(x, UPLO="L")),
        attrs={"compute_v": True},
        name="lower",
    ),
    Case([hermitian(2, 4, 4)], np.linalg.eigvalsh, fn=lambda x: eigvalsh(sym(x)), name="eigvalsh"),
    Case([hermitian(2, 3, 3)], _np_eigh_abs2, fn=_eigh_abs2, dtypes=COMPLEX, name="complex"),
)
