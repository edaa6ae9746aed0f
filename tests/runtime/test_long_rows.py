"""Long rows (ops/reduction/row_blocks.py): a bias added in place over [N, H, W, C] and a
sum over the leading axes run over rows laid side by side, with the plain loops' values."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.ops.reduction import row_blocks


def test_fold_picks_the_largest_divisor_within_a_row():
    assert row_blocks.fold(32 * 26 * 26, 32) == 128  # 2**7 * 13**2 rows: 128 of 32
    assert row_blocks.fold(21632, 10) == 338  # 338 * 10 <= 4096, 21632 = 338 * 64
    assert row_blocks.fold(100, 32) is None  # too few rows to gain
    assert row_blocks.fold(1021, 32) is None  # a prime: no way to lay rows side by side
    assert row_blocks.fold(4096, 1000) is None  # rows already long


@pytest.mark.parametrize("op", [np.add, np.subtract, np.multiply, np.divide])
@pytest.mark.parametrize("bias_shape", [(32,), (1, 1, 1, 32), (26, 32)])
def test_a_bias_applied_in_place_equals_numpys_broadcast(op, bias_shape):
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((8, 26, 26, 32)).astype(np.float32)
    bv = rng.standard_normal(bias_shape).astype(np.float32) + 2.0
    sym = {np.add: tf.add, np.subtract: tf.subtract, np.multiply: tf.multiply}.get(op, tf.divide)

    @tf.function
    def f(x, b):
        return sym(tf.exp(x), b), sym(b, tf.exp(x))  # the large operand first, then second

    first, second = f(xv, bv)
    np.testing.assert_array_equal(first.numpy(), op(np.exp(xv), bv))
    np.testing.assert_array_equal(second.numpy(), op(bv, np.exp(xv)))


def test_a_channels_first_operand_keeps_the_plain_loop():
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((8, 32, 26, 26)).astype(np.float32)
    bv = rng.standard_normal(32).astype(np.float32)

    @tf.function
    def f(x, b):
        return tf.transpose(x, [0, 2, 3, 1]) * 2.0 + b  # a transposed (strided) result

    np.testing.assert_array_equal(f(xv, bv).numpy(), np.transpose(xv, (0, 2, 3, 1)) * 2 + bv)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("keepdims", [False, True])
def test_a_sum_over_leading_axes_matches_the_float64_sum(dtype, keepdims):
    rng = np.random.default_rng(2)
    xv = rng.standard_normal((32, 26, 26, 32)).astype(dtype)
    got = tf.reduce_sum(tf.constant(xv), axis=[0, 1, 2], keepdims=keepdims).numpy()
    want = xv.astype(np.float64).sum(axis=(0, 1, 2), keepdims=keepdims)
    assert got.dtype == dtype and got.shape == want.shape
    # partial sums of 169 rows, then 128 of them: closer to the exact sum than one
    # sequential sum of 21,632 (whose error bound is 21,632 ulps)
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-4)


def test_the_fold_decided_once_a_shape_still_asks_the_array():
    """``reduce._sum`` decides the fold once a (shape, axes) pair (``_fold_of``); the
    array's dtype and layout are still asked each call: the sums are the same NumPy calls
    the test on each array gave before."""
    from symgrad.ops.reduction import reduce

    rng = np.random.default_rng(3)
    big = rng.standard_normal((1024, 32)).astype(np.float32)
    f = row_blocks.fold(1024, 32)
    assert f is not None and reduce._fold_of((1024, 32), (0,)) == f
    folded = np.add.reduce(
        np.add.reduce(big.reshape(-1, f * 32), axis=0, dtype=np.float32).reshape(f, -1),
        axis=0,
        dtype=np.float32,
    )
    for keep in (False, True):
        got = reduce._sum(big, (0,), keep)
        np.testing.assert_array_equal(got, folded.reshape((1, 32) if keep else (32,)))
    # the same shape and axes, other arrays: no fold for integers or a strided view
    ints = rng.integers(-5, 5, size=(1024, 32)).astype(np.int32)
    got = reduce._sum(ints, (0,), False)
    np.testing.assert_array_equal(got, np.add.reduce(ints, axis=(0,), dtype=np.int32))
    strided = np.asfortranarray(big)
    assert not strided.flags.c_contiguous
    got = reduce._sum(strided, (0,), False)
    assert got.tobytes() == np.add.reduce(strided, axis=(0,), dtype=np.float32).tobytes()
    # another shape after it: its own answer (too few rows), not the first's fold
    small = big[:32]
    assert reduce._fold_of((32, 32), (0,)) is None
    got = reduce._sum(small, (0,), False)
    assert got.tobytes() == np.add.reduce(small, axis=(0,), dtype=np.float32).tobytes()
    # other axes of the first shape: not leading ones, no fold
    assert reduce._fold_of((1024, 32), (1,)) is None
