"""tf.tensor_scatter_nd_update / add / sub: values, gradients, errors, and a dynamic
programming table filled in a loop.  Expected numbers from TensorFlow 2.21 (CPU)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf


def test_values_and_gradients_of_the_three_scatters():
    t0 = tf.constant(np.arange(10.0).reshape(5, 2))
    u = tf.constant([[100.0, 200.0], [300.0, 400.0]], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([t0, u])
        a = tf.tensor_scatter_nd_update(t0, [[1], [3]], u)
        b = tf.tensor_scatter_nd_add(t0, [[1], [1]], u * u)
        c = tf.tensor_scatter_nd_sub(t0, [[4, 1], [0, 0]], u[:, 0])
        loss = tf.reduce_sum(a * a) + tf.reduce_sum(b * t0) + tf.reduce_sum(c**3)
    np.testing.assert_array_equal(a.numpy().ravel(), [0, 1, 100, 200, 4, 5, 300, 400, 8, 9])
    np.testing.assert_array_equal(b.numpy()[1], [100002.0, 200003.0])
    np.testing.assert_array_equal(c.numpy()[[0, 4]], [[-300.0, 1.0], [8.0, -91.0]])
    gt, gu = tape.gradient(loss, [t0, u])
    np.testing.assert_allclose(
        gt.numpy().ravel(),
        [270000.0, 7.0, 100016.0, 200033.0, 64.0, 95.0, 120.0, 161.0, 224.0, 24879.0],
    )
    np.testing.assert_allclose(gu.numpy(), [[-24243.0, 1600.0], [-268200.0, 3200.0]])


def test_bad_indices_and_shapes_name_the_problem_as_tf():
    t0 = tf.constant(np.arange(10.0).reshape(5, 2))
    u = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64)
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"indices\[1\] = \[7\] does not index into shape \[5,2\]",
    ):
        tf.tensor_scatter_nd_update(t0, [[1], [7]], u)
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"The inner 1 dimensions of output.shape=\[5,2\] must match the inner 1 "
        r"dimensions of updates.shape=\[2,1\]",
    ):
        tf.tensor_scatter_nd_update(t0, [[1], [3]], u[:, :1])


def test_a_dynamic_programming_table_filled_in_a_converted_loop():
    @tf.function
    def dp(costs):
        table = tf.zeros([5], tf.float64)
        table = tf.tensor_scatter_nd_update(table, [[0]], costs[:1])
        for i in tf.range(1, tf.shape(costs)[0]):
            best = tf.minimum(table[i - 1], table[tf.maximum(i - 2, 0)]) + costs[i]
            table = tf.tensor_scatter_nd_update(table, [[i]], [best])
        return table

    costs = tf.constant([1.0, 5.0, 2.0, 4.0, 3.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(costs)
        table = dp(costs)
    np.testing.assert_array_equal(table.numpy(), [1.0, 6.0, 3.0, 7.0, 6.0])
    np.testing.assert_array_equal(tape.gradient(table, costs).numpy(), [5.0, 1.0, 3.0, 1.0, 1.0])


def test_jacobian_and_vectorized_map_batch_the_scatter():
    t0 = tf.constant(np.arange(10.0).reshape(5, 2))
    with tf.GradientTape() as tape:
        tape.watch(t0)
        y = tf.tensor_scatter_nd_add(t0 * t0, [[2, 1]], [7.0])
    jac = tape.jacobian(y, t0).numpy().reshape(10, 10)
    np.testing.assert_array_equal(jac, np.diag(2 * np.arange(10.0)))
    got = tf.vectorized_map(lambda r: tf.tensor_scatter_nd_update(r, [[1]], [r[0] * 3.0]), t0)
    np.testing.assert_array_equal(got.numpy(), [[0, 0], [2, 6], [4, 12], [6, 18], [8, 24]])
