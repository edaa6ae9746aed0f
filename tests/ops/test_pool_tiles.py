"""The max-pool kernels' fast path for windows that tile the input (stride = window, no
padding) against the general strided-window path, on ties, nan, -0.0 and every rank."""

import numpy as np
import pytest

import symgrad as tf
from symgrad.ops.nn import pooling
from symgrad.ops.nn.pool_tiles import tiled_max


def _run(monkeypatch, general, fn):
    if general:
        monkeypatch.setattr(pooling, "tiles", lambda *a: None)
    return fn()


@pytest.mark.parametrize(
    "shape,k,fmt,padding",
    [
        ((3, 8, 6, 5), 2, "NHWC", "VALID"),
        ((2, 3, 6, 9), 3, "NCHW", "VALID"),
        ((2, 12, 4), 3, "NWC", "VALID"),
        ((2, 4, 6, 2, 3), 2, "NDHWC", "VALID"),
        ((3, 7, 9, 5), 2, "NHWC", "VALID"),  # a remainder no window reaches
        ((3, 7, 9, 5), 2, "NHWC", "SAME"),
        ((2, 3, 8, 7), 3, "NCHW", "SAME"),  # padding before and after
        ((2, 13, 4), 3, "NWC", "SAME"),
        ((2, 5, 4, 3, 2), 2, "NDHWC", "SAME"),
        ((2, 7, 7, 2), 3, "NHWC", [[0, 0], [1, 0], [2, 1], [0, 0]]),
    ],
)
def test_tiled_path_equals_the_general_one(monkeypatch, shape, k, fmt, padding):
    rng = np.random.default_rng(0)
    x = np.round(rng.standard_normal(shape) * 1.5).astype(np.float32)  # many ties
    x.flat[::17] = -0.0

    def grads():
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = tf.nn.max_pool(xt, k, k, padding, data_format=fmt)
            loss = tf.reduce_sum(tf.sin(y) - y)  # gradients of both signs
        return y.numpy(), tape.gradient(loss, xt).numpy()

    fast = _run(monkeypatch, False, grads)
    monkeypatch.undo()
    slow = _run(monkeypatch, True, grads)
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)
        assert np.array_equal(np.signbit(a), np.signbit(b))


def test_tiled_path_with_nan_and_non_finite_gradients(monkeypatch):
    x = np.arange(32, dtype=np.float32).reshape(1, 4, 8, 1)
    x[0, 0, 0, 0] = np.nan
    g = np.ones((1, 2, 4, 1), np.float32)
    g[0, 1, 1, 0] = np.inf

    def grad():
        return _grad(x, g)

    fast = _run(monkeypatch, False, grad)
    monkeypatch.undo()
    slow = _run(monkeypatch, True, grad)
    np.testing.assert_array_equal(fast, slow)


def _grad(x, g):
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = tf.nn.max_pool2d(xt, 2, 2, "VALID")
    return tape.gradient(y, xt, output_gradients=tf.constant(g)).numpy()


# TF 2.21's tf.raw_ops.MaxPoolGrad / MaxPoolGradGrad (ksize = strides = k, NHWC) on 0/1
# inputs, so most windows tie: the gradient goes to each window's first maximum in
# row-major order, padding excluded.  g (and the GradGrad's input) count from 1.
# (padding, shape, k, x, dx, gradgrad); the same for float32 and float64.
TIES = [
    ("VALID", (1, 4, 4, 1), 2, "1111111000011001", "1020000000043000", [1, 3, 13, 12]),
    (
        "SAME",
        (1, 5, 5, 2),
        2,
        "01001000101001111111110100101100000110111101000010",
        [0, 2, 0, 0, 3, 0, 0, 0, 5, 0, 1, 0, 0, 0, 0, 4, 0, 0, 0, 6, 7, 8, 0, 0, 0]
        + [0, 9, 0, 11, 12, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 13, 14, 0, 0, 15, 16, 0, 0, 17, 18],
        [11, 2, 5, 16, 9, 20, 21, 22, 27, 36, 29, 30, 41, 42, 45, 46, 49, 50],
    ),
    (
        "VALID",
        (2, 5, 5, 1),
        2,
        "00111010001110101101111101000111111011001010000100",
        [0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        + [5, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 7, 8]
        + [0] * 12,
        [7, 3, 11, 13, 26, 33, 37, 38],
    ),
    (
        "SAME",
        (1, 7, 7, 1),
        3,
        "1101010111101000001001100100010110110111110010110",
        [1, 0, 0, 2, 0, 3] + [0] * 12 + [5, 0, 0, 4] + [0] * 12 + [6, 7, 0, 8, 0, 0, 9] + [0] * 8,
        [1, 4, 6, 22, 19, 35, 36, 38, 41],
    ),
]


def _digits(v, shape):
    return np.array([int(c) for c in v] if isinstance(v, str) else v).reshape(shape)


@pytest.mark.parametrize("general", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding,shape,k,xs,dxs,ggs", TIES)
def test_ties_go_to_the_first_maximum_as_in_tf(
    monkeypatch, general, dtype, padding, shape, k, xs, dxs, ggs
):
    x = tf.constant(_digits(xs, shape).astype(dtype))
    out = tf.nn.max_pool2d(x, k, k, padding)
    g = tf.constant(np.arange(1, out.shape.num_elements() + 1).reshape(out.shape), dtype)
    v = tf.constant(np.arange(1, x.shape.num_elements() + 1).reshape(shape), dtype)

    def grads():
        with tf.GradientTape() as outer:
            outer.watch(g)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.nn.max_pool2d(x, k, k, padding)
            dx = inner.gradient(y, x, output_gradients=g)
        return dx.numpy(), outer.gradient(dx, g, output_gradients=v).numpy()

    dx, gg = _run(monkeypatch, general, grads)
    np.testing.assert_array_equal(dx, _digits(dxs, shape))
    np.testing.assert_array_equal(gg, np.reshape(ggs, out.shape))
    assert dx.dtype == gg.dtype == dtype


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_tiled_path_takes_odd_sizes_and_integers(monkeypatch, padding):
    calls = []
    monkeypatch.setattr(pooling, "tiled_max", lambda *a: calls.append(1) or tiled_max(*a))
    x = np.arange(-40, 65, dtype=np.int32).reshape(1, 7, 5, 3)
    y = tf.nn.max_pool2d(tf.constant(x), 2, 2, padding).numpy()
    assert calls == [1]
    monkeypatch.undo()
    slow = _run(monkeypatch, True, lambda: tf.nn.max_pool2d(tf.constant(x), 2, 2, padding))
    np.testing.assert_array_equal(y, slow.numpy())
    assert y.dtype == np.int32 and y.shape == ((1, 4, 3, 3) if padding == "SAME" else (1, 3, 2, 3))
