"""Counted loops under ``jit_compile=True``: ``lax.fori_loop``, gradients without
``maximum_iterations``.

A loop whose trip count is static (``for i in tf.range(4)``, or ``i = 0; while i < 4;
i += 1``) compiles with its gradient; TF 2.21's numbers for the range loop and the
TensorArray loop (``tf.function(jit_compile=True)``), float32 within rtol 1e-6.  TF's
bridge refuses the same loop written as a bare ``tf.while_loop`` ("XLA compilation
requires a fixed tensor list size"); symgrad counts it and gives the range loop's
numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax")

import symgrad as tf
from symgrad.runtime import xla
from symgrad.runtime.xla.counted import _iterations

W = np.array([0.9, -1.1], np.float32)
X = np.array([0.5, 0.25], np.float32)
# TF 2.21: loss and d loss / d w of the loops below (4 iterations of y = sin(y w) + x)
TF_RANGE = (2.199720621109009, [1.9531705379486084, -0.39986586570739746])
TF_ARRAY = (25.59189796447754, [29.2606258392334, -0.1493956446647644])


def _while(x: Any, w: Any) -> Any:
    return tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, tf.sin(y * w) + x), [0, x])[1]


def _range(x: Any, w: Any) -> Any:
    y = x
    for _ in tf.range(4):
        y = tf.sin(y * w) + x
    return y


def _array(x: Any, w: Any) -> Any:
    ta = tf.TensorArray(tf.float32, size=4)
    y = x
    for i in tf.range(4):
        y = tf.sin(y * w) + x
        ta = ta.write(i, y)
    return tf.reduce_sum(ta.stack(), 0)


def _step(loop: Callable[[Any, Any], Any], jit: bool | None) -> tuple[float, np.ndarray]:
    w = tf.Variable(W)

    @tf.function(jit_compile=jit)
    def f(x: tf.Tensor) -> Any:
        with tf.GradientTape() as tape:
            y = loop(x, w)
            loss = tf.reduce_sum(y * y)
        return loss, tape.gradient(loss, w)

    loss, g = f(tf.constant(X))
    return float(loss), g.numpy()


@pytest.mark.parametrize(
    ("loop", "want"), [(_while, TF_RANGE), (_range, TF_RANGE), (_array, TF_ARRAY)]
)
def test_gradient_through_a_counted_loop_gives_tf_numbers(loop: Any, want: Any) -> None:
    loss, g = _step(loop, True)
    np.testing.assert_allclose(loss, want[0], rtol=1e-6)
    np.testing.assert_allclose(g, want[1], rtol=1e-6)
    np_loss, np_g = _step(loop, None)  # the NumPy path
    np.testing.assert_allclose(loss, np_loss, rtol=1e-6)
    np.testing.assert_allclose(g, np_g, rtol=1e-6)


@pytest.mark.parametrize(
    ("start", "cond", "step", "trips"),
    [
        (0, lambda i: i <= 6, 2, 4),
        (5, lambda i: i > 0, -1, 5),
        (5, lambda i: tf.less_equal(1, i), -2, 3),  # the bound first
        (3, lambda i: i < 3, 1, 0),
        (0, lambda i: tf.logical_and(tf.constant(True), i < 7), 3, 3),
    ],
)
def test_counted_forms_compile_their_gradient(start: int, cond: Any, step: int, trips: int) -> None:
    def run(jit: bool | None) -> tuple[float, float, int]:
        @tf.function(jit_compile=jit)
        def f(x: tf.Tensor) -> Any:
            with tf.GradientTape() as tape:
                tape.watch(x)
                i, y = tf.while_loop(
                    lambda i, y: cond(i), lambda i, y: (i + step, y * 1.5 + 0.25), [start, x]
                )
            return y, tape.gradient(y, x), i

        y, g, i = f(tf.constant(2.0))
        return float(y), float(g), int(i)

    y, g, i = run(True)
    assert g == 1.5**trips  # exact: powers of 1.5
    assert i == start + trips * step
    assert (y, g, i) == run(None)


def test_a_loop_whose_bound_is_a_run_time_value_still_needs_maximum_iterations() -> None:
    @tf.function(jit_compile=True)
    def f(x: tf.Tensor, n: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            tape.watch(x)
            _, y = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * v), (0, x))
        return tape.gradient(y, x)

    with pytest.raises(xla.XlaLimitError, match="maximum_iterations"):
        f(tf.constant(1.5), tf.constant(2))


@pytest.mark.parametrize(
    ("start", "step", "cmp", "bound", "n"),
    [
        (0, 1, "Less", 4, 4),
        (0, 3, "Less", 7, 3),
        (0, 3, "LessEqual", 6, 3),
        (10, -4, "Greater", 1, 3),
        (10, -4, "GreaterEqual", 2, 3),
        (4, 1, "Less", 4, 0),
        (0, -1, "Less", 4, None),  # never stops
    ],
)
def test_iteration_counts(start: int, step: int, cmp: str, bound: int, n: int | None) -> None:
    assert _iterations(start, step, cmp, bound) == n
