"""Gradients through a while_loop whose body reads a TensorArray that grows
(``dynamic_size=True``): the loop keeps the buffer's shape and the rows the body reads
per iteration (``control_flow/tensor_array_grow.py``), not the buffer.

Expected numbers were recorded by running the same programs on TensorFlow 2.21 (CPU).
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.control_flow import fused_loop
from symgrad.core.errors import InvalidArgumentError

X = np.linspace(0.1, 1.0, 5)


def close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)


def recurrence(x):
    """The issue's program: each element is sin(the previous one) + x[i]."""
    ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True)
    ta = ta.write(0, x[0])

    def body(i, ta):
        prev = ta.read(i - 1)
        return i + 1, ta.write(i, tf.sin(prev) + x[i])

    _, ta = tf.while_loop(lambda i, ta: i < 5, body, [1, ta])
    y = ta.stack()
    return y, tf.reduce_sum(y * y)


def two_back(x):
    """Reads with gather([i - 1, i - 2]) and read(i - 2)."""
    ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True)
    ta = ta.write(0, x[0]).write(1, x[1])

    def body(i, ta):
        p = ta.gather([i - 1, i - 2])
        q = ta.read(i - 2)
        return i + 1, ta.write(i, tf.sin(p[0]) * p[1] + tf.cos(q) + x[i])

    _, ta = tf.while_loop(lambda i, ta: i < 5, body, [2, ta])
    y = ta.stack()
    return y, tf.reduce_sum(y * y)


def read_back(x):
    """An array that starts empty, written and read back at the same index."""
    ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True)

    def body(i, s, ta):
        ta = ta.write(i, x[i] * s)
        v = ta.read(i)
        return i + 1, s + tf.sin(v), ta

    one = tf.constant(1.0, tf.float64)
    _, s, ta = tf.while_loop(lambda i, s, ta: i < 5, body, [0, one, ta])
    y = ta.stack()
    return y, tf.reduce_sum(y * y) + s


def nested(x):
    """A growing array made and read inside the body of an outer loop."""

    def outer(j, acc):
        ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True)
        ta = ta.write(0, acc)

        def body(i, ta):
            return i + 1, ta.write(i, tf.sin(ta.read(i - 1)) * x[i] + x[j])

        _, ta = tf.while_loop(lambda i, ta: i < 4, body, [1, ta])
        return j + 1, acc + tf.reduce_sum(ta.stack())

    _, acc = tf.while_loop(lambda j, a: j < 3, outer, [0, x[4]])
    return acc, acc * acc


# program -> (its first output, d loss / d x), from TF
TF = {
    recurrence: (
        [0.1, 0.42483341664682817, 0.9621690121361681, 1.595433612146563, 1.9996965174367705],
        [4.392751716051842, 4.2138031802915075, 3.6923597860208535, 3.0923430048637535],
    ),
    two_back: (
        [0.1, 0.325, 1.576935043863726, 2.0476446028088677, 2.394882820145508],
        [0.7746717703755296, 1.325958009007783, 2.6183884435123814, 0.6285347479618903],
    ),
    read_back: (
        [0.1, 0.3574458604102192, 0.7973438507864787, 1.6780448008866113, 3.15947349076652],
        [16.6540344897036, 13.66410477028294, 10.815044736021962, 5.802080225450132],
    ),
    nested: (
        18.24991505468798,
        [501.8450820409021, 595.7153310362191, 299.6926645817029, 100.82222072396223],
    ),
}
LAST_GRAD = {recurrence: 3.999393034873541, two_back: 4.789765640291016}
LAST_GRAD.update({read_back: 16.80557705377453, nested: 252.69880350331573})


def tf_values(program):
    y, g = TF[program]
    return y, [*g, LAST_GRAD[program]]


def with_tape(program):
    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y, loss = program(x)
        return y, t.gradient(loss, x)

    return f


@pytest.mark.parametrize("program", list(TF), ids=lambda p: p.__name__)
def test_tape_in_function_gives_tf_numbers(program):
    y, g = with_tape(program)(tf.constant(X))
    want_y, want_g = tf_values(program)
    close(y, want_y)
    close(g, want_g)


@pytest.mark.parametrize("program", list(TF), ids=lambda p: p.__name__)
def test_graph_and_session_give_tf_numbers(program):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float64, [5])
        y, loss = program(x)
        (g,) = tf.gradients(loss, x)
        with tf.compat.v1.Session() as sess:
            y_v, g_v = sess.run([y, g], {x: X})
    want_y, want_g = tf_values(program)
    close(y_v, want_y)
    close(g_v, want_g)


@pytest.mark.parametrize("program", [recurrence, two_back], ids=lambda p: p.__name__)
def test_first_and_second_order_match_finite_differences(program):
    tf.test.check_vjp(tf.function(lambda x: program(x)[0]), [X], order=2)


def test_read_back_after_a_write_first_order_and_a_named_error_for_second():
    """Its gradient loop reads a sum of two gradients of the buffer, which has no rows of
    its own to record: a second-order gradient names the loop and the variable."""
    fn = tf.function(lambda x: read_back(x)[0])
    tf.test.check_vjp(fn, [X])
    with pytest.raises(tf.test.GradientCheckError) as e:
        tf.test.check_vjp(fn, [X], order=2)
    text = str(e.value)
    assert "Cannot differentiate StatelessWhile '" in text
    assert "while_grad': loop variable 2 changes shape across iterations" in text
    assert "a second-order gradient" in text


def test_second_order_gives_tf_numbers():
    @tf.function
    def f(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                _, loss = recurrence(x)
            g = inner.gradient(loss, x)
            s = tf.reduce_sum(g * g)
        return outer.gradient(s, x)

    want = [-9.401797778863052, -23.39380497539925, -34.68615825737541, -39.03657292484992]
    close(f(tf.constant(X)), [*want, 15.044176222567586])


def growing(n):
    """A loop of ``n`` iterations reading a growing array; its While op and the tensors."""
    x = tf.compat.v1.placeholder(tf.float64, [None])
    ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True).write(0, x[0])

    def body(i, ta):
        return i + 1, ta.write(i, tf.sin(ta.read(i - 1)) + x[i])

    _, ta = tf.while_loop(lambda i, ta: i < n, body, [1, ta])
    (g,) = tf.gradients(tf.reduce_sum(ta.stack() ** 2), x)
    (op,) = [op for op in tf.compat.v1.get_default_graph().get_operations() if op.name == "while"]
    return x, op, ta.stack(), g


def kept_sizes(n):
    """The number of elements of each stack the loop keeps for its gradient."""
    with tf.Graph().as_default():
        x, op, _, g = growing(n)
        stacks = op.outputs[2 + op.get_attr("n_vars") :]
        with tf.compat.v1.Session() as sess:
            values = sess.run([*stacks, g], {x: np.linspace(0.0, 1.0, n)})
    return [v.size for v in values[:-1]]


def test_memory_kept_is_linear_in_the_trip_count():
    small, large = kept_sizes(50), kept_sizes(100)
    # per iteration: the buffer's shape, the index read and the value read; no buffer
    assert small == [49, 0, 49, 49, 49]  # the counter i (read at i - 1), then records
    assert large == [99, 0, 99, 99, 99]


def test_fused_and_stepwise_loops_keep_the_same_records(monkeypatch):
    def run():
        with tf.Graph().as_default():
            x, op, y, g = growing(6)
            stacks = op.outputs[2 + op.get_attr("n_vars") :]
            with tf.compat.v1.Session() as sess:
                return sess.run([*stacks, y, g], {x: np.linspace(0.5, 1.0, 6)})

    original, ran = fused_loop.run, []

    def fused(cond, body, *args):
        done = original(cond, body, *args)
        ran.append((len(body.outputs), done is not None))
        return done

    monkeypatch.setattr(fused_loop, "run", fused)
    with_fused = run()
    assert (2 + 3, True) in ran  # the recorder (2 variables, 3 records) ran fused
    monkeypatch.setattr(fused_loop, "run", lambda *args: None)
    stepwise = run()
    assert [v.shape for v in with_fused] == [v.shape for v in stepwise]
    for a, b in zip(with_fused, stepwise, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(with_fused[2], [[1], [2], [3], [4], [5]])  # rows


@pytest.mark.parametrize("program", [two_back, read_back], ids=lambda p: p.__name__)
def test_fused_and_stepwise_records_of_reads_behind_writes_and_gathers(program, monkeypatch):
    """read_back records the loop variable i itself (a feed of the body) as its index."""

    def run():
        with tf.Graph().as_default() as g:
            x = tf.compat.v1.placeholder(tf.float64, [5])
            _, loss = program(x)
            (dx,) = tf.gradients(loss, x)
            (op,) = [op for op in g.get_operations() if op.name == "while"]
            with tf.compat.v1.Session() as sess:
                return sess.run([*op.outputs[2 + op.get_attr("n_vars") :], dx], {x: X})

    with_fused = run()
    monkeypatch.setattr(fused_loop, "run", lambda *args: None)
    for a, b in zip(with_fused, run(), strict=True):
        np.testing.assert_array_equal(a, b)
    close(with_fused[-1], tf_values(program)[1])


def test_a_plan_without_the_gradient_runs_the_forward():
    xs = [0.1, 0.2, 0.3, 0.4]
    want = [xs[0]]
    for v in xs[1:]:
        want.append(np.sin(want[-1]) + v)
    with tf.Graph().as_default():
        x, _, y, _ = growing(4)
        with tf.compat.v1.Session() as sess:
            close(sess.run(y, {x: xs}), want)


def test_whole_use_of_a_growing_array_is_a_named_error_at_gradient_time():
    x = tf.constant(X)

    @tf.function
    def f(x, grad):
        ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True).write(0, x[0])

        def body(i, ta):  # stack() in the body: the whole array, at every iteration
            return i + 1, ta.write(i, tf.reduce_sum(tf.sin(ta.stack())) + x[i])

        _, ta = tf.while_loop(lambda i, ta: i < 5, body, [1, ta])
        y = ta.stack()
        return tf.gradients(tf.reduce_sum(y), x)[0] if grad else y

    close(f(x, False)[:2], [0.1, np.sin(0.1) + 0.325])  # the forward runs
    with pytest.raises(InvalidArgumentError) as e:
        f(x, True)
    text = str(e.value)
    assert "Cannot differentiate StatelessWhile 'while': loop variable 1 changes shape" in text
    assert "(shape [1] at iteration 0, [2] at iteration 1)" in text
    assert "TensorArray(size=n, dynamic_size=False)" in text
    assert "GatherV2" not in text


def test_a_tensor_grown_by_concat_that_the_body_does_not_read_differentiates():
    """ConcatV2's gradient reads its inputs' shapes alone, so a tensor the body only
    grows by concat keeps its shape per iteration, like a list only written.  TF 2.21."""

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)

            def body(i, acc):
                row = tf.reduce_sum(x[i : i + 1] ** 2, axis=1) * tf.sin(tf.cast(i, tf.float64))
                return i + 1, tf.concat([acc, row], 0)

            _, acc = tf.while_loop(
                lambda i, acc: i < 4,
                body,
                [0, tf.zeros([0], tf.float64)],
                shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])],
            )
            y = tf.reduce_sum(acc * tf.range(1.0, 5.0, dtype=tf.float64))
        return acc, tape.gradient(y, x)

    acc, dx = f(tf.constant(np.linspace(-1.0, 1.0, 12).reshape(4, 3)))
    np.testing.assert_allclose(acc.numpy(), [0.0, 0.2434007, 0.26301992, 0.29273655], rtol=1e-7)
    want = [
        [0.0, 0.0, 0.0],
        [-1.52994725, -0.91796835, -0.30598945],
        [0.49598041, 1.48794124, 2.47990207],
        [0.71842913, 0.9236946, 1.12896006],
    ]
    np.testing.assert_allclose(dx.numpy(), want, rtol=1e-7)


def test_a_tensor_grown_by_concat_and_read_is_a_named_error():
    @tf.function
    def f(x):
        def body(i, v):
            return i + 1, tf.concat([v, tf.sin(v[-1:]) * x[i]], 0)

        _, v = tf.while_loop(
            lambda i, v: i < 5,
            body,
            [1, x[:1]],
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])],
        )
        return tf.gradients(tf.reduce_sum(v), x)[0]

    with pytest.raises(InvalidArgumentError, match="loop variable 1 changes shape"):
        f(tf.constant(X))


def test_unknown_fixed_size_array_read_in_the_body_second_order():
    """An array of a size known only at run time (shape [?, 2]) does not grow, and is
    kept the same way: records, not buffers."""

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float64)])
    def f(x):
        ta = tf.TensorArray(tf.float64, size=tf.shape(x)[0]).unstack(x)

        def body(i, ta):
            return i + 1, ta.write(i, tf.tanh(ta.read(i - 1)) * ta.read(i))

        return tf.while_loop(lambda i, ta: i < ta.size(), body, [1, ta])[1].stack()

    x = np.random.default_rng(3).standard_normal((4, 2))
    tf.test.check_vjp(f, [x], order=2)


def test_fixed_size_array_written_then_read_keeps_its_values():
    """A buffer the body writes and returns, and also reads after the write at another
    row, needs its values kept (it used to count as only written: a wrong gradient)."""

    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            ta = tf.TensorArray(tf.float64, size=5).write(0, x[0])

            def body(i, s, ta):
                ta = ta.write(i, x[i] * s)
                return i + 1, s + tf.sin(ta.read(i - 1)), ta

            one = tf.constant(1.0, tf.float64)
            _, s, ta = tf.while_loop(lambda i, s, ta: i < 5, body, [1, one, ta])
            loss = tf.reduce_sum(ta.stack() ** 2) + s
        return loss, t.gradient(loss, x)

    loss, g = f(tf.constant(X))
    close(loss, 8.52160195349798)
    want = [10.098763102304892, 7.313930338687481, 5.831938216396159, 3.765570928021071]
    close(g, [*want, 7.902927614784636])


def test_an_inner_loop_reading_a_growing_array_is_a_named_error():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True).write(0, x[0])

        def body(i, ta):
            def inner(k, s):
                return k + 1, s + ta.read(k)

            zero = tf.constant(0.0, tf.float64)
            _, s = tf.while_loop(lambda k, s: k < i, inner, [0, zero])
            return i + 1, ta.write(i, tf.sin(s) + x[i])

        _, ta = tf.while_loop(lambda i, ta: i < 5, body, [1, ta])
        return tf.gradients(tf.reduce_sum(ta.stack()), x)[0]

    with pytest.raises(InvalidArgumentError) as e:
        f(tf.constant(X))
    assert "Cannot differentiate StatelessWhile 'while': loop variable 1 changes shape" in str(
        e.value
    )
    assert "an inner loop over it" in str(e.value)


def _filtered(x):
    """An AutoGraph ``if`` inside a ``for``: a growing array collects the rows that pass."""
    ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True)
    j = 0
    for r in x:
        if tf.reduce_sum(r) > 0:
            ta = ta.write(j, r * 2.0)
            j += 1
    return ta.stack()


# TF 2.21: the rows of linspace(-1, 1, 12).reshape(4, 3) whose sum is positive, doubled,
# and d sum(y * y) / dx (8 x on those rows, 0 elsewhere)
FILTERED_Y = [[0.18181818, 0.54545455, 0.90909091], [1.27272727, 1.63636364, 2.0]]
FILTERED_DX = [
    [0.0] * 3,
    [0.0] * 3,
    [0.72727273, 2.18181818, 3.63636364],
    [5.09090909, 6.54545455, 8.0],
]


def test_a_growing_array_written_inside_a_branch_of_the_body_gives_tf_numbers():
    """The ``If`` only writes the buffer in each branch, so its gradient, like a write's,
    reads the buffer's shape alone: the loop keeps that, not the buffer."""
    x = tf.constant(np.linspace(-1.0, 1.0, 12).reshape(4, 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.function(_filtered)(x)
        loss = tf.reduce_sum(y * y)
    np.testing.assert_allclose(y.numpy(), FILTERED_Y, rtol=1e-7)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), FILTERED_DX, rtol=1e-7)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float64, [None, 3])
        y = tf.function(_filtered)(p)
        [dx] = tf.gradients(tf.reduce_sum(y * y), [p])
        with tf.Session() as sess:
            got = sess.run(dx, {p: np.linspace(-1.0, 1.0, 12).reshape(4, 3)})
    np.testing.assert_allclose(got, FILTERED_DX, rtol=1e-7)


def test_a_branch_that_reads_the_growing_array_is_a_named_error():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float64, size=1, dynamic_size=True).write(0, x[0])
        for i in tf.range(1, 4):
            if x[i] > 0:  # noqa: SIM108 (a statement: AutoGraph converts it to a cond)
                ta = ta.write(i, ta.read(i - 1) * x[i])
            else:
                ta = ta.write(i, x[i])
        return tf.reduce_sum(ta.stack())

    x = tf.constant([0.5, 1.5, -2.0, 3.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(y) == 0.5 + 0.75 - 2.0 - 6.0
    with pytest.raises(InvalidArgumentError, match="Cannot differentiate .* loop variable"):
        tape.gradient(y, x)


def test_an_array_of_static_size_read_in_the_body_keeps_records_not_buffers():
    """A fixed-size array the body reads is kept as its reads too: per iteration its
    shape, the index and the row read (linear in the trip count), never the buffer."""

    def kept(n):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float64, [n, 3])
            ta = tf.TensorArray(tf.float64, size=n).write(0, x[0])
            body = lambda i, ta: (i + 1, ta.write(i, tf.tanh(ta.read(i - 1) + x[i])))  # noqa: E731
            _, ta = tf.while_loop(lambda i, ta: i < n, body, [1, ta])
            [g] = tf.gradients(tf.reduce_sum(ta.stack() ** 2), [x])
            graph = tf.compat.v1.get_default_graph()
            (loop,) = [op for op in graph.get_operations() if op.name == "while"]
            stacks = loop.outputs[2 + loop.get_attr("n_vars") :]
            value = np.linspace(-1.0, 1.0, n * 3).reshape(n, 3)
            with tf.Session() as sess:
                got = sess.run([*stacks, g], {x: value})
        return [s.size for s in got[:-1]], got[-1], value

    small, _, _ = kept(20)
    large, g, value = kept(40)
    # per iteration: the counter, the buffer's shape (2), the index read, the row read (3)
    assert small == [19 * k for k in (1, 0, 2, 1, 3)]
    assert large == [39 * k for k in (1, 0, 2, 1, 3)]  # a buffer each: 39 * 40 * 3
    rows, want = [value[0]], np.zeros_like(value)
    for e in value[1:]:
        rows.append(np.tanh(rows[-1] + e))
    # d sum(rows**2) / dx by reverse accumulation in NumPy
    carry = np.zeros(3)
    for k in range(len(value) - 1, -1, -1):
        total = 2 * rows[k] + carry
        if k == 0:
            want[0] = total
        else:
            d = total * (1 - rows[k] ** 2)
            want[k], carry = d, d
    np.testing.assert_allclose(g, want, rtol=1e-12)
