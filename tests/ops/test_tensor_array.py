"""TensorArray: eager (a list) and graph (a dense buffer) semantics, arrays as while_loop
variables, gradients to second order, and TF's error texts.

Expected numbers were recorded by running the same programs on TensorFlow 2.21 (CPU).
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError, OutOfRangeError

X0 = [0.3, -0.7]
W = [1.3, -0.4]
# n -> (stack, d loss/d x0, d loss/d w, dynamic stack, dynamic size, its gradient), from TF
TF_P5 = {
    0: ([], [1.0, 1.0], [0.0, 0.0], [], 0, [0.0, 0.0]),
    1: (
        [[0.28534424, 0.00852168]],
        [3.60294056, 0.12240498],
        [0.61123997, -0.40633917],
        [[0.0, -0.0]],
        1,
        [0.0, 0.0],
    ),
    3: (
        [[0.28534424, 0.00852168], [0.8629666, 8.618735e-05], [2.26736403, 8.619721e-07]],
        [21.56093216, -0.07042437],
        [10.42773914, 0.21877137],
        [[0.0, -0.0], [0.3, -0.7], [0.6, -1.4]],
        3,
        [3.0, -7.0],
    ),
}


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def p5(x0, w, n):
    """A while_loop writing x*x each step, and a dynamic-size array grown to n."""

    def body(i, x, ta):
        x = tf.sin(x) * w + x * 0.5
        return i + 1, x, ta.write(i, x * x)

    ta = tf.TensorArray(tf.float32, size=n)
    _, xf, ta = tf.while_loop(lambda i, x, ta: i < n, body, [0, x0, ta])
    st = ta.stack()
    loss = tf.reduce_sum(st * tf.constant([1.0, 2.0])) + tf.reduce_sum(xf)
    dta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    _, dta = tf.while_loop(
        lambda i, ta: i < n,
        lambda i, ta: (i + 1, ta.write(i, tf.cast(i, tf.float32) * x0)),
        [0, dta],
    )
    dst = dta.stack()
    return st, loss, dst, dta.size(), tf.reduce_sum(dst * dst)


def test_while_loop_session_with_fed_length():
    with tf.Graph().as_default() as g:
        x0 = tf.compat.v1.placeholder(tf.float32, [2])
        n = tf.compat.v1.placeholder(tf.int32, [])
        w = tf.constant(W)
        st, loss, dst, dsz, _ = p5(x0, w, n)
        assert st.shape.as_list() == [None, 2]
        assert sum("While" in op.type for op in g.get_operations()) == 2
        gx, gw = tf.gradients(loss, [x0, w])
        with tf.compat.v1.Session() as s:
            for nn, want in TF_P5.items():
                got = s.run([st, gx, gw, dst, dsz], {x0: X0, n: nn})
                for a, b in zip(got, want[:5], strict=True):
                    close(np.reshape(a, np.shape(b)) if np.size(a) == 0 else a, b)


def test_while_loop_eager_tape_and_function():
    want = TF_P5[3]
    x0, w = tf.constant(X0), tf.constant(W)
    with tf.GradientTape(persistent=True) as t:
        t.watch([x0, w])
        st, loss, dst, dsz, dloss = p5(x0, w, 3)
    close(st, want[0])
    close(dst, want[3])
    assert int(dsz) == 3
    close(t.gradient(loss, [x0, w]), want[1:3])
    close(t.gradient(dloss, x0), want[5])

    @tf.function
    def f(x0, w, n):
        with tf.GradientTape(persistent=True) as t:
            t.watch([x0, w])
            st, loss, dst, dsz, _ = p5(x0, w, n)
        return st, *t.gradient(loss, [x0, w]), dst, dsz

    # (a graph loop cannot yet differentiate an array that grows in it: while_loop keeps no
    # per-iteration values of a loop variable whose shape changes)
    for a, b in zip(f(x0, w, tf.constant(3)), want[:5], strict=True):
        close(a, b)


def test_second_order_through_an_array_in_a_loop():
    # TF: the gradient, and the gradient of its squared norm, w.r.t. w
    def grads(x0, w):
        with tf.GradientTape() as t2:
            t2.watch(w)
            with tf.GradientTape() as t1:
                t1.watch(w)
                ta = tf.TensorArray(tf.float32, size=3)
                _, _, ta = tf.while_loop(
                    lambda i, x, ta: i < 3,
                    lambda i, x, ta: (i + 1, tf.sin(x) * w, ta.write(i, x * w)),
                    [0, x0, ta],
                )
                y = tf.reduce_sum(ta.stack() ** 2)
            g = t1.gradient(y, w)
            s = tf.reduce_sum(g * g)
        return g, t2.gradient(s, w)

    x0, w = tf.constant(X0), tf.constant(W)
    for g, gg in (grads(x0, w), tf.function(grads)(x0, w)):
        close(g, [2.822504, -0.5229986])
        close(gg, [49.49652, -2.1783738], rtol=2e-5)


def test_finite_differences_of_array_loops():
    rng = np.random.default_rng(5)
    x0, w = rng.standard_normal(3), rng.standard_normal(3)

    def written(x0, w):
        ta = tf.TensorArray(x0.dtype, size=4)
        _, _, ta = tf.while_loop(
            lambda i, x, ta: i < 4,
            lambda i, x, ta: (i + 1, tf.sin(x) * w, ta.write(i, x * w)),
            [0, x0, ta],
        )
        return ta.stack()

    def gathered(x0, w):
        ta = tf.TensorArray(x0.dtype, size=3).unstack(tf.stack([x0, w, x0 * w]))
        ta = ta.scatter([2, 0], tf.stack([w * w, tf.sin(x0)]))
        return ta.gather([2, 1, 2]) + ta.read(0)

    def dynamic_within_size(x0, w):  # a dynamic array that does not grow keeps its gradient
        ta = tf.TensorArray(x0.dtype, size=3, dynamic_size=True)
        body = lambda i, ta: (i + 1, ta.write(i, tf.cast(i, x0.dtype) * x0 * w))  # noqa: E731
        return tf.while_loop(lambda i, ta: i < 3, body, [0, ta])[1].stack()

    for fn in (written, gathered, dynamic_within_size):
        tf.test.check_vjp(tf.function(fn), [x0, w], order=2)
    tf.test.check_vjp(written, [x0, w], order=2)


def test_element_shape_learnt_from_the_body():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        _, ta = tf.while_loop(
            lambda i, t: i < 3, lambda i, t: (i + 1, t.write(i, x * 2.0)), [0, ta]
        )
        return ta.stack()

    out = f(tf.constant([1.0, 2.0]))
    close(out, [[2.0, 4.0]] * 3)

    @tf.function
    def g(x):
        ta = tf.TensorArray(tf.float32, size=2)
        body = lambda i, t: (i + 1, t.write(i, x[: i + 1]))  # noqa: E731
        return tf.while_loop(lambda i, t: i < 2, body, [0, ta])[1].stack()

    # TF fails at run time (stacking elements of shapes [1] and [2]); so does symgrad, at
    # the second write (its buffer takes the first write's element shape)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"Item element shape: \[2\] list shape: \[1\]"
    ):
        g(tf.constant([1.0, 2.0]))


def test_eager_semantics_as_tf():
    ta = tf.TensorArray(tf.float32, size=3)
    assert ta.write(0, [1.0, 2.0]) is ta  # eager arrays are mutated, as TF's
    close(ta.stack(), [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]])
    assert ta.element_shape == tf.TensorShape([2])
    close(ta.read(0), [1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="Could not read index 0 twice because it"):
        ta.read(0)
    close(ta.stack(), np.zeros((3, 2)))  # the read cleared it (clear_after_read)
    d = tf.TensorArray(tf.float32, size=1, dynamic_size=True).write(3, [1.0, 2.0])
    assert int(d.size()) == 4
    close(d.stack(), [[0, 0], [0, 0], [0, 0], [1, 2]])
    s = tf.TensorArray(tf.float32, size=4).scatter([3, 1], [[1.0, 2.0], [3.0, 4.0]])
    close(s.stack(), [[0, 0], [3, 4], [0, 0], [1, 2]])
    u = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    u = u.unstack([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    close(u.gather([2, 0, 2]), [[5, 6], [1, 2], [5, 6]])
    close(u.concat(), [1, 2, 3, 4, 5, 6])
    close(u.read(1), [3, 4])
    close(u.read(1), [3, 4])
    assert tf.TensorArray(tf.float32, size=0).stack().shape == (0,)
    assert tf.TensorArray(tf.float32, size=0, element_shape=[2]).stack().shape == (0, 2)


def test_eager_errors_as_tf():
    ta = tf.TensorArray(tf.float32, size=3)
    with pytest.raises(OutOfRangeError, match="^Tried to read from index 5 but array size is: 3 $"):
        ta.read(5)
    with pytest.raises(OutOfRangeError, match=r"Reading from negative indices \(index -1\)"):
        ta.read(-1)
    with pytest.raises(OutOfRangeError, match="write to index 3 but array is not resizeable and"):
        ta.write(3, 1.0)
    with pytest.raises(InvalidArgumentError, match="dtype is float32 but Op is trying to write"):
        ta.write(0, tf.constant(1, tf.int32))
    e = tf.TensorArray(tf.float32, size=3, element_shape=[2])
    with pytest.raises(ValueError, match=r"^Incompatible shape for value \(\(3,\)\), expected"):
        e.write(0, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Cannot unstack 3 tensors into a TensorArray of static"):
        tf.TensorArray(tf.float32, size=2).unstack([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Size must be declared for TensorArrays when eager"):
        tf.TensorArray(tf.float32)


def run_fn(body):
    return tf.function(body)()


def test_graph_errors_as_tf():
    def ta(**kw):
        return tf.TensorArray(tf.float32, size=3, **kw)

    cases = [
        (lambda: ta(element_shape=[2]).read(5), "^Trying to access element 5 in a list with 3"),
        (lambda: ta(element_shape=[2]).read(-1), "Trying to access element -1 in a list with 3"),
        (lambda: ta().write(3, 1.0).stack(), "^Trying to modify element 3 in a list with 3"),
        (lambda: ta().read(1), "^Trying to read an uninitialized tensor but element_shape is not"),
        (lambda: ta().stack(), "uninitialized tensors and has a non-fully-defined element_shape"),
        (lambda: ta().unstack([[1.0], [2.0], [3.0]]).gather([2, 7]), "^Index 7 out o range;"),
        (
            lambda: tf.TensorArray(tf.float32, size=4).scatter([1, 5], [[1.0], [2.0]]).stack(),
            "^Operation expected a list with 4 elements but got a list with 6 elements.",
        ),
    ]
    for body, text in cases:
        with pytest.raises(InvalidArgumentError, match=text):
            run_fn(body)
    with pytest.raises(ValueError, match=r"^Inconsistent shapes: saw \(3,\) but expected \(2,\) $"):
        run_fn(lambda: ta(element_shape=[2]).write(0, [1.0, 2.0, 3.0]).stack())


def test_graph_arrays_are_values_and_session_errors():
    with tf.Graph().as_default():
        n = tf.compat.v1.placeholder(tf.int32, [])
        ta = tf.TensorArray(tf.float32, size=n)
        ta2 = ta.write(5, [1.0, 2.0])
        out = ta2.stack()
        assert out.shape.as_list() == [None, 2]
        assert ta.element_shape == tf.TensorShape([2])  # shape inference is shared
        with tf.compat.v1.Session() as s:
            close(s.run(out, {n: 6}), [[0, 0]] * 5 + [[1, 2]])
            close(s.run(ta2.size(), {n: 6}), 6)
            with pytest.raises(InvalidArgumentError, match="Trying to modify element 5 in a list"):
                s.run(out, {n: 3})


def test_one_public_class_and_v1_names():
    assert isinstance(tf.TensorArray(tf.float32, size=1), tf.TensorArray)
    seen = []
    tf.function(lambda: seen.append(tf.TensorArray(tf.float32, size=1)) or tf.constant(0))()
    assert isinstance(seen[0], tf.TensorArray)
    v1 = tf.compat.v1
    assert (v1.TensorArray, v1.map_fn, v1.scan, v1.foldl, v1.foldr) == (
        tf.TensorArray,
        tf.map_fn,
        tf.scan,
        tf.foldl,
        tf.foldr,
    )


def test_a_growing_dynamic_array_written_in_a_graph_loop_differentiates():
    """A decoder-style loop: ``dynamic_size`` array of size 0, one write per step.  The
    body only writes it, so no per-iteration copy is kept and the gradient flows to what
    was written.  Values are TF 2.21's for the same program."""
    x = tf.constant(np.array([0.5, -1.0, 2.0], np.float32))

    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

            def body(i, ta):
                return i + 1, ta.write(i, tf.sin(x[i]) * tf.cast(i + 1, tf.float32))

            _, ta = tf.while_loop(lambda i, ta: i < 3, body, [0, ta])
            y = tf.reduce_sum(ta.stack() ** 2)
        return y, t.gradient(y, x)

    y, g = f(x)
    np.testing.assert_allclose(float(y), 10.503538131713867, rtol=1e-6)
    np.testing.assert_allclose(
        g.numpy(), [0.8414710164070129, -3.6371893882751465, -6.811222553253174], rtol=1e-6
    )


def test_an_unwritten_array_with_a_partly_known_element_shape_enters_a_loop():
    """Its buffer holds no values until the body's first write gives it the element's
    shape (TF 2.21: [[1, 1, 1], [1, 1, 1]])."""

    @tf.function
    def partly_known(n):
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[None])
        body = lambda i, ta: (i + 1, ta.write(i, tf.ones([n])))  # noqa: E731
        return tf.while_loop(lambda i, ta: i < 2, body, [0, ta])[1].stack()

    close(partly_known(tf.constant(3)), [[1.0, 1.0, 1.0]] * 2)


def test_an_rnn_over_a_fed_batch_writes_an_array_of_partly_known_elements():
    """A TF1 program: sequence [T, batch, 2] fed at run time, so the array's elements are
    only known to be [None, 2]; the body writes and reads back its row (TF 2.21 numbers)."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        seq = v1.placeholder(tf.float64, [None, None, 2])
        w = v1.Variable(np.array([[0.3, -0.1], [0.2, 0.4]]))
        steps = tf.shape(seq)[0]

        def body(t, h, ta):
            h = tf.tanh(tf.matmul(seq[t], w) + h)
            ta = ta.write(t, h * 2.0)
            return t + 1, h + 0.1 * ta.read(t), ta

        h0 = tf.zeros([tf.shape(seq)[1], 2], tf.float64)
        ta = tf.TensorArray(tf.float64, size=steps)
        _, h, ta = tf.while_loop(lambda t, *_: t < steps, body, [0, h0, ta])
        hs = ta.stack()
        assert hs.shape.as_list() == [None, None, 2]
        loss = tf.reduce_sum(hs**2) + tf.reduce_sum(h)
        gs, gw = tf.gradients(loss, [seq, w])
        with v1.Session() as s:
            s.run(w.initializer)
            sv = np.arange(12.0).reshape(3, 2, 2) / 10 - 0.5
            got = s.run([loss, gw, gs], {seq: sv})
            want_gs = [
                [
                    [-1.2814861522447503, -1.0794929084510254],
                    [0.13923177596466596, 1.75048360060557],
                ],
                [
                    [-0.7480591043665654, -0.3477777924533039],
                    [0.34752817084786153, 1.77195319206095],
                ],
                [
                    [-0.1752616362589134, 0.3868568167236982],
                    [0.4702246350861863, 1.565903730912365],
                ],
            ]
            np.testing.assert_allclose(got[0], 1.3641374136545485, rtol=1e-12)
            want_gw = [
                [3.3498912664627905, 1.1390128241899997],
                [3.282508223285091, 2.18468600562841],
            ]
            np.testing.assert_allclose(got[1], want_gw, rtol=1e-12)
            np.testing.assert_allclose(got[2], want_gs, rtol=1e-12)
            np.testing.assert_allclose(
                s.run(gw, {seq: sv[:1, :1]}),
                [
                    [0.2885766151030087, -0.159824430967767],
                    [0.23086129208240697, -0.1278595447742136],
                ],
                rtol=1e-12,
            )
