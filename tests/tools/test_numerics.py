"""enable_check_numerics: the first op that makes a NaN or Inf is named, with its line."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import symgrad as tf
from symgrad.core import op_registry


def lineno() -> int:
    return sys._getframe(1).f_lineno


@pytest.fixture
def checking():
    tf.enable_check_numerics()
    try:
        yield
    finally:
        tf.disable_check_numerics()


def test_eager_log_of_zero_is_caught_at_the_log(checking):
    x = tf.constant(0.0)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.log(x, name="the_log") * 0.0  # -inf at the Log: the Mul (nan) never runs
    line = lineno() - 1
    e = info.value
    assert e.op.type == "Log" and e.op.name == "the_log"
    msg = str(e)
    assert msg.startswith(
        "!!! Detected Infinity or NaN in output 0 of eagerly-executing op "
        '"Log" (# of outputs: 1) !!!'
    )
    assert f"'the_log' (type Log, created at {__file__}:{line})" in msg
    assert msg.endswith(": Tensor had -Inf values")
    assert "input 0 (" in msg and "): 0.0" in msg


def test_eager_nan(checking):
    zero = tf.constant([0.0, 0.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor had NaN values") as info:
        tf.divide(zero, zero[0])
    assert info.value.op.type == "RealDiv"


def test_graph_session_names_the_first_op_in_order(checking):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2], name="p")
        lg = tf.log(p, name="lg")
        line = lineno() - 1
        y = lg * 0.0 + 1.0  # Mul would give nan, but Log comes first
        with tf.Session() as sess:
            assert sess.run(y, {p: [1.0, 2.0]}).tolist() == [1.0, 1.0]
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(y, {p: [1.0, 0.0]})
    e = info.value
    assert e.op is lg.op
    assert 'of graph op "Log"' in str(e)
    assert f"created at {__file__}:{line}" in str(e)
    assert "input 0 (p:0): [1., 0.]" in str(e)


def test_backward_eager_sqrt_grad_belongs_to_the_sqrt(checking):
    x = tf.constant(0.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.sqrt(x, name="root")
        root_line = lineno() - 1
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tape.gradient(y, x)
    grad_line = lineno() - 1
    e = info.value
    assert e.op.type == "SqrtGrad" and "root_grad/" in e.op.name
    msg = str(e)
    assert f"(type SqrtGrad, created at {__file__}:{grad_line})" in msg
    assert (
        "this op computes part of the gradient of 'root' (type Sqrt, created at "
        f"{__file__}:{root_line})"
    ) in msg
    assert msg.endswith(": Tensor had +Inf values")


def test_backward_in_a_session(checking):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [3], name="p")
        r = tf.sqrt(p, name="r")
        root_line = lineno() - 1
        [d] = tf.gradients(tf.reduce_sum(r), [p])
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(d, {p: [1.0, 4.0, 16.0]}), [0.5, 0.25, 0.125])
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(d, {p: [1.0, 0.0, 16.0]})
    e = info.value
    assert e.op.name == "gradients/r_grad/SqrtGrad"
    assert f"gradient of 'r' (type Sqrt, created at {__file__}:{root_line})" in str(e)


def test_traced_function(checking):
    @tf.function
    def f(x):
        return tf.exp(x * 10.0)

    assert np.isfinite(f(tf.constant(1.0)).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match=r'(?s)op "Exp".*\+Inf') as info:
        f(tf.constant(10.0))
    assert info.value.op.type == "Exp"


def test_ops_that_only_move_data_are_not_checked(checking):
    inf = tf.constant([np.inf, 1.0])  # a Const makes no new number
    r = tf.reshape(inf, [2, 1])
    assert np.isinf(r.numpy()).any()
    with pytest.raises(tf.errors.InvalidArgumentError, match='"AddV2"'):
        r + 1.0


def test_disabled_costs_nothing_and_raises_nothing():
    assert op_registry.output_check is None
    assert not tf.tools.check_numerics_enabled()
    assert np.isneginf(tf.log(tf.constant(0.0)).numpy())
    tf.enable_check_numerics()
    assert tf.tools.check_numerics_enabled()
    tf.disable_check_numerics()
    assert op_registry.output_check is None
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, name="p")
        with tf.Session() as sess:
            assert np.isnan(sess.run(tf.sqrt(p), {p: -1.0}))
