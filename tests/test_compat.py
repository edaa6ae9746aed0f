"""tf.compat.v1 / v2: TF2-era spellings of the same API."""

import numpy as np
import pytest

import symgrad as tf


def test_a_tf1_program_written_against_compat_v1():
    v1 = tf.compat.v1
    v1.disable_eager_execution()
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 2])
        w = tf.Variable([[1.0], [2.0]])
        y = tf.reduce_sum(tf.matmul(x, w))
        (gw,) = v1.gradients(y, [w])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            out, g = sess.run([y, gw], {x: [[1.0, 1.0], [2.0, 0.0]]})
    assert out == 5.0 and g.tolist() == [[3.0], [1.0]]
    assert tf.compat.v2.GradientTape is tf.GradientTape and v1.Session is tf.Session


def test_an_api_symgrad_lacks_is_named():
    with pytest.raises(AttributeError, match="TensorFlow API tf.compat.v1.estimator yet"):
        tf.compat.v1.estimator  # noqa: B018
    assert tf.compat.v1.float32 is tf.float32


def test_tf_internal_mirrors_of_cond():
    """The names TF's own cond tests import from tensorflow.python.ops (conformance shim)."""
    from symgrad.python.ops import array_ops, cond_v2
    from symgrad.python.ops.cond import cond

    x = tf.constant(3.0)
    assert float(cond_v2.cond_v2(x > 2.0, lambda: x * 2.0, lambda: x)) == 6.0
    assert float(cond(x < 2.0, lambda: x * 2.0, lambda: x)) == 3.0
    branches = [lambda: x + 1.0, lambda: x + 2.0, lambda: x + 3.0]
    assert float(cond_v2.indexed_case(tf.constant(1), branches)) == 5.0
    assert array_ops.squeeze_v2(tf.zeros([1, 2, 1])).shape.as_list() == [2]


def test_tf1_gradient_checker_mirror():
    """TF1's (x, x_shape, y, y_shape) Jacobian checker, as TF's nn_grad_test calls it."""
    from symgrad.python.ops import gradient_checker

    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0, 3.0]])
        y = tf.matmul(x, tf.constant([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]]))
        with tf.Session():
            theory, numeric = gradient_checker.compute_gradient(
                x, [1, 3], y, [1, 2], x_init_value=np.array([[0.5, 0.25, 2.0]])
            )
            error = gradient_checker.compute_gradient_error(x, [1, 3], y, [1, 2])
    np.testing.assert_allclose(theory, [[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]])
    np.testing.assert_allclose(numeric, theory, atol=1e-3)
    assert error < 1e-3


def test_tf_internal_mirrors_of_linalg():
    from symgrad.python.ops import gen_linalg_ops, linalg_ops

    m = tf.constant([[2.0, 1.0], [1.0, 3.0]])
    assert float(linalg_ops.matrix_determinant(m)) == 5.0
    sign, logdet = gen_linalg_ops.log_matrix_determinant(m)
    assert float(sign) == 1.0
    np.testing.assert_allclose(float(logdet), np.log(5.0), rtol=1e-6)


def test_tf_internal_mirrors_of_math_ops():
    from symgrad.python.ops import math_ops

    assert float(math_ops.div_no_nan(1.0, 0.0)) == 0.0
    assert float(math_ops.mul_no_nan(np.inf, 0.0)) == 0.0
    assert float(math_ops.reduce_euclidean_norm(tf.constant([3.0, 4.0]))) == 5.0
