"""Plan fusion of Conv2D (+ bias, + ReLU) → MaxPool and of its gradient into the filter
and bias (runtime.fuse, ops.nn.conv_pool): the same values as the ops run apart (eager
runs them apart), within float rounding (the bias is added inside the product, the
gradients are summed in another row order); where the kernels do not apply, the ops'
own kernels, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.ops.nn import conv_pool

TOL = {np.float32: {"rtol": 2e-5, "atol": 1e-5}, np.float64: {"rtol": 1e-12, "atol": 1e-12}}


def _step(conv: dict, pool: list[int], bias: str, relu: bool):
    def step(x, w, b, g):
        with tf.GradientTape() as tape:
            tape.watch([w, b])
            y = tf.nn.conv2d(x, w, **conv)
            if bias == "add":
                y = y + b  # as Keras adds it: the gradient is a Sum and a Reshape
            elif bias == "bias_add":
                y = tf.nn.bias_add(y, b)
            y = tf.nn.relu(y) if relu else y
            p = tf.nn.max_pool2d(y, pool, pool, "VALID")
        dw, db = tape.gradient(p, [w, b], output_gradients=g)
        return p, dw, db if bias else tf.zeros_like(b)

    return step


def _data(dtype, c_in: int, size: tuple[int, int], step, seed: int = 0, m: int = 5):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, *size, c_in)).astype(dtype)
    x[x < -1.0] = 0.0
    w = rng.standard_normal((3, 3, c_in, m)).astype(dtype)
    b = rng.standard_normal(m).astype(dtype)
    b[1] = -50  # a channel all <= 0 before the ReLU: every window ties
    p = step(tf.constant(x), tf.constant(w), tf.constant(b), None)[0]
    g = rng.standard_normal(p.shape).astype(dtype)
    g[0, 0, 0, 0], g[1, 1, 1, 2], g[2, 0, 1, 3] = np.inf, -np.inf, np.nan
    g.flat[::7] = -0.0
    return x, w, b, g


def _types(fn, *args) -> list[str]:
    """The op types of the steps of ``fn``'s plan for ``args`` (built by a first call)."""
    fn(*args)
    concrete = fn.get_concrete_function(*args)
    plan = concrete._outputs_plan or concrete._plan
    return [step[4].type for step in plan.steps]


GEOMETRIES = [
    # (conv attrs, pool window, input channels, input size, output channels)
    ({"strides": 1, "padding": "VALID"}, [2, 2], 1, (10, 11), 5),  # a VALID remainder
    ({"strides": 1, "padding": "VALID"}, [2, 2], 1, (9, 10), 12),  # the windows kept
    ({"strides": 2, "padding": "SAME"}, [2, 2], 3, (13, 12), 5),
    ({"strides": 1, "padding": "VALID", "dilations": 2}, [3, 2], 2, (12, 9), 5),
    ({"strides": 1, "padding": "SAME"}, [1, 1], 1, (6, 7), 4),  # one tap
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("conv", "pool", "c_in", "size", "m"), GEOMETRIES)
@pytest.mark.parametrize(("bias", "relu"), [("add", True), ("bias_add", True), ("", False)])
def test_fused_conv_pool_step_is_the_ops_run_apart(
    dtype, conv, pool, c_in, size, m, bias, relu, monkeypatch
):
    calls = []
    kernels = (conv_pool.forward, conv_pool.backward)
    monkeypatch.setattr(conv_pool, "forward", lambda *a: calls.append(1) or kernels[0](*a))
    monkeypatch.setattr(conv_pool, "backward", lambda *a: calls.append(2) or kernels[1](*a))
    step = _step(conv, pool, bias, relu)
    x, w, b, g = _data(dtype, c_in, size, step, m=m)
    compiled = tf.function(step)
    types = _types(compiled, x, w, b, g)
    assert "Conv2D" not in types and "MaxPoolGrad" not in types  # both fused
    want = [t.numpy() for t in step(*map(tf.constant, (x, w, b, g)))]
    calls.clear()
    for got, ref in zip(compiled(x, w, b, g), want):
        np.testing.assert_allclose(got.numpy(), ref, **TOL[dtype])  # nan where nan
    assert calls == [1, 2]  # the fused kernels ran, not the ops' own


@pytest.mark.parametrize("m", [5, 12])  # the windows copied again, kept
def test_an_input_with_inf_gives_the_gradient_of_the_ops_run_apart(m):
    """TF's filter gradient sums 0 times the input where no window reaches (a VALID
    remainder): nan for an inf there, which the fused step must keep."""
    step = _step(GEOMETRIES[0][0], [2, 2], "add", True)
    x, w, b, g = _data(np.float32, 1, (10, 11), step, seed=3, m=m)
    g[np.isnan(g) | np.isinf(g)] = 1.0
    x[:, :, -1] = np.inf  # the last column: read by no pool window (a VALID remainder)
    want = [t.numpy() for t in step(*map(tf.constant, (x, w, b, g)))]
    got = [t.numpy() for t in tf.function(step)(x, w, b, g)]
    assert np.isnan(want[1]).any() and np.isfinite(want[0]).all()
    np.testing.assert_allclose(got[0], want[0], **TOL[np.float32])
    for a, r in zip(got[1:], want[1:]):  # from the ops' own gradient kernels
        np.testing.assert_array_equal(a, r)


@pytest.mark.parametrize(
    ("c_in", "size", "dtype"),
    [(8, (10, 10), np.float32), (1, (11, 11), np.float32), (1, (10, 10), np.float16)],
)
def test_where_the_kernels_do_not_apply_the_ops_kernels_run_bit_for_bit(c_in, size, dtype):
    """Many input channels, a pool that needs padding (SAME on 9 columns), float16."""
    conv = {"strides": 1, "padding": "VALID"}

    def step(x, w, b, g):
        with tf.GradientTape() as tape:
            tape.watch([w, b])
            y = tf.nn.relu(tf.nn.conv2d(x, w, **conv) + b)
            p = tf.nn.max_pool2d(y, 2, 2, "SAME")
        return (p, *tape.gradient(p, [w, b], output_gradients=g))

    x, w, b, g = _data(dtype, c_in, size, step)
    g[~np.isfinite(g)] = 0.5
    want = [t.numpy() for t in step(*map(tf.constant, (x, w, b, g)))]
    for got, ref in zip(tf.function(step)(x, w, b, g), want):
        np.testing.assert_array_equal(got.numpy(), ref)


def test_a_conv_whose_input_needs_a_gradient_keeps_the_pool_gradient():
    """The conv output's gradient is read by Conv2DBackpropInput too: not fused."""

    def step(x, w, g):
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            p = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, w, 1, "VALID")), 2, 2, "VALID")
        return tape.gradient(p, [x, w], output_gradients=g)

    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 10, 10, 1)).astype(np.float32)
    w = rng.standard_normal((3, 3, 1, 4)).astype(np.float32)
    g = rng.standard_normal((2, 4, 4, 4)).astype(np.float32)
    compiled = tf.function(step)
    assert "MaxPoolGrad" in _types(compiled, x, w, g)
    want = [t.numpy() for t in step(tf.constant(x), tf.constant(w), tf.constant(g))]
    for got, ref in zip(compiled(x, w, g), want):
        np.testing.assert_array_equal(got.numpy(), ref)


def test_the_memory_estimate_sizes_the_fused_steps_from_their_ops_inputs():
    """A fused step reads other inputs than its op's (the pool's step reads the conv's
    x, w, b): runtime.memory sizes its output from the op's static input shape, not
    from those slots (the pooled values, then everything after them, came out 16× small:
    MaxPool's rule on x [4, 10, 10, 1])."""
    from symgrad.runtime.memory import estimate_memory

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 10, 10, 1])
        w = tf.Variable(np.ones((3, 3, 1, 16), np.float32))
        b = tf.Variable(np.zeros(16, np.float32))
        y = tf.nn.relu(tf.nn.conv2d(x, w, 1, "VALID", name="conv") + b, name="act")
        y = tf.nn.max_pool2d(y, 2, 2, "VALID", name="pool")
        z = tf.multiply(y, y, name="square")
        grads = tf.gradients(tf.reduce_sum(z), [w, b])
        est = estimate_memory(grads, {x: np.ones((4, 10, 10, 1), np.float32)})
    # the square's rule holds the pooled values [4, 4, 4, 16]
    assert dict(est.held_for_backward)["pool"] == 4 * 4 * 4 * 16 * 4
