"""symgrad: TensorFlow's gradient semantics on dataflow graphs, in pure Python on NumPy.

``import symgrad as tf`` runs TF1 code (placeholder, Session, tf.gradients) and TF2 code
(eager values, GradientTape, function) unchanged, with the same numbers.
"""

from __future__ import annotations

import sys

from symgrad import compat, ops
from symgrad.api import config, math, nn, random
from symgrad.api import linalg as linalg
from symgrad.api import testing as test
from symgrad.api.user_ops import custom_op
from symgrad.api.variable_scope import get_current_name_scope
from symgrad.api.variable_scope import name_scope_v2 as name_scope
from symgrad.autodiff.custom_gradient import custom_gradient
from symgrad.autodiff.forward import ForwardAccumulator
from symgrad.autodiff.gradients import AggregationMethod, UnconnectedGradients
from symgrad.autodiff.gradients import gradients_v2 as gradients
from symgrad.autodiff.jacobians import hessian_vector_product
from symgrad.autodiff.jacobians import hessians_v2 as hessians
from symgrad.autodiff.py_function import py_function
from symgrad.autodiff.tape import GradientTape
from symgrad.control_flow.case import case
from symgrad.control_flow.cond import cond, switch_case
from symgrad.control_flow.functional_ops import foldl, foldr, map_fn, scan
from symgrad.control_flow.tensor_array import TensorArray
from symgrad.control_flow.while_loop import while_loop
from symgrad.core import (
    dtypes,
    errors,
    nest,
    op_registry,
    shapes,  # TF's tensor_shape module (the conformance shim maps it here)
)
from symgrad.core import missing as _missing
from symgrad.core.context import default_graph_stack, init_scope, inside_function
from symgrad.core.devices import device
from symgrad.core.devices import install as _install_devices
from symgrad.core.dtypes import (
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
from symgrad.core.dtypes import bool_ as bool
from symgrad.core.gradient_registry import (
    NoGradient,
    NotDifferentiable,
    RegisterGradient,
    _gradient_registry,
    gradient_registry,
    no_gradient,
)
from symgrad.core.graph import (
    Graph,
    Operation,
    Tensor,
    executing_eagerly,
    get_default_graph,
    get_default_session,
    reset_default_graph,
)
from symgrad.core.op_registry import register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array.boolean_mask import boolean_mask
from symgrad.ops.array.gather import gather, gather_nd, scatter_nd, unsorted_segment_sum
from symgrad.ops.array.joining import concat, split, stack, unstack
from symgrad.ops.array.reverse import reverse
from symgrad.ops.array.roll import roll
from symgrad.ops.array.search import searchsorted
from symgrad.ops.array.slicing import pad, slice, strided_slice
from symgrad.ops.array.sorting import argsort, sort
from symgrad.ops.array.structure import (
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
from symgrad.ops.control import control_dependencies, group, identity_n, no_op
from symgrad.ops.core import (
    constant,
    convert_to_tensor,
    identity,
    placeholder,
    prevent_gradient,
    stop_gradient,
)
from symgrad.ops.linalg.contraction import einsum, tensordot
from symgrad.ops.linalg.diag import eye
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.math.add_n import add_n
from symgrad.ops.math.complex import angle, complex, conj, imag, real
from symgrad.ops.math.elementwise import (
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
from symgrad.ops.math.safe_math import truncatediv
from symgrad.ops.math.trig import acos, acosh, asin, asinh, atan, atan2, atanh, cosh, sinh
from symgrad.ops.random.gamma_poisson import random_gamma
from symgrad.ops.random.gamma_poisson import random_poisson_v1 as random_poisson
from symgrad.ops.random.seeded import (
    get_seed,
    multinomial,
    random_normal,
    random_uniform,
    set_random_seed,
    truncated_normal,
)
from symgrad.ops.random.seeded import shuffle as random_shuffle
from symgrad.ops.reduction.histogram import histogram_fixed_width, histogram_fixed_width_bins
from symgrad.ops.reduction.norms import norm
from symgrad.ops.reduction.reduce import (
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
from symgrad.ops.reduction.statistics import reduce_logsumexp
from symgrad.ops.state.variable_scatter import unique, unique_with_counts
from symgrad.ops.state.variables import (
    Variable,
    assign,
    assign_add,
    assign_sub,
    global_variables_initializer,
    initialize_all_variables,
    variables_initializer,
)
from symgrad.runtime.function import ConcreteFunction, Function, TensorSpec, function
from symgrad.runtime.session import InteractiveSession, Session
from symgrad.tools import disable_check_numerics, enable_check_numerics, explain, render, why_none

# isort: split
# Training: clipping, optimizers, variable scopes, modules and checkpoints (issue 17).
from symgrad import keras, train
from symgrad.api.array_ops import linspace, meshgrid, repeat, sequence_mask
from symgrad.api.clip_ops import (
    clip_by_average_norm,
    clip_by_global_norm,
    clip_by_norm,
    clip_by_value,
    global_norm,
)
from symgrad.api.init_ops import (
    glorot_normal_initializer,
    glorot_uniform_initializer,
    truncated_normal_initializer,
    variance_scaling_initializer,
)
from symgrad.api.init_ops_v2 import (
    constant_initializer,
    ones_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    zeros_initializer,
)
from symgrad.api.module import Module
from symgrad.api.variable_scope import (
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
from symgrad.ops.feeds import placeholder_with_default
from symgrad.ops.sparse.indexed_slices import IndexedSlices

# isort: split
# Rounding and tf.scalar_mul at the top level, as TF exports them (issue 16).
# AutoGraph: tensor control flow in `function` (issue 15).
# tf.debugging: asserts, check_numerics, the NaN locator behind TF's names (issue 27).
from symgrad import autograph
from symgrad.api import debugging
from symgrad.api.debugging import assert_equal, assert_greater, assert_less, assert_rank

# Gradient helpers real code calls (issue 17, point 7).
from symgrad.api.gradient_helpers import grad_pass_through, recompute_grad

# TF1-only names take TF1's signature (tf.compat.v1's).
from symgrad.compat.v1_ops import global_variables, trainable_variables
from symgrad.control_flow.vectorized_map import vectorized_map

# TF2's names for tf.Variable's distribution arguments; tf.optimizers is tf.keras.optimizers.
from symgrad.keras import optimizers

# tf.vectorized_map: batching rules over fn's ops, map_fn where one is missing, and
# tf.tensor_scatter_nd_update/add/sub (session 6).
from symgrad.ops.array.tensor_scatter import (
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
)

# tf.Assert: a run-time check in a graph (tf.case's checks use it).
from symgrad.ops.debug.assertion import Assert

# tf.print: TF's name shadows the builtin inside this namespace, as in TF.
from symgrad.ops.debug.printing import print_v2 as print

# tf.numpy_function and tf.py_function: Python functions as ops (PyFunc, EagerPyFunc).
from symgrad.ops.debug.script_ops import numpy_function
from symgrad.ops.math.rounding import floor, round, scalar_mul
from symgrad.ops.state.variable_enums import VariableAggregation, VariableSynchronization

# isort: split
# tf.data input pipelines (issue 26, point 5).
from symgrad import data

# isort: split
# Devices and data parallelism (issue 28).
from symgrad import distribute

# isort: split
# tf.summary: TensorBoard event files (TF2's writers; TF1's under tf.compat.v1.summary).
from symgrad import summary

# isort: split
# tf.io.gfile (TF's file API) and tf.get_logger (the "tensorflow" logger).
from symgrad.api import io
from symgrad.compat.tf1_app.tf_logging import get_logger

# isort: split
# tf.image: resizing (TF's kernels and gradients), flips, crops, pads, colour adjustments.
from symgrad.api import image

# isort: split
# TF's small tensor helpers: static values and shapes, shape checks, saturating casts.
from symgrad.api.array_ops import get_static_value, is_tensor
from symgrad.ops.array.shape_util import (
    broadcast_dynamic_shape,
    broadcast_static_shape,
    ensure_shape,
    shape_n,
    unravel_index,
)
from symgrad.ops.debug.check_ops import realdiv, saturate_cast
from symgrad.ops.math.safe_math import truncatemod

# isort: split
# tf.signal: FFTs (TF's ops and gradients), framing, windows, STFT, DCT, mel weights.
from symgrad.api import signal

newaxis = None

# TF's namespaces are modules one can import from (``from tensorflow.math import exp``); so
# are symgrad's, wherever in the tree they live.
for _name, _module in {
    "config": config,
    "debugging": debugging,
    "dtypes": dtypes,
    "errors": errors,
    "io": io,
    "image": image,
    "linalg": linalg,
    "math": math,
    "nest": nest,
    "nn": nn,
    "random": random,
    "signal": signal,
}.items():
    sys.modules.setdefault(f"symgrad.{_name}", _module)
__version__ = "0.1.0"

__getattr__ = _missing.module_getattr("tf")
_install_devices()

# The op types symgrad itself ships (user-declared ops are registered later).
op_registry.BUILTIN_OPS = frozenset(op_registry.OPS)
