"""Gradients through cond and while_loop: Variables read inside branches and loop bodies,
nesting, jacobians, higher orders, run-time trip counts, and the branch not taken.

Every expected number was recorded by running the same program on TensorFlow 2.21 (CPU);
the float64 checks compare with central finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf

XS = np.arange(12, dtype=np.float32).reshape(6, 2) / 10 - 0.3
W0 = [[0.5, -0.3], [0.2, 0.8]]
H0 = [[0.1, -0.2]]

# loss of the RNN below and d loss / d W (TF 2.21: eager, tf.function and both tapes)
RNN = [1.3606468, [[0.391743, 0.31935221], [0.46393481, 0.44879076]]]
# d sum(g * g) / d W for g = d loss / d W (TF 2.21)
RNN_GG = [[-0.4178476, -0.95112145], [-0.27932683, -0.946787]]
# n -> [loss, d loss / d W, d sum(g * g) / d W], Graph + Session, n fed (TF 2.21)
RNN_GRAPH = {
    0: [0.050000004, [[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]],
    3: [
        0.024131954,
        [[0.088488303, -0.10891001], [0.1173037, -0.12228374]],
        [[0.17376791, -0.27781326], [0.19976954, -0.19255756]],
    ],
    6: [1.3606468, RNN[1], RNN_GG],
}


def close(got, want, rtol=1e-5, atol=1e-6):
    if want is None:
        assert got is None
    elif isinstance(want, list | tuple) and any(w is None or isinstance(w, list) for w in want):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            close(g, w, rtol, atol)
    else:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float64), rtol, atol)


def rnn(w, xs, n=6):
    """h <- tanh(h W + x_t) over the rows of xs; the loss is sum(h * h)."""

    def body(i, h):
        return i + 1, tf.tanh(tf.matmul(h, w) + tf.reshape(tf.gather(xs, i), [1, 2]))

    _, h = tf.while_loop(lambda i, h: i < n, body, [0, tf.constant(H0, dtype=w.dtype)])
    return tf.reduce_sum(h * h)


def test_rnn_variable_read_in_the_body_eager_and_function():
    w, xs = tf.Variable(W0), tf.constant(XS)
    with tf.GradientTape() as t:
        loss = rnn(w, xs)
    close([loss, t.gradient(loss, [w])[0]], RNN)

    @tf.function
    def inside():
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t:
                loss = rnn(w, xs)
            g = t.gradient(loss, w)
            s = tf.reduce_sum(g * g)
        return loss, g, t2.gradient(s, w)

    close(inside(), [*RNN, RNN_GG])
    f = tf.function(lambda: rnn(w, xs))
    with tf.GradientTape() as t:
        loss = f()
    close([loss, t.gradient(loss, [w])[0]], RNN)


def test_rnn_variable_read_in_the_body_graph_session():
    with tf.Graph().as_default():
        w, xs = tf.compat.v1.Variable(W0), tf.constant(XS)
        n = tf.compat.v1.placeholder(tf.int32, [])
        loss = rnn(w, xs, n)
        (g,) = tf.gradients(loss, [w])
        (gg,) = tf.gradients(tf.reduce_sum(g * g), [w])
        assert next(op.type for op in loss.graph.get_operations() if "While" in op.type) == "While"
        with tf.compat.v1.Session() as s:
            s.run(tf.compat.v1.global_variables_initializer())
            for k, want in RNN_GRAPH.items():
                close(s.run([loss, g, gg], {n: k}), want)


def test_rnn_variable_gradients_against_finite_differences():
    rng = np.random.default_rng(3)
    w0, xs0 = rng.standard_normal((2, 2)) * 0.7, rng.standard_normal((6, 2))
    with tf.Graph().as_default():
        w = tf.compat.v1.Variable(w0)
        value = tf.compat.v1.placeholder(tf.float64, [2, 2])
        load = w.assign(value)
        loss = rnn(w, tf.constant(xs0))
        (g,) = tf.gradients(loss, [w])
        u = tf.constant(rng.standard_normal((2, 2)))
        (hu,) = tf.gradients(tf.reduce_sum(g * u), [w])  # the Hessian times u
        with tf.compat.v1.Session() as s:

            def at(t, wv):
                s.run(load, {value: wv})
                return s.run(t)

            eps = 1e-6
            fd = np.zeros((2, 2))
            for idx in np.ndindex(2, 2):
                e = np.zeros((2, 2))
                e[idx] = eps
                fd[idx] = (at(loss, w0 + e) - at(loss, w0 - e)) / (2 * eps)
            close(at(g, w0), fd, rtol=1e-6, atol=1e-9)
            fd2 = (at(g, w0 + eps * s.run(u)) - at(g, w0 - eps * s.run(u))) / (2 * eps)
            close(at(hu, w0), fd2, rtol=1e-6, atol=1e-8)


def test_tape_over_cond_reading_a_variable_in_a_function():
    # cond_v2_test.testGradientTapeOfCondWithResourceVariableInFunction, and its variants
    v, u = tf.Variable(2.0), tf.Variable(3.0)

    @tf.function
    def f(p):
        with tf.GradientTape() as tape:
            c = tf.cond(p, lambda: tf.pow(v, 3), lambda: u * 5.0)
        return tape.gradient(c, [v, u])

    close([f(tf.constant(True)), f(tf.constant(False))], [[12.0, 0.0], [0.0, 5.0]])  # TF: zeros
    with tf.GradientTape() as tape:
        c = tf.cond(tf.constant(True), lambda: tf.pow(v, 3), lambda: u * 5.0)
    close(tape.gradient(c, [v, u]), [12.0, None])  # eager: the other branch never ran


def test_cond_reading_variables_graph_session_second_order():
    with tf.Graph().as_default():
        v, u = tf.compat.v1.Variable(2.0), tf.compat.v1.Variable(3.0)
        p = tf.compat.v1.placeholder(tf.bool, [])
        c = tf.cond(p, lambda: tf.pow(v, 3) * u, lambda: u * 5.0)
        g = tf.gradients(c, [v, u])
        h = tf.gradients(g[0], [v, u])
        assert c.op.inputs[0].op.type == "If"  # through an Identity, as in TF
        with tf.compat.v1.Session() as s:
            s.run(tf.compat.v1.global_variables_initializer())
            close(s.run([c, g, h], {p: True}), [24.0, [36.0, 8.0], [36.0, 12.0]])
            close(s.run([c, g, h], {p: False}), [15.0, [0.0, 5.0], [0.0, 0.0]])


def test_variables_in_nested_loops_and_conds():
    w = tf.Variable(0.9)

    @tf.function
    def while_in_cond(p, x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.cond(
                p,
                lambda: tf.while_loop(
                    lambda i, a: i < 4, lambda i, a: (i + 1, tf.sin(a * w) + a), [0, x]
                )[1],
                lambda: x * w,
            )
        return y, t.gradient(y, [x, w])

    x = tf.constant(0.7)
    close(while_in_cond(tf.constant(True), x), [3.4476342, [0.22337833, -2.9609785]])
    close(while_in_cond(tf.constant(False), x), [0.63, [0.9, 0.7]])

    @tf.function
    def cond_in_while(x):
        with tf.GradientTape() as t:
            t.watch(x)

            def body(i, a):
                odd = tf.equal(i % 2, 0)
                return i + 1, tf.cond(odd, lambda: a * w + 0.1, lambda: tf.sin(a) * w)

            y = tf.while_loop(lambda i, a: i < 5, body, [0, x])[1]
        return y, t.gradient(y, [x, w])

    close(cond_in_while(x), [0.58383512, [0.35289338, 2.1294408]])

    @tf.function
    def nested(x, c):
        with tf.GradientTape() as t:
            t.watch([x, c])

            def inner(a):
                return tf.while_loop(
                    lambda j, b: j < 3, lambda j, b: (j + 1, tf.sin(b) * w + c), [0, a]
                )[1]

            y = tf.while_loop(
                lambda i, a: i < 2, lambda i, a: (i + 1, inner(a) * 0.5 + a * c), [0, x]
            )[1]
        return y, t.gradient(y, [x, c, w])

    close(nested(x, tf.constant(0.3)), [0.75165755, [0.15441406, 2.2279372, 0.97335184]])


def test_body_that_assigns_a_variable_it_reads_is_refused():
    with tf.Graph().as_default():
        v = tf.compat.v1.Variable(1.0)
        x = tf.constant(2.0)

        def body(i, a):
            with tf.control_dependencies([v.assign_add(1.0)]):
                return i + 1, a * v.read_value()

        y = tf.while_loop(lambda i, a: i < 3, body, [0, x])[1]
        with pytest.raises(NotImplementedError, match="assigns variable 'Variable"):
            tf.gradients(y, [x])


# m (inner trip count) -> [y, d sum(y*y)/d[x, c], d sum(d/dx)/d[x, c]] (TF 2.21)
NESTED = {
    0: [
        [1.0985, -0.61440003],
        [[4.8268094, -0.62914562], [5.5693951, 2.8311553]],
        [[9.6536188, 0.52428794], [22.27758, -4.7185922]],
    ],
    2: [
        [1.4297369, -0.90840113],
        [[5.9779973, -1.6601496], [15.184397, 1.174975]],
        [[0.89370883, 2.2327762], [32.8764, -1.3867911]],
    ],
}
NESTED_TAPE = [2.8693402, [[5.9779973, -1.6601496], [15.184397, 1.174975]]]


def _nested(x, c, m):
    def inner(a):
        return tf.while_loop(lambda j, b: j < m, lambda j, b: (j + 1, tf.sin(b) + b * c), [0, a])[1]

    return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, inner(a) * c + a), [0, x])[1]


def test_nested_loops_initial_values_and_captures():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2])
        c = tf.constant([0.3, -0.2])
        m = tf.compat.v1.placeholder(tf.int32, [])
        y = _nested(x, c, m)
        g = tf.gradients(tf.reduce_sum(y * y), [x, c])
        h = tf.gradients(tf.reduce_sum(g[0]), [x, c])
        with tf.compat.v1.Session() as s:
            for k, want in NESTED.items():
                close(s.run([y, g, h], {x: [0.5, -1.2], m: k}), want)

    def taped(x, c):
        with tf.GradientTape() as t:
            t.watch([x, c])
            loss = tf.reduce_sum(_nested(x, c, 2) ** 2)
        return loss, t.gradient(loss, [x, c])

    x, c = tf.constant([0.5, -1.2]), tf.constant([0.3, -0.2])
    close(taped(x, c), NESTED_TAPE)
    close(tf.function(taped)(x, c), NESTED_TAPE)


XJ = [[0.2, -0.4, 0.9], [1.1, 0.3, -0.6]]
WJ = [[0.5, -0.3, 0.1], [0.2, 0.8, -0.7], [0.4, 0.0, 0.6]]
# batch_jacobian(y, x) of y = the loop below (TF 2.21); jacobian(y, x) is its block diagonal
BATCH_JAC = [
    [
        [0.5986526, 0.19015639, 0.5586682],
        [-0.55551112, 1.0961776, -0.14987431],
        [0.16157523, -0.49927002, 0.38390872],
    ],
    [
        [0.90612811, -0.019969895, 1.1231328],
        [-1.0220925, 1.8679333, -0.31687036],
        [0.8738516, -2.4566605, 1.2379516],
    ],
]
# jacobian(y, w)[0, 0] and [1, 2] (TF 2.21)
JAC_W = {
    (0, 0): [
        [0.82469857, 0.071315452, 0.079903945],
        [-1.0352345, -0.11197817, -0.13026968],
        [1.9909084, 0.24094054, 0.28249675],
    ],
    (1, 2): [
        [0.44128048, -2.1553583, 2.4197617],
        [0.10332019, -0.47096825, 0.15095428],
        [-0.2623615, 1.3243062, -1.9109898],
    ],
}


def _jacobians(x, w, use_pfor=True):
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, w])
        y = tf.while_loop(
            lambda i, a: i < 3,
            lambda i, a: (i + 1, tf.tanh(tf.matmul(a, w)) + a * 0.5),
            [0, x],
        )[1]
    return (
        t.jacobian(y, x, experimental_use_pfor=use_pfor),
        t.jacobian(y, w, experimental_use_pfor=use_pfor),
        t.batch_jacobian(y, x, experimental_use_pfor=use_pfor),
    )


@pytest.mark.parametrize("mode", ["eager", "function", "function-loop"])
def test_jacobian_and_batch_jacobian_through_a_loop(mode):
    x, w = tf.constant(XJ), tf.constant(WJ)
    if mode == "eager":
        jx, jw, bj = _jacobians(x, w)
    else:
        jx, jw, bj = tf.function(_jacobians)(x, w, mode == "function")
    close(bj, BATCH_JAC)
    jx = np.asarray(jx)
    close([jx[0, :, 0], jx[1, :, 1]], BATCH_JAC)
    close([jx[0, :, 1], jx[1, :, 0]], np.zeros((2, 3, 3)))
    for (i, j), want in JAC_W.items():
        close(np.asarray(jw)[i, j], want)


def test_hessian_through_a_loop():
    @tf.function
    def f(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t:
                t.watch(x)
                y = tf.while_loop(
                    lambda i, a: i < 4, lambda i, a: (i + 1, tf.sin(a) * a + 0.3), [0, x]
                )[1]
                loss = tf.reduce_sum(y)
            g = t.gradient(loss, x)
        return g, t2.jacobian(g, x)

    g, h = f(tf.constant([0.4, -0.9, 1.3]))
    close(g, [0.57845378, -3.2706735, -0.083686389])
    # float32, and h[2, 2] is a difference of terms near 1 after four sin(a) * a: a one-ulp
    # change of sin or cos (another CPU's SIMD code) moves it by 5e-6, so it is compared
    # at the Hessian's scale (|h| up to 4.7): 3e-5 is 6e-6 of that.
    close(h, np.diag([3.2270749, -4.7208061, -0.20977858]), atol=3e-5)


def test_maximum_iterations_with_gradients():
    @tf.function
    def f(x, m):
        with tf.GradientTape() as t:
            t.watch(x)
            i, y = tf.while_loop(
                lambda i, a: a < 100.0,
                lambda i, a: (i + 1, a * a + 1.0),
                [0, x],
                maximum_iterations=m,
            )
        return i, y, t.gradient(y, x)

    want = {0: [0, 1.5, 1.0], 1: [1, 3.25, 3.0], 2: [2, 11.5625, 19.5], 5: [3, 134.69141, 450.9375]}
    for m, w in want.items():
        close(f(tf.constant(1.5), tf.constant(m)), w)


# n -> [y, d sum(y)/d[x, w], d (d/dw)/d[x, w]], trip count fed at run time (TF 2.21)
FED = {
    0: [[0.5, -0.25], [[1.0, 1.0], 0.0], [[0.0, 0.0], 0.0]],
    1: [
        [1.0273681, -0.52214438],
        [[1.9653409, 2.0658035], 0.23202159],
        [[0.87758255, 0.96891242], 0.0],
    ],
    4: [
        [3.1567318, -3.0191433],
        [[-0.15239047, 3.1216395], -2.0986714],
        [[-1.8513181, -15.496763], 3.4655709],
    ],
    9: [
        [3.1415925, -3.1415939],
        [[1.5219664e-06, -2.8622797e-05], -4.8089114e-05],
        [[9.4605406e-05, -0.0014007881], -0.00072153617],
    ],
}


def test_trip_count_fed_at_run_time():
    with tf.Graph().as_default():
        n = tf.compat.v1.placeholder(tf.int32, [])
        x, w = tf.constant([0.5, -0.25]), tf.constant(1.1)
        _, y = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, tf.sin(a) * w + a), [0, x])
        g = tf.gradients(tf.reduce_sum(y), [x, w])
        h = tf.gradients(g[1], [x, w])
        with tf.compat.v1.Session() as s:
            for k, want in FED.items():
                close(s.run([y, g, h], {n: k}), want, atol=1e-5)


def test_tensor_used_only_in_the_branch_not_taken():
    # TF 2.21, per API: gradients() and a tape inside tf.function give zeros (the If's
    # gradient is an If); an eager tape gives None (that branch never ran); a tensor no
    # branch uses gets None from gradients(), zeros with unconnected_gradients="zero".
    with tf.Graph().as_default():
        p = tf.compat.v1.placeholder(tf.bool, [])
        i = tf.compat.v1.placeholder(tf.int32, [])
        x, y, z = tf.constant(2.0), tf.constant(3.0), tf.constant(5.0)
        r = tf.cond(p, lambda: x * x, lambda: y * 3.0)
        assert tf.gradients(tf.cond(p, lambda: x * x, lambda: x + 1.0), [y]) == [None]
        g = tf.gradients(r, [x, y])
        sc = tf.gradients(
            tf.switch_case(i, [lambda: x * x, lambda: y * 3.0, lambda: z * x]), [x, y, z]
        )
        with tf.compat.v1.Session() as s:
            close([s.run(g, {p: True}), s.run(g, {p: False})], [[4.0, 0.0], [0.0, 3.0]])
            for k, want in {
                0: [4.0, 0.0, 0.0],
                1: [0.0, 3.0, 0.0],
                2: [5.0, 0.0, 2.0],
                9: [5.0, 0.0, 2.0],
            }.items():
                close(s.run(sc, {i: k}), want)

    @tf.function
    def f(p, x, y):
        with tf.GradientTape(persistent=True) as t:
            t.watch([x, y])
            r = tf.cond(p, lambda: x * x, lambda: y * 3.0)
            q = tf.cond(p, lambda: x * x, lambda: x * 3.0)
        return t.gradient(r, [x, y]), t.gradient(q, [x, y], unconnected_gradients="zero")

    x, y = tf.constant(2.0), tf.constant(3.0)
    close(f(tf.constant(True), x, y), [[4.0, 0.0], [4.0, 0.0]])
    close(f(tf.constant(False), x, y)[0], [0.0, 3.0])
    with tf.GradientTape() as t:
        t.watch([x, y])
        r = tf.cond(tf.constant(False), lambda: x * x, lambda: y * 3.0)
    close(t.gradient(r, [x, y]), [None, 3.0])


def test_long_loop_reading_a_variable_in_a_function():
    # TF 2.21: a <- a * W + 1e-5 from 0.5, 100,000 times, W = 0.99999 a Variable
    w = tf.Variable(0.99999)

    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.while_loop(
                lambda i, a: i < 100000, lambda i, a: (i + 1, a * w + 0.00001), [0, x]
            )[1]
        return y, t.gradient(y, [x, w])

    close(f(tf.constant(0.5)), [0.81629902, [0.36738029, 44806.969]], rtol=1e-4)


def test_vectorising_a_loop_and_its_gradient_equals_each_example():
    # The loop itself depends on the batched input, so the gradient loop reads the
    # batched loop's stacks ([K, n, ...] after the rule): each slice is one example's.
    from symgrad.autodiff.vectorize import vectorize

    rng = np.random.default_rng(5)
    xs, w0 = rng.standard_normal((4, 3)), rng.standard_normal(3)

    def build(x, w):
        y = tf.while_loop(
            lambda i, a: i < 3, lambda i, a: (i + 1, tf.sin(a) * w + a * a * 0.2), [0, x]
        )[1]
        return [y, *tf.gradients(tf.reduce_sum(y * y), [x, w])]

    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float64, [3])
        outs = build(x, tf.constant(w0))
        batched = vectorize(x, tf.constant(xs), outs)
        loop = batched[0].op.inputs[0].op  # (the loop hands out an Identity, as TF's)
        assert batched[0].op.type == "Identity" and loop.type == "StatelessWhile"
        with tf.compat.v1.Session() as s:
            got = s.run(batched)
            for k in range(4):
                want = s.run(outs, {x: xs[k]})
                for g, w in zip(got, want, strict=True):
                    np.testing.assert_allclose(g[k], w, rtol=1e-12, atol=1e-12)


def test_vectorising_a_case_with_a_batched_index():
    from symgrad.autodiff.vectorize import vectorize

    with tf.Graph().as_default():
        i = tf.compat.v1.placeholder(tf.int32, [])
        x = tf.constant([0.5, -1.5])
        r = tf.switch_case(i, [lambda: x * 2.0, lambda: tf.sin(x), lambda: x * x])
        p = tf.compat.v1.placeholder(tf.bool, [])
        q = tf.cond(p, lambda: x + 1.0, lambda: x * 3.0)
        idx = [2, 0, 7, -1, 1]
        (rb,) = vectorize(i, tf.constant(idx), [r])
        (qb,) = vectorize(p, tf.constant([True, False, False]), [q])
        with tf.compat.v1.Session() as s:
            got, got_q = s.run([rb, qb])
            for k, n in enumerate(idx):
                np.testing.assert_allclose(got[k], s.run(r, {i: n}))
            close(got_q, [[1.5, -0.5], [1.5, -4.5], [1.5, -4.5]])


def test_vectorising_a_loop_whose_trip_count_depends_on_the_example():
    from symgrad.autodiff.vectorize import vectorize

    xs = np.array([0.3, 2.0, 7.5, 20.0])  # 6, 3, 1 and 0 iterations
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float64, [])
        i, y = tf.while_loop(lambda i, a: a < 15.0, lambda i, a: (i + 1, a * 2.0 + 0.1), [0, x])
        (g,) = tf.gradients(y * y, [x])
        batched = vectorize(x, tf.constant(xs), [i, y, g])
        with tf.compat.v1.Session() as s:
            got = s.run(batched)
            assert got[0].tolist() == [6, 3, 1, 0]
            for k in range(4):
                want = s.run([i, y, g], {x: xs[k]})
                for a, b in zip(got, want, strict=True):
                    np.testing.assert_allclose(a[k], b, rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_with_batched_indices_equals_each_example(axis):
    from symgrad.autodiff.vectorize import vectorize

    rng = np.random.default_rng(7)
    params = rng.standard_normal((4, 3, 5))
    n = params.shape[1:][axis]
    idx = rng.integers(0, n, (4, 2, 3)).astype(np.int32)
    with tf.Graph().as_default():
        p = tf.compat.v1.placeholder(tf.float64, [3, 5])
        i = tf.compat.v1.placeholder(tf.int32, [2, 3])
        out = tf.gather(p, i, axis=axis)
        (both,) = vectorize([p, i], [tf.constant(params), tf.constant(idx)], [out])
        (only_i,) = vectorize(
            i, tf.constant(idx), [tf.gather(tf.constant(params[0]), i, axis=axis)]
        )
        with tf.compat.v1.Session() as s:
            got, got_i = s.run([both, only_i])
    for k in range(4):
        np.testing.assert_array_equal(got[k], np.take(params[k], idx[k], axis))
        np.testing.assert_array_equal(got_i[k], np.take(params[0], idx[k], axis))


H3 = [[0.1, -0.2], [0.4, 0.3], [-0.5, 0.9]]
# jacobian(h, W) and batch_jacobian(h, h0) of the RNN over 3 examples (TF 2.21)
JAC_W_RNN = [
    [
        [[0.22641768, -0.011435823], [0.29134086, -0.0018403772]],
        [[0.012382894, 0.20369901], [-0.0082481708, 0.27220583]],
    ],
    [
        [[0.23568939, 0.013950653], [0.28144786, 0.024432313]],
        [[-0.021569137, 0.24482445], [-0.040811259, 0.29997641]],
    ],
    [
        [[0.25041258, 0.0059282458], [0.30221719, 0.044874497]],
        [[-0.0090497006, 0.25666919], [-0.094187714, 0.33144915]],
    ],
]
BATCH_JAC_RNN = [
    [[-0.010751849, 0.012692344], [-0.01305811, 0.0027553304]],
    [[-0.011489321, 0.013794607], [-0.015154991, 0.0034209816]],
    [[-0.0027195571, 0.0031866929], [-0.0046933787, -0.0024760007]],
]


@pytest.mark.parametrize("in_function", [False, True])
def test_jacobian_wrt_a_variable_read_in_the_loop(in_function):
    w, xs = tf.Variable(W0), tf.constant(XS)

    def jacobians(h0):
        with tf.GradientTape(persistent=True) as t:
            t.watch(h0)

            def body(i, h):
                return i + 1, tf.tanh(tf.matmul(h, w) + tf.gather(xs, i))

            _, h = tf.while_loop(lambda i, h: i < 6, body, [0, h0])
        return t.jacobian(h, w), t.batch_jacobian(h, h0)

    f = tf.function(jacobians) if in_function else jacobians
    close(f(tf.constant(H3)), [JAC_W_RNN, BATCH_JAC_RNN])


def test_sums_over_iterations_keep_no_stack():
    # The gradient loop sums dw over the iterations: its value never enters a gradient,
    # so it is not stacked (memory: bench/wl_while_memory.py), while x and dx are.
    with tf.Graph().as_default() as g:
        x0, w = tf.constant([0.5, -0.2]), tf.constant([0.9, 1.1])
        _, x = tf.while_loop(lambda i, x: i < 4, lambda i, x: (i + 1, tf.tanh(x * w)), [0, x0])
        gx, gw = tf.gradients(tf.reduce_sum(x), [x0, w])
        loops = [op for op in g.get_operations() if op.type == "StatelessWhile"]
        fwd, bwd = loops
        assert fwd.get_attr("accumulate") == (False, True)  # i is only counted up
        assert bwd.get_attr("accumulate") == (True, True, False)  # [remaining, dx, dw]
        with tf.compat.v1.Session() as s:
            stacks = s.run([fwd.outputs[4], fwd.outputs[5], *bwd.outputs[5:]])
            got = s.run([gx, gw])
    assert [a.shape for a in stacks] == [(0,), (4, 2), (4,), (4, 2), (0, 2)]
    xv, wv, dx, dw = np.array([0.5, -0.2]), np.array([0.9, 1.1]), 1.0, 0.0
    for _ in range(4):  # forward-mode derivatives of each element in NumPy
        y = np.tanh(xv * wv)
        dx, dw = (1 - y * y) * wv * dx, (1 - y * y) * (xv + wv * dw)
        xv = y
    close(got, [dx, dw])


def test_gather_with_batched_indices_out_of_range_reads_its_own_first_row():
    # A vectorised loop runs the body of examples whose condition already failed (their
    # results are dropped): their indices may be past the end, and must not fail.
    from symgrad.autodiff.vectorize import vectorize

    with tf.Graph().as_default():
        i = tf.compat.v1.placeholder(tf.int32, [])
        p = tf.compat.v1.placeholder(tf.float64, [2, 3])
        params = np.arange(12.0).reshape(2, 2, 3)
        (b,) = vectorize([p, i], [tf.constant(params), tf.constant([1, 2])], [tf.gather(p, i)])
        with tf.compat.v1.Session() as s:
            np.testing.assert_array_equal(s.run(b), [params[0, 1], params[1, 0]])
