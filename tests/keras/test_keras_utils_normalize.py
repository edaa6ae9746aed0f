"""keras.utils.normalize against Keras-on-TF 2.21's outputs (NumPy arrays by NumPy's norm,
tensors by keras.ops.normalize), and keras.ops.normalize's p-norms."""

from __future__ import annotations

import numpy as np
import pytest
from ulp import assert_ulp

import symgrad as tf

X = np.array([[3.0, 4.0], [1.0, -2.0], [0.0, 0.0]], "float32")
L2 = [[0.6000000238418579, 0.800000011920929], [0.4472135901451111, -0.8944271802902222],
      [0.0, 0.0]]  # fmt: skip
L1_ROWS = [[0.4285714328289032, 0.5714285969734192], [0.3333333432674408, -0.6666666865348816],
           [0.0, 0.0]]  # fmt: skip
L3 = [[0.6669717773118556, 0.8892957030824742], [0.4807498567691361, -0.9614997135382722],
      [0.0, 0.0]]  # fmt: skip
L1_COLUMNS = [[0.75, 0.6666666865348816], [0.25, -0.3333333432674408], [0.0, 0.0]]


def test_numpy_arrays() -> None:
    u = tf.keras.utils
    out = u.normalize(X)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    assert_ulp(out, L2, ulps=1)
    assert_ulp(u.normalize(X, axis=1, order=1), L1_ROWS, ulps=1)
    assert_ulp(u.normalize(X.astype("float64"), order=3), L3, ulps=2)


def test_numpy_axis_zero_is_taken_as_last_as_keras() -> None:
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        tf.keras.utils.normalize(X, axis=0)


def test_tensors() -> None:
    u = tf.keras.utils
    out = u.normalize(tf.constant(X))
    assert isinstance(out, tf.Tensor)
    assert_ulp(out.numpy(), L2, ulps=1)
    assert_ulp(u.normalize(tf.constant(X), axis=0, order=1).numpy(), L1_COLUMNS, ulps=1)
    assert_ulp(u.normalize(tf.constant(X.astype("float64")), order=3).numpy(), L3, ulps=4)


def test_p_norm_gradient_matches_finite_differences() -> None:
    x = tf.constant([[3.0, 4.0], [1.0, -2.0]], tf.float64)
    err = tf.test.compute_gradient(lambda v: tf.keras.ops.normalize(v, order=3), [x])
    assert np.max(np.abs(err[0][0] - err[1][0])) < 1e-7


def test_p_norm_gradient_matches_tf() -> None:
    x = tf.constant([[3.0, 4.0], [1.0, -2.0]], tf.float64)
    w = tf.constant([[1.0, -2.0], [0.5, 3.0]], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.keras.ops.normalize(x, order=3) * w)
    expected = [[0.3322643286242211, -0.24919824646816588],
                [0.5341665075212623, 0.2670832537606316]]  # fmt: skip
    assert_ulp(tape.gradient(y, x).numpy(), expected, ulps=8)
