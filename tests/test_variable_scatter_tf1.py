"""Variable.scatter_max/min/mul, tf.compat.v1.scatter_update/add/sub/nd_update and
int()/float() of a scalar variable: TensorFlow 2.21's results for the same program."""

from __future__ import annotations

import pytest

import symgrad as tf


def test_row_updates_in_order_as_tensorflow() -> None:
    v = tf.Variable([[1.0, 5.0], [2.0, -1.0], [3.0, 3.0]])
    rows = tf.IndexedSlices(tf.constant([[4.0, 0.0], [0.0, 7.0]]), tf.constant([0, 1]))
    assert v.scatter_max(rows).numpy().tolist() == [[4, 5], [2, 7], [3, 3]]
    rows = tf.IndexedSlices(tf.constant([[0.0, 9.0]]), tf.constant([2]))
    assert v.scatter_min(rows).numpy().tolist() == [[4, 5], [2, 7], [0, 3]]
    rows = tf.IndexedSlices(tf.constant([[2.0, 3.0], [0.5, 2.0]]), tf.constant([1, 1]))
    assert v.scatter_mul(rows).numpy().tolist() == [[4, 5], [2, 42], [0, 3]]  # twice
    v1 = tf.compat.v1
    assert v1.scatter_update(v, [0], [[10.0, 11.0]]).numpy().tolist()[0] == [10, 11]
    assert v1.scatter_add(v, [0, 0], [[1.0, 1.0], [2.0, 2.0]]).numpy().tolist()[0] == [13, 14]
    assert v1.scatter_sub(v, [2], [[1.0, 1.0]]).numpy().tolist()[2] == [-1, 2]
    v1.scatter_nd_update(v, [[1, 1], [2, 0]], [-5.0, -6.0])
    assert v.numpy().tolist() == [[13, 14], [2, -5], [-6, 2]]


def test_tf1_scatter_runs_in_a_session() -> None:
    with tf.Graph().as_default():
        v = tf.compat.v1.Variable([1.0, 2.0, 3.0])
        up = tf.compat.v1.scatter_add(v, [2, 0], [10.0, 20.0])
        with tf.compat.v1.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(up).tolist() == [21.0, 2.0, 13.0]
            assert sess.run(up).tolist() == [41.0, 2.0, 23.0]


def test_int_and_float_of_scalar_variables() -> None:
    s, i = tf.Variable(3.7), tf.Variable(4)
    assert (int(s), float(s), int(i), float(i)) == (3, 3.700000047683716, 4, 4.0)
    with pytest.raises(TypeError):
        int(tf.Variable([1.0, 2.0]))
