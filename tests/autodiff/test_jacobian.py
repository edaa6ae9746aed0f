"""jacobian, batch_jacobian, hessians, Hessian-vector products and ForwardAccumulator."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf


def numeric_jacobian(f, x, eps=1e-6):
    """d f(x) / d x by central differences: shape f(x).shape + x.shape (float64)."""
    x = np.array(x, np.float64)
    y0 = np.asarray(f(x))
    jac = np.zeros(y0.shape + x.shape)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        jac[(..., *i)] = (np.asarray(f(x + d)) - np.asarray(f(x - d))) / (2 * eps)
    return jac


W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def model(x):
    return tf.tanh(tf.matmul(tf.constant(W), x)) * 2.0  # [2, 3] @ [3, 4] -> [2, 4]


def test_jacobian_matches_finite_differences():
    xv = np.random.default_rng(1).standard_normal((3, 4))
    x = tf.constant(xv)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = model(x)
    jac = tape.jacobian(y, x)
    assert jac.shape == (2, 4, 3, 4)
    ref = numeric_jacobian(lambda a: model(tf.constant(a)).numpy(), xv)
    np.testing.assert_allclose(jac.numpy(), ref, rtol=1e-6, atol=1e-9)


def test_jacobian_structures_and_unconnected():
    x, v = tf.constant([1.0, 2.0]), tf.Variable([[3.0, 4.0, 5.0]])
    u = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * tf.reduce_sum(v)
    jx, jv, ju = tape.jacobian(y, [x, v, u])
    assert jx.numpy().tolist() == [[12.0, 0.0], [0.0, 12.0]]
    assert jv.shape == (2, 1, 3) and jv.numpy().tolist() == [[[1.0] * 3], [[2.0] * 3]]
    assert ju is None
    d = tape.jacobian(y, {"u": u}, unconnected_gradients="zero")
    assert d["u"].shape == (2,) and d["u"].numpy().tolist() == [0.0, 0.0]


def test_jacobian_uses_a_non_persistent_tape():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.jacobian(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        tape.jacobian(y, x)


def test_jacobian_can_be_differentiated():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        jac = inner.jacobian(y, x)  # diag(3 x^2)
    assert outer.gradient(jac, x).numpy().tolist() == [6.0, 12.0]


def test_batch_jacobian():
    rng = np.random.default_rng(2)
    xv = rng.standard_normal((5, 3))
    wv = rng.standard_normal((3, 2))
    x = tf.constant(xv)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.sin(tf.matmul(x, tf.constant(wv)))  # [5, 2], row i depends on x[i]
    bj = tape.batch_jacobian(y, x)
    assert bj.shape == (5, 2, 3)
    full = tape.jacobian(y, x).numpy()  # [5, 2, 5, 3]
    np.testing.assert_allclose(bj.numpy(), np.stack([full[i, :, i] for i in range(5)]))


def test_batch_jacobian_errors():
    with tf.GradientTape(persistent=True) as tape:
        x = tf.constant([1.0, 2.0])
        a = tf.ones([2, 2])
        b = tf.ones([3, 3])
        tape.watch([x, a, b])
    with pytest.raises(ValueError, match=r"^Shape \(2,\) must have rank at least 2$"):
        tape.batch_jacobian(x, a)
    with pytest.raises(ValueError, match=r"^Need first dimension of target shape \(\(2, 2\)\) "
                       r"and source shape \(\(3, 3\)\) to match.$"):
        tape.batch_jacobian(a, b)


def test_hessians_match_finite_differences():
    xv = np.array([0.3, -1.2, 0.7])

    def f(x):
        return tf.reduce_sum(tf.exp(x) * x * x) + tf.reduce_sum(x) ** 2

    (h,) = tf.hessians(f(x := tf.constant(xv)), x)
    assert h.shape == (3, 3)
    grad = lambda a: tf.gradients(f(t := tf.constant(a)), t)[0].numpy()  # noqa: E731
    np.testing.assert_allclose(h.numpy(), numeric_jacobian(grad, xv), rtol=1e-6, atol=1e-8)


def test_hessians_in_a_graph_and_unconnected():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2])
        z = tf.placeholder(tf.float32, [2])
        y = tf.reduce_sum(x * x * x)
        hx, hz = tf.hessians(y, [x, z])
        assert hz is None
        with tf.Session() as sess:
            assert sess.run(hx, {x: [1.0, 2.0]}).tolist() == [[6.0, 0.0], [0.0, 12.0]]


def test_hessian_vector_product():
    xv = np.array([0.3, -1.2, 0.7])
    vv = np.array([1.0, -2.0, 0.5])
    x = tf.constant(xv)
    y = tf.reduce_sum(tf.sin(x) * x) * tf.reduce_sum(x * x)
    (hvp,) = tf.hessian_vector_product(y, [x], [tf.constant(vv)])
    (h,) = tf.hessians(y, x)
    np.testing.assert_allclose(hvp.numpy(), h.numpy() @ vv, rtol=1e-12)


def test_forward_accumulator_jvp_is_jacobian_times_tangent():
    xv = np.random.default_rng(3).standard_normal((3, 4))
    tv = np.random.default_rng(4).standard_normal((3, 4))
    x = tf.constant(xv)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(tv)) as acc:
        y = model(x)
    ref = numeric_jacobian(lambda a: model(tf.constant(a)).numpy(), xv)
    expected = np.tensordot(ref, tv, axes=2)
    np.testing.assert_allclose(acc.jvp(y).numpy(), expected, rtol=1e-6, atol=1e-9)


def test_forward_accumulator_structures_variables_and_unconnected():
    v = tf.Variable([1.0, 2.0])
    c = tf.constant(4.0)
    with tf.ForwardAccumulator([v], [tf.constant([1.0, 1.0])]) as acc:
        y = v * v
        unrelated = c * 2.0
    out = acc.jvp({"y": y, "u": unrelated})
    assert out["y"].numpy().tolist() == [2.0, 4.0]
    assert out["u"] is None
    assert acc.jvp(unrelated, unconnected_gradients="zero").numpy() == 0.0


def test_forward_accumulator_tangent_errors():
    with pytest.raises(ValueError, match="Tangent shape"):
        tf.ForwardAccumulator(tf.constant([1.0, 2.0]), tf.constant([1.0]))
    with pytest.raises(ValueError, match="same structure"):
        tf.ForwardAccumulator([tf.constant(1.0)], [])
