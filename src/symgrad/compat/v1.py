"""``tf.compat.v1``: symgrad's namespace (see :mod:`symgrad.compat`)."""

from __future__ import annotations

from typing import Any

from ..graph import keep_eager_history as _keep_eager_history

# The tf.math names TF 2 also exports at the top of tf.compat.v1 (but not of tf).
from ..math import (  # noqa: F401
    bincount,
    digamma,
    erfc,
    expm1,
    is_finite,
    is_inf,
    is_nan,
    lgamma,
    log_sigmoid,
    polygamma,
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sqrt_n,
    zeta,
)
from ..ops import random as _random

# TF1 names of tf.linalg functions (tf.compat.v1 has them; TF2 has only tf.linalg.*).
from ..ops.cond import cond_v1 as cond  # noqa: F401  (strict=, fn1/fn2)
from ..ops.linalg import band_part as matrix_band_part  # noqa: F401
from ..ops.linalg import matrix_transpose as matrix_transpose
from ..ops.linalg_decomp import eigh as self_adjoint_eig  # noqa: F401
from ..ops.linalg_decomp import eigvalsh as self_adjoint_eigvals  # noqa: F401
from ..ops.linalg_decomp import qr as qr
from ..ops.linalg_decomp import svd as svd
from ..ops.linalg_diag import diag as matrix_diag  # noqa: F401
from ..ops.linalg_diag import diag_part as matrix_diag_part  # noqa: F401
from ..ops.linalg_diag import set_diag as matrix_set_diag  # noqa: F401
from ..ops.linalg_diag import trace as trace
from ..ops.linalg_lstsq import lstsq as matrix_solve_ls  # noqa: F401
from ..ops.linalg_solve import cholesky as cholesky
from ..ops.linalg_solve import cholesky_solve as cholesky_solve
from ..ops.linalg_solve import det as matrix_determinant  # noqa: F401
from ..ops.linalg_solve import inv as matrix_inverse  # noqa: F401
from ..ops.linalg_solve import solve as matrix_solve  # noqa: F401
from ..ops.linalg_solve import triangular_solve as matrix_triangular_solve  # noqa: F401
from ..ops.reverse import reverse as reverse_v2  # noqa: F401
from ..ops.rounding import ceil, count_nonzero, rint  # noqa: F401  (tf.math names, issue 16)
from ..ops.tensor_diag import tensor_diag as diag  # noqa: F401  (TF1's tf.diag, issue 16)
from ..ops.tensor_diag import tensor_diag_part as diag_part  # noqa: F401
from ..ops.variables import assign as assign
from ..ops.variables import assign_add as assign_add
from ..ops.variables import assign_sub as assign_sub

# isort: split
# Training (issue 17): tf.compat.v1.train (TF1 optimizers, Saver, global step, decays) and
# the TF1 variable-management names; the rest of v1 resolves through __getattr__ below.
from .. import train  # noqa: F401  (re-exports)
from ..indexed_slices import (  # noqa: F401
    IndexedSlicesValue,
    convert_to_tensor_or_indexed_slices,
)
from ..init_ops import initializers  # noqa: F401
from ..variable_scope import AUTO_REUSE, GraphKeys, get_variable, variable_scope  # noqa: F401

# tf.compat.v1.debugging and TF1's assert_* (data= before summarize), check_numerics.
from . import v1_debugging as debugging  # noqa: F401

# tf.compat.v1.test: TF1's (x, x_shape, y, y_shape) gradient checker (issue 17, point 7).
from . import v1_test as test  # noqa: F401
from .v1_debugging import (  # noqa: F401
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
    assert_scalar,
    assert_type,
    check_numerics,
    is_numeric_tensor,
)


def disable_eager_execution() -> None:
    """Accepted for TF2-era TF1 programs; symgrad needs no mode switch (see compat).

    Random ops at top level then take their seeds by TF1's graph rules (the graph's
    seed and op counter), so a TF1 program draws the numbers it draws on TF, and the
    top level keeps its whole history, as TF's graph does (``Session.run`` re-runs it)."""
    _random.graph_rules(True)
    _keep_eager_history(True)


def disable_v2_behavior() -> None:
    """As ``disable_eager_execution`` (which TF's calls)."""
    disable_eager_execution()


def enable_eager_execution(*_: Any, **__: Any) -> None:
    """Accepted for TF1-era programs; symgrad runs ops eagerly at top level already.

    Random seeds at top level follow TF2's eager rules again."""
    _random.graph_rules(False)


def __getattr__(name: str) -> Any:
    import symgrad

    try:
        return getattr(symgrad, name)
    except AttributeError:
        raise AttributeError(
            f"module 'symgrad.compat.v1' has no attribute '{name}' "
            "(symgrad has no such TensorFlow API)"
        ) from None
