"""tf.tensor_scatter_nd_max / _min: values and TF's gradient rule (ties split evenly).

The literals are TensorFlow 2.21's results for the same program."""

from __future__ import annotations

import numpy as np

import symgrad as tf

X = [[1.0, 5.0], [2.0, -1.0], [3.0, 3.0]]
U = [[4.0, 5.0], [0.0, 7.0], [6.0, -2.0]]
W = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def _run(fn, indices):
    x, u = tf.constant(X), tf.constant(U)
    with tf.GradientTape() as tape:
        tape.watch([x, u])
        y = fn(x, indices, u)
        loss = tf.reduce_sum(y * tf.constant(W))
    return y.numpy().tolist(), [g.numpy().tolist() for g in tape.gradient(loss, [x, u])]


def test_max_values_and_gradient_split_between_ties() -> None:
    y, (dx, du) = _run(tf.tensor_scatter_nd_max, [[0], [1], [0]])
    assert y == [[6.0, 5.0], [2.0, 7.0], [3.0, 3.0]]
    assert dx == [[0.0, 1.0], [3.0, 0.0], [5.0, 6.0]]  # x[0,1] ties u[0,1]: half each
    assert du == [[0.0, 1.0], [0.0, 4.0], [1.0, 0.0]]


def test_min_values_and_gradient() -> None:
    y, (dx, du) = _run(tf.tensor_scatter_nd_min, [[2], [1], [2]])
    assert y == [[1.0, 5.0], [0.0, -1.0], [3.0, -2.0]]
    assert dx == [[1.0, 2.0], [0.0, 4.0], [5.0, 0.0]]
    assert du == [[0.0, 0.0], [3.0, 0.0], [0.0, 6.0]]


def test_integer_max_with_duplicate_indices() -> None:
    y = tf.tensor_scatter_nd_max(tf.constant([1, 9, 3]), [[2], [2]], tf.constant([7, 5]))
    np.testing.assert_array_equal(y.numpy(), [1, 9, 7])
