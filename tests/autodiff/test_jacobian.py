"""jacobian, batch_jacobian, hessians, Hessian-vector products and ForwardAccumulator."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import symgrad as tf
from symgrad.autodiff.vectorize import vectorize
from symgrad.core.op_registry import OPS, apply_op

FALLBACK = "not vectorised"


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
    with pytest.raises(
        ValueError,
        match=r"^Need first dimension of target shape \(\(2, 2\)\) "
        r"and source shape \(\(3, 3\)\) to match.$",
    ):
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


# --------------------------------------------------------------------------------------
# Vectorised Jacobians: one batched reverse pass, checked against the loop and against
# float64 central differences.

RNG = np.random.default_rng(7)
W1 = RNG.standard_normal((4, 5))
B1 = RNG.standard_normal(5)
W2 = RNG.standard_normal((5, 3))
LABELS = np.eye(3)[[0, 2, 1, 2]]


def _mlp_xent(x, w):  # x [4, 4], w [4, 5] -> per-example loss [4]
    h = tf.nn.relu(tf.matmul(x, w) + tf.constant(B1))
    logits = tf.matmul(tf.tanh(h), tf.constant(W2))
    return tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant(LABELS), logits=logits)


MODELS = {
    "elementwise": (
        lambda x: (
            tf.sqrt(tf.exp(tf.sigmoid(x)) + tf.square(tf.sin(x)))
            * tf.rsqrt(tf.log(2.0 + tf.tanh(x) * x))
        ),
        [(3, 2)],
    ),
    "broadcast": (
        lambda a, b, c: (a * b - a / c) + tf.maximum(a, b) - tf.squared_difference(b, c),
        [(2, 3), (3,), (2, 1)],
    ),
    "matmul": (
        lambda a, b: (
            tf.matmul(tf.tanh(a), b)
            + tf.matmul(a, b * b, transpose_a=False)
            + tf.transpose(tf.matmul(b, a, transpose_a=True, transpose_b=True))
        ),
        [(2, 3), (3, 2)],
    ),
    "reductions": (
        lambda x: (
            tf.reduce_sum(tf.exp(x), axis=0) * tf.reduce_mean(x, -1, True)
            + tf.reduce_max(x * x, axis=[0, 2], keepdims=True)[0]
            + tf.reduce_prod(x, axis=1, keepdims=True)
        ),
        [(2, 3, 4)],
    ),
    "reshape_transpose": (
        lambda x: (
            tf.reshape(tf.transpose(tf.tanh(x), [2, 0, 1]), [-1, 3])
            * tf.tile(tf.expand_dims(tf.reduce_sum(x, [0, 1]), 1), [2, 3])
        ),
        [(2, 3, 2)],
    ),
    "slices_concat": (
        lambda x: tf.concat([x[1:, ::-1] * 2.0, tf.stack([x[0], x[-1]], 1)[:, :1]], 1) ** 2,
        [(3, 2)],
    ),
    "softmax_xent_mlp": (_mlp_xent, [(4, 4), (4, 5)]),
}


def _inputs(shapes, seed=3):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.3, 1.5, s) for s in shapes]


def _numeric(f, values, i):
    def fi(a):
        args = [tf.constant(v) for v in values]
        args[i] = tf.constant(a)
        return f(*args).numpy()

    return numeric_jacobian(fi, values[i])


def _no_fallback(caplog):
    return not [r for r in caplog.records if FALLBACK in r.getMessage()]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_vectorised_jacobian_matches_loop_and_finite_differences(name, caplog):
    caplog.set_level(logging.DEBUG, logger="symgrad")
    f, shapes = MODELS[name]
    values = _inputs(shapes)
    xs = [tf.constant(v) for v in values]
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = f(*xs)
    fast = tape.jacobian(y, xs)
    assert _no_fallback(caplog), caplog.text
    slow = tape.jacobian(y, xs, experimental_use_pfor=False)
    for i, (jf, js) in enumerate(zip(fast, slow, strict=True)):
        assert jf.shape == tuple(y.shape.as_list()) + shapes[i]
        np.testing.assert_allclose(jf.numpy(), js.numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(jf.numpy(), _numeric(f, values, i), rtol=1e-6, atol=1e-8)


def _per_example_mlp(x):  # x [5, 2, 3] -> [5, 2, 2]; example i depends on x[i] only
    h = tf.tanh(tf.matmul(tf.reshape(x, [5, 6]), tf.constant(W1.reshape(-1)[:18].reshape(6, 3))))
    return tf.reshape(
        tf.nn.softmax(h * h)[:, :2] * tf.reduce_sum(x, [1, 2], keepdims=True)[:, 0], [5, 2, 1]
    ) * tf.constant(np.array([1.0, -2.0]))


def test_vectorised_batch_jacobian_matches_loop_and_finite_differences(caplog):
    caplog.set_level(logging.DEBUG, logger="symgrad")
    xv = _inputs([(5, 2, 3)])[0]
    x = tf.constant(xv)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = _per_example_mlp(x)
    fast = tape.batch_jacobian(y, x)
    assert _no_fallback(caplog), caplog.text
    slow = tape.batch_jacobian(y, x, experimental_use_pfor=False)
    assert fast.shape == (5, 2, 2, 2, 3)
    full = numeric_jacobian(lambda a: _per_example_mlp(tf.constant(a)).numpy(), xv)
    ref = np.stack([full[i, ..., i, :, :] for i in range(5)])
    np.testing.assert_allclose(fast.numpy(), slow.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fast.numpy(), ref, rtol=1e-6, atol=1e-8)


def _graph_ops_for_jacobian(n, use_pfor):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [n])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.tanh(tf.exp(x) * x)
        before = len(g.get_operations())
        jac = tape.jacobian(y, x, experimental_use_pfor=use_pfor)
        created = len(g.get_operations()) - before
        with tf.Session() as sess:
            xv = np.linspace(-1, 1, n)
            value = sess.run(jac, {x: xv})
    return created, value, xv


def test_vectorised_jacobian_builds_one_pass_whatever_the_target_size():
    small, _, _ = _graph_ops_for_jacobian(3, True)
    large, value, xv = _graph_ops_for_jacobian(30, True)
    assert small == large
    loop_small, _, _ = _graph_ops_for_jacobian(3, False)
    loop_large, _, _ = _graph_ops_for_jacobian(30, False)
    assert loop_large > 5 * loop_small > 5 * small
    ref = numeric_jacobian(lambda a: np.tanh(np.exp(a) * a), xv)
    np.testing.assert_allclose(value, ref, rtol=1e-6, atol=1e-8)


def test_op_without_batching_rule_falls_back_and_names_it(monkeypatch, caplog):
    monkeypatch.setattr(OPS["MatMul"], "batch", None)  # the rule lives in the op record
    caplog.set_level(logging.DEBUG, logger="symgrad")
    xv = np.random.default_rng(1).standard_normal((3, 4))
    x = tf.constant(xv)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = model(x)
        xt = tf.constant(xv.T)
        tape.watch(xt)
        yt = tf.tanh(tf.matmul(xt, tf.constant(W.T))) * 2.0  # [4, 2]: model, transposed
    jac = tape.jacobian(y, x)
    messages = [r.getMessage() for r in caplog.records if FALLBACK in r.getMessage()]
    assert len(messages) == 1 and "no batching rule" in messages[0]
    assert "(type MatMul, created at" in messages[0]
    ref = numeric_jacobian(lambda a: model(tf.constant(a)).numpy(), xv)
    np.testing.assert_allclose(jac.numpy(), ref, rtol=1e-6, atol=1e-9)
    caplog.clear()
    bj = tape.batch_jacobian(yt, xt)  # [4, 2] from [4, 3]
    assert "type MatMul" in caplog.text
    np.testing.assert_allclose(
        bj.numpy(), np.stack([ref[:, i, :, i] for i in range(4)]), rtol=1e-6, atol=1e-9
    )


def test_a_rule_that_declines_falls_back(caplog):
    caplog.set_level(logging.DEBUG, logger="symgrad")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2, 3])
        multiples = tf.placeholder(tf.int32, [2])  # known only at run time
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.tile(x * x, multiples)
            y.set_shape([4, 3])
        jac = tape.jacobian(y, x)
        # Tile's gradient reshapes to a shape known only at run time: the Reshape rule declines.
        assert "has a partly unknown shape" in caplog.text
        assert "(type Reshape, created at" in caplog.text
        xv = np.arange(6.0).reshape(2, 3)
        with tf.Session() as sess:
            value = sess.run(jac, {x: xv, multiples: [2, 1]})
    ref = numeric_jacobian(lambda a: np.tile(a * a, [2, 1]), xv)
    np.testing.assert_allclose(value, ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["none", "zero"])
@pytest.mark.parametrize("use_pfor", [True, False])
def test_batch_jacobian_unconnected_source_gives_zeros_as_tf(mode, use_pfor):
    x = tf.constant(np.ones((2, 3)))
    u = tf.constant(np.ones((2, 4), np.float32))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 2.0
    bj = tape.batch_jacobian(y, u, unconnected_gradients=mode, experimental_use_pfor=use_pfor)
    assert bj.shape == (2, 3, 4) and bj.dtype == tf.float64  # the target's dtype, as TF
    assert not bj.numpy().any()


@pytest.mark.parametrize("use_pfor", [True, False])
def test_jacobian_unconnected_source(use_pfor):
    x, u = tf.constant([1.0, 2.0]), tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * x
    jx, ju = tape.jacobian(y, [x, u], experimental_use_pfor=use_pfor)
    assert ju is None and jx.numpy().tolist() == [[2.0, 0.0], [0.0, 4.0]]
    (jz,) = tape.jacobian(y, [u], unconnected_gradients="zero", experimental_use_pfor=use_pfor)
    assert jz.shape == (2, 1, 3) and not jz.numpy().any()


@pytest.mark.parametrize("method", ["jacobian", "batch_jacobian"])
def test_loop_on_an_eager_non_persistent_tape_is_refused_as_tf(method):
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(
        RuntimeError,
        match=f"persistent=True to compute the {method} with eager execution enabled and "
        + ("with  " if method == "jacobian" else " with ")  # TF's texts, spaces and all
        + "experimental_use_pfor set to False",
    ):
        getattr(tape, method)(y, x, experimental_use_pfor=False)
    shape = (1, 2, 1, 2) if method == "jacobian" else (1, 2, 2)
    assert getattr(tape, method)(y, x).shape == shape  # the tape was not used up


def test_nested_tapes_over_a_vectorised_jacobian(caplog):
    caplog.set_level(logging.DEBUG, logger="symgrad")
    xv = np.random.default_rng(5).standard_normal((3, 4))
    x = tf.constant(xv)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = model(x)
        jac = inner.jacobian(y, x)
    second = outer.jacobian(jac, x)  # [2, 4, 3, 4, 3, 4]
    assert _no_fallback(caplog), caplog.text

    def first(a):
        t = tf.constant(a)
        with tf.GradientTape() as tape:
            tape.watch(t)
            out = model(t)
        return tape.jacobian(out, t).numpy()

    np.testing.assert_allclose(second.numpy(), numeric_jacobian(first, xv), rtol=1e-5, atol=1e-7)


def test_jacobian_inside_a_function_is_vectorised(caplog):
    caplog.set_level(logging.DEBUG, logger="symgrad")

    @tf.function
    def jac_of(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = model(x)
        return tape.jacobian(y, x)

    xv = np.random.default_rng(6).standard_normal((3, 4))
    ref = numeric_jacobian(lambda a: model(tf.constant(a)).numpy(), xv)
    np.testing.assert_allclose(jac_of(tf.constant(xv)).numpy(), ref, rtol=1e-6, atol=1e-9)
    assert _no_fallback(caplog), caplog.text


def test_hessians_are_vectorised_and_match_the_loop(caplog):
    caplog.set_level(logging.DEBUG, logger="symgrad")
    values = _inputs([(4, 4), (4, 5)])
    x, w = (tf.constant(v) for v in values)
    loss = tf.reduce_sum(_mlp_xent(x, w))
    _hx, hw = tf.hessians(loss, [x, w])
    assert _no_fallback(caplog), caplog.text
    assert hw.shape == (4, 5, 4, 5)
    from symgrad.autodiff.jacobians import _plain_vjp, jacobian_rows

    (gw,) = tf.gradients(loss, w)
    (loop,) = jacobian_rows(gw, [w], tf.UnconnectedGradients.NONE, _plain_vjp)
    np.testing.assert_allclose(hw.numpy(), loop.numpy(), rtol=1e-12, atol=1e-12)

    def grad_w(a):
        t = tf.constant(a)
        return tf.gradients(tf.reduce_sum(_mlp_xent(x, t)), t)[0].numpy()

    np.testing.assert_allclose(
        hw.numpy(), numeric_jacobian(grad_w, values[1]), rtol=1e-5, atol=1e-7
    )


def test_shape_and_one_hot_batching_rules_match_each_example():

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3, 4])
        xb = tf.placeholder(tf.float64, [5, 3, 4])
        idx = tf.cast(x, tf.int32)
        ys = [
            apply_op("Shape", [x], {"out_type": tf.int64}).output(0),
            tf.size(x),
            tf.rank(x),
            tf.one_hot(idx, 3, axis=1),
            tf.one_hot(idx, 3),
        ]
        batched = vectorize(x, xb, ys)
        xv = np.random.default_rng(0).integers(0, 3, (5, 3, 4)).astype(np.float64)
        with tf.Session() as sess:
            values = sess.run(batched, {xb: xv})
            for k in range(5):
                for v, ref in zip(values, sess.run(ys, {x: xv[k]}), strict=True):
                    assert v.dtype == ref.dtype
                    np.testing.assert_array_equal(v[k], ref)
