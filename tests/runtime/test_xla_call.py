"""The eager call of a ``function(jit_compile=True)`` (``runtime/xla/eager_call.py``).

The lean route must make the call op the NumPy path makes (type, inputs, attributes,
traceback), built when first read for a one-output trace; it must pick the right trace
when the argument types change, and keep TF's retracing warning.  The values go through
``*``, ``+`` and ``-`` of small integers, which are exact: TF 2.21 prints the same.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax")

import symgrad as tf
from symgrad.core.eager import EagerTensor


def _step(jit: bool | None) -> Any:
    w = tf.Variable(np.array([1.0, 2.0], np.float32))

    @tf.function(jit_compile=jit)
    def step(x: tf.Tensor) -> tf.Tensor:
        w.assign_sub(x)
        return tf.reduce_sum(w * x)

    return step


def _line() -> int:
    return sys._getframe(1).f_lineno


def test_a_one_output_call_op_is_built_when_read_and_is_the_numpy_paths() -> None:
    ops = {}
    for jit in (None, True):
        step = _step(jit)
        x = tf.constant([1.0, 3.0])
        step(x)  # traces; w: [0, -1]
        y, line = step(x), _line()  # w: [-1, -4]; sum([-1, -12])
        if jit:
            assert type(y) is EagerTensor and y._op is None  # no op built yet
            assert type(y._value) is np.ndarray  # a NumPy array, not a device one
        assert y.numpy() == -13.0
        op = y.op
        assert op.outputs[0] is y
        assert op.traceback == (__file__, line)
        ops[jit] = op
    a, b = ops[None], ops[True]
    assert a.type == b.type == "PartitionedCall"
    assert a.name.startswith("PartitionedCall") and b.name.startswith("PartitionedCall")
    assert b.graph.get_operation_by_name(b.name) is b
    assert len(a.inputs) == len(b.inputs) == 2  # x and the route read of w
    assert a.inputs[1].op.type == b.inputs[1].op.type == "ReadVariableOp"
    same = ("n_feeds", "recorded", "versions")
    assert [a.attrs[k] for k in same] == [b.attrs[k] for k in same] == [1, False, None]
    assert b.output_values[0].tolist() == -13.0


def test_a_repeated_call_builds_its_output_as_the_first_call_does() -> None:
    # From the second eager call in a graph on, a writing trace's output reuses what
    # the first call found (its dtype, shape, the op's inputs and attributes): each
    # call's op must still be its own, with its own attributes and the user's line.
    step = _step(True)
    x = tf.constant([1.0, 3.0])
    step(x)  # traces
    ys, lines = [], []
    for _ in range(8):  # past the retracing window: Function.__call__'s direct way too
        ys.append(step(x))
        lines.append(_line() - 1)
    ops = [y.op for y in ys]
    # w = [1, 2] - k * [1, 3] after call k (the trace's is k = 1); sum(w * [1, 3]), exact
    assert [y.numpy().tolist() for y in ys] == [
        -13.0,
        -23.0,
        -33.0,
        -43.0,
        -53.0,
        -63.0,
        -73.0,
        -83.0,
    ]
    assert [op.traceback for op in ops] == [(__file__, line) for line in lines]
    assert len({op.name for op in ops}) == 8
    assert all(y.dtype == tf.float32 and y.shape == [] for y in ys)
    assert all(op.inputs[0] is x and op.inputs[1] is ops[0].inputs[1] for op in ops)
    assert len({id(op.attrs) for op in ops}) == 8  # each op owns its attributes
    ops[0].attrs["versions"] = (1,)
    assert ops[1].attrs["versions"] is None


def test_a_call_that_assigns_nothing_records_the_versions_it_read() -> None:
    w = tf.Variable(np.array([1.0, 2.0], np.float32))

    @tf.function(jit_compile=True)
    def read(x: tf.Tensor) -> tf.Tensor:
        return tf.reduce_sum(w * x)

    x = tf.constant([1.0, 3.0])
    read(x)
    y = read(x)
    assert y.numpy() == 7.0
    assert y.op.attrs["versions"] == (w._version,)


def test_several_outputs_come_back_as_one_call_op() -> None:
    @tf.function(jit_compile=True)
    def pair(x: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        return x + 1.0, x * 2.0

    x = tf.constant([1.0, 3.0])
    pair(x)
    a, b = pair(x)
    assert a.numpy().tolist() == [2.0, 4.0] and b.numpy().tolist() == [2.0, 6.0]
    assert a.op is b.op and a.op.type == "PartitionedCall"


def test_the_trace_follows_the_argument_types_call_by_call() -> None:
    @tf.function(jit_compile=True)
    def double(x: tf.Tensor) -> tf.Tensor:
        return x * 2

    f32, f64 = tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0], tf.float64)
    i32, longer = tf.constant([1, 2]), tf.constant([1.0, 2.0, 3.0])
    for _ in range(2):  # the second round: every signature has its trace
        for x, want in ((f32, [2.0, 4.0]), (f64, [2.0, 4.0]), (i32, [2, 4]), (longer, None)):
            for _ in range(2):
                y = double(x)
                assert y.dtype == x.dtype and y.shape == x.shape
                assert y.numpy().tolist() == (want or [2.0, 4.0, 6.0])
    assert double.experimental_get_tracing_count() == 4


def test_retracing_warning_counts_the_calls_that_trace(caplog: Any) -> None:
    @tf.function(jit_compile=True)
    def f(x: tf.Tensor) -> tf.Tensor:
        return x + 1

    with caplog.at_level(logging.WARNING, logger="symgrad"):
        for n in range(1, 5):  # four traces, each called again: no warning
            f(tf.zeros([n]))
            f(tf.zeros([n]))
        f(tf.zeros([5]))
        assert "retracing" not in caplog.text
        for n in range(6, 10):  # five traces in a row: TF's warning
            f(tf.zeros([n]))
    assert "5 out of the last 5 calls to" in caplog.text


def test_each_light_call_output_has_its_own_name_that_finds_its_op() -> None:
    step = _step(True)
    x = tf.constant([1.0, 3.0])
    step(x)
    ys = [step(x) for _ in range(3)]
    with tf.name_scope("outer"):
        z = step(x)
    names = [y.name for y in ys + [z]]  # read before any op is built
    assert all(y._op is None for y in ys + [z])
    assert len(set(names)) == 4
    assert all(n.startswith("PartitionedCall") and n.endswith(":0") for n in names[:3])
    assert names[3].startswith("outer/PartitionedCall")
    for y, name in zip(ys + [z], names):
        assert y.op.name + ":0" == name
        assert y.graph.get_operation_by_name(y.op.name) is y.op
