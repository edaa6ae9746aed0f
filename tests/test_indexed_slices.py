"""IndexedSlices: the sparse gradient of a gather, as TensorFlow 2.21 gives it.

Expected values were recorded by running the same programs on TensorFlow 2.21.
"""

import warnings

import numpy as np
import pytest

import symgrad as tf
from symgrad.ops.sparse.indexed_slices import IndexedSlicesValue

X = np.arange(6.0).reshape(3, 2)


def tape_grad(fn, x=X):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


# -------------------------------------------------------------------------------------
# The class


def test_constructed_from_tensors_and_python_values():
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    assert s.dtype is tf.float32 and s.shape == tf.TensorShape([3, 2])
    assert s.name == s.values.name and s.op is s.values.op and s.graph is s.values.graph
    assert str(s).startswith("IndexedSlices(indices=") and "dense_shape=" in str(s)
    neg = -s
    assert isinstance(neg, tf.IndexedSlices) and neg.indices is s.indices
    np.testing.assert_array_equal(neg.values.numpy(), [[-1.0, -2.0]])
    p = tf.IndexedSlices(np.ones((2, 2), np.float32), [2, 0], [3, 2])
    assert p.indices.dtype is tf.int32 and p.dense_shape.dtype is tf.int32
    np.testing.assert_array_equal(tf.convert_to_tensor(p).numpy(), [[1, 1], [0, 0], [1, 1]])
    assert tf.IndexedSlices(tf.ones([1, 2]), [0]).shape == tf.TensorShape(None)


def test_conversion_errors_have_tensorflows_texts():
    s = tf.IndexedSlices(tf.ones([1, 2]), [0])
    with pytest.raises(ValueError, match="Tensor conversion requested for IndexedSlices for "):
        tf.convert_to_tensor(s)
    t = tf.IndexedSlices(tf.ones([1, 2]), [0], [2, 2])
    with pytest.raises(ValueError, match="Incompatible tensor conversion requested to `dtype` "):
        tf.convert_to_tensor(t, dtype=tf.float64)
    assert tf.compat.v1.convert_to_tensor_or_indexed_slices(t) is t
    with pytest.raises(ValueError, match="Incompatible tensor conversion requested"):
        tf.compat.v1.convert_to_tensor_or_indexed_slices(t, tf.float64)


# -------------------------------------------------------------------------------------
# The gradient of a gather


def test_gather_of_a_variable_with_rank_2_indices():
    v = tf.Variable([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    with tf.GradientTape() as tape:
        r = tf.gather(v, [[2, 0], [2, 1]])
    g = tape.gradient(r, v)
    assert isinstance(g, tf.IndexedSlices)
    assert g.indices.dtype is tf.int32 and g.dense_shape.dtype is tf.int32
    np.testing.assert_array_equal(g.indices.numpy(), [2, 0, 2, 1])
    np.testing.assert_array_equal(g.values.numpy(), np.ones((4, 2), np.float32))
    np.testing.assert_array_equal(g.dense_shape.numpy(), [3, 2])
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [[1, 1], [1, 1], [2, 2]])


def test_embedding_lookup_gradient_and_max_norm():
    v = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(4, 3))
    with tf.GradientTape() as tape:
        e = tf.nn.embedding_lookup(v, [[0, 2], [2, 3]])
        loss = tf.reduce_sum(e * e)
    g = tape.gradient(loss, v)
    np.testing.assert_array_equal(g.indices.numpy(), [0, 2, 2, 3])
    np.testing.assert_array_equal(g.values.numpy()[[0, 3]], [[0, 2, 4], [18, 20, 22]])
    clipped = tf.nn.embedding_lookup(v, [[0, 2], [2, 3]], max_norm=2.0)
    np.testing.assert_allclose(  # TF 2.21
        clipped.numpy()[1],
        [[0.9830783, 1.1469247, 1.3107711], [1.0357836, 1.1508707, 1.2659577]],
        rtol=1e-6,
    )
    with pytest.raises(NotImplementedError, match="partitioned"):
        tf.nn.embedding_lookup([v, v], [0])


def test_two_gathers_concatenate_their_slices():
    def f(x):
        return tf.reduce_sum(tf.gather(x, [1]) * 2.0) + tf.reduce_sum(tf.gather(x, [0, 0]))

    g = tape_grad(f)
    assert isinstance(g, tf.IndexedSlices)  # TF: no sum of duplicates, order as TF's
    np.testing.assert_array_equal(g.indices.numpy(), [0, 0, 1])
    np.testing.assert_array_equal(g.values.numpy(), [[1, 1], [1, 1], [2, 2]])
    assert g.values.dtype is tf.float64


def test_mixed_index_dtypes_become_int64():
    def f(x):
        one = tf.reduce_sum(tf.gather(x, tf.constant([0], tf.int64)))
        return one + tf.reduce_sum(tf.gather(x, [2]) * 2.0)

    g = tape_grad(f)
    assert g.indices.dtype is tf.int64
    np.testing.assert_array_equal(g.indices.numpy(), [0, 2])
    np.testing.assert_array_equal(g.values.numpy(), [[1, 1], [2, 2]])


def test_a_dense_use_makes_the_sum_dense():
    g = tape_grad(lambda x: tf.reduce_sum(tf.gather(x, [1]) * 2.0) + tf.reduce_sum(x))
    assert isinstance(g, tf.Tensor)
    np.testing.assert_array_equal(g.numpy(), [[1, 1], [3, 3], [1, 1]])


def test_what_downstream_rules_receive():
    # Cast and Identity pass the slices on (Cast casts the values), as TF's rules do
    w = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    g = tape_grad(lambda x: tf.reduce_sum(tf.gather(tf.cast(x, tf.float32), [2, 0, 2]) * w))
    assert isinstance(g, tf.IndexedSlices) and g.values.dtype is tf.float64
    np.testing.assert_array_equal(g.values.numpy(), [[1, 2], [3, 4], [5, 6]])
    assert isinstance(tape_grad(lambda x: tf.gather(tf.identity(x), [1])), tf.IndexedSlices)
    # other rules get it dense; a gather along another axis has a dense gradient
    g = tape_grad(lambda x: tf.gather(x * 3.0, [1, 1]))
    np.testing.assert_array_equal(g.numpy(), [[0, 0], [6, 6], [0, 0]])
    g = tape_grad(lambda x: tf.gather(x, [1, 0], axis=1))
    assert isinstance(g, tf.Tensor)
    np.testing.assert_array_equal(g.numpy(), np.ones((3, 2)))


def test_a_user_rule_receives_the_slices():
    seen = []

    @tf.RegisterGradient("SparseSpyGrad")
    def _spy(op, grad):
        seen.append(type(grad).__name__)
        return tf.convert_to_tensor(grad) * 10.0

    g = tf.Graph()
    with g.as_default():
        a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        with g.gradient_override_map({"Identity": "SparseSpyGrad"}):
            b = tf.identity(a)
        total = tf.gradients(tf.reduce_sum(tf.gather(b, [1])), a)[0]
        with tf.compat.v1.Session() as sess:
            assert sess.run(total).tolist() == [[0.0, 0.0], [10.0, 10.0]]
    assert seen == ["IndexedSlices"]


def test_densified_gradient_matches_finite_differences_and_differentiates_again():
    idx = [[2, 0], [2, 1]]
    w = np.linspace(-1.0, 1.0, 8).reshape(2, 2, 2)

    def f(x):
        return tf.reduce_sum(tf.gather(x, idx) ** 3 * w)

    x0 = np.linspace(0.3, 1.4, 6).reshape(3, 2)
    rows = np.zeros((3, 2))
    np.add.at(rows, np.ravel(idx), w.reshape(4, 2))
    theoretical, numerical = tf.test.compute_gradient(f, [x0])
    np.testing.assert_allclose(theoretical[0].reshape(3, 2), 3 * x0**2 * rows, rtol=1e-12)
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-5, atol=1e-6)
    x = tf.constant(x0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
        assert isinstance(g, tf.IndexedSlices)
        s = tf.reduce_sum(tf.convert_to_tensor(g))
    h = outer.gradient(s, x)
    assert isinstance(h, tf.IndexedSlices)  # the outer pass ends at the gather too
    np.testing.assert_allclose(tf.convert_to_tensor(h).numpy(), 6 * x0 * rows, rtol=1e-12)


# -------------------------------------------------------------------------------------
# Graphs, Sessions and functions


def test_session_fetches_an_indexed_slices_value():
    g = tf.Graph()
    with g.as_default():
        p = tf.compat.v1.placeholder(tf.float32, [4, 2])
        w = tf.constant([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])
        gs = tf.gradients(tf.reduce_sum(tf.gather(p, [[3, 1], [3, 0]]) * w), p)[0]
        assert isinstance(gs, tf.IndexedSlices)
        with tf.compat.v1.Session() as sess:
            feed = {p: np.ones((4, 2), np.float32)}
            single = sess.run(gs, feed)
            nested = sess.run({"g": gs, "n": [gs.dense_shape]}, feed)
    for got in (single, nested["g"]):
        assert type(got) is IndexedSlicesValue
        assert got.values.tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]
        assert got.indices.tolist() == [3, 1, 3, 0] and got.dense_shape.tolist() == [4, 2]
    assert nested["n"][0].tolist() == [4, 2]
    assert tf.compat.v1.IndexedSlicesValue is IndexedSlicesValue


def test_function_returns_slices_from_the_tape_and_from_gradients():
    @tf.function
    def by_tape(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            r = tf.reduce_sum(tf.gather(x, [1]) * 2.0) + tf.reduce_sum(tf.gather(x, [0, 0]))
        return tape.gradient(r, x)

    @tf.function
    def by_gradients(x):
        return {"g": tf.gradients(tf.reduce_sum(tf.gather(x, [2, 2])), x)[0], "y": x * 2.0}

    g = by_tape(tf.constant(X))
    assert isinstance(g, tf.IndexedSlices)
    assert g.indices.numpy().tolist() == [0, 0, 1] and g.dense_shape.numpy().tolist() == [3, 2]
    out = by_gradients(tf.constant(X))
    assert isinstance(out["g"], tf.IndexedSlices) and out["g"].indices.numpy().tolist() == [2, 2]
    np.testing.assert_array_equal(tf.convert_to_tensor(out["g"]).numpy(), [[0, 0], [0, 0], [2, 2]])


def test_conversion_warns_in_a_graph_for_a_large_dense_shape():
    g = tf.Graph()
    with g.as_default():
        big = tf.compat.v1.placeholder(tf.float32, [10000, 10000])
        gb = tf.gradients(tf.reduce_sum(tf.gather(big, [3])), big)[0]
        with pytest.warns(UserWarning) as record:
            dense = tf.convert_to_tensor(gb)
        assert [str(w.message) for w in record] == [
            "Converting sparse IndexedSlices to a dense Tensor with 100000000 elements. "
            "This may consume a large amount of memory."
        ]
        assert dense.shape == tf.TensorShape([10000, 10000])
        small = tf.compat.v1.placeholder(tf.float32, [100, 10])
        gsmall = tf.gradients(tf.reduce_sum(tf.gather(small, [3])), small)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tf.convert_to_tensor(gsmall)


# -------------------------------------------------------------------------------------
# Row updates and Unique


def test_variable_scatter_methods():
    v = tf.Variable(np.zeros((4, 2), np.float32))
    v.scatter_add(tf.IndexedSlices(tf.ones([3, 2]), [1, 1, 3]))
    v.scatter_sub(tf.IndexedSlices(tf.ones([1, 2]), [0]))
    v.scatter_update(tf.IndexedSlices(tf.constant([[5.0, 6.0]]), [2]))
    np.testing.assert_array_equal(v.numpy(), [[-1, -1], [2, 2], [5, 6], [1, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 4 is not in"):
        v.scatter_add(tf.IndexedSlices(tf.ones([2, 2]), [0, 4]))
    np.testing.assert_array_equal(v.numpy()[0], [-1, -1])  # a failed update changes nothing
    with pytest.raises(TypeError, match="sparse_delta is not IndexedSlices"):
        v.scatter_add(tf.ones([4, 2]))
    with tf.GradientTape() as tape:
        rows = v.sparse_read([2, 0])
    np.testing.assert_array_equal(rows.numpy(), [[5, 6], [-1, -1]])
    assert tape.gradient(rows, v).indices.numpy().tolist() == [2, 0]


def test_unique_keeps_first_appearance_order():
    from symgrad.ops.state.variable_scatter import unique

    y, idx = unique(tf.constant([4, 1, 4, 0, 1]))
    assert y.numpy().tolist() == [4, 1, 0] and idx.numpy().tolist() == [0, 1, 0, 2, 1]


def test_params_and_indices_of_unknown_shape_in_a_graph():
    g = tf.Graph()
    with g.as_default():
        p = tf.compat.v1.placeholder(tf.float32, [None, 2])
        q = tf.compat.v1.placeholder(tf.float32, None)
        i = tf.compat.v1.placeholder(tf.int32, None)
        y = tf.reduce_sum(tf.gather(p, i) * 2.0) + tf.reduce_sum(tf.gather(q, [[1, 0]]))
        gp, gq = tf.gradients(y, [p, q])
        assert gp.values.shape.as_list() == [None, 2] and gq.shape == tf.TensorShape(None)
        dense_p = tf.convert_to_tensor(gp)
        assert dense_p.shape.as_list() == [None, 2]
        a = np.ones((3, 2), np.float32)
        with tf.compat.v1.Session() as sess:
            got_p, got_dense, got_q = sess.run(
                [gp, dense_p, tf.convert_to_tensor(gq)], {p: a, q: a, i: [[2, 2], [0, 2]]}
            )
    assert got_p.indices.tolist() == [2, 2, 0, 2] and got_p.dense_shape.tolist() == [3, 2]
    np.testing.assert_array_equal(got_dense, [[2, 2], [0, 0], [6, 6]])
    np.testing.assert_array_equal(got_q, [[1, 1], [1, 1], [0, 0]])
