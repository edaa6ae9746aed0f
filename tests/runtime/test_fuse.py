"""Plan fusions (runtime.fuse): ReluGrad of a MaxPoolGrad on the ReLU's output runs as
one step, bit for bit equal to the two ops run apart (eager runs them apart)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.op_registry import apply_op


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"i{a.dtype.itemsize}"))


def _relu_pool_grads(x: np.ndarray, g: np.ndarray, ksize: int, padding: str):
    def grad(x_, g_):
        with tf.GradientTape() as tape:
            tape.watch(x_)
            y = tf.nn.max_pool2d(tf.nn.relu(x_), ksize, ksize, padding)
        return tape.gradient(y, x_, output_gradients=g_)

    compiled = tf.function(grad)
    return grad(tf.constant(x), tf.constant(g)).numpy(), compiled(x, g).numpy(), compiled


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("ksize", "padding"), [(2, "VALID"), (2, "SAME"), (3, "VALID")])
def test_fused_relu_pool_gradient_is_the_two_ops_bit_for_bit(dtype, ksize, padding):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 7, 9, 5)).astype(dtype)
    x[x < -0.5] = 0.0  # ties of zeros, as ReLU makes them
    x.flat[::11] = -0.0
    x[0, 0, 0, 0] = np.nan
    out = -(-7 // ksize) if padding == "SAME" else 7 // ksize
    g = rng.standard_normal((2, out, (-(-9 // ksize) if padding == "SAME" else 9 // ksize), 5))
    g = g.astype(dtype)
    g[0, 0, 1, 1], g[1, 1, 0, 2], g[1, 0, 0, 0] = np.inf, -np.inf, np.nan
    g.flat[::7] = -0.0
    eager, fused, _ = _relu_pool_grads(x, g, ksize, padding)
    np.testing.assert_array_equal(_bits(fused), _bits(eager))


def test_the_plan_has_no_relu_grad_step():
    x = np.random.default_rng(0).standard_normal((2, 8, 8, 3)).astype(np.float32)
    g = np.ones((2, 4, 4, 3), np.float32)
    _, _, compiled = _relu_pool_grads(x, g, 2, "VALID")
    concrete = compiled.get_concrete_function(x, g)
    plan = concrete._outputs_plan or concrete._plan
    types = [step[4].type for step in plan.steps]
    assert "MaxPoolGrad" in types and "ReluGrad" not in types
    # the forward hands its hits to the gradient in a slot of their own
    (pool,) = [step for step in plan.steps if step[4].type == "MaxPool"]
    (grad,) = [step for step in plan.steps if step[4].type == "MaxPoolGrad"]
    assert len(pool[2]) == 2 and grad[1][-1] == pool[2][1]


def _pool_grad(x, y, g):
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
    return apply_op("MaxPoolGrad", [x, y, g], {**attrs, "data_format": "NHWC"}).output(0)


def test_two_gradients_of_one_pool_each_find_their_own_hits():
    rng = np.random.default_rng(5)
    x = np.round(rng.standard_normal((2, 6, 6, 3))).astype(np.float32)  # ties
    g1, g2 = rng.standard_normal((2, 2, 3, 3, 3)).astype(np.float32)

    @tf.function
    def f(x_, g1_, g2_):
        y = tf.nn.max_pool2d(x_, 2, 2, "VALID")
        return _pool_grad(x_, y, g1_), _pool_grad(x_, y, g2_)

    y = tf.nn.max_pool2d(tf.constant(x), 2, 2, "VALID")
    for got, g in zip(f(x, g1, g2), (g1, g2)):
        want = _pool_grad(tf.constant(x), y, tf.constant(g))
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_pool_gradient_read_elsewhere_is_not_fused():
    x = tf.constant(np.random.default_rng(0).standard_normal((1, 4, 4, 2)).astype(np.float32))

    @tf.function
    def both(x_):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x_)
            r = tf.nn.relu(x_)
            y = tf.nn.max_pool2d(r, 2, 2, "VALID")
        dr = tape.gradient(y, r)  # the pool's gradient itself is also fetched
        return dr, tape.gradient(y, x_)

    dr, dx = both(x)
    np.testing.assert_array_equal(dx.numpy(), dr.numpy() * (x.numpy() > 0))


def _conv_forward(x, w, b, how: str, relu: bool):
    if x.ndim == 5:
        y = tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME")
    else:
        y = tf.nn.conv2d(x, w, 1, "SAME")
    if how == "bias_add":
        y = tf.nn.bias_add(y, b)
    elif how == "add":  # Keras's way: the bias reshaped to [1, 1, 1, C]
        y = y + tf.reshape(b, [1] * (x.ndim - 1) + [-1])
    else:  # the bias first
        y = b + y
    return tf.nn.relu(y) if relu else y


@pytest.mark.parametrize("how", ["bias_add", "add", "add_first"])
@pytest.mark.parametrize("relu", [True, False])
@pytest.mark.parametrize("rank", [4, 5])
def test_fused_conv_bias_relu_is_the_three_ops_bit_for_bit(how, relu, rank):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 9, 11, 4) if rank == 4 else (2, 5, 6, 7, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, x.shape[-1], 70) if rank == 4 else (2, 3, 2, 3, 70))
    w, b = w.astype(np.float32), rng.standard_normal(70).astype(np.float32)
    x.flat[::13] = np.nan
    eager = _conv_forward(tf.constant(x), tf.constant(w), tf.constant(b), how, relu).numpy()
    compiled = tf.function(lambda x_, w_, b_: _conv_forward(x_, w_, b_, how, relu))
    np.testing.assert_array_equal(_bits(compiled(x, w, b).numpy()), _bits(eager))
    concrete = compiled.get_concrete_function(x, w, b)
    plan = concrete._outputs_plan or concrete._plan
    types = [step[4].type for step in plan.steps]
    assert types.count("Conv2D" if rank == 4 else "Conv3D") == 1
    assert not {"BiasAdd", "AddV2", "Relu"} & set(types)


def test_a_conv_output_read_elsewhere_is_not_fused():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 5)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)

    @tf.function
    def f(x_, w_, b_):
        y = tf.nn.conv2d(x_, w_, 1, "VALID")
        return tf.nn.relu(tf.nn.bias_add(y, b_)), y

    r, y = f(x, w, b)
    np.testing.assert_array_equal(r.numpy(), np.maximum(y.numpy() + b, 0))


@pytest.mark.parametrize("shape", [(2, 16, 16, 3), (4, 30, 30, 1)])
def test_fused_conv_blocks_and_long_bias_rows_change_nothing(shape):
    # 32 channels: the bias is tiled 128 times; 512 rows fill one block exactly, 3,600
    # rows make a full block of 2,048 and a last one of 1,552 (not a multiple of 128)
    rng = np.random.default_rng(6)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((3, 3, shape[-1], 32)).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    eager = _conv_forward(tf.constant(x), tf.constant(w), tf.constant(b), "add", True).numpy()
    compiled = tf.function(lambda x_, w_, b_: _conv_forward(x_, w_, b_, "add", True))
    np.testing.assert_array_equal(_bits(compiled(x, w, b).numpy()), _bits(eager))
