"""tf.nn beyond the op table: op types as TF records them, gradients of the composite
functions (float64 finite differences, second order), TF's errors, and dropout."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError


def _types(fn, *shapes):
    """The op types a call records, and those its gradient adds (as tests/ops probe TF)."""
    with tf.Graph().as_default() as g:
        xs = [tf.placeholder(tf.float32, s) for s in shapes]
        y = fn(*xs)
        y = y[0] if isinstance(y, tuple | list) else y
        before = len(g.get_operations())
        tf.gradients(y, xs)
        ops = g.get_operations()
        return (
            {o.type for o in ops[:before]} - {"Placeholder", "Const"},
            {o.type for o in ops[before:]},
        )


@pytest.mark.parametrize(
    "fn,shapes,forward,backward",
    [
        (
            lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"),
            [[2, 5, 5, 3], [3, 3, 3, 4]],
            {"Conv2D"},
            {"Conv2DBackpropInput", "Conv2DBackpropFilter"},
        ),
        (
            lambda x, w: tf.nn.conv1d(x, w, 1, "SAME"),
            [[2, 5, 3], [3, 3, 4]],
            {"ExpandDims", "Conv2D", "Squeeze"},
            {"Conv2DBackpropInput", "Conv2DBackpropFilter"},
        ),
        (
            lambda x, w: tf.nn.conv3d(x, w, [1] * 5, "SAME"),
            [[1, 3, 3, 3, 2], [2, 2, 2, 2, 3]],
            {"Conv3D"},
            {"Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"},
        ),
        (
            lambda x, w: tf.nn.conv2d_transpose(x, w, [2, 10, 10, 3], 2, "SAME"),
            [[2, 5, 5, 4], [3, 3, 3, 4]],
            {"Conv2DBackpropInput"},
            {"Conv2DBackpropFilter", "Conv2D"},
        ),
        (
            lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"),
            [[2, 5, 5, 3], [3, 3, 3, 2]],
            {"DepthwiseConv2dNative"},
            {"DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"},
        ),
        (lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"), [[2, 5, 5, 3]], {"MaxPool"}, {"MaxPoolGrad"}),
        (
            lambda x: tf.nn.max_pool3d(x, 2, 2, "SAME"),
            [[2, 3, 3, 3, 1]],
            {"MaxPool3D"},
            {"MaxPool3DGrad"},
        ),
        (
            lambda x: tf.nn.avg_pool1d(x, 2, 2, "SAME"),
            [[2, 5, 3]],
            {"ExpandDims", "AvgPool", "Squeeze"},
            {"AvgPoolGrad"},
        ),
        (
            lambda x: tf.nn.avg_pool3d(x, 2, 2, "SAME"),
            [[2, 3, 3, 3, 1]],
            {"AvgPool3D"},
            {"AvgPool3DGrad"},
        ),
        (lambda x, b: tf.nn.bias_add(x, b), [[2, 3], [3]], {"BiasAdd"}, {"BiasAddGrad"}),
        (
            lambda x, w, b: tf.nn.xw_plus_b(x, w, b),
            [[2, 3], [3, 4], [4]],
            {"MatMul", "BiasAdd"},
            {"BiasAddGrad", "MatMul"},
        ),
        (
            lambda x, s, o: tf.nn.fused_batch_norm(x, s, o),
            [[2, 3, 3, 3], [3], [3]],
            {"FusedBatchNormV3"},
            {"FusedBatchNormGradV3"},
        ),
        (lambda x: tf.nn.leaky_relu(x), [[2, 3]], {"LeakyRelu"}, {"LeakyReluGrad"}),
        (lambda x: tf.nn.elu(x), [[2, 3]], {"Elu"}, {"EluGrad"}),
        (lambda x: tf.nn.selu(x), [[2, 3]], {"Selu"}, {"SeluGrad"}),
        (lambda x: tf.nn.relu6(x), [[2, 3]], {"Relu6"}, {"Relu6Grad"}),
    ],
)
def test_op_types_are_tensorflows(fn, shapes, forward, backward):
    fwd, bwd = _types(fn, *shapes)
    assert forward <= fwd, fwd
    assert backward <= bwd, bwd


def test_second_order_through_each_family_keeps_to_tfs_ops():
    with tf.Graph().as_default() as g:
        x, w = tf.placeholder(tf.float32, [1, 4, 4, 2]), tf.placeholder(tf.float32, [2, 2, 2, 3])
        y = tf.reduce_sum(tf.nn.max_pool2d(tf.nn.conv2d(x, w, 1, "SAME"), 2, 2, "VALID"))
        (gw,) = tf.gradients(y, [w])
        n = len(g.get_operations())
        tf.gradients(tf.reduce_sum(gw * gw), [x])
        new = {o.type for o in g.get_operations()[n:]}
    assert {"MaxPoolGradGrad", "Conv2D", "Conv2DBackpropInput"} <= new, new


# -- gradients of the composite functions: float64 finite differences, second order


def _fresh_dropout(x):
    """dropout drawing its seed's first mask at every call (finite differences call it
    many times and need the same mask each time)."""
    tf.random.set_seed(1)  # restarts every eager random stream
    return tf.nn.dropout(x, 0.5, seed=3)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed + len(shape)).standard_normal(shape)


@pytest.mark.parametrize(
    "fn,args",
    [
        (lambda x, w: tf.nn.conv1d(x, w, 2, "SAME"), [_rand(2, 5, 3), _rand(3, 3, 2)]),
        (
            lambda x, w: tf.nn.conv1d(x, w, 1, "VALID", data_format="NCW", dilations=2),
            [_rand(1, 2, 7), _rand(2, 2, 3)],
        ),
        (
            lambda x, w: tf.nn.conv2d_transpose(x, w, [1, 5, 4, 2], 2, "SAME"),
            [_rand(1, 3, 2, 3), _rand(3, 2, 2, 3)],
        ),
        (
            lambda x, w: tf.nn.conv1d_transpose(x, w, [2, 6, 2], 2, "SAME"),
            [_rand(2, 3, 3), _rand(2, 2, 3)],
        ),
        (
            lambda x, d, p: tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "VALID"),
            [_rand(1, 4, 3, 2), _rand(2, 2, 2, 2), _rand(1, 1, 4, 3)],
        ),
        (
            lambda x: tf.nn.max_pool1d(x, 2, 1, "SAME"),
            [np.random.default_rng(3).permutation(20).reshape(2, 5, 2) * 0.3],
        ),
        (lambda x: tf.nn.avg_pool1d(x, 3, 2, "SAME"), [_rand(2, 5, 2)]),
        (lambda x: tf.nn.gelu(x), [_rand(3, 4)]),
        (lambda x: tf.nn.gelu(x, approximate=True), [_rand(3, 4)]),
        (lambda x, b: tf.nn.swish(x, b), [_rand(3, 4), np.array(1.3)]),
        (
            lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
            [np.random.default_rng(1).uniform(0, 1, (3, 4)), _rand(3, 4) + 0.05],
        ),
        (
            lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.5),
            [np.random.default_rng(1).uniform(0, 1, (3, 4)), _rand(3, 4) + 0.05],
        ),
        (lambda x: tf.nn.l2_normalize(x, axis=1), [_rand(3, 4)]),
        (lambda x: tf.nn.l2_normalize(x, axis=[0, 2]), [_rand(2, 3, 2)]),
        (
            lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3),
            [_rand(2, 3, 4), _rand(4), np.abs(_rand(4)) + 0.5, _rand(4), _rand(4)],
        ),
        (lambda x, w, b: tf.nn.xw_plus_b(x, w, b), [_rand(2, 3), _rand(3, 4), _rand(4)]),
        (lambda x: _fresh_dropout(x), [_rand(3, 4)]),
    ],
    ids=[
        "conv1d",
        "conv1d_ncw",
        "conv2d_transpose",
        "conv1d_transpose",
        "separable_conv2d",
        "max_pool1d",
        "avg_pool1d",
        "gelu",
        "gelu_approximate",
        "swish",
        "sigmoid_xent",
        "weighted_xent",
        "l2_normalize",
        "l2_normalize_axes",
        "batch_normalization",
        "xw_plus_b",
        "dropout",
    ],
)
def test_composite_gradients_second_order(fn, args):
    tf.test.check_vjp(fn, args, order=2, rng=0)


def test_moments_first_order_and_tfs_second_order():
    """TF's moments subtracts stop_gradient(mean): right first derivatives, but the second
    drops the mean's coupling term.  symgrad copies it; these are TF 2.21's numbers."""
    tf.test.check_vjp(lambda x: tf.nn.moments(x, [0, 2]), [_rand(2, 3, 4)], order=1, rng=0)
    x = tf.constant(np.arange(6, dtype=np.float64).reshape(2, 3) ** 1.3)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            _, v = tf.nn.moments(x, [1])
            y = tf.reduce_sum(v * tf.constant([1.0, 2.0], tf.float64))
        z = tf.reduce_sum(t1.gradient(y, x) * np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(
        t2.gradient(z, x).numpy(), [[0.0, 2 / 3, 4 / 3], [4.0, 16 / 3, 20 / 3]], rtol=1e-12
    )


def test_composite_values_in_float64():
    x = _rand(2, 3, 4)
    mean, var = tf.nn.moments(x, [0, 1], keepdims=True)
    np.testing.assert_allclose(mean.numpy(), x.mean((0, 1), keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(var.numpy(), x.var((0, 1), keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(
        tf.nn.l2_normalize(x, 2).numpy(), x / np.sqrt((x * x).sum(2, keepdims=True)), rtol=1e-12
    )
    z = np.array([0.0, 1.0, 0.3])
    logits = np.array([-800.0, 800.0, 0.0])  # stable at both ends
    np.testing.assert_allclose(
        tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=logits).numpy(),
        [0, 0, np.log(2)],
        atol=1e-12,
    )
    assert tf.nn.gelu(np.array([-40.0])).numpy()[0] == 0.0  # no overflow far left


# TF 2.21: tf.nn.gelu(x) (approximate=False) and its gradient at these points.
_GELU_X = [-12.0, -8.0, -5.0, -3.0, -1.0, 0.0, 0.5, 2.0, 6.0]
_TF_GELU = {
    np.float32: (
        [-2.1317925068052168e-32, -4.976773845328164e-15, -1.433257807548216e-06,
         -0.004049696493893862, -0.15865525603294373, 0.0, 0.3457312285900116,
         1.9544997215270996, 6.0],
        [-2.557914968900615e-31, -3.979614896084879e-14, -7.146946700231638e-06,
         -0.011945651844143867, -0.08331549167633057, 0.5, 0.8674951195716858,
         1.0852317810058594, 1.0],
    ),
    np.float64: (
        [-2.131783824165925e-32, -4.976773993240405e-15, -1.4332584954991237e-06,
         -0.004049694777521031, -0.15865525807260966, 0.0, 0.3457312291306712,
         1.9544997324075772, 5.99999999408047],
        [-2.5579019211208274e-31, -3.979611549799528e-14, -7.14694892786675e-06,
         -0.011945648796988968, -0.08331546644653365, 0.5, 0.8674951193839892,
         1.085231804774261, 1.0000000354687306],
    ),
}  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exact_gelu_keeps_tensorflows_tail_through_erfc(dtype):
    """TF computes 0.5·x·erfc(-x/√2): at x = -12 that is -2.1e-32, where 1 + erf(x/√2)
    cancels to 0.  The rest differs from TF only by erfc's own last bits."""
    x = tf.constant(np.array(_GELU_X, dtype))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.gelu(x)
    want_y, want_g = _TF_GELU[dtype]
    rtol = 2e-6 if dtype is np.float32 else 1e-14
    np.testing.assert_allclose(y.numpy(), want_y, rtol=rtol, atol=0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want_g, rtol=rtol, atol=0)
    g = tf.Graph()
    with g.as_default():
        tf.nn.gelu(tf.constant([1.0]))
    types = [op.type for op in g.get_operations()]
    assert types == ["Const", "Const", "Mul", "Neg", "Const", "Mul", "Erfc", "Mul"]


# -- TF's errors


@pytest.mark.parametrize(
    "call,error,text",
    [
        (
            lambda: tf.nn.conv2d(
                np.zeros((2, 5, 5, 3), np.float32), np.zeros((3, 3, 2, 4), np.float32), 1, "SAME"
            ),
            ValueError,
            "Conv2D op 'Conv2D(_[0-9]+)?'.*Depth of input \\(3\\) is not a multiple of input depth "
            "of filter \\(2\\)",
        ),
        (
            lambda: tf.nn.conv2d(
                np.zeros((5, 5, 3), np.float32), np.zeros((3, 3, 3, 4), np.float32), 1, "SAME"
            ),
            ValueError,
            "input must be 4-dimensional",
        ),
        (
            lambda: tf.nn.conv2d(
                np.zeros((2, 5, 5, 3), np.float32), np.zeros((3, 3, 3, 4), np.float32), 1, "FOO"
            ),
            ValueError,
            "Value for attr 'padding' of \"FOO\" is not in the list of allowed values",
        ),
        (
            lambda: tf.nn.conv2d(
                np.zeros((2, 5, 5, 3), np.float32),
                np.zeros((3, 3, 3, 4), np.float32),
                [1, 2, 3],
                "SAME",
            ),
            ValueError,
            "strides should be of length 1, 2 or 4. Received: strides=\\[1, 2, 3\\] of length 3",
        ),
        (
            lambda: tf.nn.conv2d(
                np.zeros((2, 5, 5, 3), np.float32),
                np.zeros((3, 3, 3, 4), np.float32),
                1,
                [[1, 0], [1, 2], [0, 1], [0, 0]],
            ),
            ValueError,
            "Nonzero explicit padding in the batch or depth dimensions is not supported",
        ),
        (
            lambda: tf.nn.conv2d(
                np.zeros((2, 5, 5, 3), np.float32), np.zeros((3, 3, 3, 4), np.float64), 1, "SAME"
            ),
            TypeError,
            "filter",
        ),
        (
            lambda: tf.nn.conv2d_transpose(
                np.zeros((2, 5, 5, 4), np.float32),
                np.zeros((3, 3, 3, 4), np.float32),
                [2, 7, 7, 3],
                2,
                "SAME",
            ),
            InvalidArgumentError,
            "Size of out_backprop doesn't match computed: actual = 5, computed = 4",
        ),
        (
            lambda: tf.nn.depthwise_conv2d(
                np.zeros((2, 5, 5, 3), np.float32),
                np.zeros((3, 3, 2, 2), np.float32),
                [1, 1, 1, 1],
                "SAME",
            ),
            ValueError,
            "input and filter must have the same depth: 3 vs 2",
        ),
        (
            lambda: tf.nn.max_pool(np.zeros((2, 5, 5, 3), np.float32), [2, 2, 2, 1], 1, "SAME"),
            ValueError,
            "does not yet support ksize in the batch and depth dimensions",
        ),
        (
            lambda: tf.nn.max_pool2d(np.zeros((2, 5, 5, 3), np.float32), 0, 1, "SAME"),
            ValueError,
            "`ksize` cannot be zero",
        ),
        (
            lambda: tf.nn.max_pool(np.zeros((2, 5), np.float32), 2, 1, "SAME"),
            ValueError,
            "`input.shape.rank` must be 3, 4 or 5",
        ),
        (
            lambda: tf.nn.avg_pool3d(np.zeros((2, 5, 5, 3), np.float32), 2, 1, "SAME"),
            ValueError,
            "input must be 5-dimensional",
        ),
        (
            lambda: tf.nn.bias_add(np.zeros((2, 3), np.float32), np.zeros(4, np.float32)),
            ValueError,
            "Must provide as many biases as the channel dimension",
        ),
        (
            lambda: tf.nn.bias_add(np.zeros(3, np.float32), np.zeros(3, np.float32)),
            ValueError,
            "Input tensor must be at least 2D",
        ),
        (
            lambda: tf.nn.bias_add(np.zeros((2, 3), np.float32), np.zeros((1, 3), np.float32)),
            ValueError,
            "Biases must be 1D",
        ),
        (lambda: tf.nn.elu(np.array([1, -2], np.int32)), TypeError, "Elu op.*int32"),
        (
            lambda: tf.nn.dropout(np.zeros(3, np.float32), 1.0),
            ValueError,
            "`rate` must be a scalar tensor or a float in the range \\[0, 1\\). Received: rate=1.0",
        ),
        (
            lambda: tf.nn.dropout(np.array([1, 2], np.int32), 0.5),
            ValueError,
            "`x.dtype` must be a floating point tensor",
        ),
        (
            lambda: tf.nn.sigmoid_cross_entropy_with_logits(
                labels=np.zeros((2, 3), np.float32), logits=np.zeros((2, 4), np.float32)
            ),
            ValueError,
            "`logits` and `labels` must have the same shape, received \\(\\(2, 4\\) vs "
            "\\(2, 3\\)\\)",
        ),
        (
            lambda: tf.nn.sigmoid_cross_entropy_with_logits(logits=np.zeros(2, np.float32)),
            ValueError,
            "Both labels and logits must be provided",
        ),
        (
            lambda: tf.nn.fused_batch_norm(
                np.zeros((2, 3), np.float32), np.ones(3, np.float32), np.zeros(3, np.float32)
            ),
            ValueError,
            "input must be 4 or 5-dimensional",
        ),
        (
            lambda: tf.nn.fused_batch_norm(
                np.zeros((2, 3, 3, 3), np.float32), np.ones(4, np.float32), np.zeros(3, np.float32)
            ),
            ValueError,
            "scale must have the same number of elements as the channels of x, got 4 and 3",
        ),
        (
            lambda: tf.nn.fused_batch_norm(
                np.zeros((2, 3, 3, 3), np.float32),
                np.ones(3, np.float32),
                np.zeros(3, np.float32),
                is_training=False,
            ),
            ValueError,
            "Both `mean` and `variance` must be a 1D tensor when `is_training` is False",
        ),
    ],
)
def test_errors_are_tensorflows(call, error, text):
    with pytest.raises(error, match=text):
        call()


def test_shape_rules_leave_unknown_sizes_open():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, 6, 3])
        y = tf.nn.conv2d(x, np.zeros((3, 3, 3, 4), np.float32), 2, "SAME")
        assert y.shape.as_list() == [None, None, 3, 4]
        p = tf.nn.max_pool2d(tf.placeholder(tf.float32, [2, None, 7, 1]), 3, 2, "VALID")
        assert p.shape.as_list() == [2, None, 3, 1]
        d = tf.nn.conv2d_transpose(
            tf.placeholder(tf.float32, [None, 3, 3, 4]),
            np.zeros((2, 2, 5, 4), np.float32),
            tf.placeholder(tf.int32, [4]),
            2,
            "SAME",
        )
        assert d.shape.as_list() == [None, None, None, 5]


# -- dropout


def test_dropout_scales_the_kept_entries_and_zeroes_about_rate_of_them():
    x = np.ones((200, 50), np.float32)
    y = tf.nn.dropout(x, 0.3, seed=1).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    assert abs(kept.mean() - 0.7) < 0.02


def test_dropout_gradient_is_the_scaled_mask():
    x = tf.constant(np.arange(1.0, 13.0).reshape(3, 4))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.5, seed=2)
    g = tape.gradient(y, x).numpy()
    np.testing.assert_array_equal(g, np.where(y.numpy() != 0, 2.0, 0.0))


def test_dropout_seeds_and_sessions():
    tf.random.set_seed(11)
    a = tf.nn.dropout(np.ones((4, 5)), 0.5, seed=7).numpy()
    tf.random.set_seed(11)
    b = tf.nn.dropout(np.ones((4, 5)), 0.5, seed=7).numpy()
    np.testing.assert_array_equal(a, b)  # same seed, same first mask
    c = tf.nn.dropout(np.ones((4, 5)), 0.5, seed=7).numpy()
    assert not np.array_equal(b, c)  # eager calls continue the seed's stream, as TF's
    d = tf.nn.dropout(np.ones((4, 5)), 0.5, seed=8).numpy()
    assert not np.array_equal(b, d)


def test_dropout_keep_prob_noise_shape_and_rate_zero():
    x = np.ones((3, 4), np.float32)
    assert tf.nn.dropout(x, 0.0).numpy().tolist() == x.tolist()
    # keep_prob is TF1's (tf.compat.v1.nn.dropout); TF2's tf.nn.dropout has only rate
    y = tf.compat.v1.nn.dropout(x, keep_prob=0.5, noise_shape=[3, 1], seed=4).numpy()
    assert all(len(set(row)) == 1 for row in y)  # one draw per row, broadcast along it
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.compat.v1.nn.dropout(x, 0.5, rate=0.5)
    with pytest.raises(TypeError, match="keep_prob"):
        tf.nn.dropout(x, keep_prob=0.5)


# TF 2.21, x = np.arange(1, 13, dtype=np.float32).reshape(3, 4); each mask is TF's
# RandomUniform draw with the seeds of random_seed.get_seed.
_DROPOUT_X = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
_TF_DROPOUT_EAGER = {
    "a": [[0.0, 4.0, 0.0, 0.0], [0.0, 12.0, 14.0, 16.0], [0.0, 0.0, 22.0, 24.0]],
    "b": [[2.0, 4.0, 6.0, 0.0], [0.0, 12.0, 0.0, 0.0], [0.0, 20.0, 0.0, 24.0]],
    "c_kept": [[1, 1, 1, 1], [1, 1, 1, 0], [0, 0, 0, 0]],
    "u": [0.4093366861343384, 0.2039891481399536],
    "f": [[2.0, 4.0, 6.0, 8.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
    "g_kept": [[1, 1, 1, 0], [1, 1, 1, 1], [0, 1, 1, 0]],
}


def test_dropout_draws_tensorflows_masks_under_the_global_seed():
    tf.random.set_seed(5)
    a = tf.nn.dropout(_DROPOUT_X, 0.5, seed=7).numpy()
    b = tf.nn.dropout(_DROPOUT_X, 0.5, seed=7).numpy()  # the same stream continues
    c = tf.nn.dropout(_DROPOUT_X, 0.3).numpy()  # op seed from the global seed's sequence
    u = tf.random.uniform([2], seed=7).numpy()
    assert a.tolist() == _TF_DROPOUT_EAGER["a"] and b.tolist() == _TF_DROPOUT_EAGER["b"]
    assert (c != 0).astype(int).tolist() == _TF_DROPOUT_EAGER["c_kept"]
    np.testing.assert_allclose(c[c != 0], _DROPOUT_X[c != 0] / np.float32(0.7), rtol=1e-7)
    assert u.tolist() == _TF_DROPOUT_EAGER["u"]  # dropout's draws are random_uniform's
    tf.random.set_seed(5)
    assert tf.nn.dropout(_DROPOUT_X, 0.0, seed=7).numpy().tolist() == _DROPOUT_X.tolist()
    assert tf.nn.dropout(_DROPOUT_X, 0.5, seed=7).numpy().tolist() == _TF_DROPOUT_EAGER["a"]
    f = tf.nn.dropout(_DROPOUT_X, 0.5, noise_shape=[3, 1], seed=9).numpy()
    assert f.tolist() == _TF_DROPOUT_EAGER["f"]
    rate = tf.constant(0.25, tf.float64)
    g = tf.nn.dropout(_DROPOUT_X.astype(np.float64), rate, seed=9).numpy()
    assert (g != 0).astype(int).tolist() == _TF_DROPOUT_EAGER["g_kept"]
    np.testing.assert_allclose(g[g != 0], _DROPOUT_X[g != 0].astype(np.float64) / 0.75, rtol=1e-15)


def test_dropout_draws_tensorflows_masks_in_a_seeded_graph():
    g = tf.Graph()
    with g.as_default():
        tf.compat.v1.set_random_seed(3)
        y = tf.nn.dropout(_DROPOUT_X, 0.5)
        z = tf.compat.v1.nn.dropout(_DROPOUT_X, keep_prob=0.4, seed=2)
        with tf.compat.v1.Session() as sess:
            first, second, kept_04 = sess.run(y), sess.run(y), sess.run(z)
    x = _DROPOUT_X
    assert (first != 0).astype(int).tolist() == [[0, 1, 1, 1], [0, 0, 1, 0], [0, 0, 1, 1]]
    assert (second != 0).astype(int).tolist() == [[1, 1, 0, 1], [1, 0, 0, 1], [1, 1, 0, 0]]
    assert kept_04.tolist() == [
        [2.5, 0.0, 0.0, 10.0],
        [0.0, 0.0, 17.5, 20.0],
        [0.0, 0.0, 27.5, 0.0],
    ]
    np.testing.assert_array_equal(first[first != 0], 2 * x[first != 0])
    types = [op.type for op in g.get_operations()]
    assert types == 2 * [
        "Const", "Const", "Mul", "Const", "RandomUniform", "Const", "GreaterEqual", "Const",
        "SelectV2",
    ]  # fmt: skip


def test_dropout_session_runs_draw_new_masks():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [6, 8])
        y = tf.nn.dropout(x, 0.5, seed=3)
        with tf.Session() as sess:
            feed = {x: np.ones((6, 8), np.float32)}
            m1, m2 = sess.run(y, feed), sess.run(y, feed)
        with tf.Session() as sess:
            m3 = sess.run(y, feed)
    assert not np.array_equal(m1, m2)  # a Session re-running a random op gets new numbers
    np.testing.assert_array_equal(m1, m3)  # a new Session starts the op's sequence over
