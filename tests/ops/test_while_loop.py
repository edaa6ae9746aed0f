"""tf.while_loop: eager loops, the functional While op, and its gradients.

Expected numbers were recorded by running the same programs on TensorFlow 2.21 (CPU).
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.gradient_registry import gradient_registry

X0 = [0.3, -0.7]
W = [1.3, -0.4]
# (trip count) -> (i, x, d sum(x*x)/dx0, d sum(x*x)/dw), from TF 2.21
TF_PROG2 = {
    0: (0, [0.3, -0.7], [0.6, -1.4], [0.0, 0.0]),
    4: (
        4,
        [2.0501413e00, -9.2842500e-05],
        [8.6386490e00, -3.6654694e-08],
        [9.036382e00, 6.376546e-07],
    ),
    7: (
        7,
        [2.1615734e00, -9.2842498e-08],
        [-4.8038952e-02, -3.6654680e-14],
        [2.9797435e00, 1.1548382e-12],
    ),
}


def prog2(x0, w, n):
    return tf.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, tf.sin(x) * w + x * 0.5), [0, x0])


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def test_eager_loop_runs_python_numbers_as_tf():
    i, x = tf.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x * 1.5 + 0.1), [0, 2.0])
    assert int(i) == 5 and x.dtype is tf.float32
    assert float(x) == np.float32(16.506250381469727)  # computed in Python floats, as TF


def test_graph_one_op_and_fed_trip_count():
    with tf.Graph().as_default() as g:
        x0 = tf.compat.v1.placeholder(tf.float32, [2])
        n = tf.compat.v1.placeholder(tf.int32, [])
        w = tf.constant(W)
        i, x = prog2(x0, w, n)
        assert [op.type for op in g.get_operations() if "While" in op.type] == ["StatelessWhile"]
        gx, gw = tf.gradients(tf.reduce_sum(x * x), [x0, w])
        with tf.compat.v1.Session() as s:
            for nn, want in TF_PROG2.items():
                got = s.run([i, x, gx, gw], {x0: X0, n: nn})
                assert got[0] == want[0]
                for a, b in zip(got[1:], want[1:], strict=True):
                    close(a, b)


def test_eager_tape():
    x0, w = tf.constant(X0), tf.constant(W)
    with tf.GradientTape() as t:
        t.watch([x0, w])
        _, x = prog2(x0, w, 4)
        y = tf.reduce_sum(x * x)
    _, xw, gxw, gww = TF_PROG2[4]
    close(x, xw)
    gx, gw = t.gradient(y, [x0, w])
    close(gx, gxw)
    close(gw, gww)


def test_tape_inside_and_outside_function():
    x0, w = tf.constant(X0), tf.constant(W)
    _, xw, gxw, gww = TF_PROG2[4]

    @tf.function
    def inside(x0, w, n):
        with tf.GradientTape() as t:
            t.watch([x0, w])
            _, x = prog2(x0, w, n)
            y = tf.reduce_sum(x * x)
        return x, t.gradient(y, [x0, w])

    x, (gx, gw) = inside(x0, w, tf.constant(4))
    close(x, xw)
    close(gx, gxw)
    close(gw, gww)
    f = tf.function(prog2)
    with tf.GradientTape() as t:
        t.watch([x0, w])
        _, x = f(x0, w, tf.constant(4))
        y = tf.reduce_sum(x * x)
    close(x, xw)
    gx, gw = t.gradient(y, [x0, w])
    close(gx, gxw)
    close(gw, gww)


def prog3(a, b, c):
    return tf.while_loop(
        lambda i, d: i < 3,
        lambda i, d: (
            i + 1,
            {"a": d["a"] * d["b"][0], "b": (d["b"][0] + d["b"][1], d["b"][1] * 2.0)},
        ),
        (tf.constant(0), {"a": a, "b": (b, c)}),
    )


def test_nested_structures():
    i, d = prog3(tf.constant(2.0), tf.constant(0.5), tf.constant(1.5))
    assert int(i) == 3
    assert (float(d["a"]), float(d["b"][0]), float(d["b"][1])) == (10.0, 11.0, 12.0)
    with tf.Graph().as_default():
        a, b, c = tf.constant(2.0), tf.constant(0.5), tf.constant(1.5)
        r = prog3(a, b, c)
        assert isinstance(r, tuple) and isinstance(r[1]["b"], tuple)
        g = tf.gradients(r[1]["a"], [a, b, c])
        with tf.compat.v1.Session() as s:
            got = s.run(r)
            assert got[0] == 3 and got[1]["a"] == 10.0 and got[1]["b"] == (11.0, 12.0)
            assert s.run(g) == [5.0, 27.0, 11.0]  # TF 2.21


def test_maximum_iterations():
    i, x = tf.while_loop(
        lambda i, x: i < 100,
        lambda i, x: [i + 1, x * 2.0],
        [0, tf.constant(1.0)],
        maximum_iterations=3,
    )
    assert (int(i), float(x)) == (3, 8.0)
    with tf.Graph().as_default():
        m = tf.compat.v1.placeholder(tf.int32, [])
        x0 = tf.constant(1.0)
        r = tf.while_loop(
            lambda i, x: i < 5, lambda i, x: (i + 1, x * 2.0), [0, x0], maximum_iterations=m
        )
        g = tf.gradients(r[1], x0)
        with tf.compat.v1.Session() as s:
            assert s.run([r, g], {m: 3}) == [[3, 8.0], [8.0]]  # TF 2.21
            assert s.run([r, g], {m: 10}) == [[5, 32.0], [32.0]]


def test_shape_invariants():
    with tf.Graph().as_default():
        r = tf.while_loop(
            lambda i, x: i < 3,
            lambda i, x: (i + 1, tf.concat([x, x], 0)),
            [0, tf.constant([1.0])],
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])],
        )
        assert r[1].shape.as_list() == [None]
        with tf.compat.v1.Session() as s:
            i, x = s.run(r)
        assert i == 3 and x.tolist() == [1.0] * 8


def test_long_eager_loop_and_gradient():
    x0 = tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch(x0)
        x = tf.while_loop(lambda x: True, lambda x: x * 0.99999, [x0], maximum_iterations=100_000)[
            0
        ]
    want = float(np.float32(0.99999)) ** 100_000  # 0.36738..., the float32 factor's power
    close(x, want, rtol=1e-4)
    close(t.gradient(x, x0), want, rtol=1e-4)


def test_long_loop_in_tf_matches():
    # TF 2.21: x <- x * 0.99999 + 0.00001 from 1.0, 100,000 times: x = 1.0, dx/dx0 = 0.3673803
    with tf.Graph().as_default():
        x0 = tf.constant(1.0)
        _, x = tf.while_loop(
            lambda i, x: i < 100000, lambda i, x: (i + 1, x * 0.99999 + 0.00001), [0, x0]
        )
        g = tf.gradients(x, x0)[0]
        with tf.compat.v1.Session() as s:
            xv, gv = s.run([x, g])
    assert xv == 1.0
    close(gv, 0.3673803, rtol=1e-4)


def fd(f, x, e=1e-6):
    return (f(x + e) - f(x - e)) / (2 * e)


def test_first_and_second_order_against_finite_differences():
    with tf.Graph().as_default():
        a = tf.compat.v1.placeholder(tf.float64, [])
        w = tf.compat.v1.placeholder(tf.float64, [])
        _, x = tf.while_loop(
            lambda i, x: i < 3, lambda i, x: (i + 1, tf.sin(x) * w + x * x * 0.3), [0, a]
        )
        g = tf.gradients(x, [a, w])
        h = tf.gradients(g[0], [a, w])
        with tf.compat.v1.Session() as s:

            def run(t, av, wv):
                return s.run(t, {a: av, w: wv})

            ga, gw = run(g, 0.4, 0.9)
            close(ga, fd(lambda v: run(x, v, 0.9), 0.4), rtol=1e-7)
            close(gw, fd(lambda v: run(x, 0.4, v), 0.9), rtol=1e-7)
            haa, haw = run(h, 0.4, 0.9)
            close(haa, fd(lambda v: run(g[0], v, 0.9), 0.4), rtol=1e-7)
            close(haw, fd(lambda v: run(g[0], 0.4, v), 0.9), rtol=1e-7)


def test_gradient_is_a_rule_in_the_registry():
    assert gradient_registry.lookup("While") is not None
    assert gradient_registry.lookup("StatelessWhile") is not None


def test_stateful_body_records_while():
    v = tf.Variable(2.0)

    @tf.function
    def f(x):
        return tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * v), [0, x])

    cf = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    assert [op.type for op in cf.graph.get_operations() if "While" in op.type] == ["While"]
    assert float(f(tf.constant(1.0))[1]) == 8.0


def test_errors_with_tf_texts():
    with tf.Graph().as_default():
        with pytest.raises(
            ValueError,
            match=r"Input tensor `Const(_\d+)?:0` enters the loop "
            r"with shape \(1,\), but has shape \(2,\) after one iteration\. "
            r"To allow the shape to vary across iterations, use the "
            r"`shape_invariants` argument of tf.while_loop to specify a "
            r"less-specific shape\.",
        ):
            tf.while_loop(
                lambda x: tf.size(x) < 3, lambda x: tf.concat([x, x], 0), [tf.constant([1.0])]
            )
        with pytest.raises(ValueError) as e:  # TF: the body's result first, then loop_vars
            tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1,), [0, 1.0])
        assert str(e.value).startswith(
            "The two structures don't have the same nested structure.\n\n"
            "First structure: type=tuple str=(<symgrad.Tensor 'add:0' shape=() dtype=int32>,)"
            "\n\nSecond structure: type=list str=[0, 1.0]\n\nMore specifically: The two "
            "structures don't have the same number of elements."
        )
        with pytest.raises(
            TypeError,
            match=r"Loop var \S+ enters the loop with type "
            r"<dtype: 'float32'> but has type <dtype: 'float64'> after 1 "
            r"iteration\. \S+ type should remain constant\.",
        ):
            tf.while_loop(
                lambda i, x: i < 3, lambda i, x: (i + 1, tf.cast(x, tf.float64)), [0, 1.0]
            )
        with pytest.raises(
            ValueError, match="The two structures don't have the same nested structure"
        ):
            tf.while_loop(
                lambda i, x: i < 3,
                lambda i, x: (i + 1, x),
                [0, 1.0],
                shape_invariants=[tf.TensorShape([])],
            )
        with pytest.raises(TypeError, match="'cond' must be callable."):
            tf.while_loop(1, lambda x: x, [1.0])
        with pytest.raises(TypeError, match="'body' must be callable."):
            tf.while_loop(lambda x: x < 1, 2, [1.0])
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure"):
        tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1,), [0, 1.0])
