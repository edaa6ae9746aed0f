"""The JAX lowering of every op type, installed into ``OpDef.lowerings["jax"]``.

``install()`` runs when the JAX backend is first used (so ``import symgrad`` never
imports JAX).  The tables are by op family, as tf2jax's op table; an op type in
``NO_LOWERING`` has none, for the reason given, and compiling a graph with it is TF's
"unsupported operations" error naming it.
"""

from __future__ import annotations

import threading

from symgrad.core.op_registry import OPS
from symgrad.runtime.xla.engine import BACKEND

NO_LOWERING = {
    "AdjustHue": "TF's kernel wraps each hue by repeated adds and subtracts, as many as the "
    "run-time delta needs (a data-dependent loop per pixel)",
    "AdjustSaturation": "TF's kernel wraps each hue by data-dependent repeated subtracts per "
    "pixel, which a fixed XLA graph would have to bound",
    "Placeholder": "a placeholder has no value of its own: it is one of the compiled "
    "function's inputs (an unfed one is an error before compiling)",
    "Where": "its output's length depends on the values (XLA needs static shapes)",
    "Unique": "its output's length depends on the values (XLA needs static shapes)",
    "ComputeAccidentalHits": "its outputs' length depends on the values (XLA needs static shapes)",
    "UniqueWithCounts": "its outputs' length depends on the values (XLA needs static shapes)",
    # A `for x in dataset` loop in a function: a Python iterator over a tf.data pipeline,
    # which TF's XLA bridge does not compile either (IteratorGetNext stays on the host).
    "DatasetLoopIterator": "it makes a Python iterator over a tf.data pipeline",
    "DatasetLoopHasNext": "it asks a Python iterator over a tf.data pipeline for more",
    "DatasetLoopGetNext": "it takes the next element of a Python iterator over a tf.data pipeline",
    "MakeIterator": "it starts a TF1 iterator's Python pass over a tf.data pipeline",
    "IteratorGetNext": "it takes the next element of a TF1 iterator's Python pass",
    # Summaries write event files from Python; TF's XLA bridge leaves them on the host too.
    **{
        t: "it writes or serialises a TensorBoard summary (a file, or bytes)"
        for t in "WriteSummary FlushSummaryWriter CloseSummaryWriter ScalarSummary".split()
        + "HistogramSummary ImageSummary MergeSummary TensorSummaryV2".split()
    },
    # TF: "tf.numpy_function/py_function is not compatible with XLA" (unsupported op).
    "PyFunc": "it calls the user's Python function (tf.numpy_function)",
    "PyFuncStateless": "it calls the user's Python function (tf.numpy_function)",
    "EagerPyFunc": "it calls the user's Python function (tf.py_function)",
}

_LOCK = threading.Lock()
_DONE = False


def lowerings() -> dict[str, object]:
    """Every family's table, merged (later families refine earlier ones)."""
    from symgrad.runtime.xla import (
        control,
        elementwise,
        host,
        image,
        linalg,
        shape_util,
        spectral,
        spmd,
        structural,
        windowed,
    )

    table: dict[str, object] = {}
    for family in (
        elementwise,
        structural,
        windowed,
        linalg,
        image,
        control,
        host,
        spmd,
        spectral,
        shape_util,
    ):
        table.update(family.table())
    return table


def install() -> None:
    """Fill ``lowerings["jax"]`` of every registered op type that has one (idempotent;
    op types registered later, such as users' own, are filled on the next call)."""
    global _DONE
    with _LOCK:
        table = lowerings() if not _DONE else _TABLE
        _TABLE.update(table)
        for name, rec in OPS.items():
            fn = table.get(name)
            if fn is not None:
                rec.lowerings.setdefault(BACKEND, fn)
        _DONE = True


_TABLE: dict[str, object] = {}
