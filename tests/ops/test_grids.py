"""``tf.linspace``, ``tf.repeat`` and ``tf.meshgrid`` (``api/array_ops.py``).  The literals
are TensorFlow 2.21's for the same calls; float32 values compare exactly (the same ops
in the same order as TF's composition), gradients against finite differences too."""

import numpy as np
import pytest

import symgrad as tf


def _v(t):
    return t.numpy().tolist(), t.dtype.name, tuple(t.shape)


def test_linspace_is_tfs():
    assert _v(tf.linspace(0.0, 1.0, 5)) == ([0.0, 0.25, 0.5, 0.75, 1.0], "float32", (5,))
    seven = [
        -1.2999999523162842, -0.5999999642372131, 0.10000002384185791, 0.7999999523162842,
        1.5, 2.200000047683716, 2.9000000953674316,
    ]  # fmt: skip
    assert _v(tf.linspace(-1.3, 2.9, 7)) == (seven, "float32", (7,))
    assert _v(tf.linspace(0, 10, 4)) == (
        [0.0, 3.3333333333333335, 6.666666666666667, 10.0],
        "float64",  # integer ends: TF's true division
        (4,),
    )
    assert _v(tf.linspace(2.0, 3.0, 1)) == ([2.0], "float32", (1,))
    assert _v(tf.linspace(2.0, 3.0, 0)) == ([], "float32", (0,))
    assert _v(tf.linspace(tf.constant(0.0, tf.float64), 1.0, 3))[1] == "float64"
    assert _v(tf.linspace([0.0, 1.0], [1.0, 3.0], 3)) == (
        [[0.0, 1.0], [0.5, 2.0], [1.0, 3.0]],
        "float32",
        (3, 2),
    )
    assert _v(tf.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=1))[0] == [
        [0.0, 0.5, 1.0],
        [1.0, 2.0, 3.0],
    ]
    assert _v(tf.linspace([0.0, 1.0], [1.0, 3.0], 4, axis=-1))[0] == [
        [0.0, 0.3333333432674408, 0.6666666865348816, 1.0],
        [1.0, 1.6666667461395264, 2.3333334922790527, 3.0],
    ]
    assert _v(tf.linspace(0.0, 1.0, tf.constant(3)))[0] == [0.0, 0.5, 1.0]
    assert _v(tf.compat.v1.lin_space(0.0, 1.0, 3))[0] == [0.0, 0.5, 1.0]


def test_repeat_is_tfs():
    m = [[1, 2], [3, 4]]
    assert _v(tf.repeat([1, 2], 2)) == ([1, 1, 2, 2], "int32", (4,))
    assert _v(tf.repeat(m, 2))[0] == [1, 1, 2, 2, 3, 3, 4, 4]  # flattened
    assert _v(tf.repeat(m, [2, 3], axis=0))[0] == [[1, 2], [1, 2], [3, 4], [3, 4], [3, 4]]
    assert _v(tf.repeat(m, [2, 3], axis=1))[0] == [[1, 1, 2, 2, 2], [3, 3, 4, 4, 4]]
    assert _v(tf.repeat([1.0, 2.0, 3.0], [3, 0, 2], axis=0))[0] == [1.0, 1.0, 1.0, 3.0, 3.0]
    assert _v(tf.repeat(3, 4))[0] == [3, 3, 3, 3]
    assert _v(tf.repeat(m, 2, axis=-1))[0] == [[1, 1, 2, 2], [3, 3, 4, 4]]
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.repeat(m, [1, 2, 3], axis=0)
    with pytest.raises(TypeError, match="repeats must be int32 or int64, got float32"):
        tf.repeat([1, 2], 1.5)


def test_meshgrid_is_tfs():
    xy = tf.meshgrid([1, 2, 3], [4, 5])
    assert [t.numpy().tolist() for t in xy] == [[[1, 2, 3], [1, 2, 3]], [[4, 4, 4], [5, 5, 5]]]
    ij = tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    assert [t.numpy().tolist() for t in ij] == [[[1, 1], [2, 2], [3, 3]], [[4, 5], [4, 5], [4, 5]]]
    assert [t.shape.as_list() for t in tf.meshgrid([1, 2], [3, 4, 5], [6, 7, 8, 9])] == [
        [3, 2, 4]
    ] * 3
    assert [t.numpy().tolist() for t in tf.meshgrid([1, 2])] == [[1, 2]]
    with pytest.raises(ValueError, match="must be either 'xy' or 'ij', got 'xx'"):
        tf.meshgrid([1], indexing="xx")


def _fd(f, x, eps=1e-6):
    return np.array(
        [(f(x + eps * d) - f(x - eps * d)) / (2 * eps) for d in np.eye(len(x))], np.float64
    )


def test_gradients_are_tfs_and_finite_differences():
    # TF 2.21 (float32): repeat [4, 0, 18], [2, 2, 2], [9, 18, 27]; linspace [5, 10];
    # meshgrid [9, 9, 9].
    x = tf.constant([1.0, 2.0, 3.0])
    s0, s1 = tf.constant(0.5), tf.constant(2.5)
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, s0, s1])
        a = tf.repeat(x, [2, 0, 3])
        b = tf.repeat(x, 2)
        rows = tf.repeat(tf.reshape(x, [1, 3]) * 1.5, [2], axis=0)
        line = tf.linspace(s0, s1, 5)
        g1, g2 = tf.meshgrid(x, x)
        ya, yr, yl, ym = a * a, tf.reduce_sum(rows * rows), line * line, g1 * 2.0 + g2
    assert t.gradient(ya, x).numpy().tolist() == [4.0, 0.0, 18.0]
    assert t.gradient(b, x).numpy().tolist() == [2.0, 2.0, 2.0]
    assert t.gradient(yr, x).numpy().tolist() == [9.0, 18.0, 27.0]
    assert [g.numpy().tolist() for g in t.gradient(yl, [s0, s1])] == [5.0, 10.0]
    assert t.gradient(ym, x).numpy().tolist() == [9.0, 9.0, 9.0]

    x64 = np.array([0.3, -1.2, 2.0])
    for f in (
        lambda v: tf.reduce_sum(tf.repeat(v, [2, 0, 3]) ** 3),
        lambda v: tf.reduce_sum(tf.sin(tf.repeat(tf.reshape(v, [1, 3]), [1, 2, 3], axis=1))),
        lambda v: tf.reduce_sum(tf.linspace(v[0], v[1], 4) ** 2 * v[2]),
        lambda v: tf.reduce_sum(tf.meshgrid(v, v * v)[0] * tf.meshgrid(v, v)[1]),
    ):
        v = tf.constant(x64)
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = f(v)
        want = _fd(lambda a, f=f: float(f(tf.constant(a)).numpy()), x64)
        np.testing.assert_allclose(tape.gradient(y, v).numpy(), want, rtol=1e-7, atol=1e-9)


def test_in_a_function_and_a_graph():
    @tf.function
    def f(n):
        return tf.linspace(0.0, 1.0, n), tf.repeat([1, 2], n)

    line, rep = f(tf.constant(3))
    assert (line.numpy().tolist(), rep.numpy().tolist()) == ([0.0, 0.5, 1.0], [1, 1, 1, 2, 2, 2])
    with tf.Graph().as_default():
        n = tf.compat.v1.placeholder(tf.int32, [])
        r = tf.repeat([[1, 2], [3, 4]], tf.stack([n, 1]), axis=1)
        with tf.compat.v1.Session() as sess:
            assert sess.run(r, {n: 2}).tolist() == [[1, 1, 2], [3, 3, 4]]


def test_sequence_mask_is_tfs():
    assert _v(tf.sequence_mask([1, 3], 4)) == (
        [[True, False, False, False], [True, True, True, False]],
        "bool",
        (2, 4),
    )
    assert _v(tf.sequence_mask([1, 3]))[0] == [[True, False, False], [True, True, True]]
    assert _v(tf.sequence_mask([[1, 2], [0, 3]])) == (
        [[[True, False, False], [True, True, False]], [[False, False, False], [True, True, True]]],
        "bool",
        (2, 2, 3),
    )
    assert _v(tf.sequence_mask([1, 2], 3, dtype=tf.float32)) == (
        [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
        "float32",
        (2, 3),
    )
    assert _v(tf.sequence_mask(2, 3))[0] == [True, True, False]
    assert _v(tf.sequence_mask([1], tf.constant(2)))[0] == [[True, False]]
    assert _v(tf.sequence_mask([1.5], 3))[0] == [[True, False, False]]


def test_confusion_matrix_is_tfs():
    assert _v(tf.math.confusion_matrix([0, 1, 2], [1, 1, 2])) == (
        [[0, 1, 0], [0, 1, 0], [0, 0, 1]],
        "int32",
        (3, 3),
    )
    assert _v(tf.math.confusion_matrix([0, 1], [1, 1], num_classes=3))[0] == [
        [0, 1, 0],
        [0, 1, 0],
        [0, 0, 0],
    ]
    assert _v(tf.math.confusion_matrix([0, 1], [1, 1], weights=[2, 3]))[0] == [[0, 2], [0, 3]]
    assert _v(tf.compat.v1.confusion_matrix([0, 1], [1, 1], dtype=tf.float32)) == (
        [[0.0, 1.0], [0.0, 1.0]],
        "float32",
        (2, 2),
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` contains negative"):
        tf.math.confusion_matrix([-1, 1], [1, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` out of bound"):
        tf.math.confusion_matrix([0, 3], [1, 1], num_classes=2)
    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, [None])
        m = tf.math.confusion_matrix(labels, [1, 1], num_classes=2)
        with tf.compat.v1.Session() as sess:
            assert sess.run(m, {labels: [0, 1]}).tolist() == [[0, 1], [0, 1]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` out of bound"):
                sess.run(m, {labels: [0, 2]})


def test_to_categorical_is_keras():
    to_categorical = tf.keras.utils.to_categorical
    out = to_categorical([0, 2], 3)
    assert (type(out), out.dtype.name, out.tolist()) == (
        np.ndarray,
        "float64",
        [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
    )
    assert to_categorical([0, 2, 1]).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert to_categorical([[0], [1]], 2).tolist() == [[1, 0], [0, 1]]  # a trailing 1 dropped
    assert to_categorical([[0, 1], [1, 0]], 2).shape == (2, 2, 2)
    assert to_categorical([1.0, 0.0], 2).tolist() == [[0, 1], [1, 0]]
    assert _v(to_categorical(tf.constant([1, 0]), 2)) == (
        [[0.0, 1.0], [1.0, 0.0]],
        "float32",
        (2, 2),
    )


def test_tf1_and_tf2_signatures():
    """TF's signatures: TF1's confusion_matrix takes dtype fourth, TF2's weights;
    meshgrid is (*args, **kwargs) and names a bad keyword."""
    v1 = tf.compat.v1.confusion_matrix([0, 1], [1, 1], 2, tf.float32)
    assert (v1.dtype, v1.numpy().tolist()) == (tf.float32, [[0.0, 1.0], [0.0, 1.0]])
    assert tf.compat.v1.math.confusion_matrix([0, 1], [1, 1], None, tf.float32).dtype == tf.float32
    assert tf.math.confusion_matrix([0, 1], [1, 1], None, [2, 3]).numpy().tolist() == [
        [0, 2],
        [0, 3],
    ]
    with pytest.raises(TypeError, match="'foo' is an invalid keyword argument for this function"):
        tf.meshgrid([1], foo=1)


def test_bad_arguments_raise_tfs_errors():
    with pytest.raises(TypeError, match=r"Argument `axis` must be an int. Received `axis` = 0.5"):
        tf.repeat([[1, 2]], 2, axis=0.5)
    with pytest.raises(ValueError, match=r"Shape \(2, 2\) must have rank at most 1"):
        tf.repeat([1, 2], [[1, 2], [1, 2]], axis=0)
    with pytest.raises(ValueError, match="axis=5 out of bounds: expected -2<=axis<2"):
        tf.repeat([[1, 2]], 2, axis=5)
    with pytest.raises(
        ValueError,
        match=r"`maxlen` must be scalar for sequence_mask, received `maxlen` = \[2 3\] with "
        r"shape '\(2,\)' instead",
    ):
        tf.sequence_mask([1], [2, 3])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.math.confusion_matrix([0, 1], [1, 1], weights=[1, 2, 3])
    with tf.Graph().as_default():  # a negative axis needs start's rank
        start = tf.compat.v1.placeholder(tf.float32, None)
        with pytest.raises(ValueError, match="axis=-1 needs the rank of start"):
            tf.linspace(start, start, 3, axis=-1)
