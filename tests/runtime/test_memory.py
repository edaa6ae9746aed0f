"""The static memory estimate of a plan, against hand-counted buffers."""

from __future__ import annotations

import numpy as np

import symgrad as tf
from symgrad.runtime.memory import estimate_memory


def test_peak_counts_live_buffers_with_the_fed_batch_size():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None])
        y = tf.reduce_sum(tf.exp(tf.sin(x)))
        est = estimate_memory(y, {x: np.zeros(1000)})
    # feed 8000 B; sin's output (8000) is live while exp writes its own (8000).
    assert est.feed_bytes == 8000
    assert est.peak_bytes == 24000 and est.peak_step.startswith("Exp")
    assert est.variable_bytes == 0 and est.held_for_backward == []


def test_values_held_for_the_backward_pass_are_named():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8])
        w = tf.Variable(np.ones((8, 4), np.float32))
        h = tf.nn.relu(tf.matmul(x, w, name="dense"), name="act")
        loss = tf.reduce_sum(h * h)
        (gw,) = tf.gradients(loss, [w])
        est = estimate_memory(gw, {x: np.ones((16, 8), np.float32)})
    held = dict(est.held_for_backward)
    assert held["act"] == 16 * 4 * 4  # the ReLU output, read by ReluGrad and the square's rule
    assert est.variable_bytes == 8 * 4 * 4
    assert "predicted peak" in str(est) and "act" in str(est)


def test_a_matmul_whose_transpose_was_folded_is_sized_from_the_feeds():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64, [5, None])
        b = tf.placeholder(tf.float64, [5, None])
        y = tf.reduce_sum(tf.matmul(tf.transpose(a), b))  # the plan reads a with transpose_a
        feeds = {a: np.ones((5, 300)), b: np.ones((5, 200))}
        est = estimate_memory(y, feeds)
        assert tf.Session().run(y, feeds) == 5 * 300 * 200
    # feeds 12000 + 8000 B, the [300, 200] product, then the sum (8 B) while it is read;
    # no transposed copy of a
    assert est.peak_bytes == 20000 + 300 * 200 * 8 + 8 and est.peak_step.startswith("Sum")
