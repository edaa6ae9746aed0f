"""Lists that hold tensors become Pack ops (TF's auto-packing), zeros/ones with a shape
known only at run time, and the static shape of a slice whose bounds are tensors.

The shapes are TF 2.21's for the same graphs; the programs come from real TF code
(``tf.reshape(x, [tf.shape(x)[0], -1])`` in a ``tf.function``, ``xs[t]`` in an RNN loop).
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf


def test_reshape_with_a_tensor_in_the_shape_list_inside_a_function():
    @tf.function
    def f(x):
        return tf.reshape(x, [tf.shape(x)[0], -1]), tf.zeros([tf.shape(x)[1], 16])

    a, b = f(tf.ones([2, 3, 2]))
    assert a.shape == (2, 6) and b.shape == (3, 16)
    assert b.numpy().sum() == 0.0


def test_a_list_with_tensors_packs_with_their_dtype_and_differentiates():
    packed = tf.convert_to_tensor([[tf.constant(1.0), 2.0], [3.0, tf.constant(4.0)]])
    assert packed.op.type == "Pack" and packed.dtype == tf.float32
    np.testing.assert_array_equal(packed.numpy(), [[1, 2], [3, 4]])
    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.convert_to_tensor([x * x, 3.0]) * [1.0, 5.0])
    assert float(t.gradient(y, x)) == 4.0


def test_ones_with_a_fed_dimension_in_a_session():
    with tf.Graph().as_default():
        n = tf.compat.v1.placeholder(tf.int32, [])
        y = tf.ones((n, 2), tf.int32)  # a Fill (its static shape: unknown; TF: [None, 2])
        with tf.compat.v1.Session() as s:
            np.testing.assert_array_equal(s.run(y, {n: 3}), np.ones((3, 2), np.int32))


# (index expression, TF 2.21's static shape) on xs: [5, 2, 3] with t: a scalar placeholder
SLICES = [
    (lambda xs, t: xs[t], [2, 3]),
    (lambda xs, t: xs[t, 1:], [None, 3]),
    (lambda xs, t: xs[1:t], [None, 2, 3]),
    (lambda xs, t: xs[:, t], [5, 3]),
    (lambda xs, t: xs[..., t : t + 1], [5, 2, None]),
    (lambda xs, t: xs[::-1, t], [5, 3]),
    (lambda xs, t: xs[t, :, tf.newaxis], [2, 1, 3]),
    (lambda xs, t: xs[t, ::-1], [2, 3]),
    (lambda xs, t: xs[1:, t], [None, 3]),
]


@pytest.mark.parametrize(("index", "want"), SLICES)
def test_slice_with_tensor_bounds_has_tensorflows_static_shape(index, want):
    with tf.Graph().as_default():
        xs = tf.compat.v1.placeholder(tf.float32, [5, 2, 3])
        t = tf.compat.v1.placeholder(tf.int32, [])
        y = index(xs, t)
        assert y.shape.as_list() == want
        value = np.arange(30, dtype=np.float32).reshape(5, 2, 3)
        with tf.compat.v1.Session() as s:
            got = s.run(y, {xs: value, t: 1})
    np.testing.assert_array_equal(got, index(value, 1))


def test_a_loop_reads_its_time_step_with_a_tensor_index():
    xs = tf.constant(np.arange(12.0, dtype=np.float32).reshape(4, 3))

    @tf.function
    def run():
        _, h = tf.while_loop(
            lambda t, h: t < 4, lambda t, h: (t + 1, tf.tanh(h + xs[t])), [0, tf.zeros([3])]
        )
        return h

    h = np.zeros(3, np.float32)
    for row in xs.numpy():
        h = np.tanh(h + row)
    np.testing.assert_allclose(run().numpy(), h, rtol=1e-6)


def test_shapes_built_from_a_known_tf_shape_are_known():
    """As TF's constant_value: a slice or pack of a Shape that is known folds to a value,
    so what it shapes has a static shape (TF 2.21: (2, 4), (2, 16), (4, 4))."""
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 4, 4])
        assert tf.zeros([tf.shape(x)[0], 4]).shape.as_list() == [2, 4]
        assert tf.reshape(x, [tf.shape(x)[0], -1]).shape.as_list() == [2, 16]
        assert tf.ones(tf.shape(x)[1:]).shape.as_list() == [4, 4]
        y = tf.compat.v1.placeholder(tf.float32, [None, 4])
        # not known: not folded, but the rank and the known size stay (TF 2.21: (None, 4))
        assert tf.zeros([tf.shape(y)[0], 4]).shape.as_list() == [None, 4]
        assert tf.fill(tf.shape(y), 1.0).shape.as_list() == [None, 4]


def test_a_converted_for_loop_carries_a_growing_tensor_array():
    """AutoGraph: a TensorArray written in a `for t in tf.range(...)` loop, differentiated
    w.r.t. a Variable read in the body.  TF 2.21's numbers for the same program."""
    w = tf.Variable([[0.5, -0.25], [0.75, 0.1]])

    @tf.function
    def f(xs):
        with tf.GradientTape() as tape:
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            h = tf.zeros([tf.shape(xs)[1], 2])
            for t in tf.range(tf.shape(xs)[0]):
                h = tf.tanh(tf.matmul(h, w) + xs[t])
                ta = ta.write(t, h)
            loss = tf.reduce_sum(ta.stack() ** 2)
        return loss, tape.gradient(loss, w)

    xs = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 2, 2) / 10 - 0.5)
    loss, g = f(xs)
    np.testing.assert_allclose(float(loss), 1.7652266025543213, rtol=1e-6)
    np.testing.assert_allclose(
        g.numpy(),
        [[0.2054913341999054, -1.0331037044525146], [0.5576500296592712, -0.09715726971626282]],
        rtol=1e-5,
    )


def test_shape_tensors_known_in_part_give_partial_static_shapes():
    """TF's constant_value_as_shape: a pack of known and unknown sizes, a concat of a
    Shape slice and constants, or a Shape gives what is known (TF 2.21 shapes)."""
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float64, [None, 6])
        n = tf.shape(x)[0]
        assert tf.reshape(x, [n, 2, 3]).shape.as_list() == [None, 2, 3]
        assert tf.reshape(x, tf.concat([tf.shape(x)[:1], [3, -1]], 0)).shape.as_list() == [
            None,
            3,
            None,
        ]
        assert tf.zeros(tf.shape(x)).shape.as_list() == [None, 6]
        assert tf.fill(tf.stack([2, n]), 1.0).shape.as_list() == [2, None]
        assert tf.ones([n, -1 + 4]).shape.as_list() == [None, 3]
