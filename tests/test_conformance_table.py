"""The conformance stage's calls reach every op type symgrad registers.

``conformance/`` compares symgrad with TensorFlow op by op (it runs where TensorFlow is
installed: ``.ci/conformance``).  This test, which needs no TensorFlow, keeps its table
complete: each call is built in a ``Graph`` with its first and second order
gradients, and the op types of the traced graphs (branch and loop bodies included) must
cover every registered op but the few listed in ``UNREACHED`` with the reason.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import symgrad as tf
from symgrad.core.op_registry import BUILTIN_OPS, OPS
from symgrad.runtime.concrete_function import ConcreteFunction

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "conformance"))
from calls import CALLS, arrays
from harness import differentiate

UNREACHED = {
    "Placeholder": "graph input: the calls run on constants",
    "NoOp": "groups control dependencies only; no value to compare",
    "VarHandleOp": "a variable's v.op, no outputs: tests/test_variable_handle.py checks it",
    "MakeIterator": "a TF1 dataset iterator (tests/data/test_v1_iterators.py)",
    "IteratorGetNext": "a TF1 dataset iterator (tests/data/test_v1_iterators.py)",
    "PrintV2": "prints, no value to compare: tests/ops/test_print.py checks TF's text",
    "Print": "prints as it runs: tests/ops/test_print.py checks TF's text and gradient",
    "Assert": "no outputs to compare: tests/ops/test_assertion.py checks TF's texts",
    "RandomStandardNormal": "stateful random draws (tests/ops/test_random.py)",
    "RandomUniform": "stateful random draws (tests/ops/test_random.py)",
    "RandomUniformInt": "stateful random draws (tests/ops/test_random.py)",
    "TruncatedNormal": "stateful random draws (tests/ops/test_random.py)",
    "Multinomial": "stateful random draws (tests/ops/test_random.py)",
    "RandomShuffle": "stateful random draws (tests/ops/test_random.py)",
    "RandomGamma": "stateful random draws (tests/ops/test_random_gamma.py)",
    "RandomPoissonV2": "stateful random draws (tests/ops/test_random_gamma.py)",
    "LogUniformCandidateSampler": "stateful random draws (tests/ops/test_nn_sampled.py)",
    "UniformCandidateSampler": "stateful random draws (tests/ops/test_nn_sampled.py)",
    "RngReadAndSkip": "tf.random.Generator's state op (tests/ops/test_random.py)",
    "PreventGradient": "raises on differentiation by design; tested in tests/autodiff",
    "PartitionedCall": "under a tape, as every call here runs, a function call is inlined; "
    "nested_function compares the call's numbers",
    "BroadcastGradientArgs": "used by TF's own gradient graphs; symgrad's rules do not emit it",
    "ReducedShape": "used by TF's own gradient graphs; symgrad's rules do not emit it",
    "DatasetLoopIterator": "for x in dataset in a function (tests/data/test_dataset_loop.py)",
    "DatasetLoopHasNext": "for x in dataset in a function (tests/data/test_dataset_loop.py)",
    "DatasetLoopGetNext": "for x in dataset in a function (tests/data/test_dataset_loop.py)",
    **{
        t: "a summary op, checked against TF's files (tests/summary, conformance/test_summary.py)"
        for t in (
            "WriteSummary",
            "FlushSummaryWriter",
            "CloseSummaryWriter",
            "ScalarSummary",
            "HistogramSummary",
            "ImageSummary",
            "TensorSummaryV2",
            "MergeSummary",
        )
    },
}


def _types(graph: Any, seen: set[str]) -> None:
    for op in graph.get_operations():
        seen.add(op.type)
        for value in op.attrs.values():
            for f in value if isinstance(value, list | tuple) else [value]:
                if isinstance(f, ConcreteFunction):
                    _types(f.graph, seen)


def _reached() -> set[str]:
    seen: set[str] = set()
    for call in CALLS.values():
        with tf.Graph().as_default() as graph:
            xs = [tf.constant(a) for a in arrays(call, call.dtypes[0], 0)]
            diff = call.diff or [i for i, a in enumerate(xs) if a.dtype.is_floating]
            differentiate(tf, call.fn, xs, diff, call.order)
        _types(graph, seen)
    return seen


def test_every_registered_op_type_is_compared_with_tensorflow() -> None:
    missing = set(BUILTIN_OPS) - _reached() - set(UNREACHED)
    assert not missing, f"no conformance call reaches: {sorted(missing)}"


@pytest.mark.parametrize("op_type", sorted(UNREACHED))
def test_unreached_op_types_are_registered(op_type: str) -> None:
    assert op_type in OPS, f"{op_type} is listed as unreached but symgrad has no such op"
