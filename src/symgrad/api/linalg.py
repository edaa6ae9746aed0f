"""``tf.linalg``: the linear-algebra functions under their TensorFlow names (re-exports only).

The ops live in ``symgrad.ops.linalg*``; docs/linalg.md says where symgrad and TensorFlow
differ (singular vectors' signs, expm as one op) and what the spectral gradients do when
eigenvalues or singular values coincide.
"""

from __future__ import annotations

from symgrad import _missing
from symgrad.clip_ops import global_norm
from symgrad.ops.contraction import einsum, tensordot
from symgrad.ops.linalg import adjoint, band_part, matrix_transpose
from symgrad.ops.linalg_decomp import eigh, eigvalsh, pinv, qr, svd
from symgrad.ops.linalg_diag import diag, diag_part, eye, set_diag, trace
from symgrad.ops.linalg_expm import expm
from symgrad.ops.linalg_lstsq import lstsq
from symgrad.ops.linalg_solve import (
    cholesky,
    cholesky_solve,
    det,
    inv,
    logdet,
    slogdet,
    solve,
    triangular_solve,
)
from symgrad.ops.matmul import matmul
from symgrad.ops.norms import norm

__all__ = [
    "adjoint",
    "band_part",
    "cholesky",
    "cholesky_solve",
    "det",
    "diag",
    "diag_part",
    "eigh",
    "eigvalsh",
    "einsum",
    "expm",
    "eye",
    "global_norm",
    "inv",
    "logdet",
    "lstsq",
    "matmul",
    "matrix_transpose",
    "norm",
    "pinv",
    "qr",
    "set_diag",
    "slogdet",
    "solve",
    "svd",
    "tensordot",
    "trace",
    "triangular_solve",
]

# isort: split
# tf.nn.l2_normalize, which TF also exports as tf.linalg.l2_normalize, and the tensor
# diagonal of TF1's tf.diag / tf.diag_part (issue 16); tf.linalg.matvec (session 6)
from symgrad.ops.matmul import matvec
from symgrad.ops.normalization import l2_normalize
from symgrad.ops.tensor_diag import tensor_diag, tensor_diag_part

__all__ += ["l2_normalize", "tensor_diag", "tensor_diag_part"]
__all__ += ["matvec"]

__getattr__ = _missing.module_getattr("tf.linalg")
