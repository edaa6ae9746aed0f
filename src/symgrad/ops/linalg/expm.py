"""MatrixExponential: scaling and squaring with the degree-13 Padé approximant.

TF 2.21 builds ``tf.linalg.expm`` from a few hundred ops (Padé approximants of several
degrees chosen with ``where``, a ``while_loop`` of squarings); its ``MatrixExponential``
op is gone from TF's kernels.  symgrad records one op under that name, with a NumPy kernel
and an exact gradient (docs/linalg.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core.cases import COMPLEX, Case
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import apply_op1, register_op
from symgrad.ops.array import joining, slicing
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.linalg.base import adjoint, in_dtype, mat, matrix_batch
from symgrad.ops.linalg.solve import square_infer

# --------------------------------------------------------------------------------------
# MatrixExponential: scaling and squaring with the degree-13 Padé approximant (Higham 2005)

_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = 5.371920351148152


def _pade13(a: np.ndarray) -> np.ndarray:
    b, ident = _PADE13, np.eye(a.shape[-1])
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (
        a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
        + b[7] * a6
        + b[5] * a4
        + b[3] * a2
        + b[1] * ident
    )
    v = (
        a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2)
        + b[6] * a6
        + b[4] * a4
        + b[2] * a2
        + b[0] * ident
    )
    return np.linalg.solve(v - u, v + u)


def _expm_kernel(x: np.ndarray) -> np.ndarray:
    """In double precision; each matrix is scaled by its own power of two, and the
    squarings run for the whole batch with a mask (no loop over the batch)."""
    if x.shape[-1] == 0:
        return x
    a = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    norm = np.abs(a).sum(-2).max(-1)
    if not np.all(np.isfinite(norm)):
        return np.full(x.shape, np.nan, x.dtype)  # TF: one non-finite matrix, all nan
    s = np.ceil(np.log2(np.maximum(norm, _THETA13) / _THETA13)).astype(int)
    r = _pade13(a / (2.0**s)[..., None, None])
    for i in range(int(s.max(initial=0))):
        r = np.where((i < s)[..., None, None], r @ r, r)
    return r


EXPM = register_op(
    "MatrixExponential",
    square_infer("MatrixExponential"),
    in_dtype(_expm_kernel),
    batch=matrix_batch,
)


def expm(input: Any, name: str | None = None) -> Tensor:
    """exp(A) = Σ Aⁿ/n! of each square matrix (one MatrixExponential op; see docs/linalg.md)."""
    return apply_op1("MatrixExponential", [convert_to_tensor(input)], name=name)


@EXPM.gradient
def _expm_grad(op: Any, grad: Tensor) -> Tensor:
    """dA = the upper-right block of expm([[Aᴴ, g], [0, Aᴴ]]): the adjoint of the Fréchet
    derivative, exact, and itself differentiable (an expm of a larger matrix)."""
    ah = adjoint(op.inputs[0])
    top = joining.concat([ah, grad], -1)
    bottom = joining.concat([array.zeros_like(ah), ah], -1)
    big = expm(joining.concat([top, bottom], -2))
    n: Any = ah.shape.dims[-1] if ah.shape.dims is not None else None
    if n is None:
        n = array.shape(ah)[-1]
    return slicing.getitem(big, (Ellipsis, slice(None, n), slice(n, None)))


def _expm_ref(x: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eig(x.astype(np.complex128))
    out = (v * np.exp(w)[..., None, :]) @ np.linalg.inv(v)
    return out if x.dtype.kind == "c" else out.real


EXPM.add_cases(
    Case([mat(2, 3, 3, scale=0.5)], _expm_ref),
    Case([mat(3, 3, scale=3.0)], _expm_ref, fn=expm, name="squarings"),
    Case([mat(2, 3, 3, scale=0.7)], _expm_ref, fn=expm, dtypes=COMPLEX, name="complex"),
)
