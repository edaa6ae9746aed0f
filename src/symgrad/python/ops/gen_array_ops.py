"""``tensorflow.python.ops.gen_array_ops``: raw op wrappers TF's tests call by their
generated names (the rest of the module's names resolve to symgrad's top level)."""

from __future__ import annotations

from typing import Any

from symgrad.core.graph import Tensor
from symgrad.ops.linalg.diag import diag


def matrix_diag_v2(
    diagonal: Any, k: Any, num_rows: Any, num_cols: Any, padding_value: Any, name: Any = None
) -> Tensor:
    """The ``MatrixDiagV2`` op: ``tf.linalg.diag`` with V2's fixed alignment, LEFT_LEFT
    (a band's shorter diagonals are taken from the left of their row)."""
    return diag(
        diagonal, name or "MatrixDiagV2", k, num_rows, num_cols, padding_value, align="LEFT_LEFT"
    )
