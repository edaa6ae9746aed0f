"""TF 2 programs with control flow, written as users write them (session 6 differential
tests): each ran unchanged on TensorFlow 2.21 (CPU), whose numbers and error texts are
recorded here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.compat import v1
from symgrad.core.errors import InaccessibleTensorError


def test_fill_with_a_run_time_size_is_a_vector_of_unknown_length():
    # TF's constant_value_as_shape: fill([b], v) has shape (None,), so it broadcasts
    # against a (6,) tensor to (6,) rather than to an unknown rank.
    with tf.Graph().as_default():
        b = v1.placeholder(tf.int32, [])
        fl = tf.fill([b, 2], 3)
        assert fl.shape.as_list() == [None, 2]
        n = v1.placeholder(tf.int32, [6])
        assert tf.where(n > 0, tf.fill([b], 3), n).shape.as_list() == [6]
        assert tf.fill(v1.placeholder(tf.int32, [3]), 1.0).shape.as_list() == [None] * 3


def test_greedy_decoding_with_a_finished_flag_and_a_growing_array():
    # The array enters the loop unwritten; its element shape is learnt from the body's
    # write of tf.where(finished, tf.fill([batch], EOS), argmax), batch = tf.shape(x)[0].
    rng = np.random.RandomState(2)
    emb = tf.constant(rng.randn(7, 5), tf.float64)
    wo = tf.constant(rng.randn(5, 7), tf.float64)

    @tf.function
    def decode(start, max_len):
        batch = tf.shape(start)[0]
        tokens = tf.TensorArray(tf.int32, size=0, dynamic_size=True)

        def cond(i, tok, state, finished, tokens):
            return tf.logical_and(i < max_len, tf.logical_not(tf.reduce_all(finished)))

        def body(i, tok, state, finished, tokens):
            state = tf.tanh(state + tf.nn.embedding_lookup(emb, tok))
            nxt = tf.cast(tf.argmax(tf.matmul(state, wo), axis=-1), tf.int32)
            nxt = tf.where(finished, tf.fill([batch], 3), nxt)
            finished = tf.logical_or(finished, tf.equal(nxt, 3))
            return i + 1, nxt, state, finished, tokens.write(i, nxt)

        init = [0, start, tf.zeros([batch, 5], tf.float64), tf.zeros([batch], tf.bool), tokens]
        i, _, _, _, tokens = tf.while_loop(cond, body, init)
        return tf.transpose(tokens.stack()), i

    toks, n = decode(tf.constant([0, 1, 2, 4, 5, 6]), tf.constant(10))
    expected = [[1, 2, 3], [3, 3, 3], [2, 3, 3], [3, 3, 3], [3, 3, 3], [2, 2, 3]]
    np.testing.assert_array_equal(toks.numpy(), expected)
    assert int(n) == 3


def test_fixed_point_iteration_with_matvec_and_its_jacobian():
    a = tf.constant([[0.3, 0.1], [-0.2, 0.4]], tf.float64)
    b = tf.Variable([1.0, 2.0], dtype=tf.float64)

    @tf.function
    def fixed_point():
        x = tf.zeros([2], tf.float64)
        for _ in tf.range(30):
            x = tf.linalg.matvec(a, tf.tanh(x)) + b
        return x

    with tf.GradientTape() as t:
        x = fixed_point()
        loss = tf.reduce_sum(x * x)
    np.testing.assert_allclose(x.numpy(), [1.360606560009738, 2.215279094587533], rtol=1e-12)
    np.testing.assert_allclose(
        t.gradient(loss, b).numpy(), [2.6990259738023252, 4.527352659482977], rtol=1e-12
    )
    with tf.GradientTape() as t:
        t.watch(a)
        x = fixed_point()
    jac = [
        [[0.9417872702467394, 1.0491575299993987], [0.004463965770636017, 0.00497288872963354]],
        [[-0.0444676970807945, -0.04953732197062402], [0.8929415877080918, 0.994743101961997]],
    ]
    np.testing.assert_allclose(t.jacobian(x, a).numpy(), jac, rtol=1e-10)


def test_matvec_transposes_and_batches_like_matmul():
    m = np.arange(24.0).reshape(2, 3, 4)
    v = np.arange(6.0).reshape(2, 3)
    got = tf.linalg.matvec(m, v, transpose_a=True)
    np.testing.assert_allclose(got.numpy(), np.einsum("bij,bi->bj", m, v))
    theory, numeric = tf.test.compute_gradient(
        lambda x: tf.linalg.matvec(x, np.arange(4.0)), [m[0]]
    )
    np.testing.assert_allclose(theory[0], numeric[0], rtol=1e-7)


def test_a_list_appended_in_a_converted_loop_is_out_of_scope():
    @tf.function
    def f(n):
        xs = []
        for i in tf.range(n):
            xs.append(i)
        return xs

    with pytest.raises(InaccessibleTensorError, match="is out of scope and cannot be used here"):
        f(tf.constant(3))

    @tf.function
    def g(n):
        xs = []
        for i in tf.range(n):
            xs.append(i * 2)
        return xs[0] + 1

    with pytest.raises(InaccessibleTensorError, match="which is out of scope"):
        g(tf.constant(3))


def test_gradient_of_switch_case_whose_branches_return_different_shapes():
    # Branch 0 returns shape (1,), branch 1 (2,): the op's output is (None,); each
    # branch's gradient graph must still be built for the taken branch's (2,) gradient.
    x = tf.constant(1.5, tf.float64)
    v = tf.Variable([1.0, 2.0, 3.0], dtype=tf.float64)

    @tf.function
    def f(i, x):
        return tf.switch_case(
            i,
            [
                lambda: (x * v[0], tf.gather(v, [1])),
                lambda: (tf.sin(x), v[1:] * 2.0),
                lambda: (x**3, tf.gather(v, [2])),
            ],
        )

    expected = {  # i: (b, d(a + sum b)/dx, .../dv), TF 2.21
        0: ([2.0], 1.0, [1.5, 1.0, 0.0]),
        1: ([4.0, 6.0], 0.0707372016677029, [0.0, 2.0, 2.0]),
        2: ([3.0], 6.75, [0.0, 0.0, 1.0]),
    }
    for i, (b_tf, gx_tf, gv_tf) in expected.items():
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            a, b = f(tf.constant(i), x)
            loss = a + tf.reduce_sum(b)
        np.testing.assert_allclose(b.numpy(), b_tf)
        np.testing.assert_allclose(t.gradient(loss, x).numpy(), gx_tf, rtol=1e-12)
        np.testing.assert_allclose(tf.convert_to_tensor(t.gradient(loss, v)).numpy(), gv_tf)


def test_a_variable_gathered_in_a_branch_gets_indexed_slices_through_the_op():
    # TF's cond_v2 makes the branches' gradients match: IndexedSlices if any branch's is
    # (the other branch's dense gradient, or zeros, becomes slices of all its rows).
    v = tf.Variable(np.arange(10.0).reshape(5, 2))

    @tf.function
    def taken(p):
        r = tf.cond(p, lambda: tf.gather(v, [0, 2]), lambda: v[:2])
        return tf.reduce_sum(r**2)

    @tf.function
    def cases(i):
        return tf.switch_case(
            i,
            [
                lambda: tf.reduce_sum(tf.gather(v, [1, 3])),
                lambda: tf.reduce_sum(v * 2.0),
                lambda: tf.constant(1.0, tf.float64),
            ],
        )

    expected = {  # TF 2.21: every gradient is an IndexedSlices
        (taken, True): [[0, 2], [0, 0], [8, 10], [0, 0], [0, 0]],
        (taken, False): [[0, 2], [4, 6], [0, 0], [0, 0], [0, 0]],
        (cases, 0): [[0, 0], [1, 1], [0, 0], [1, 1], [0, 0]],
        (cases, 1): [[2, 2]] * 5,
        (cases, 2): [[0, 0]] * 5,
    }
    for (fn, arg), dense in expected.items():
        with tf.GradientTape() as t:
            y = fn(tf.constant(arg))
        g = t.gradient(y, v)
        assert isinstance(g, tf.IndexedSlices)
        np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(), dense)


def test_vectorized_map_with_a_cond_on_each_element_eagerly():
    # Eagerly the work is traced first, so the cond is an If op that picks per element.
    x = tf.constant(np.arange(12.0).reshape(4, 3) / 5)
    got = tf.vectorized_map(lambda r: tf.cond(r[0] > 0.5, lambda: r * 2, lambda: -r), x)
    expected = [[-0.0, -0.2, -0.4], [1.2, 1.6, 2.0], [2.4, 2.8, 3.2], [3.6, 4.0, 4.4]]
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)


def test_vectorized_map_of_nested_elements_and_its_gradients_in_a_function():
    x = tf.constant(np.arange(12.0).reshape(4, 3) / 5)
    y = tf.constant(np.arange(8.0).reshape(4, 2) / 3)
    w = tf.Variable(np.arange(6.0).reshape(3, 2) / 3)

    @tf.function
    def f(x, y):
        return tf.vectorized_map(
            lambda p: (tf.matmul(p[0][None], w)[0] * p[1], tf.reduce_max(p[0])), (x, y)
        )

    with tf.GradientTape(persistent=True) as t:
        t.watch([x, y])
        a, b = f(x, y)
        loss = tf.reduce_sum(a**2) + tf.reduce_sum(b)
    np.testing.assert_allclose(b.numpy(), [0.4, 1.0, 1.6, 2.2], rtol=1e-12)
    np.testing.assert_allclose(
        t.gradient(loss, w).numpy(),
        [
            [75.52, 155.80444444444447],
            [84.85925925925926, 175.52],
            [94.19851851851851, 195.2355555555556],
        ],
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        t.gradient(loss, y).numpy()[3], [72.81777777777778, 183.26518518518526], rtol=1e-12
    )


def test_vectorized_map_falls_back_to_a_loop_for_an_op_without_a_batching_rule():
    x = tf.constant(np.arange(12.0).reshape(4, 3) / 5)

    def fn(r):  # Where has no batching rule
        return tf.reduce_sum(tf.gather(r, tf.where(r > -1.0)[:, 0]) ** 2)

    with tf.GradientTape() as t:
        t.watch(x)
        z = tf.vectorized_map(fn, x)
    np.testing.assert_allclose(z.numpy(), [0.2, 2.0, 5.96, 12.08], rtol=1e-12)
    np.testing.assert_allclose(t.gradient(z, x).numpy(), 2 * x.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="No pfor vectorization defined for Where"):
        tf.vectorized_map(fn, x, fallback_to_while_loop=False)
    with tf.GradientTape() as t:
        t.watch(x)
        z = tf.vectorized_map(lambda r: {"n": tf.norm(r), "s": tf.nn.softmax(r)}, x)
    np.testing.assert_allclose(z["n"].numpy()[1:3], [1.4142135623730951, 2.4413111231467406])
    np.testing.assert_allclose(
        t.gradient(z, x).numpy()[1], [0.42426406871192845, 0.565685424949238, 0.7071067811865475]
    )
    out = tf.vectorized_map(lambda r: tf.constant([1.0, 2.0]), x)
    np.testing.assert_array_equal(out.numpy(), [[1.0, 2.0]] * 4)
    with pytest.raises(ValueError, match="Elements in elems must be 1\\+ dimensional"):
        tf.vectorized_map(tf.sin, tf.constant(1.0))


def test_function_inputs_are_named_after_their_parameters():
    # TF names a function's input placeholders x, y, y_1 (a list), rest_0 (*rest), k, so a
    # loop error names `x:0` (symgrad used the eager argument's own name: `Const:0:0`).
    names = []

    @tf.function
    def f(x, y, *rest, k=None):
        names.extend(t.name for t in [x, *y, *rest, k])
        return x

    f(tf.constant(1.0), [tf.constant(2.0), tf.constant(3.0)], tf.constant(4.0), k=tf.constant(5.0))
    assert names == ["x:0", "y:0", "y_1:0", "rest_0:0", "k:0"]

    def doubling(x):
        return tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, tf.concat([a, a], 0)), (0, x))

    with pytest.raises(ValueError, match=r"Input tensor `x:0` enters the loop with shape \(2,\)"):
        tf.function(doubling)(tf.constant([1.0, 2.0]))


def test_tensor_array_split_eagerly_and_in_a_function():
    x = tf.constant(np.arange(12.0).reshape(6, 2))
    ta = tf.TensorArray(tf.float64, size=2).split(x, [2, 4])
    np.testing.assert_array_equal(ta.read(1).numpy(), [[4, 5], [6, 7], [8, 9], [10, 11]])
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"sum of lengths is 5 and value's shape is: \[6, 2\] ",
    ):
        tf.TensorArray(tf.float64, size=2).split(x, [2, 3])
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"TensorArray's size is not equal to the size of lengths \(2 vs. 3\), and the "
        "TensorArray is not marked as dynamically resizeable.",
    ):
        tf.TensorArray(tf.float64, size=2).split(x, [2, 2, 2])

    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float64, size=3).split(x, [2, 2, 2])
        return ta.stack(), ta.read(1), ta.concat()

    with tf.GradientTape() as t:
        t.watch(x)
        a, b, c = f(x)
        loss = tf.reduce_sum(a * a) + tf.reduce_sum(b) + tf.reduce_sum(c)
    assert a.shape == (3, 2, 2)
    np.testing.assert_array_equal(b.numpy(), [[4, 5], [6, 7]])
    grad = 2 * x.numpy() + 1  # TF 2.21
    grad[2:4] += 1
    np.testing.assert_array_equal(t.gradient(loss, x).numpy(), grad)


def test_a_bare_tensor_as_loop_vars_is_refused_with_tfs_text():
    # TF takes len(loop_vars): a list or tuple is needed, even for one loop variable.
    with pytest.raises(TypeError, match=r"len is not well defined for a symbolic Tensor \(x:0\)"):
        tf.function(lambda x: tf.while_loop(lambda y: tf.reduce_sum(y) < 50, lambda y: y * 3, x))(
            tf.constant([1.0, 2.0])
        )
    with pytest.raises(TypeError, match=r"Scalar tensor has no `len\(\)`"):
        tf.while_loop(lambda y: y < 50, lambda y: y * 3, tf.constant(1.0))
    (y,) = tf.while_loop(lambda y: y < 50, lambda y: (y * 3,), (tf.constant(1.0),))
    assert float(y) == 81.0


def test_variables_assigned_in_branches_and_scatter_nd_updated_in_a_loop():
    a = tf.Variable(1.0, dtype=tf.float64)
    b = tf.Variable(2.0, dtype=tf.float64)
    c = tf.Variable([0.0, 0.0, 0.0], dtype=tf.float64)

    @tf.function
    def f(x):
        if x > 0:
            a.assign(a * x)
        else:
            b.assign_sub(x)
        for i in tf.range(3):
            c.scatter_nd_update([[i]], [tf.cast(i, tf.float64) * a + b])
        with tf.GradientTape() as t:
            y = a * b + tf.reduce_sum(c * c)
        return y, t.gradient(y, [a, b, c])

    y, (ga, gb, gc) = f(tf.constant(2.0, tf.float64))  # TF 2.21: 60, [2, 2, [4, 8, 12]]
    assert (float(y), float(ga), float(gb)) == (60.0, 2.0, 2.0)
    np.testing.assert_array_equal(gc.numpy(), [4.0, 8.0, 12.0])
    y, (ga, gb, gc) = f(tf.constant(-3.0, tf.float64))  # TF: 165, [5, 2, [10, 14, 18]]
    assert (float(y), float(ga), float(gb)) == (165.0, 5.0, 2.0)
    np.testing.assert_array_equal(gc.numpy(), [10.0, 14.0, 18.0])
    np.testing.assert_array_equal(c.numpy(), [5.0, 7.0, 9.0])
    c.scatter_nd_add([[0], [0]], [1.0, 2.0])
    c.scatter_nd_sub([[2]], [9.0])
    np.testing.assert_array_equal(c.numpy(), [8.0, 7.0, 0.0])
