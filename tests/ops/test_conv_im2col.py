"""ops/nn/conv_im2col.py: the copied-windows convolution kernels against float64 references,
on sizes that take every path (the filter gradient's blocked product among them)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.ops.nn import conv_im2col


def _conv64(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """VALID, stride 1: the float64 sum over the window's taps."""
    k = w.shape[0]
    out = x.shape[1] - k + 1
    win = np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (k, k), axis=(1, 2))
    return np.einsum("nhwcij,ijcm->nhwm", win[:, :out, :out], w.astype(np.float64))


@pytest.mark.parametrize("batch", [2, 16])  # 1,352 and 10,816 rows: plain and blocked
def test_filter_gradient_matches_the_float64_sum(batch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 28, 28, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 32)).astype(np.float32)
    g = rng.standard_normal((batch, 26, 26, 32)).astype(np.float32)
    xt, wt = tf.constant(x), tf.Variable(w)
    with tf.GradientTape() as tape:
        y = tf.nn.conv2d(xt, wt, 1, "VALID")
    dw = tape.gradient(y, wt, output_gradients=tf.constant(g)).numpy()
    win = np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (3, 3), axis=(1, 2))
    want = np.einsum("nhwcij,nhwm->ijcm", win, g.astype(np.float64))
    np.testing.assert_allclose(dw, want, rtol=1e-5, atol=1e-4 * np.sqrt(batch * 676))
    np.testing.assert_allclose(y.numpy(), _conv64(x, w), rtol=1e-5, atol=1e-5)


def test_skinny_product_blocks_sum_like_one_product():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((9, 21632))
    b = rng.standard_normal((21632, 32))
    np.testing.assert_allclose(conv_im2col._skinny_product(a, b), a @ b, rtol=1e-12, atol=1e-10)
    small = rng.standard_normal((9, 100))
    np.testing.assert_array_equal(conv_im2col._skinny_product(small, b[:100]), small @ b[:100])
