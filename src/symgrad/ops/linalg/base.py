"""The linalg family's shared pieces, ConjugateTranspose and MatrixBandPart.

Every linalg op works on the last two axes; leading axes are batch axes, which
``numpy.linalg`` and the gathers here take natively, so a kernel is one NumPy call for the
whole batch.  This module holds what the family shares: shape checks (``matrix_dims``,
``square_dims``), the batching rule of ops on one matrix (``matrix_batch``), the kernel
wrapper ``in_dtype`` and the op-table input generators.  The other ops live in
``linalg_diag`` (diagonals, eye, trace), ``linalg_solve`` (inverse, determinants, Cholesky,
solves), ``linalg_lstsq``, ``linalg_expm`` and ``linalg_decomp`` (QR, SVD, eigh, pinv, norm);
``symgrad.api.linalg`` is the ``tf.linalg`` facade.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core.batching import Call, const
from symgrad.core.cases import COMPLEX, Case, complex_randn, ints, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import OPS, ShapeError, Spec, apply_op1, register_op
from symgrad.ops.array import joining
from symgrad.ops.array import structure as array
from symgrad.ops.core import check_dtype, convert_to_tensor, static_ints

# --------------------------------------------------------------------------------------
# Shape checks shared by the linalg modules


def matrix_dims(x: Tensor, arg: str) -> list[int | None] | None:
    """``x``'s dims (None if the rank is unknown); rank >= 2 or a TF-worded ShapeError."""
    dims = x.shape.dims
    if dims is not None and len(dims) < 2:
        raise ShapeError(
            f"Shape must be at least rank 2 but is rank {len(dims)} for input "
            f"'{arg}' with shape {x.shape}"
        )
    return None if dims is None else list(dims)


def square_dims(x: Tensor, arg: str) -> list[int | None] | None:
    """As ``matrix_dims``, and the last two dims must be equal (a square matrix)."""
    dims = matrix_dims(x, arg)
    if dims is not None and None not in dims[-2:] and dims[-1] != dims[-2]:
        raise ShapeError(
            f"Dimensions must be equal, but are {dims[-2]} and {dims[-1]}: "
            f"input '{arg}' must be a (batch of) square matrices, got shape "
            f"{x.shape}"
        )
    return dims


def matrix_batch(c: Call) -> list[Tensor]:
    """Batching rule of ops on input 0's last two axes whose other inputs are attributes."""
    c.only_batched(0)
    return c.apply(c.xs)


# --------------------------------------------------------------------------------------
# Kernels: LAPACK's dtypes


def lapack(x: np.ndarray) -> np.ndarray:
    """``x`` in a dtype LAPACK takes (half -> float32)."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def in_dtype(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A kernel computed in a dtype LAPACK takes, every output cast back to input 0's dtype
    (plans take kernel outputs as they are; a complex log|det| stays complex, as in TF)."""

    def kernel(x: np.ndarray, *rest: np.ndarray, **attrs: Any) -> Any:
        out = fn(lapack(x), *(lapack(r) for r in rest), **attrs)
        if isinstance(out, tuple):
            return tuple(np.asarray(o).astype(x.dtype, copy=False) for o in out)
        return np.asarray(out).astype(x.dtype, copy=False)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return kernel


def adj(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


# --------------------------------------------------------------------------------------
# ConjugateTranspose: tf.linalg.adjoint and transpose(conjugate=True) of complex tensors


CONJUGATE_TRANSPOSE = register_op(
    "ConjugateTranspose",
    lambda inputs: OPS["Transpose"].infer(inputs),
    lambda x, p: np.conj(np.transpose(x, p)),
    cases=[
        Case(
            [complex_randn(2, 3, 4), ints([0, 2, 1])],
            lambda x, p: np.conj(np.transpose(x, p)),
            dtypes=COMPLEX,
        )
    ],
)


@CONJUGATE_TRANSPOSE.gradient
def _conjugate_transpose_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = conj(transpose(g, inverse(perm)))."""
    perm = static_ints(op.inputs[1], "perm")
    inverse = (
        array.invert_permutation(op.inputs[1])
        if perm is None
        else np.argsort(perm).astype(np.int32)
    )
    return apply_op1("ConjugateTranspose", [grad, array.int_tensor(inverse, "perm")]), None


@CONJUGATE_TRANSPOSE.batching
def _conjugate_transpose_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    perm = [0] + [c.axis(p, c.rank(0)) for p in c.ints(1)]
    return c.apply([c.xs[0], const(perm, c.xs[1])])


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """Swap the last two axes (and conjugate, for complex ``a`` with ``conjugate``)."""
    x = convert_to_tensor(a)
    r = x.shape.rank
    if r is not None and r < 2:
        raise ValueError(
            "Argument `a` should be a (batch) matrix with rank >= 2.  Received "
            f"`a` = {x} with shape: {x.shape}"
        )
    if r is not None:
        perm: Any = array.int_tensor(list(range(r - 2)) + [r - 1, r - 2], "perm")
    else:
        n = array.rank(x)
        perm = joining.concat(
            [array.range(0, n - 2, 1), array.reshape(n - 1, [1]), array.reshape(n - 2, [1])], 0
        )
    op_type = "ConjugateTranspose" if conjugate and x.dtype.is_complex else "Transpose"
    return apply_op1(op_type, [x, perm], name=name)


def adjoint(matrix: Any, name: str | None = None) -> Tensor:
    """The conjugate transpose of the last two axes (``matrix_transpose(conjugate=True)``)."""
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)


CONJUGATE_TRANSPOSE.add_cases(
    Case(
        [complex_randn(2, 3, 4)],
        lambda x: np.conj(np.swapaxes(x, -1, -2)),
        fn=adjoint,
        dtypes=COMPLEX,
        name="adjoint",
    )
)


# --------------------------------------------------------------------------------------
# MatrixBandPart


def _band_infer(inputs: Sequence[Tensor]) -> Spec:
    x, lo, hi = inputs
    matrix_dims(x, "input")
    for t, arg in ((lo, "num_lower"), (hi, "num_upper")):
        check_dtype("MatrixBandPart", t, array.INDEX, arg)
        if t.shape.rank not in (None, 0):
            raise ShapeError(f"Shape must be rank 0 but is rank {t.shape.rank} for input '{arg}'")
    return x.shape, x.dtype


def _band_kernel(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    m, n = x.shape[-2:]
    for v, size, arg in ((int(lo), m, "num_lower"), (int(hi), n, "num_upper")):
        if v > size:
            raise ValueError(
                f"{arg} must be negative or less or equal to number of "
                f"{'rows' if arg == 'num_lower' else 'columns'} ({size}) got: {v}"
            )
    d = np.arange(n)[None, :] - np.arange(m)[:, None]  # column minus row
    keep = ((int(lo) < 0) | (-d <= int(lo))) & ((int(hi) < 0) | (d <= int(hi)))
    return np.where(keep, x, x.dtype.type(0))


def _band_ref(lo: int, hi: int) -> Any:
    def ref(x: np.ndarray, *_: Any) -> np.ndarray:
        ones = np.ones(x.shape[-2:], bool)
        keep = (np.triu(ones, -lo) if lo >= 0 else ones) & (np.tril(ones, hi) if hi >= 0 else ones)
        return np.where(keep, x, 0)

    return ref


BAND_PART = register_op("MatrixBandPart", _band_infer, _band_kernel, batch=matrix_batch)


def band_part(input: Any, num_lower: Any, num_upper: Any, name: str | None = None) -> Tensor:
    """Zero everything outside the band of ``num_lower`` sub- and ``num_upper``
    super-diagonals (a negative count keeps that whole triangle)."""
    x = convert_to_tensor(input)
    return apply_op1(
        "MatrixBandPart",
        [x, array.int_tensor(num_lower, "num_lower"), array.int_tensor(num_upper, "num_upper")],
        name=name,
    )


@BAND_PART.gradient
def _band_part_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None]:
    """dx = band_part(g, num_lower, num_upper)."""
    return band_part(grad, op.inputs[1], op.inputs[2]), None, None


BAND_PART.add_cases(
    Case([randn(2, 3, 4)], _band_ref(1, 0), fn=lambda x: band_part(x, 1, 0), name="1_0"),
    Case([randn(4, 3)], _band_ref(-1, 0), fn=lambda x: band_part(x, -1, 0), name="lower"),
    Case([randn(3, 4)], _band_ref(0, -1), fn=lambda x: band_part(x, 0, -1), name="upper"),
    Case(
        [complex_randn(2, 3, 4), ints(0), ints(2)], _band_ref(0, 2), dtypes=COMPLEX, name="complex"
    ),
)


# --------------------------------------------------------------------------------------
# Op-table input generators (dtype-aware: complex entries for complex dtypes)


def mat(*shape: int, scale: float = 1.0) -> Any:
    """Normal entries; complex ones for a complex dtype."""

    def gen(rng: np.random.Generator, d: Any) -> np.ndarray:
        x = rng.standard_normal(shape)
        if np.dtype(d).kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        return (scale * x).astype(d)

    return gen


def wellcond(*shape: int) -> Any:
    """Square matrices n·I + noise: far from singular."""
    return lambda rng, d: (mat(*shape)(rng, d) + shape[-1] * np.eye(shape[-1])).astype(d)


def spd(*shape: int) -> Any:
    """Hermitian positive-definite matrices x xᴴ + n·I."""

    def gen(rng: np.random.Generator, d: Any) -> np.ndarray:
        x = mat(*shape)(rng, np.complex128 if np.dtype(d).kind == "c" else np.float64)
        return (x @ adj(x) + shape[-1] * np.eye(shape[-1])).astype(d)

    return gen


def sym(x: Tensor) -> Tensor:
    """The Hermitian part: rows of ops that read one triangle differentiate through it."""
    return 0.5 * (x + adjoint(x))


def hermitian(*shape: int) -> Any:
    """(x + xᴴ)/2 of normal x: distinct eigenvalues almost surely."""
    return lambda rng, d: (lambda x: (x + adj(x)) / 2)(mat(*shape)(rng, d)).astype(d)
