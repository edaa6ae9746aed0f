"""Clipping: TensorFlow 2.21's numbers for the programs of tf_clip.py, bit for bit."""

import numpy as np
import pytest
import tf_clip
from compare import assert_matches

import symgrad as tf
from symgrad.api.testing import check_vjp

nan, inf = float("nan"), float("inf")
LITERALS = {
    "clip_value": (
        [[0.5, -0.75, 1.5], [0.5, 0.0, -0.75]],
        [[1.0, 0.0, 0.0], [0.0, 5.0, 6.0]],
        2.0,
        [4.0, 0.0, 3.0],
    ),
    "clip_norm": (
        [[0.31878835, -1.9127301, 1.2751534], [0.7969709, 0.0, -0.47818252]],
        [[0.13736056, -0.8241634, 0.54944223], [0.857493, 0.0, -0.5144958]],
        [[0.5, -3.0, 2.0], [1.25, 0.0, -0.75]],
        [[0.0, -0.0], [0.0, 0.0]],
        [[0.6329304, 4.366509, 4.864319], [2.3112626, 0.0, -0.22045884]],
        [[0.0, -5.9604645e-08, 0.0], [-5.9604645e-08, 0.0, 5.9604645e-08]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
    ),
    "global_norms": (
        5.7987065,
        [[0.17245226, -1.0347135, 0.689809], [0.43113065, 0.0, -0.25867838]],
        [1.379618, -0.51735675],
        5.7987065,
        [[0.049694933, 0.99426097, 0.56804556], [0.23963292, 0.0, 0.040853184]],
        [0.49628675, 0.28813618],
        [[0.125, -0.75, 0.5], [0.3125, 0.0, -0.1875]],
        [1.0, -0.375],
        8.0,
        [[0.5, -3.0, 2.0], [1.25, 0.0, -0.75]],
        3.9210968,
        [[nan, nan, nan], [nan, nan, nan]],
        inf,
        True,
    ),
}


@pytest.mark.parametrize("program", tf_clip.PROGRAMS, ids=lambda p: p.__name__)
def test_tensorflow_numbers(program):
    assert_matches(program(tf), LITERALS[program.__name__])


# -------------------------------------------------------------------------------------
# Gradients against float64 finite differences (away from the kinks), graphs, slices

X = np.array([[0.3, -2.1, 1.7], [1.1, 0.4, -0.9]])


def test_clip_by_value_gradients():
    check_vjp(
        lambda t, lo, hi: tf.clip_by_value(t, lo, hi), [X, -1.0, np.array([0.5, 1.0, 1.5])], order=2
    )


def test_clip_by_norm_gradients():
    check_vjp(lambda t: tf.clip_by_norm(t, 1.5), [X], order=2)
    check_vjp(lambda t: tf.clip_by_norm(t, 1.5, axes=[0]), [X], order=2)
    check_vjp(lambda t, c: tf.clip_by_norm(t, c), [X, 1.5], order=2)


def test_clip_by_global_norm_gradients():
    check_vjp(lambda a, b: tf.clip_by_global_norm([a, b], 2.0)[0], [X, X[0] * 3], order=2)
    check_vjp(lambda a, b: tf.global_norm([a, None, b]), [X, X[0]], order=2)


def test_clip_in_a_session_graph():
    with tf.Graph().as_default():
        t = tf.compat.v1.placeholder(tf.float32, [None, 3])
        (c,), norm = tf.clip_by_global_norm([t], 2.0)
        v = tf.clip_by_value(t, -0.75, 1.5)
        with tf.compat.v1.Session() as sess:
            got_c, got_n, got_v = sess.run([c, norm, v], {t: tf_clip.T})
    expected = LITERALS["global_norms"]
    np.testing.assert_array_equal(got_v, np.minimum(np.maximum(tf_clip.T, -0.75), 1.5))
    np.testing.assert_allclose(got_n, 3.9210968, rtol=1e-7)
    assert got_c.shape == (2, 3) and expected[10] == 3.9210968


def test_sparse_values_are_clipped_and_keep_their_indices():
    s = tf.IndexedSlices(tf.constant([[3.0, 4.0]]), tf.constant([2]), tf.constant([5, 2]))
    by_norm = tf.clip_by_norm(s, 1.0)
    assert isinstance(by_norm, tf.IndexedSlices) and by_norm.indices is s.indices
    np.testing.assert_allclose(by_norm.values.numpy(), [[0.6, 0.8]], rtol=1e-6)
    by_value = tf.clip_by_value(s, 0.0, 3.5)
    np.testing.assert_array_equal(by_value.values.numpy(), [[3.0, 3.5]])
    (clipped, _dense), norm = tf.clip_by_global_norm([s, tf.constant([0.0, 12.0])], 6.5)
    assert norm.numpy() == 13.0 and clipped.dense_shape is s.dense_shape
    np.testing.assert_allclose(clipped.values.numpy(), [[1.5, 2.0]], rtol=1e-6)


def test_bad_arguments():
    with pytest.raises(ValueError, match="must not enlarge t"):
        tf.clip_by_value(tf.constant([1.0, 2.0]), tf.zeros([3, 2]), 1.0)
    with pytest.raises(TypeError, match="should be a sequence of tensors"):
        tf.clip_by_global_norm(tf.constant([1.0]), 1.0)
    with pytest.raises(TypeError, match="should be a sequence of tensors"):
        tf.global_norm("abc")


def test_negative_clip_norm_counts_as_zero():
    np.testing.assert_array_equal(
        tf.clip_by_norm(tf.constant([3.0, 4.0]), -1.0).numpy(), [0.0, 0.0]
    )
