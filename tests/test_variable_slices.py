"""``v[key].assign(value)`` (``ops/state/variable_slices.py``): TF's sliced variable
assignment.  The literals are TensorFlow 2.21's for the same programs."""

import numpy as np
import pytest

import symgrad as tf


def test_a_slice_of_a_variable_assigns_into_the_variable():
    v = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    r = v[0].assign([7.0, 8.0, 9.0])
    assert (type(r).__name__, r.name) == ("UnreadVariable", "UnreadVariable")
    assert r.numpy().tolist() == v.numpy().tolist() == [[7.0, 8.0, 9.0], [4.0, 5.0, 6.0]]
    rows = []
    for key, value in (
        (1, 0.0),  # broadcast to the slice's shape
        ((slice(None), slice(None, None, 2)), [[1.0, 1.0], [2.0, 2.0]]),
        ((-1, -1), 5.0),
        ((0, None), [[3.0, 3.0, 3.0]]),  # a new axis
        ((Ellipsis, 1), [9.0, 9.0]),
        (tf.constant(1), [0.0, 0.0, 0.0]),  # a tensor index
    ):
        v[key].assign(value)
        rows.append(v.numpy().tolist())
    assert rows == [
        [[7.0, 8.0, 9.0], [0.0, 0.0, 0.0]],
        [[1.0, 8.0, 1.0], [2.0, 0.0, 2.0]],
        [[1.0, 8.0, 1.0], [2.0, 0.0, 5.0]],
        [[3.0, 3.0, 3.0], [2.0, 0.0, 5.0]],
        [[3.0, 9.0, 3.0], [2.0, 9.0, 5.0]],
        [[3.0, 9.0, 3.0], [0.0, 0.0, 0.0]],
    ]
    w = tf.Variable([1, 2])
    assert w[0].assign(5).numpy().tolist() == [5, 2]


def test_only_a_variables_slice_has_assign():
    v = tf.Variable([1.0, 2.0])
    assert hasattr(v[0], "assign") and not hasattr(v[0], "assign_add")
    assert not hasattr(tf.constant([1.0])[0], "assign")
    assert not hasattr(v.read_value()[0], "assign")
    with pytest.raises(AttributeError, match="'EagerTensor' object has no attribute 'assign'"):
        tf.constant([1.0]).assign  # noqa: B018
    m = v[tf.constant([True, False])]  # a boolean mask: no assign (TF's)
    assert m.numpy().tolist() == [1.0] and not hasattr(m, "assign")


def test_a_bad_value_raises_and_leaves_the_variable_as_it_was():
    v = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"Cannot broadcast input shape \[2\] into final shape \[3\]",
    ):
        v[0].assign([1.0, 2.0])
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"Cannot broadcast input shape \[2,3\] into final shape \[3\]",
    ):
        v[0].assign([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        v[0].assign(tf.constant([1, 2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        v[5].assign(1.0)
    assert v.numpy().tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] and v._version == 0


def test_a_held_value_is_not_written_over():
    v = tf.Variable(np.zeros(3))
    held = v.read_value()
    v[1].assign(2.0)
    assert held.numpy().tolist() == [0.0, 0.0, 0.0] and v.numpy().tolist() == [0.0, 2.0, 0.0]


def test_in_a_graph_and_in_a_function():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        u = v[1].assign(5.0)
        assert (u.op.type, u.name) == ("ResourceStridedSliceAssign", "strided_slice/_assign")
        with tf.compat.v1.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(u).tolist() == [1.0, 5.0]
            assert sess.run(v).tolist() == [1.0, 5.0]
    w = tf.Variable([[1.0, 2.0, 3.0]])

    @tf.function
    def f(x):
        w[0, 0].assign(x)
        return w[0]

    assert f(tf.constant(42.0)).numpy().tolist() == [42.0, 2.0, 3.0]
    assert f(tf.constant(7.0)).numpy().tolist() == [7.0, 2.0, 3.0]


def test_the_gradient_of_a_slice_read_and_after_a_slice_write():
    w = tf.Variable([1.0, 2.0, 3.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(w[1:] * w[1:])
    assert tape.gradient(y, w).numpy().tolist() == [0.0, 4.0, 6.0]  # exact: 2 * w
    w[0].assign(10.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(w * w)
    grad = tape.gradient(y, w).numpy()
    eps = 1e-6
    fd = [
        (np.sum((w.numpy() + eps * d) ** 2) - np.sum((w.numpy() - eps * d) ** 2)) / (2 * eps)
        for d in np.eye(3)
    ]
    np.testing.assert_allclose(grad, fd, rtol=1e-8)
    assert grad.tolist() == [20.0, 4.0, 6.0]


def test_compiled_through_xla_as_run_by_numpy():
    pytest.importorskip("jax")

    def program(v):
        def step(x):
            v[0, ::2].assign(x)
            v[1].assign(x[0])
            v[:, -1].assign([7.0, 8.0])
            return tf.reduce_sum(v * v)

        return step

    v, w = (tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) for _ in range(2))
    x = tf.constant([10.0, 20.0])
    compiled = tf.function(program(v), jit_compile=True)(x)
    plain = tf.function(program(w))(x)
    assert float(compiled) == float(plain) == 417.0  # exact: sums of small integers
    assert v.numpy().tolist() == w.numpy().tolist() == [[10.0, 2.0, 7.0], [10.0, 10.0, 8.0]]
