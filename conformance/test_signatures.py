"""Every name symgrad exports has TensorFlow 2.21's signature at the same path (issue 23).

The names are those of ``symgrad.tools.api.walk()``, the walk the README's API table is
made from: ``tf.X``, ``tf.compat.v1.X`` and its sub-namespaces, ``tf.math``, ``tf.nn``,
``tf.keras.*`` ... whatever symgrad exports when this runs.  Each is compared with TF's
object at the same path (a TF1-only name with TF's ``tf.compat.v1`` one): parameter names,
order, kinds and defaults; a class by its ``__init__``.  ``ALLOWED`` lists the justified
differences, each with its reason; an entry that no longer differs fails too.
"""

from __future__ import annotations

import signatures

from symgrad.tools import api

_INTERNAL = "made by symgrad (tf.as_dtype, ops, the default graph), not by user code"
_RAISED = "raised by symgrad with (message, op); TF's take (node_def, op, message)"
_KERAS = "Keras 3's base class is (*args, **kwargs); symgrad's names its keywords"
_MESSAGE = "a protobuf message: TF's has no Python signature; symgrad's takes keyword fields"
_DISPATCH = "TF's is (*inputs, **kwargs) and accepts only the keywords symgrad names"

ALLOWED: dict[str, str] = {
    "tf.DType": _INTERNAL,
    "tf.dtypes.DType": _INTERNAL,
    "tf.Tensor": _INTERNAL,
    "tf.Operation": _INTERNAL,
    "tf.Graph": "symgrad's own keyword-only eager= (the top level is an eager graph)",
    "tf.group": _DISPATCH,
    "tf.print": _DISPATCH,
    "tf.VariableScope": "made by variable_scope(), not by user code",
    "tf.compat.v1.train.Checkpoint": "one Checkpoint class: TF2's (root=None, **kwargs)",
    "tf.compat.v1.autograph.to_graph": "TF1's arg_values/arg_types are unused by TF too",
    **{f"tf.errors.{e}": _RAISED for e in ("FailedPreconditionError", "InvalidArgumentError")},
    **{
        f"tf.errors.{e}": _RAISED
        for e in ("NotFoundError", "OpError", "OutOfRangeError", "ResourceExhaustedError")
    },
    "tf.errors.UnimplementedError": _RAISED,
    **{
        f"tf.errors.{e}": _RAISED
        for e in ("AlreadyExistsError", "InternalError", "PermissionDeniedError", "UnknownError")
    },
    "tf.keras.optimizers.Optimizer": _KERAS,
    "tf.data.Dataset": "made by its sources (from_tensor_slices, range, ...), not by user code",
    "tf.data.Iterator": "made by iter(dataset), not by user code",
    **{
        f"tf.distribute.{c}": "made by a strategy (run, experimental_distribute_dataset), "
        "not by user code"
        for c in ("DistributedDataset", "DistributedIterator", "DistributedValues")
    },
    "tf.compat.v1.device": "one tf.device: TF2's (device_name); no TF1 device functions",
    **{
        f"tf.compat.v1.{m}": _MESSAGE
        for m in ("Event", "HistogramProto", "SessionLog", "Summary", "SummaryMetadata")
        + ("summary.Event", "summary.Summary")
        + ("ConfigProto", "GPUOptions", "GraphOptions", "OptimizerOptions", "RunMetadata")
        + ("RunOptions",)
    },
}


def _allowed(path: str) -> str | None:
    """The reason a path may differ: its own entry, or its tf.compat.v1 / v2 /
    tf.optimizers twin's (the same object reached by another path)."""
    if path in ALLOWED:
        return ALLOWED[path]
    twin = "tf." + api.rest(path)
    if twin.startswith("tf.optimizers."):
        twin = "tf.keras." + twin[len("tf.") :]
    return ALLOWED.get(twin)


def test_every_name_has_tensorflows_signature() -> None:
    found = signatures.differences()
    unexplained = {p: d for p, d in found.items() if _allowed(p) is None}
    report = "\n".join(f"{p}: {d}" for p, d in unexplained.items())
    assert not unexplained, f"{len(unexplained)} of {len(api.walk())} names differ:\n{report}"


def test_allow_list_entries_still_differ() -> None:
    found = signatures.differences()
    stale = [p for p in ALLOWED if p in api.walk() and p not in found]
    assert not stale, f"allowed differences that no longer differ: {stale}"


def test_each_name_is_listed_under_the_right_kind() -> None:
    """The README's three sections (TF 2.21 / TF1-only / symgrad's own) say what TF says."""
    wrong = signatures.wrong_kinds()
    assert not wrong, "\n".join(f"{p}: {why}" for p, why in wrong.items())
