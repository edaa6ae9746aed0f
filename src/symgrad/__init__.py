"""symgrad: TensorFlow's gradient semantics on dataflow graphs, in pure Python on NumPy.

``import symgrad as tf`` runs TF1 code (placeholder, Session, tf.gradients) and TF2 code
(eager values, GradientTape, function) unchanged, with the same numbers.
"""

from __future__ import annotations

from . import _missing, compat, config, dtypes, errors, math, nn, op_registry, ops, random
from . import linalg as linalg
from . import testing as test
from .autodiff.custom_gradient import custom_gradient
from .autodiff.forward import ForwardAccumulator
from .autodiff.gradients import AggregationMethod, UnconnectedGradients
from .autodiff.gradients import gradients_v2 as gradients
from .autodiff.jacobians import hessian_vector_product
from .autodiff.jacobians import hessians_v2 as hessians
from .autodiff.tape import GradientTape
from .context import default_graph_stack, init_scope, inside_function
from .devices import device
from .devices import install as _install_devices
from .dtypes import (
    DType,
    as_dtype,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint32,
    uint64,
)
from .dtypes import (
    bool_ as bool,
)
from .gradient_registry import (
    NoGradient,
    NotDifferentiable,
    RegisterGradient,
    _gradient_registry,
    gradient_registry,
    no_gradient,
)
from .graph import (
    Graph,
    Operation,
    Tensor,
    executing_eagerly,
    get_default_graph,
    get_default_session,
    reset_default_graph,
)
from .op_registry import register_op
from .ops.array import (
    broadcast_to,
    cast,
    expand_dims,
    fill,
    one_hot,
    ones,
    ones_like,
    range,
    rank,
    reshape,
    shape,
    size,
    squeeze,
    tile,
    transpose,
    where,
    zeros,
    zeros_like,
)
from .ops.boolean_mask import boolean_mask
from .ops.case import case
from .ops.complex import angle, complex, conj, imag, real
from .ops.cond import cond, switch_case
from .ops.contraction import einsum, tensordot
from .ops.control import control_dependencies, group, identity_n, no_op
from .ops.core import (
    constant,
    convert_to_tensor,
    identity,
    placeholder,
    prevent_gradient,
    stop_gradient,
)
from .ops.functional_ops import foldl, foldr, map_fn, scan
from .ops.gather import gather, gather_nd, scatter_nd, unsorted_segment_sum
from .ops.joining import concat, split, stack, unstack
from .ops.linalg_diag import eye
from .ops.math import (
    abs,
    add,
    cos,
    divide,
    equal,
    erf,
    exp,
    floordiv,
    floormod,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    reciprocal,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    squared_difference,
    subtract,
    tan,
    tanh,
    truediv,
)
from .ops.matmul import add_n, matmul
from .ops.norms import norm
from .ops.random import (
    get_seed,
    multinomial,
    random_normal,
    random_uniform,
    set_random_seed,
    truncated_normal,
)
from .ops.random import shuffle as random_shuffle
from .ops.reduction import (
    argmax,
    argmin,
    cumprod,
    cumsum,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from .ops.reverse import reverse
from .ops.safe_math import truncatediv
from .ops.slicing import pad, slice, strided_slice
from .ops.sorting import argsort, sort
from .ops.statistics import reduce_logsumexp
from .ops.tensor_array import TensorArray
from .ops.trig import acos, acosh, asin, asinh, atan, atan2, atanh, cosh, sinh
from .ops.variable_scatter import unique
from .ops.variables import (
    Variable,
    assign,
    assign_add,
    assign_sub,
    global_variables_initializer,
    initialize_all_variables,
    variables_initializer,
)
from .ops.while_loop import while_loop
from .runtime.function import ConcreteFunction, Function, TensorSpec, function
from .runtime.session import InteractiveSession, Session
from .shapes import TensorShape
from .tools import disable_check_numerics, enable_check_numerics, explain, render, why_none
from .user_ops import custom_op
from .variable_scope import name_scope_v2 as name_scope

# isort: split
# Training: clipping, optimizers, variable scopes, modules and checkpoints (issue 17).
from . import keras, train
from .clip_ops import (
    clip_by_average_norm,
    clip_by_global_norm,
    clip_by_norm,
    clip_by_value,
    global_norm,
)
from .indexed_slices import IndexedSlices
from .init_ops import (  # TF1-only names (TF2 has them under compat.v1 only)
    glorot_normal_initializer,
    glorot_uniform_initializer,
    truncated_normal_initializer,
    variance_scaling_initializer,
)
from .init_ops_v2 import (  # TF2's (compat.v1 has TF1's)
    constant_initializer,
    ones_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    zeros_initializer,
)
from .module import Module
from .ops.feeds import placeholder_with_default
from .variable_scope import (
    AUTO_REUSE,
    GraphKeys,
    VariableScope,
    add_to_collection,
    add_to_collections,
    get_collection,
    get_collection_ref,
    get_variable,
    get_variable_scope,
    variable_scope,
)

# isort: split
# Rounding and tf.scalar_mul at the top level, as TF exports them (issue 16).
# AutoGraph: tensor control flow in `function` (issue 15).
# tf.debugging: asserts, check_numerics, the NaN locator behind TF's names (issue 27).
from . import autograph, debugging

# Gradient helpers real code calls (issue 17, point 7).
from .autodiff.helpers import grad_pass_through, recompute_grad

# TF1-only names take TF1's signature (tf.compat.v1's).
from .compat.v1_ops import global_variables, trainable_variables
from .debugging import assert_equal, assert_greater, assert_less, assert_rank

# TF2's names for tf.Variable's distribution arguments; tf.optimizers is tf.keras.optimizers.
from .keras import optimizers

# tf.Assert: a run-time check in a graph (tf.case's checks use it).
from .ops.assertion import Assert

# tf.print: TF's name shadows the builtin inside this namespace, as in TF.
from .ops.printing import print_v2 as print
from .ops.rounding import floor, round, scalar_mul

# tf.vectorized_map: batching rules over fn's ops, map_fn where one is missing, and
# tf.tensor_scatter_nd_update/add/sub (session 6).
from .ops.tensor_scatter import (
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
)
from .ops.vectorized_map import vectorized_map
from .variable_enums import VariableAggregation, VariableSynchronization

# isort: split
# tf.data input pipelines (issue 26, point 5).
from . import data

# isort: split
# Devices and data parallelism (issue 28).
from . import distribute

newaxis = None
__version__ = "0.1.0"

__getattr__ = _missing.module_getattr("tf")
_install_devices()

# The op types symgrad itself ships (user-declared ops are registered later).
op_registry.BUILTIN_OPS = frozenset(op_registry.OPS)
