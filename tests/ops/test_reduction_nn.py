"""Edge cases of reductions and nn ops: ties, zeros, NaN, integer dtypes, TF quirks, errors."""

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError


def _grad(f, x):
    t = tf.constant(x)
    return tf.gradients(f(t), t)[0].numpy()


# -- Max / Min


def test_max_ties_split_evenly():
    np.testing.assert_array_equal(_grad(tf.reduce_max, np.array([1.0, 3, 3, 2])), [0, 0.5, 0.5, 0])
    np.testing.assert_allclose(_grad(tf.reduce_min, np.full(3, 2.0)), [1 / 3] * 3)


def test_max_ties_per_row_with_axis_and_keepdims():
    x = np.array([[1.0, 5, 5], [4, 2, 0]])
    g = _grad(lambda t: tf.reduce_max(t, 1, keepdims=True), x)
    np.testing.assert_array_equal(g, [[0, 0.5, 0.5], [1, 0, 0]])
    np.testing.assert_array_equal(_grad(lambda t: tf.reduce_min(t, -2), x), [[1, 0, 0], [0, 1, 1]])


def test_nan_in_group_gives_nan_gradient_for_that_group():
    x = np.array([[1.0, np.nan, 3], [1, 2, 3]])
    assert np.isnan(tf.reduce_max(x, 1).numpy()[0])
    with np.errstate(invalid="ignore"):  # the 0/0 that makes the NaN
        g = _grad(lambda t: tf.reduce_max(t, 1), x)
    assert np.all(np.isnan(g[0]))
    np.testing.assert_array_equal(g[1], [0, 0, 1])


def test_max_of_empty_is_lowest():
    assert tf.reduce_max(np.zeros((0,), np.float32)).numpy() == -np.inf
    assert tf.reduce_min(np.zeros((2, 0), np.int32), 1).numpy().tolist() == [2**31 - 1] * 2


# -- Prod


def test_prod_gradient_with_one_zero_goes_to_the_zero_only():
    np.testing.assert_array_equal(_grad(tf.reduce_prod, np.array([2.0, 0, 3])), [0, 6, 0])


def test_prod_gradient_with_two_zeros_is_zero():
    np.testing.assert_array_equal(_grad(tf.reduce_prod, np.array([2.0, 0, 3, 0])), [0] * 4)


def test_prod_gradient_over_several_axes():
    x = np.arange(1.0, 25).reshape(2, 3, 4)
    x[1, 2, 0] = 0
    g = _grad(lambda t: tf.reduce_prod(t, [0, 2]), x)
    p = np.prod(x, axis=(0, 2), keepdims=True)
    expected = np.where(x == 0, 0, p / np.where(x == 0, 1, x))
    expected[1, 2, 0] = np.prod(np.delete(x[:, 2, :].ravel(), 4))
    np.testing.assert_allclose(g, expected)


def test_prod_complex_gradient_is_conjugate():
    t = tf.constant(np.array([1 + 2j, 3 - 1j, 0.5j]))
    g = tf.gradients(tf.reduce_prod(t), t, grad_ys=tf.constant(1 + 0j, tf.complex128))[0]
    others = np.array([(3 - 1j) * 0.5j, (1 + 2j) * 0.5j, (1 + 2j) * (3 - 1j)])
    np.testing.assert_allclose(g.numpy(), np.conj(others))


def test_prod_gradient_with_unknown_shape_in_a_graph():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        g = tf.gradients(tf.reduce_prod(x, 1), x)[0]
        with tf.Session() as sess:
            out = sess.run(g, {x: [[2, 0, 3], [1, 2, 4]]})
    np.testing.assert_array_equal(out, [[0, 6, 0], [8, 4, 2]])


# -- integer dtypes, Mean, Any/All, ArgMax/ArgMin


def test_integer_reductions_keep_their_dtype():
    x = np.array([[1, 2, 3], [4, 5, 7]], np.int32)
    for f in (tf.reduce_sum, tf.reduce_mean, tf.reduce_max, tf.reduce_min, tf.reduce_prod):
        assert f(x, 1).dtype == tf.int32


def test_integer_mean_truncates_toward_zero_like_tf():
    assert tf.reduce_mean(np.array([1, 2], np.int32)).numpy() == 1
    assert tf.reduce_mean(np.array([-1, -2], np.int32)).numpy() == -1
    assert tf.reduce_mean(np.array([[-7, 0], [7, 2]], np.int64), 1).numpy().tolist() == [-3, 4]


def test_mean_of_empty_float_is_nan():
    assert np.isnan(tf.reduce_mean(np.zeros((0,), np.float32)).numpy())


def test_any_all_and_arg_ops_have_no_gradient():
    x = tf.constant([[1.0, 4, 2], [3, 0, 5]])
    assert tf.argmax(x, 1).dtype == tf.int64
    assert tf.argmin(x, 0, output_type=tf.int32).numpy().tolist() == [0, 1, 0]
    assert tf.argmax(x).numpy().tolist() == [1, 0, 1]  # default axis 0
    b = tf.greater(x, 2.0)
    assert tf.reduce_any(b, 1).numpy().tolist() == [True, True]
    assert tf.reduce_all(b).numpy().tolist() is False
    for y in (tf.cast(tf.argmax(x, 1), tf.float32), tf.cast(tf.reduce_any(b), tf.float32)):
        assert tf.gradients(y, x) == [None]


def test_reduction_op_types_and_attrs():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        for f, op_type in (
            (tf.reduce_max, "Max"),
            (tf.reduce_min, "Min"),
            (tf.reduce_prod, "Prod"),
            (tf.argmax, "ArgMax"),
        ):
            y = f(x, 1)
            assert y.op.type == op_type
        assert tf.reduce_max(x, keepdims=True).op.get_attr("keep_dims") is True
        assert tf.reduce_max(x).op.name == "Max_2"


def test_bad_axis_is_a_clear_error():
    x = tf.constant(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2"):
        tf.reduce_max(x, 2)
    with pytest.raises(ValueError, match="Invalid reduction dimension -3"):
        tf.reduce_prod(x, [0, -3])
    with pytest.raises(ValueError, match=r"Expected dimension in the range \[-2, 2\), but got 2"):
        tf.argmax(x, 2)
    with pytest.raises(TypeError, match="input 'input' has dtype bool"):
        tf.reduce_max(tf.constant([True]))
    with pytest.raises(TypeError, match="input 'input' has dtype float32"):
        tf.reduce_any(x)


# -- Relu, Softplus, L2Loss


def test_relu_gradient_at_zero_is_zero_and_relu_grad_has_a_gradient():
    x = tf.constant([-1.0, 0, 2])
    g = tf.gradients(tf.nn.relu(x), x)[0]
    np.testing.assert_array_equal(g.numpy(), [0, 0, 1])
    assert g.op.type == "ReluGrad"
    gg = tf.gradients(g * tf.constant([1.0, 2, 3]), x)
    np.testing.assert_array_equal(gg[0].numpy(), [0, 0, 0])


def test_softplus_is_stable_at_large_inputs():
    x = tf.constant([100.0, -100, 0])
    np.testing.assert_allclose(
        tf.nn.softplus(x).numpy(), [100, 0, np.log(2)], rtol=1e-6, atol=1e-40
    )
    g = tf.gradients(tf.nn.softplus(x), x)[0].numpy()
    assert g[0] == 1.0  # the naive log(1 + exp(x)) gives nan here
    np.testing.assert_allclose(g, [1, 0, 0.5], atol=1e-40)


def test_l2_loss():
    x = tf.constant([[1.0, 2], [3, 4]])
    assert tf.nn.l2_loss(x).numpy() == 15
    np.testing.assert_array_equal(tf.gradients(tf.nn.l2_loss(x), x)[0].numpy(), x.numpy())


def test_nn_namespace():
    import symgrad.api.nn

    assert tf.nn is symgrad.api.nn and tf.nn.sigmoid is tf.sigmoid and tf.nn.tanh is tf.tanh
    for name in (
        "relu",
        "softmax",
        "log_softmax",
        "softplus",
        "l2_loss",
        "softmax_cross_entropy_with_logits",
        "sparse_softmax_cross_entropy_with_logits",
    ):
        assert callable(getattr(tf.nn, name))


# -- Softmax family


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


LOGITS = np.array([[1.0, 2, 0.5], [-1, 0, 3]])


def test_softmax_op_types_and_axis_error():
    assert tf.nn.softmax(LOGITS).op.type == "Softmax"
    assert tf.nn.log_softmax(LOGITS).op.type == "LogSoftmax"
    assert tf.nn.softmax(LOGITS, axis=0).op.type == "Transpose"
    with pytest.raises(InvalidArgumentError, match=r"`dim` must be in the range \[-2, 2\)"):
        tf.nn.softmax(LOGITS, axis=2)


@pytest.mark.parametrize("sparse", [False, True])
def test_cross_entropy_hessian_is_diag_p_minus_ppt(sparse):
    x = tf.constant(LOGITS)
    if sparse:
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 2], logits=x)
    else:
        loss = tf.nn.softmax_cross_entropy_with_logits(
            labels=[[0.2, 0.5, 0.3], [0, 0, 1.0]], logits=x
        )
    g = tf.gradients(tf.reduce_sum(loss), x)[0]
    rows = []  # rows[j][b] = d g[b, j] / d x[b, :]
    for j in range(3):
        mask = np.zeros(LOGITS.shape)
        mask[:, j] = 1
        rows.append(tf.gradients(tf.reduce_sum(g * mask), x)[0].numpy())
    p = _softmax(LOGITS)
    for b in range(2):
        hessian = np.stack([rows[j][b] for j in range(3)])
        np.testing.assert_allclose(hessian, np.diag(p[b]) - np.outer(p[b], p[b]), atol=1e-12)


def test_cross_entropy_labels_not_summing_to_one_tf_quirk():
    x = tf.constant([[1.0, 2, 3]])
    g = tf.gradients(
        tf.nn.softmax_cross_entropy_with_logits(labels=[[0.5, 0.5, 0.5]], logits=x), x
    )[0]
    np.testing.assert_allclose(g.numpy(), _softmax(np.array([[1.0, 2, 3]])) - 0.5, rtol=1e-6)


def test_cross_entropy_gradients_for_labels_and_values():
    x, y = tf.constant(LOGITS), tf.constant([[0.2, 0.5, 0.3], [0, 0, 1.0]])
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x)
    logp = np.log(_softmax(LOGITS))
    np.testing.assert_allclose(loss.numpy(), -np.sum(y.numpy() * logp, -1))
    gx, gy = tf.gradients(loss * np.array([2.0, 3]), [x, y])
    np.testing.assert_allclose(gy.numpy(), -logp * [[2], [3]])
    np.testing.assert_allclose(gx.numpy(), (_softmax(LOGITS) - y.numpy()) * [[2], [3]])


def test_first_order_cross_entropy_gradient_skips_the_second_order_term():
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [2, 3])
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=[[0.0, 1, 0], [1, 0, 0]], logits=x)
        before = len(graph.get_operations())
        tf.gradients(loss, x)
        new = [op.type for op in graph.get_operations()[before:]]
    assert "Softmax" not in new


def test_cross_entropy_graph_structure():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 3])
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=tf.zeros([4, 3]), logits=x)
        # Rank-2 logits go straight in (TF reshapes them to the same shape first).
        assert loss.op.type == "SoftmaxCrossEntropyWithLogits" and loss.shape.as_list() == [4]
        assert [o.shape.as_list() for o in loss.op.outputs] == [[4], [4, 3]]
        x3 = tf.placeholder(tf.float32, [2, 4, 3])
        loss3 = tf.nn.softmax_cross_entropy_with_logits(labels=tf.zeros([2, 4, 3]), logits=x3)
        assert loss3.op.type == "Reshape" and loss3.shape.as_list() == [2, 4]
        assert loss3.op.inputs[0].op.type == "SoftmaxCrossEntropyWithLogits"
        sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 2, 0], logits=x)
        assert sparse.op.type == "SparseSoftmaxCrossEntropyWithLogits"
        assert sparse.op.name.startswith("SparseSoftmaxCrossEntropyWithLogits/")


def test_cross_entropies_with_unknown_shapes_in_a_graph():
    logits = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    labels = np.array([[0, 3, 1], [2, 2, 0]])
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        y = tf.placeholder(tf.int32)
        sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)
        dense = tf.nn.softmax_cross_entropy_with_logits(labels=tf.one_hot(y, 4), logits=x)
        g = tf.gradients(sparse, x)[0]
        with tf.Session() as sess:
            s, d, gv = sess.run([sparse, dense, g], {x: logits, y: labels})
    onehot = np.eye(4)[labels]
    expected = -np.sum(onehot * np.log(_softmax(logits.astype(np.float64))), -1)
    np.testing.assert_allclose(s, expected, rtol=1e-5)
    np.testing.assert_allclose(d, expected, rtol=1e-5)
    np.testing.assert_allclose(gv, _softmax(logits) - onehot, rtol=1e-5, atol=1e-6)


def test_sparse_labels_out_of_range():
    with pytest.raises(
        InvalidArgumentError,
        match=r"Received a label value of 5 which is "
        r"outside the valid range of \[0, 3\)\.  Label values: 0 5",
    ):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 5], logits=LOGITS)
    with pytest.raises(InvalidArgumentError, match="label value of -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[-1, 0], logits=LOGITS)


def test_cross_entropy_shape_errors():
    with pytest.raises(
        ValueError,
        match=r"`labels.shape.rank` must equal `logits.shape.rank - "
        r"1`",
    ):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[0, 1]], logits=LOGITS)
    with pytest.raises(ValueError, match="`labels.shape` must equal `logits.shape` except for"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 2], logits=LOGITS)
    with pytest.raises(ValueError, match="`logits` cannot be a scalar"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=0, logits=1.0)
    with pytest.raises(
        ValueError,
        match=r"logits and labels must be broadcastable: "
        r"logits_size=\[2,3\] labels_size=\[2,4\]",
    ):
        tf.nn.softmax_cross_entropy_with_logits(labels=np.zeros((2, 4)), logits=LOGITS)
    with pytest.raises(TypeError, match="input 'labels' has dtype float32"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=[0.0, 1.0], logits=LOGITS.astype(np.float32)
        )


def test_cross_entropy_float16_is_computed_in_float32():
    x = tf.constant(LOGITS.astype(np.float16))
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=[[0.0, 1, 0], [0, 0, 1]], logits=x)
    assert loss.dtype == tf.float16
    np.testing.assert_allclose(loss.numpy(), -np.log(_softmax(LOGITS)[[0, 1], [1, 2]]), rtol=1e-3)
