"""tf.reverse, tf.pad REFLECT/SYMMETRIC, floor/ceil/round/rint and leaky_relu's float32
alpha: the gaps the TensorFlow conformance stage found, with TF 2.21's numbers."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.api.testing import check_vjp


def _grad(f, x):
    x = tf.constant(x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    return t.gradient(y, x).numpy()


X23 = np.arange(6.0, dtype=np.float32).reshape(2, 3)


def test_pad_reflect_values_and_gradient_match_tensorflow():
    y = tf.pad(X23, [[1, 1], [2, 2]], "REFLECT")
    np.testing.assert_array_equal(
        y.numpy(),
        [
            [5, 4, 3, 4, 5, 4, 3],
            [2, 1, 0, 1, 2, 1, 0],
            [5, 4, 3, 4, 5, 4, 3],
            [2, 1, 0, 1, 2, 1, 0],
        ],
    )
    assert y.op.type == "MirrorPad"
    g = _grad(lambda x: tf.pad(x, [[1, 1], [2, 2]], "REFLECT"), X23)
    np.testing.assert_array_equal(g, [[4, 6, 4], [4, 6, 4]])  # TF 2.21


def test_pad_symmetric_gradient_matches_tensorflow():
    g = _grad(lambda x: tf.pad(x, [[1, 0], [2, 3]], "symmetric"), X23)
    np.testing.assert_array_equal(g, [[6, 6, 4], [3, 3, 2]])  # TF 2.21


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
def test_mirror_pad_gradients_against_finite_differences(mode):
    x = np.random.default_rng(0).standard_normal((3, 4))
    pads = [[2, 1], [0, 3]] if mode == "REFLECT" else [[3, 1], [4, 2]]
    check_vjp(lambda x: tf.pad(x, pads, mode) ** 2, [x], order=2)


def test_mirror_pad_in_a_session_with_unknown_shape():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, None])
        y = tf.pad(x, [[0, 0], [1, 1]], "REFLECT")
        (g,) = tf.gradients(tf.reduce_sum(y * y), [x])
        assert y.shape.as_list() == [None, None]
        with tf.compat.v1.Session() as s:
            yv, gv = s.run([y, g], {x: X23})
    np.testing.assert_array_equal(yv, [[1, 0, 1, 2, 1], [4, 3, 4, 5, 4]])
    np.testing.assert_array_equal(gv, 2 * X23 * [[1, 3, 1]])


@pytest.mark.parametrize(
    ("mode", "pads", "text"),
    [
        (
            "REFLECT",
            [[0, 0], [3, 0]],
            "paddings must be less than the dimension size: 3, 0 not less than 3",
        ),
        (
            "SYMMETRIC",
            [[0, 0], [4, 0]],
            "paddings must be no greater than the dimension size: 4, 0 greater than 3",
        ),
    ],
)
def test_mirror_pad_too_wide_is_tensorflows_error(mode, pads, text):
    with pytest.raises(ValueError, match=text):
        tf.pad(X23, pads, mode)
    assert tf.pad(X23, [[0, 0], [1, 1]], mode).shape == (2, 5)  # still usable


def test_pad_bad_mode_is_tensorflows_error():
    with pytest.raises(ValueError, match="Received `mode` = WRAP"):
        tf.pad(X23, [[0, 0], [1, 1]], "wrap")


def test_reverse_values_gradient_and_errors_match_tensorflow():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    assert tf.reverse(x, [-1]).op.type == "ReverseV2"
    np.testing.assert_array_equal(tf.reverse(x, [0, 1]).numpy(), x[::-1, ::-1])
    np.testing.assert_array_equal(tf.reverse(x, []).numpy(), x)
    g = _grad(lambda v: tf.reverse(v, [0, -1]) * x, x)
    np.testing.assert_array_equal(g, x[::-1, ::-1])  # TF 2.21: [[11, 10, ...], ...]
    np.testing.assert_array_equal(tf.compat.v1.reverse_v2(x, [0]).numpy(), x[::-1])
    for axis, text in [
        ([2], r"'axis'\[0\] = 2 is out of valid range \[0, 1"),
        ([0, 0], "axis 0 specified more than once."),
        ([[0]], "'dims' must be 1-dimension, not 2"),
    ]:
        with pytest.raises(ValueError, match=text):
            tf.reverse(X23, axis)


def test_reverse_second_order_and_jacobian():
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    check_vjp(lambda x: tf.reverse(x, [1, 2]) * x, [x], order=2)
    xt = tf.constant(x[0])
    with tf.GradientTape() as t:
        t.watch(xt)
        y = tf.reverse(xt, [1])
    j = t.jacobian(y, xt).numpy()
    np.testing.assert_array_equal(
        j.reshape(12, 12), np.eye(12)[[3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8]]
    )


def test_rounding_matches_tensorflow():
    v = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7]
    np.testing.assert_array_equal(tf.round(v).numpy(), [-2, -2, -0.0, 0, 2, 2, 3])
    np.testing.assert_array_equal(tf.math.rint([-2.5, 0.5, 1.5, 1.2]).numpy(), [-2, 0, 2, 1])
    np.testing.assert_array_equal(tf.floor([-1.5, 1.5]).numpy(), [-2, 1])
    np.testing.assert_array_equal(tf.math.ceil([-1.5, 1.5]).numpy(), [-1, 2])
    r = tf.round(tf.constant([3, -4]))
    assert r.dtype == tf.int32 and r.numpy().tolist() == [3, -4]
    for f in (tf.floor, tf.math.ceil, tf.math.rint):
        with pytest.raises(TypeError, match="int32"):
            f(tf.constant([1, 2]))


def test_rounding_passes_no_gradient_as_tensorflow():
    v = tf.Variable([1.5, -2.25])
    with tf.GradientTape() as t:
        y = tf.floor(v) * v + tf.math.ceil(v) + tf.round(v) + tf.math.rint(v)
    np.testing.assert_array_equal(t.gradient(y, v).numpy(), [1.0, -3.0])  # TF 2.21
    with tf.GradientTape() as t:
        y = tf.floor(v)
    assert t.gradient(y, v) is None


def test_leaky_relu_float64_uses_tensorflows_float32_alpha():
    x = tf.constant([-1.5, -0.25, 0.5, 2.5], tf.float64)
    alpha = float(np.float32(0.2))  # TF's alpha attr is a 32-bit float
    np.testing.assert_array_equal(
        tf.nn.leaky_relu(x).numpy(), [-1.5 * alpha, -0.25 * alpha, 0.5, 2.5]
    )
    g = _grad(lambda x: tf.reduce_sum(tf.nn.leaky_relu(x) * [1.0, 2.0, 3.0, 4.0]), x)
    np.testing.assert_array_equal(g, [alpha, 2 * alpha, 3.0, 4.0])  # TF: 0.40000001 for 2α
