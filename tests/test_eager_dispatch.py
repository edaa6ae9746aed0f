"""The eager fast paths: shared scalar constants, and the hint on a None gradient."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import symgrad as tf


def test_eager_python_scalars_share_one_constant_per_value_and_dtype():
    x = tf.constant([1.0, 2.0])
    a, b = x * 1.5, x * 1.5
    assert a.op.inputs[1] is b.op.inputs[1]
    assert (tf.constant([1, 2]) * 2).op.inputs[1].dtype is tf.int32
    zero, neg_zero = x * 0.0, x * -0.0  # -0.0 is a different constant
    assert math.copysign(1, float(neg_zero.op.inputs[1].numpy())) == -1.0
    assert math.copysign(1, float(zero.op.inputs[1].numpy())) == 1.0
    np.testing.assert_array_equal((x * 1.5).numpy(), [1.5, 3.0])


def test_graphs_get_their_own_constants():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        assert (x * 1.5).op.inputs[1] is not (x * 1.5).op.inputs[1]


def test_kernels_run_without_floating_point_warnings_and_leave_numpy_state_alone():
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf((tf.constant(1.0) / 0.0).numpy())
        assert np.isnan(tf.log(tf.constant(-1.0)).numpy())
    assert np.geterr() == before


def test_using_a_none_gradient_points_at_why_none():
    x, y = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = y * 3.0
    g = tape.gradient(z, x)
    assert g is None
    with pytest.raises(ValueError, match=r"symgrad.why_none\(ys, xs\)"):
        tf.convert_to_tensor(g)


def test_plans_run_without_floating_point_warnings_and_leave_numpy_state_alone():
    before = np.geterr()
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        y = tf.log(x) / x
        with warnings.catch_warnings(), tf.Session() as sess:
            warnings.simplefilter("error")
            out = sess.run(y, {x: [0.0, -1.0]})
    assert np.isnan(out[0]) or np.isinf(out[0])
    assert np.isnan(out[1])
    assert np.geterr() == before
