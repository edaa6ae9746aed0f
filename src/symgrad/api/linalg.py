"""``tf.linalg``: the linear-algebra functions under their TensorFlow names (re-exports only).

The ops live in ``symgrad.ops.linalg.base*``; docs/linalg.md says where symgrad and TensorFlow
differ (singular vectors' signs, expm as one op) and what the spectral gradients do when
eigenvalues or singular values coincide.
"""

from __future__ import annotations

from symgrad.api.clip_ops import global_norm
from symgrad.core import missing as _missing
from symgrad.ops.linalg.base import adjoint, band_part, matrix_transpose
from symgrad.ops.linalg.contraction import einsum, tensordot
from symgrad.ops.linalg.decomp import eigh, eigvalsh, pinv, qr, svd
from symgrad.ops.linalg.diag import diag, diag_part, eye, set_diag, trace
from symgrad.ops.linalg.expm import expm
from symgrad.ops.linalg.lstsq import lstsq
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.linalg.solve import (
    cholesky,
    cholesky_solve,
    det,
    inv,
    logdet,
    slogdet,
    solve,
    triangular_solve,
)
from symgrad.ops.reduction.norms import norm

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
from symgrad.ops.linalg.matmul import matvec
from symgrad.ops.linalg.tensor_diag import tensor_diag, tensor_diag_part
from symgrad.ops.nn.normalization import l2_normalize

__all__ += ["l2_normalize", "tensor_diag", "tensor_diag_part"]
__all__ += ["matvec"]

__getattr__ = _missing.module_getattr("tf.linalg")
