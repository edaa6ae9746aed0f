"""A loop body that reads a slice of a captured tensor (``xs[t]`` in an RNN) gets its
gradient added slice by slice (StridedSliceAdd, in place in the fused loop), not as a
tensor of zeros of ``xs``'s whole shape per iteration; the numbers are unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf


def _rnn(xs, w):
    n = xs.shape[0]
    step = lambda i, h: (i + 1, tf.tanh(h * w + xs[i]))  # noqa: E731
    return tf.while_loop(lambda i, h: i < n, step, [0, tf.zeros_like(xs[0])])[1]


def _rnn_ref(xs: np.ndarray, w: np.ndarray) -> np.ndarray:
    h = np.zeros_like(xs[0])
    for x in xs:
        h = np.tanh(h * w + x)
    return h


def test_the_gradient_loop_adds_each_slice_and_matches_finite_differences() -> None:
    rng = np.random.default_rng(5)
    xs, w = rng.standard_normal((6, 3)), rng.standard_normal(3)
    tf.test.check_vjp(_rnn, [xs, w], order=2)
    with tf.Graph().as_default() as g:
        x, v = tf.constant(xs), tf.constant(w)
        h = _rnn(x, v)
        dx, _ = tf.gradients(tf.reduce_sum(h * h), [x, v])
        with tf.Session() as sess:
            got_h, got_dx = sess.run([h, dx])
    np.testing.assert_allclose(got_h, _rnn_ref(xs, w), rtol=1e-12)
    eps, fd = 1e-6, np.zeros_like(xs)
    for idx in np.ndindex(*xs.shape):
        up, down = xs.copy(), xs.copy()
        up[idx] += eps
        down[idx] -= eps
        fd[idx] = (np.sum(_rnn_ref(up, w) ** 2) - np.sum(_rnn_ref(down, w) ** 2)) / (2 * eps)
    np.testing.assert_allclose(got_dx, fd, rtol=1e-6, atol=1e-9)
    # the gradient loop adds the slice; the StridedSliceGrad backprop made is read by
    # nothing (a plan drops it)
    (grad_loop,) = [op for op in g.get_operations() if op.name.endswith("while_grad")]
    ops = grad_loop.get_attr("body").graph.get_operations()
    assert "StridedSliceAdd" in {op.type for op in ops}
    read = {id(t.op) for op in ops for t in op.inputs}
    assert all(id(op) not in read for op in ops if op.type == "StridedSliceGrad")


@pytest.mark.parametrize(
    "read",
    [
        lambda xs, i: xs[:, i],  # a column
        lambda xs, i: xs[i, 1:3],  # part of a row
        lambda xs, i: xs[::-1][i],  # through a reversed view
        lambda xs, i: xs[i : i + 2, ::2],  # a block, strided
    ],
)
def test_other_slices_read_in_a_loop(read) -> None:
    rng = np.random.default_rng(6)
    xs = rng.standard_normal((4, 4))

    def fn(xs):
        def step(i, s):
            return i + 1, s + tf.reduce_sum(tf.sin(read(xs, i)) * tf.cast(i + 1, xs.dtype))

        return tf.while_loop(lambda i, s: i < 3, step, [0, tf.constant(0.0, xs.dtype)])[1]

    tf.test.check_vjp(fn, [xs], order=2)


def test_strided_slice_add_adds_into_the_slice() -> None:
    from symgrad.ops.array.strided_slice_add import strided_slice_add

    with tf.Graph().as_default():
        x = tf.constant(np.zeros((3, 4)))
        [g] = tf.gradients(x[1], [x], grad_ys=[tf.constant(np.arange(4.0))])  # StridedSliceGrad
        out = strided_slice_add(tf.constant(np.ones((3, 4))), g)
        assert out.op.type == "StridedSliceAdd"
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out), [[1, 1, 1, 1], [1, 2, 3, 4], [1, 1, 1, 1]])


def test_the_gradient_loop_keeps_no_stack_of_a_sum_it_adds_parts_into() -> None:
    """Adding a slice or a row into a captured tensor's gradient, like ``v + d``, reads
    none of the sum's values: a second-order pass over the gradient loop stacks neither."""
    with tf.Graph().as_default() as g:
        h = tf.constant(np.linspace(0.0, 1.0, 15).reshape(5, 3))
        x = tf.placeholder(tf.float64, [4, 3])
        _, r = tf.while_loop(
            lambda i, s: i < 5,
            lambda i, s: (i + 1, tf.tanh(s + h[i])),
            [0, tf.zeros([3], tf.float64)],
        )
        y = tf.map_fn(lambda e: tf.sin(e) * e, x)
        tf.gradients(tf.reduce_sum(r), [h])
        tf.gradients(tf.reduce_sum(y), [x])
    grad_loops = [op for op in g.get_operations() if op.name.endswith("_grad/while_grad")]
    assert len(grad_loops) == 2
    for op in grad_loops:  # [counter, the loop variables' gradients, the captured one's]
        assert op.get_attr("accumulate")[-1] is False


def test_strided_slice_add_names_a_dy_that_does_not_fit_the_slice() -> None:
    from symgrad.core.op_registry import apply_op

    masks = dict.fromkeys(
        ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), 0
    )
    masks["shrink_axis_mask"] = 1
    total, dy = tf.constant(np.ones((3, 4))), tf.constant(np.ones(5))
    bounds = [tf.constant([1]), tf.constant([2]), tf.constant([1])]
    with pytest.raises(ValueError, match=r"dy has shape \(5,\) but the slice of a tensor of shape"):
        apply_op("StridedSliceAdd", [total, *bounds, dy], masks)
