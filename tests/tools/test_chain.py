"""explain_gradient (J, v, vᵀJ) and trace_element (paths of the chain rule) on named cases."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import symgrad as tf
from symgrad.tools.chain import MAX_ENTRIES, MAX_PATHS, trace_element
from symgrad.tools.jacobian_view import explain_gradient

rng = np.random.default_rng(2)


def lineno() -> int:
    return sys._getframe(1).f_lineno


def central_jacobian(f, x0: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d f(x)/dx in float64 central differences: one row per element of f, column per x."""
    x0 = np.asarray(x0, np.float64)
    rows = np.asarray(f(x0)).size
    jac = np.zeros((rows, x0.size))
    for c in range(x0.size):
        d = np.zeros(x0.size)
        d[c] = eps
        d = d.reshape(x0.shape)
        jac[:, c] = (np.asarray(f(x0 + d)) - np.asarray(f(x0 - d))).reshape(-1) / (2 * eps)
    return jac


# --------------------------------------------------------------------------------------
# explain_gradient


def test_matmul_jacobian_cotangent_and_product():
    a0, b0 = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    a, b = tf.constant(a0), tf.constant(b0)
    y = tf.matmul(a, b)
    e = explain_gradient(y, a)
    fd = central_jacobian(lambda v: tf.matmul(tf.constant(v), b).numpy(), a0)
    np.testing.assert_allclose(e.matrix(), fd, rtol=1e-7, atol=1e-9)
    # by hand: d y[i,j] / d a[k,l] = [i == k] * b[l,j]
    np.testing.assert_allclose(e.jacobian, np.einsum("ik,lj->ijkl", np.eye(2), b0))
    np.testing.assert_array_equal(e.cotangent, np.ones((2, 4)))
    np.testing.assert_allclose(e.gradient, np.ones((2, 4)) @ b0.T)  # the column sums of J
    np.testing.assert_allclose(e.gradient.reshape(-1), e.matrix().sum(axis=0))
    assert e.matches == [True]
    np.testing.assert_allclose(e.tf_gradients[0], e.gradient, rtol=1e-12)
    text = str(e)
    assert f"y = {y.name}, shape (2, 4): 8 elements" in text
    assert f"x = {a.name}, shape (2, 3): 6 elements" in text
    assert "grad_ys not given, so v = ones like y" in text
    assert "  y[1,3]" in text and "x[1,2]" in text
    assert "tf.gradients(y, x) is the gradient of sum(v * y) = sum(y)" in text
    assert "which is what tf.gradients returned for x." in text


def test_broadcasting_add_per_x_sections_and_grad_ys():
    x0, z0 = rng.normal(size=(3, 1)), rng.normal(size=(1, 4))
    x, z = tf.constant(x0), tf.constant(z0)
    v = rng.normal(size=(3, 4))
    e = explain_gradient(x + z, [x, z], grad_ys=v)
    fd_x = central_jacobian(lambda a: (tf.constant(a) + z).numpy(), x0)
    fd_z = central_jacobian(lambda a: (x + tf.constant(a)).numpy(), z0)
    np.testing.assert_allclose(e.matrix(0), fd_x, atol=1e-8)
    np.testing.assert_allclose(e.matrix(1), fd_z, atol=1e-8)
    assert e.jacobians[0][0].shape == (3, 4, 3, 1) and e.jacobians[0][1].shape == (3, 4, 1, 4)
    np.testing.assert_array_equal(e.cotangent, v)
    np.testing.assert_allclose(e.gradients[0], v.sum(axis=1, keepdims=True))  # un-broadcast
    np.testing.assert_allclose(e.gradients[1], v.sum(axis=0, keepdims=True))
    assert e.matches == [True, True]
    text = str(e)
    assert "Jacobian J = dy/dx0" in text and "Jacobian J = dy/dx1" in text
    assert "the grad_ys given" in text
    assert "tf.gradients(y, xs, grad_ys=v) is the gradient of sum(v * y)" in text
    with pytest.raises(ValueError, match="jacobian is for one y and one x"):
        e.jacobian  # noqa: B018


def test_reduce_sum_jacobian_and_trace_through_both_inputs_of_mul():
    x0 = rng.normal(size=(2, 3))
    x = tf.constant(x0)
    sq = x * x
    y = tf.reduce_sum(sq, axis=1)
    e = explain_gradient(y, x)
    fd = central_jacobian(lambda a: tf.reduce_sum(tf.constant(a) ** 2, axis=1).numpy(), x0)
    np.testing.assert_allclose(e.matrix(), fd, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(e.gradient, 2 * x0)
    t = trace_element(y, x, 0, (0, 1))
    assert t.paths == [(x.op.name, sq.op.name, y.op.name)] * 2  # via Mul's input 0 and 1
    np.testing.assert_allclose(t.contributions, [x0[0, 1], x0[0, 1]])
    assert t.total == pytest.approx(fd[0, 1]) and t.jacobian_entry == pytest.approx(t.total)
    text = str(t)
    assert f"{sq.op.name} (Mul, input 0," in text and f"{sq.op.name} (Mul, input 1," in text
    assert f"d {sq.name}[0,1] / d x[0,1] = {x0[0, 1]:.4g}" in text
    assert f"d y[0] / d {sq.name}[0,1] = 1" in text


def test_diamond_two_paths_add_up_to_the_jacobian_entry():
    x0 = rng.normal(size=3)
    x = tf.constant(x0)
    a = x * 3.0
    line_a = lineno() - 1
    b = tf.sin(x)
    line_b = lineno() - 1
    y = a + b
    t = trace_element(y, x, 2, 2)
    assert sorted(t.paths) == sorted(
        [(x.op.name, a.op.name, y.op.name), (x.op.name, b.op.name, y.op.name)]
    )
    by_path = dict(zip([p[1] for p in t.paths], t.contributions))
    assert by_path[a.op.name] == pytest.approx(3.0)
    assert by_path[b.op.name] == pytest.approx(np.cos(x0[2]))
    fd = central_jacobian(lambda v: (tf.constant(v) * 3.0 + tf.sin(tf.constant(v))).numpy(), x0)
    assert t.total == pytest.approx(fd[2, 2], rel=1e-8)
    assert t.jacobian_entry == pytest.approx(t.total, rel=1e-12)
    text = " ".join(str(t).split())  # long op names may wrap a path over lines
    where_a = f"test_chain.py:{line_a}"
    assert f"x -> {a.op.name} (Mul, input 0, {where_a}) -> {y.op.name} (AddV2, " in text
    assert f"x -> {b.op.name} (Sin, test_chain.py:{line_b}) -> {y.op.name}" in text
    assert "2 paths from x to y." in text
    # another element of y: the op paths exist, but x[2] reaches y[0] along none of them
    t0 = trace_element(y, x, 0, 2)
    assert len(t0.paths) == 2 and t0.contributions == [0.0, 0.0] and t0.jacobian_entry == 0
    assert "does not reach" in str(t0)


# --------------------------------------------------------------------------------------
# Seed 002: the gradient of y is that of sum(y); the gradient of y[0, 0] is one row of J

MAT = [
    [0.8363, 0.4719, 0.9783],
    [0.3379, 0.6548, 0.3835],
    [0.7846, 0.9173, 0.2393],
    [0.5418, 0.3875, 0.4276],
    [0.0948, 0.2637, 0.8039],
]
ANOTHER = [
    [0.43842274, -0.53439844, -0.07710262],
    [1.5658046, -0.1012345, -0.2744976],
    [1.4204658, 1.2609464, -0.43640924],
]
SEED_DY_DX = np.float32([[-0.17307831, 1.1900724, 2.245003]] * 5)  # as the seed prints
SEED_DY0_DX = np.float32([[0.43842274, 1.5658046, 1.4204658]] + [[0, 0, 0]] * 4)


def seed_002():
    tf_t = tf.Variable(tf.convert_to_tensor(MAT))
    tf_b = tf.Variable(tf.convert_to_tensor(ANOTHER))
    with tf.GradientTape() as tape:
        tape.watch(tf_t)
        y_tf = tf.matmul(tf_t, tf_b)
        y_t0 = y_tf[0, 0]
    return tf_t, y_tf, y_t0


def test_seed_002_gradient_of_y_is_the_column_sums_of_its_jacobian():
    tf_t, y_tf, _ = seed_002()
    b = np.float32(ANOTHER)
    e = explain_gradient(y_tf, tf_t)
    np.testing.assert_array_equal(e.matrix(), np.kron(np.eye(5, dtype=np.float32), b.T))
    np.testing.assert_array_equal(e.cotangent, np.ones((5, 3)))
    np.testing.assert_array_equal(e.tf_gradients[0], SEED_DY_DX)
    np.testing.assert_allclose(e.gradient, SEED_DY_DX, rtol=1e-6)
    np.testing.assert_allclose(e.gradient.reshape(-1), e.matrix().sum(axis=0), rtol=1e-6)
    text = str(e)
    assert "[[-0.17307831  1.1900724   2.245003  ]" in text
    assert "= 1*0.4384 (y[0,0]) + 1*(-0.5344) (y[0,1]) + 1*(-0.0771) (y[0,2]) = -0.1731" in text
    assert "(the other 12 terms are 0)" in text
    assert "It is not dy/dx itself" in text


def test_seed_002_gradient_of_one_element_is_one_row_of_the_jacobian():
    tf_t, y_tf, y_t0 = seed_002()
    e = explain_gradient(y_t0, tf_t)
    assert e.matrix().shape == (1, 15)
    np.testing.assert_array_equal(e.tf_gradients[0], SEED_DY0_DX)
    np.testing.assert_allclose(e.gradient, SEED_DY0_DX)
    assert "y = strided_slice" in str(e) and "shape (): 1 element" in str(e)
    assert "Here y has one element, so J has one row" in str(e)
    # the chain rule behind the two numbers the question compares, for x = tf_t[0, 0]
    t0 = trace_element(y_t0, tf_t, (), (0, 0))
    assert [p[1:] for p in t0.paths] == [(y_tf.op.name, y_t0.op.name)]
    assert t0.contributions == [pytest.approx(ANOTHER[0][0])]
    total = tf.reduce_sum(y_tf)
    ts = trace_element(total, tf_t, (), (0, 0))
    assert ts.path_traces[0].n_chains == 3  # through y[0,0], y[0,1] and y[0,2]
    assert ts.total == pytest.approx(sum(ANOTHER[0]), rel=1e-6)
    assert ts.jacobian_entry == pytest.approx(float(SEED_DY_DX[0, 0]), rel=1e-6)
    assert f"x[0,0] -> {y_tf.name}[0,1] -> y: -0.5344" in str(ts)


# --------------------------------------------------------------------------------------
# Graph mode, user rules, errors


def test_graph_mode_with_placeholders_and_feed_dict():
    x0, w0 = rng.normal(size=3), 0.7
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, shape=[3], name="x")
        w = tf.placeholder(tf.float64, name="w")  # unknown shape: learnt from the feed
        y = tf.multiply(x, w, name="xw") + tf.reduce_sum(x * x, name="ss")
        feed = {x: x0, w: w0}
        e = explain_gradient(y, [x, w], feed_dict=feed)
        t = trace_element(y, x, 1, 1, feed_dict=feed)

    def f(xv: np.ndarray, wv: float) -> np.ndarray:
        return xv * wv + np.sum(xv * xv)

    np.testing.assert_allclose(e.matrix(0), central_jacobian(lambda v: f(v, w0), x0), atol=1e-8)
    np.testing.assert_allclose(
        e.matrix(1), central_jacobian(lambda v: f(x0, v), np.float64(w0)), atol=1e-8
    )
    np.testing.assert_allclose(e.gradients[0], w0 + 3 * 2 * x0)
    assert e.gradients[1] == pytest.approx(x0.sum()) and e.matches == [True, True]
    assert sorted(t.paths) == [
        ("x", "mul", "ss", "add"),
        ("x", "mul", "ss", "add"),
        ("x", "xw", "add"),
    ]
    assert sorted(t.contributions) == pytest.approx(sorted([x0[1], x0[1], w0]))
    assert t.total == pytest.approx(w0 + 2 * x0[1]) == t.jacobian_entry


def test_user_gradient_rules_are_honoured():
    @tf.RegisterGradient("SymgradChainTestDouble")
    def _double(op, grad):
        return grad * 2.0

    @tf.RegisterGradient("SymgradChainTestSquare")
    def _square(op, grad):
        return grad * grad  # not linear in grad: vᵀJ cannot equal tf.gradients

    with tf.Graph().as_default() as g:
        x = tf.constant([1.0, 2.0], tf.float64, name="x")
        with g.gradient_override_map({"Identity": "SymgradChainTestDouble"}):
            h = tf.identity(x, name="h")
        with g.gradient_override_map({"Identity": "SymgradChainTestSquare"}):
            s = tf.identity(x, name="s")
        t = trace_element(h * 3.0, x, 1, 1)
        e = explain_gradient(s * 3.0, x, grad_ys=np.array([2.0, 2.0]))
    assert t.paths == [("x", "h", "mul")]
    assert [f[0][1] for f in t.path_traces[0].factors] == [2.0, 3.0]
    assert t.total == 6.0 == t.jacobian_entry
    np.testing.assert_allclose(e.matrix(), 9 * np.eye(2))  # (3 * one-hot) ** 2
    np.testing.assert_allclose(e.gradient, [18.0, 18.0])
    np.testing.assert_allclose(e.tf_gradients[0], [36.0, 36.0])
    assert e.matches == [False] and "DIFFERENT numbers" in str(e)


def test_unconnected_x_gets_zeros_and_says_none():
    x, z = tf.constant([1.0, 2.0]), tf.constant(3.0)
    e = explain_gradient(x * 2.0, [x, z])
    assert e.tf_gradients[1] is None and e.matches == [True, True]
    np.testing.assert_array_equal(e.matrix(1), np.zeros((2, 1)))
    assert "tf.gradients returns None for x1" in str(e)
    t = trace_element(x * 2.0, z, 0, ())
    assert t.paths == [] and t.total == 0 and "No path of ops leads from x to y" in str(t)


def test_size_limit_names_the_sizes():
    x = tf.zeros([70])
    with pytest.raises(
        ValueError,
        match=r"\(70,\)\) have 70 elements .* 4900 entries; the "
        rf"limit is {MAX_ENTRIES}",
    ):
        explain_gradient(x * 2.0, x)


def test_bad_indices_name_the_argument_and_the_shape():
    tf_t, y_tf, _ = seed_002()
    with pytest.raises(
        IndexError,
        match=r"y_index=\(0, 5\) is not an index into y "
        r"\(MatMul.*\) of shape \(5, 3\)",
    ):
        trace_element(y_tf, tf_t, (0, 5), (0, 0))
    with pytest.raises(IndexError, match=r"x_index=3 .* of shape \(5, 3\): give 2 integer"):
        trace_element(y_tf, tf_t, (0, 0), 3)
    t = trace_element(y_tf, tf_t, (-1, -1), (-1, 0))  # negative indices count from the end
    assert t.total == pytest.approx(ANOTHER[0][2]) and "d y[4,2] / d x[4,0]" in str(t)


def test_too_many_paths_and_other_refusals():
    h = x = tf.constant(1.0)
    for _ in range(7):
        h = h + h  # each step doubles the paths
    with pytest.raises(ValueError, match=rf"there are 128 paths .* at most {MAX_PATHS}"):
        trace_element(h, x, (), ())
    with pytest.raises(TypeError, match="needs real floating xs, got .* of dtype int32"):
        explain_gradient(h, tf.constant(1))
    with pytest.raises(ValueError, match="3 grad_ys given for 1 ys"):
        explain_gradient(x * 2.0, x, grad_ys=[1.0, 2.0, 3.0])


def test_reexported_from_explain_and_tools():
    assert tf.explain.explain_gradient is explain_gradient
    assert tf.explain.trace_element is trace_element
    assert tf.tools.explain_gradient is explain_gradient


def test_trace_element_through_a_while_names_loop_variables_captures_and_iterations():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2], name="x")
        w = tf.Variable([1.5, 0.5], dtype=tf.float64, name="w")
        body = lambda i, a: (i + 1, tf.sin(a) * w)  # noqa: E731
        _, y = tf.while_loop(lambda i, a: i < 3, body, [0, x], name="loop")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tx = tf.tools.trace_element(y, x, 0, 0, feed_dict={x: [0.3, 0.4]}, session=sess)
            tw = tf.tools.trace_element(y, w, 0, 0, feed_dict={x: [0.3, 0.4]}, session=sess)
            [gw] = sess.run(tf.gradients(y[0], [w]), {x: [0.3, 0.4]})
    text = str(tx)
    assert (
        "loop (While: x:0 as loop variable 1, out as the final value of loop variable 1, "
        "through iterations 0-2, " in text
    )
    assert "input 3" not in text
    assert ", captured by the body, out as the final value of loop variable 1" in str(tw)
    assert abs(tw.total - gw[0]) < 1e-12
