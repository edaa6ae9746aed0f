"""The TensorFlow API symgrad covers, read from the code: ``python -m symgrad api``.

One walk (:func:`walk`) visits every namespace symgrad exports (``tf``, ``tf.math``,
``tf.compat.v1.nn``, ``tf.keras.*`` ...) and lists every public name at its TF path.  The
README's API section is made from that walk in three parts: TensorFlow 2.21's names,
TF1-only names (TF 2.21 has them only under ``tf.compat.v1``), and symgrad's own additions
(TF has no such name).  A test keeps the README equal to it (``python -m symgrad api
--write README.md`` rewrites the section), and the conformance stage walks the same names to
compare each signature with TensorFlow's object at the same path.
"""

from __future__ import annotations

import importlib
import types
from pathlib import Path
from typing import Any

# symgrad's own top-level names, which TF does not have (namespaces are not walked into).
OWN = frozenset(
    {
        "autodiff",
        "batching",
        "cases",
        "ConcreteFunction",
        "custom_op",
        "default_graph_stack",
        "disable_check_numerics",
        "enable_check_numerics",
        "explain",
        "ForwardAccumulator",
        "Function",
        "gc_pause",
        "gradient_registry",
        "graph",
        "hessian_vector_product",
        "nest",
        "op_registry",
        "ops",
        "prevent_gradient",
        "register_op",
        "render",
        "runtime",
        "shapes",
        "tools",
        "user_ops",
        "why_none",
    }
)
# symgrad's own names inside TF namespaces, by path under tf (or tf.compat.v1).
OWN_PATHS = frozenset(
    {
        "config.atomic_runs_enabled",
        "config.refcount_checks_enabled",
        "config.set_atomic_runs",
        "config.set_refcount_checks",
        "errors.InaccessibleTensorError",
        "keras.callbacks.GradientMonitor",
        "IndexedSlicesValue",
        "test.check_gradient",
        "test.check_vjp",
        "test.GradientCheckError",
        "test.max_error",
        "train.CheckpointFormatError",
        "train.CheckpointLoadStatus",
    }
)
# TensorFlow's namespace names (at any depth): a module found as an attribute of a namespace
# without ``__all__`` is walked when its name is one of these (other module attributes are
# the package's implementation modules).
TF_NAMESPACES = frozenset(
    """activations app audio autograph bitwise compat config constraints data datasets debugging
    distribute dtypes errors estimator experimental feature_column flags gfile graph_util image
    initializers io keras layers linalg lite logging lookup losses manip math metrics
    mixed_precision models nest nn optimizers preprocessing profiler quantization queue
    ragged random raw_ops regularizers saved_model schedules sets signal sparse spectral
    special strings summary sysconfig test train types utils v1 v2 version xla""".split()
)
# Namespaces a walk does not enter again (TF's own cycles: tf.compat.v1.compat ...).
_SKIP = (
    "tf.compat.v1.compat",
    "tf.compat.v2.compat",
    "tf.compat.v1.keras",
    "tf.compat.v1.app.flags",  # tf.compat.v1.flags
)
START, END = "<!-- api:start -->", "<!-- api:end -->"
TF2, TF1, SYMGRAD = "TF 2.21", "TF1-only", "symgrad's own"

# Names TF 2.21 has only under tf.compat.v1 (by path under it), among those symgrad exports;
# the conformance stage checks this list against TensorFlow.
TF1_ONLY = frozenset(
    """
    accumulate_n add_to_collection add_to_collections angle assert_greater_equal assert_integer
    is_non_decreasing is_strictly_increasing debugging.is_non_decreasing
    debugging.is_strictly_increasing
    ConfigProto GPUOptions GraphOptions OptimizerOptions RunMetadata RunOptions
    assert_less_equal assert_near assert_negative assert_non_negative assert_non_positive
    assert_none_equal assert_positive assert_rank_at_least assert_rank_in assert_scalar
    assert_type assign assign_add assign_sub AUTO_REUSE check_numerics is_numeric_tensor
    bincount ceil cholesky cholesky_solve clip_by_average_norm confusion_matrix conj
    convert_to_tensor_or_indexed_slices count_nonzero cumprod diag diag_part digamma
    disable_eager_execution disable_v2_behavior enable_eager_execution erf erfc expm1
    floordiv floormod get_collection get_collection_ref get_default_graph
    get_default_session get_seed get_variable get_variable_scope global_norm
    global_variables global_variables_initializer glorot_normal_initializer
    extract_image_patches image.extract_image_patches
    image.resize_area image.resize_bicubic image.resize_bilinear
    image.resize_image_with_crop_or_pad image.resize_image_with_pad image.resize_images
    image.resize_nearest_neighbor image.transpose_image random_crop
    glorot_uniform_initializer GraphKeys imag initialize_all_variables
    InteractiveSession is_finite is_inf is_nan lgamma lin_space local_variables
    local_variables_initializer log log1p log_sigmoid logical_xor
    losses.absolute_difference losses.add_loss losses.compute_weighted_loss
    losses.get_losses losses.get_regularization_loss losses.get_regularization_losses
    losses.get_total_loss losses.huber_loss losses.log_loss losses.mean_squared_error
    losses.sigmoid_cross_entropy losses.softmax_cross_entropy
    losses.sparse_softmax_cross_entropy matrix_band_part matrix_determinant matrix_diag
    matrix_diag_part matrix_inverse matrix_set_diag matrix_solve matrix_solve_ls
    matrix_transpose matrix_triangular_solve metrics.accuracy metrics.auc metrics.mean
    mod moving_average_variables multinomial nn.conv2d_backprop_filter
    nn.conv2d_backprop_input nn.conv3d_backprop_filter_v2 nn.depthwise_conv2d_native
    nn.fused_batch_norm nn.xw_plus_b NoGradient NotDifferentiable placeholder Print
    placeholder_with_default polygamma py_func qr random.get_seed random.multinomial
    random.set_random_seed random.stateless_multinomial random_gamma random_normal
    random_poisson random_shuffle
    random_uniform real reciprocal reset_default_graph reverse_v2 rint rsqrt scatter_add
    scatter_nd_update scatter_sub scatter_update segment_max segment_mean segment_min
    segment_prod segment_sum self_adjoint_eig self_adjoint_eigvals Session
    set_random_seed squared_difference svd summary.Event summary.FileWriter
    summary.FileWriterCache summary.merge summary.merge_all summary.Summary
    summary.tensor_summary Summary SummaryMetadata Event HistogramProto
    test.compute_gradient_error trace
    train.AdadeltaOptimizer train.AdagradDAOptimizer train.AdagradOptimizer
    train.AdamOptimizer train.create_global_step train.exponential_decay train.FtrlOptimizer
    train.get_global_step train.get_or_create_global_step train.global_step
    train.GradientDescentOptimizer train.MomentumOptimizer train.Optimizer
    train.piecewise_constant train.ProximalAdagradOptimizer
    train.ProximalGradientDescentOptimizer train.RMSPropOptimizer train.Saver
    trainable_variables truncated_normal truncated_normal_initializer
    unsorted_segment_max unsorted_segment_mean unsorted_segment_min
    unsorted_segment_prod unsorted_segment_sqrt_n unsorted_segment_sum variable_scope
    variables_initializer VariableScope variance_scaling_initializer zeta
    app.run flags.DEFINE flags.DEFINE_bool flags.DEFINE_boolean flags.DEFINE_enum
    flags.DEFINE_float flags.DEFINE_integer flags.DEFINE_list flags.DEFINE_multi_float
    flags.DEFINE_multi_integer flags.DEFINE_multi_string flags.DEFINE_string
    flags.DuplicateFlagError flags.Error flags.FLAGS flags.FlagHolder flags.FlagValues
    flags.IllegalFlagValueError flags.UnparsedFlagAccessError flags.UnrecognizedFlagError
    flags.ValidationError flags.mark_flag_as_required flags.mark_flags_as_required
    flags.register_validator flags.text_wrap flags.validator logging.DEBUG logging.ERROR
    logging.FATAL logging.INFO logging.TaskLevelStatusMessage logging.WARN logging.debug
    logging.error logging.fatal logging.flush logging.get_verbosity logging.info logging.log
    logging.log_every_n logging.log_first_n logging.log_if logging.set_verbosity logging.vlog
    logging.warn logging.warning
    gfile.Copy gfile.DeleteRecursively gfile.Exists gfile.FastGFile gfile.GFile gfile.Glob
    gfile.IsDirectory gfile.ListDirectory gfile.MakeDirs gfile.MkDir gfile.Open gfile.Remove
    gfile.Rename gfile.Stat gfile.Walk
    div initializers.uniform_unit_scaling orthogonal_initializer to_complex128 to_complex64
    to_double to_float to_int32 to_int64 uniform_unit_scaling_initializer
    train.cosine_decay train.cosine_decay_restarts train.inverse_time_decay
    train.linear_cosine_decay train.natural_exp_decay train.noisy_linear_cosine_decay
    train.piecewise_constant_decay train.polynomial_decay
    train.CheckpointSaverHook train.CheckpointSaverListener train.ChiefSessionCreator
    train.FeedFnHook train.FinalOpsHook train.GlobalStepWaiterHook train.LoggingTensorHook
    train.MonitoredSession train.MonitoredTrainingSession train.NanLossDuringTrainingError
    train.NanTensorHook train.NewCheckpointReader train.Scaffold train.SecondOrStepTimer
    train.SessionCreator train.SessionRunArgs train.SessionRunContext train.SessionRunHook
    train.SessionRunValues train.SingularMonitoredSession train.StepCounterHook
    train.StopAtStepHook train.SummarySaverHook train.init_from_checkpoint
    train.summary_iterator SessionLog""".split()
)


def walk() -> dict[str, Any]:
    """``{"tf.nn.dropout": object, ...}``: every public name symgrad exports, at its TF path
    (namespaces themselves are not listed; their names are)."""
    found: dict[str, Any] = {}
    _visit(importlib.import_module("symgrad"), "tf", found, set())
    return dict(sorted(found.items(), key=lambda kv: _sort_key(kv[0])))


def _visit(ns: Any, path: str, found: dict[str, Any], seen: set[str]) -> None:
    seen.add(path)
    for name in _names(ns):
        sub = f"{path}.{name}"
        try:
            obj = getattr(ns, name)
        except AttributeError:
            continue
        if path == "tf" and name in OWN:
            found[sub] = obj
        elif _is_namespace(obj):
            if sub not in seen and sub not in _SKIP:
                _visit(obj, sub, found, seen)
        else:
            found[sub] = obj


def _names(ns: Any) -> set[str]:
    """The public names of a namespace, with those it takes from a fallback namespace
    (``tf.compat.v1`` resolves the names it does not redefine in ``tf``)."""
    declared = getattr(ns, "__all__", None)
    if declared is None:
        declared = [n for n, v in vars(ns).items() if not n.startswith("_") and _exported(v)]
        declared += [
            n
            for n, v in vars(ns).items()
            if isinstance(v, types.ModuleType) and n in TF_NAMESPACES | OWN
        ]
    names = set(declared)
    fallback_name = getattr(ns, "_FALLBACK", None)
    if fallback_name is not None:
        names |= _names(importlib.import_module(fallback_name))
        names -= set(getattr(ns, "_NOT_INHERITED", ()))
        if fallback_name == "symgrad":
            names -= OWN
        if getattr(ns, "_TF2_ONLY", False):
            names -= TF1_ONLY
    return names


def _is_namespace(obj: object) -> bool:
    if isinstance(obj, types.SimpleNamespace):
        return True
    return isinstance(obj, types.ModuleType) and obj.__name__.startswith("symgrad")


def _exported(obj: object) -> bool:
    """A function, class, value or TF namespace (not a typing helper or foreign module)."""
    if isinstance(obj, types.ModuleType):
        return False
    module = getattr(obj, "__module__", None) or type(obj).__module__
    return not str(module).startswith(("typing", "__future__", "collections.abc"))


def _sort_key(path: str) -> tuple[str, ...]:
    parts = path.split(".")
    return (*[p.lower() for p in parts[:-1]], "\0", parts[-1].lower(), parts[-1])


def namespace_of(path: str) -> str:
    return path.rsplit(".", 1)[0]


def rest(path: str) -> str:
    """The path under ``tf`` or ``tf.compat.v1`` / ``v2``: "nn.dropout"."""
    for prefix in ("tf.compat.v1.", "tf.compat.v2.", "tf."):
        if path.startswith(prefix):
            return path[len(prefix) :]
    return path


def kind(path: str) -> str:
    """TF 2.21, TF1-only or symgrad's own, for a walked path."""
    r = rest(path)
    if r in OWN_PATHS or (path == "tf." + r and r in OWN):
        return SYMGRAD
    return TF1 if r in TF1_ONLY else TF2


def by_kind() -> dict[str, dict[str, list[str]]]:
    """``{kind: {namespace: [names]}}`` from one walk."""
    result: dict[str, dict[str, list[str]]] = {TF2: {}, TF1: {}, SYMGRAD: {}}
    for path in walk():
        if path.startswith("tf.compat.v2."):
            continue
        ns, _, name = path.rpartition(".")
        result[kind(path)].setdefault(ns, []).append(name)
    return result


def markdown() -> str:
    lines = [START, ""]
    titles = {
        TF2: "TensorFlow 2.21's names",
        TF1: "TF1-only names (TF 2.21 has them only under `tf.compat.v1`)",
        SYMGRAD: "symgrad's own additions (TensorFlow has no such name)",
    }
    for k, groups in by_kind().items():
        total = sum(len(v) for v in groups.values())
        lines += [f"**{titles[k]}**: {total}", "", "| namespace | names |", "|---|---|"]
        for ns in sorted(groups, key=lambda s: s.lower().split(".")):
            names = groups[ns]
            lines.append(f"| `{ns}` ({len(names)}) | {', '.join(names)} |")
        lines.append("")
    lines.append("`tf.compat.v2` is `tf` without the TF1-only names (its names are walked too).")
    return "\n".join([*lines, "", END])


def write(path: str | Path) -> bool:
    """Replace the API section of ``path``; True when it changed."""
    p = Path(path)
    text = p.read_text()
    head, sep, rest = text.partition(START)
    if not sep:
        raise ValueError(f"{path} has no {START} ... {END} section")
    _, sep, tail = rest.partition(END)
    if not sep:
        raise ValueError(f"{path}: {START} without {END}")
    new = head + markdown() + tail
    p.write_text(new)
    return new != text
