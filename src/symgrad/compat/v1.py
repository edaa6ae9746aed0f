"""``tf.compat.v1``: TF1's API.

The names whose TF1 signature differs from TF2's are defined with TF1's (``v1_ops``,
``v1_nn``, ``v1_math``, ``v1_linalg``, ``VariableV1``, TF1's initializers, gradients and
name_scope); every other name resolves to ``tf`` (``_FALLBACK``), except the TF2-only
names in ``_NOT_INHERITED``.
"""

from __future__ import annotations

from typing import Any

# TF1's name of linspace.
from symgrad.api.array_ops import linspace as lin_space  # noqa: F401

# The tf.math names TF 2 also exports at the top of tf.compat.v1 (but not of tf).
from symgrad.api.math import (  # noqa: F401
    accumulate_n,
    digamma,
    erfc,
    expm1,
    is_finite,
    is_inf,
    is_nan,
    is_non_decreasing,
    is_strictly_increasing,
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

# TF1 names of tf.linalg functions (tf.compat.v1 has them; TF2 has only tf.linalg.*).
from symgrad.control_flow.cond import cond_v1 as cond  # noqa: F401  (strict=, fn1/fn2)
from symgrad.core.graph import keep_eager_history as _keep_eager_history
from symgrad.core.graph import set_top_level_eager as _set_top_level_eager
from symgrad.ops.array.reverse import reverse as reverse_v2  # noqa: F401
from symgrad.ops.debug.printing import print_v1 as Print  # noqa: F401  (TF1's identity that prints)
from symgrad.ops.debug.script_ops import py_func  # noqa: F401  (TF1's numpy_function)
from symgrad.ops.linalg.base import band_part as matrix_band_part  # noqa: F401
from symgrad.ops.linalg.base import matrix_transpose as matrix_transpose
from symgrad.ops.linalg.decomp import eigh as self_adjoint_eig  # noqa: F401
from symgrad.ops.linalg.decomp import eigvalsh as self_adjoint_eigvals  # noqa: F401
from symgrad.ops.linalg.decomp import qr as qr
from symgrad.ops.linalg.decomp import svd as svd
from symgrad.ops.linalg.diag import diag as matrix_diag  # noqa: F401
from symgrad.ops.linalg.diag import diag_part as matrix_diag_part  # noqa: F401
from symgrad.ops.linalg.diag import set_diag as matrix_set_diag  # noqa: F401
from symgrad.ops.linalg.diag import trace as trace
from symgrad.ops.linalg.lstsq import lstsq as matrix_solve_ls  # noqa: F401
from symgrad.ops.linalg.solve import cholesky as cholesky
from symgrad.ops.linalg.solve import cholesky_solve as cholesky_solve
from symgrad.ops.linalg.solve import det as matrix_determinant  # noqa: F401
from symgrad.ops.linalg.solve import inv as matrix_inverse  # noqa: F401
from symgrad.ops.linalg.solve import solve as matrix_solve  # noqa: F401
from symgrad.ops.linalg.solve import triangular_solve as matrix_triangular_solve  # noqa: F401
from symgrad.ops.linalg.tensor_diag import tensor_diag as diag  # noqa: F401  (TF1's tf.diag, issue 16)
from symgrad.ops.linalg.tensor_diag import tensor_diag_part as diag_part  # noqa: F401
from symgrad.ops.math.rounding import ceil, rint  # noqa: F401  (tf.math names, issue 16)
from symgrad.ops.random import seeded as _random
from symgrad.ops.state.variables import assign as assign
from symgrad.ops.state.variables import assign_add as assign_add
from symgrad.ops.state.variables import assign_sub as assign_sub

# isort: split
# Training (issue 17): tf.compat.v1.train (TF1 optimizers, Saver, global step, decays) and
# the TF1 variable-management names; the rest of v1 resolves through __getattr__ below.
from symgrad.api.init_ops import initializers  # noqa: F401
from symgrad.compat import v1_train as train  # noqa: F401  (tf.train and TF1's loop)
from symgrad.ops.sparse.indexed_slices import (  # noqa: F401
    IndexedSlicesValue,
    convert_to_tensor_or_indexed_slices,
)

# isort: split
# TF1's signatures where TF2 changed them (issue 23).
from symgrad.api import init_ops as _init_v1
from symgrad.api.image_color import random_crop as random_crop
from symgrad.api.image_ops import extract_image_patches_v1 as extract_image_patches  # noqa: F401
from symgrad.api.variable_scope import AUTO_REUSE, GraphKeys, get_variable, variable_scope  # noqa: F401
from symgrad.autodiff.gradients import gradients as gradients
from symgrad.autodiff.jacobians import hessians as hessians
from symgrad.compat import v1_data as data  # noqa: F401  (TF1's graph iterators)

# tf.compat.v1.debugging and TF1's assert_* (data= before summarize), check_numerics.
from symgrad.compat import v1_debugging as debugging  # noqa: F401
from symgrad.compat import v1_image as image  # noqa: F401  (TF1's resize_images...)
from symgrad.compat import v1_linalg as linalg  # noqa: F401
from symgrad.compat import v1_losses as losses  # noqa: F401
from symgrad.compat import v1_math as math  # noqa: F401
from symgrad.compat import v1_metrics as metrics  # noqa: F401
from symgrad.compat import v1_nn as nn  # noqa: F401
from symgrad.compat import v1_random as random  # noqa: F401

# tf.compat.v1.test: TF1's (x, x_shape, y, y_shape) gradient checker (issue 17, point 7).
from symgrad.compat import v1_test as test  # noqa: F401

# isort: split
# The utility namespaces TF1 programs start with: logging, flags and app.run, gfile; and
# TF1's op aliases (to_float, div) and initializers.
from symgrad.compat import v1_gfile as gfile  # noqa: F401
from symgrad.compat.tf1_app import app as app
from symgrad.compat.tf1_app import flags as flags
from symgrad.compat.tf1_app import tf_logging as logging  # noqa: F401
from symgrad.compat.v1_aliases import (  # noqa: F401
    div,
    to_complex64,
    to_complex128,
    to_double,
    to_float,
    to_int32,
    to_int64,
)
from symgrad.compat.v1_config import (  # noqa: F401  (accepted by Session, unread)
    ConfigProto,
    GPUOptions,
    GraphOptions,
    OptimizerOptions,
    RunMetadata,
    RunOptions,
)
from symgrad.compat.v1_debugging import (  # noqa: F401
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
from symgrad.compat.v1_math import confusion_matrix  # noqa: F401  (TF1's signature)
from symgrad.compat.v1_ops import (  # noqa: F401
    argmax,
    argmin,
    bincount,
    constant,
    convert_to_tensor,
    count_nonzero,
    expand_dims,
    gather,
    gather_nd,
    global_variables,
    local_variables,
    local_variables_initializer,
    norm,
    ones_like,
    pad,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    scatter_add,
    scatter_nd_update,
    scatter_sub,
    scatter_update,
    shape,
    size,
    squeeze,
    trainable_variables,
    transpose,
    while_loop,
    zeros_like,
)
from symgrad.compat.v1_variable import VariableV1 as Variable  # noqa: F401
from symgrad.core.graph import name_scope as name_scope
from symgrad.ops.array.boolean_mask import boolean_mask_v1 as boolean_mask  # noqa: F401
from symgrad.summary import v1 as summary  # noqa: F401  (TF1's summary ops, FileWriter)
from symgrad.summary.proto import (  # noqa: F401
    Event,
    HistogramProto,
    SessionLog,
    Summary,
    SummaryMetadata,
)
from symgrad.train.moving_averages import moving_average_variables  # noqa: F401

# TF1's initializers (tf has TF2's, with other defaults and draws).
constant_initializer = _init_v1.Constant
ones_initializer = _init_v1.Ones
zeros_initializer = _init_v1.Zeros
random_normal_initializer = _init_v1.RandomNormal
random_uniform_initializer = _init_v1.RandomUniform
orthogonal_initializer = _init_v1.Orthogonal
uniform_unit_scaling_initializer = _init_v1.UniformUnitScaling


def disable_eager_execution() -> None:
    """The top level becomes a TF1 graph, as TF's: ops built there run only in
    ``Session.run`` (an update built inside ``with Session()`` is applied when run, once;
    a ``cond`` decides at each run), variables wait for their initializer, and random
    ops take their seeds by TF1's graph rules.  Call it first, as TF asks: the top-level
    graph is replaced (``enable_eager_execution`` makes it eager again)."""
    _random.graph_rules(True)
    _keep_eager_history(True)
    _set_top_level_eager(False)


def disable_v2_behavior() -> None:
    """As ``disable_eager_execution`` (which TF's calls)."""
    disable_eager_execution()


def enable_eager_execution(
    config: Any = None, device_policy: Any = None, execution_mode: Any = None
) -> None:
    """Accepted for TF1-era programs; symgrad runs ops eagerly at top level already.

    Random seeds at top level follow TF2's eager rules again, and a top level made a
    graph by ``disable_eager_execution`` is replaced by an eager one."""
    _random.graph_rules(False)
    _set_top_level_eager(True)


# Names not defined here resolve in tf (the API walk lists them too), but for these TF2
# names that TF1 does not have.
_FALLBACK = "symgrad"
_NOT_INHERITED = frozenset(
    {"optimizers", "inside_function", "distribute", "get_current_name_scope"}
)


def __getattr__(name: str) -> Any:
    import symgrad
    from symgrad.core.missing import missing
    from symgrad.tools.api import OWN

    if name in _NOT_INHERITED or name in OWN:
        raise missing("tf.compat.v1", name)
    try:
        return getattr(symgrad, name)
    except AttributeError:
        raise missing("tf.compat.v1", name) from None
