"""tf.boolean_mask and tf.compat.v1.boolean_mask: TensorFlow 2.21's values, shapes and
gradient (gather's: picked rows get theirs, the rest zeros) for the same program."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf


def test_values_shapes_and_gradient() -> None:
    x = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    m = tf.constant([[True, False, True], [False, False, True]])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.boolean_mask(x, m)
        z = tf.boolean_mask(x, [True, False, True, True], axis=2)
        w = tf.compat.v1.boolean_mask(x, [False, True], "bm", 0)  # TF1: name third
        loss = tf.reduce_sum(y * y) + tf.reduce_sum(z) + 3 * tf.reduce_sum(w)
    assert y.shape == (3, 4) and z.shape == (2, 3, 3) and w.shape == (1, 3, 4)
    assert y.numpy().tolist() == [[0, 1, 2, 3], [8, 9, 10, 11], [20, 21, 22, 23]]
    assert z.numpy()[1].tolist() == [[12, 14, 15], [16, 18, 19], [20, 22, 23]]
    assert t.gradient(loss, x).numpy().tolist() == [
        [[1, 2, 5, 7], [1, 0, 1, 1], [17, 18, 21, 23]],
        [[4, 3, 4, 4], [4, 3, 4, 4], [44, 45, 48, 50]],
    ]


def test_unknown_leading_size_in_function() -> None:
    spec = [tf.TensorSpec([None, 3]), tf.TensorSpec([None], tf.bool)]

    @tf.function(input_signature=spec)
    def f(a, b):
        r = tf.boolean_mask(a, b)
        return r, tf.shape(r)

    r, s = f(tf.constant([[1.0, 2, 3], [4, 5, 6]]), tf.constant([False, True]))
    assert r.numpy().tolist() == [[4, 5, 6]] and s.numpy().tolist() == [1, 3]


def test_bad_masks_are_refused_at_the_call() -> None:
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        tf.boolean_mask([1.0, 2.0], True)
    with pytest.raises(ValueError, match="incompatible"):
        tf.boolean_mask([1.0, 2.0], [True, False, True])
