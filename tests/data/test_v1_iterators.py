"""TF1's dataset iterators in a graph, run by a Session: one-shot, initializable (a
dataset made from placeholders, fed when the initializer runs, again with other values),
reinitializable (``Iterator.from_structure``).  TensorFlow 2.21's answers, from the same
programs with ``tf.compat.v1.disable_eager_execution()``."""

import numpy as np
import pytest

import symgrad as tf

v1 = tf.compat.v1


def _drain(sess, t):
    out = []
    try:
        while True:
            out.append(sess.run(t).tolist())
    except tf.errors.OutOfRangeError:
        return out


def test_one_shot_iterator() -> None:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.float32)).batch(3)
        nxt = v1.data.make_one_shot_iterator(ds).get_next()
        assert (nxt.dtype, nxt.shape.as_list()) == (tf.float32, [None])
        with v1.Session() as sess:
            assert _drain(sess, nxt) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]


def test_initializable_iterator_of_placeholders() -> None:
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 2])
        y = v1.placeholder(tf.int64, [None])
        n = v1.placeholder(tf.int64, [])
        ds = tf.data.Dataset.from_tensor_slices((x, y)).map(lambda a, b: (a * 2.0, b))
        ds = ds.batch(2).concatenate(tf.data.Dataset.range(n).map(lambda i: (tf.ones([1, 2]), [i])))
        it = v1.data.make_initializable_iterator(ds)
        feats, labels = it.get_next()
        assert v1.data.get_output_types(it) == (tf.float32, tf.int64)
        assert [s.as_list() for s in v1.data.get_output_shapes(ds)] == [[None, 2], [None]]
        with v1.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
                sess.run(labels)
            feed = {x: [[1, 2], [3, 4], [5, 6]], y: [7, 8, 9], n: 1}
            sess.run(it.initializer, feed)
            assert _drain(sess, labels) == [[7, 8], [9], [0]]
            sess.run(it.initializer, {x: [[0.5, 0.5]], y: [1], n: 2})  # again, other values
            assert sess.run([feats, labels])[0].tolist() == [[1.0, 1.0]]
            assert _drain(sess, labels) == [[0], [1]]


def test_reinitializable_iterator_switches_datasets() -> None:
    with tf.Graph().as_default():
        train = tf.data.Dataset.range(5).batch(2)
        val = tf.data.Dataset.range(100, 102).batch(2)
        it = v1.data.Iterator.from_structure(
            v1.data.get_output_types(train), v1.data.get_output_shapes(train)
        )
        nxt = it.get_next()
        init_train, init_val = it.make_initializer(train), it.make_initializer(val)
        with v1.Session() as sess:
            sess.run(init_train)
            assert sess.run(nxt).tolist() == [0, 1]
            sess.run(init_val)
            assert _drain(sess, nxt) == [[100, 101]]
            sess.run(init_train)
            assert _drain(sess, nxt) == [[0, 1], [2, 3], [4]]
        with pytest.raises(TypeError, match="Expected output types tf.int64 but got dataset "):
            it.make_initializer(tf.data.Dataset.range(3).map(lambda i: tf.cast(i, tf.float32)))


def test_eagerly_a_one_shot_iterator_is_iter_and_initializable_is_an_error() -> None:
    ds = tf.data.Dataset.range(3)
    it = v1.data.make_one_shot_iterator(ds)
    assert [int(it.get_next()) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    with pytest.raises(
        RuntimeError, match=r"`make_initializable_iterator\(\)` is not supported in eager mode"
    ):
        v1.data.make_initializable_iterator(ds)
