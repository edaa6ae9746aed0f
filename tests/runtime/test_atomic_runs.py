"""Checked assignments and atomic runs: a run that raises leaves every variable as it was.

Every assignment checks dtype and shape, when it is made and when it runs (TensorFlow's
texts).  A ``Session.run`` or a ``function`` call that raises puts back every variable it
wrote (TensorFlow leaves the writes made before the failure: symgrad does better), and a
correct run right after gives the right numbers.
"""

import numpy as np
import pytest

import symgrad as tf
from symgrad.core import refcounts
from symgrad.core.errors import FailedPreconditionError, InvalidArgumentError

LR = 0.1
X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
Y = np.array([1.0, -2.0, 0.5], np.float32)
W0 = np.array([0.5, -0.25], np.float32)
B0 = np.float32(0.125)


def _numpy_step(w, b):
    """One SGD step on sum((X w + b - Y)^2), in NumPy."""
    r = X @ w + b - Y
    return w - LR * (2 * X.T @ r), b - LR * (2 * r.sum())


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def _linear_model():
    w = tf.Variable(W0, name="w")
    b = tf.Variable(B0, name="b")
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None])
    loss = tf.reduce_sum(tf.square(tf.reduce_sum(x * w, axis=1) + b - y))
    gw, gb = tf.gradients(loss, [w, b])
    train = tf.group(w.assign_sub(LR * gw), b.assign_sub(LR * gb))
    return w, b, x, y, train


# --------------------------------------------------------------------------------------
# Session.run


def test_a_train_op_fetched_with_an_op_that_fails_changes_no_variable(graph):
    w, b, x, y, train = _linear_model()
    n = tf.placeholder(tf.int32, [])
    with tf.control_dependencies([train]):  # fails after both updates have run ...
        bad = tf.reshape(w.read_value(), tf.stack([n]))  # ... reading the updated w
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(InvalidArgumentError, match="Reshape"):
            sess.run([train, bad], {x: X, y: Y, n: 3})
        np.testing.assert_array_equal(sess.run(w), W0)
        assert sess.run(b) == B0
        sess.run([train, bad], {x: X, y: Y, n: 2})  # the same run, correct: both apply
        want_w, want_b = _numpy_step(W0, B0)
        np.testing.assert_allclose(sess.run(w), want_w, rtol=1e-6)
        np.testing.assert_allclose(sess.run(b), want_b, rtol=1e-6)


def test_a_failing_op_anywhere_in_the_run_undoes_its_updates(graph):
    w, b, x, y, train = _linear_model()
    bad = tf.reshape(x, [7])  # no ordering with the updates: it may run before or after
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            with pytest.raises(InvalidArgumentError):
                sess.run([train, bad], {x: X, y: Y})
        np.testing.assert_array_equal(sess.run(w), W0)
        assert sess.run(b) == B0
        sess.run(train, {x: X, y: Y})
        sess.run(train, {x: X, y: Y})
        want_w, want_b = _numpy_step(*_numpy_step(W0, B0))
        np.testing.assert_allclose(sess.run(w), want_w, rtol=1e-5)
        np.testing.assert_allclose(sess.run(b), want_b, rtol=1e-5)


def test_a_fed_value_of_the_wrong_shape_is_refused_and_the_variable_keeps_its_value(graph):
    w = tf.Variable([1.0, 2.0], name="w")
    v = tf.placeholder(tf.float32)  # unknown shape: only the run can check
    assign = w.assign(v)
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(InvalidArgumentError) as e:
            sess.run(assign, {v: np.ones((2, 3), np.float32)})
        assert str(e.value) == (
            "Cannot assign value to variable ' w:0': Shape mismatch.The "
            "variable shape (2,), and the assigned value shape (2, 3) are "
            "incompatible."
        )
        np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
        assert w.shape == (2,) and w.numpy().shape == (2,)
        np.testing.assert_array_equal(sess.run(assign, {v: [5.0, 6.0]}), [5.0, 6.0])
        np.testing.assert_array_equal(sess.run(w), [5.0, 6.0])


def test_the_run_time_check_sees_the_value_not_the_static_shape(graph):
    # A kernel that breaks its own shape rule: statically (2,), (2, 3) when it runs.
    widen = tf.custom_op(
        "AtomicTestWiden", lambda x: np.ones((2, 3), x.dtype), shape_fn=lambda s: s
    )
    w = tf.Variable([1.0, 2.0], name="w")
    x = tf.placeholder(tf.float32, [2])
    assign = w.assign(widen(x))
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(
            InvalidArgumentError,
            match=r"variable shape \(2,\), and the "
            r"assigned value shape \(2, 3\)",
        ):
            sess.run(assign, {x: [0.0, 0.0]})
        np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])


def test_a_second_assignment_of_a_bad_shape_in_the_same_run_applies_neither(graph):
    w = tf.Variable([1.0, 2.0], name="w")
    u = tf.Variable([[1.0], [2.0], [3.0]], name="u")
    good, bad = tf.placeholder(tf.float32, [2]), tf.placeholder(tf.float32, [None, None])
    first = w.assign(good)
    with tf.control_dependencies([first]):
        second = u.assign(bad)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(
            InvalidArgumentError,
            match=r"variable ' u:0'.*shape \(3, 1\).*"
            r"value shape \(1, 3\)",
        ):
            sess.run([first, second], {good: [7.0, 8.0], bad: np.ones((1, 3))})
        np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(u), [[1.0], [2.0], [3.0]])
        sess.run([first, second], {good: [7.0, 8.0], bad: [[4.0], [5.0], [6.0]]})
        np.testing.assert_array_equal(sess.run(w), [7.0, 8.0])
        np.testing.assert_array_equal(sess.run(u), [[4.0], [5.0], [6.0]])


def test_run_time_updates_need_the_exact_shape(graph):
    w = tf.Variable([1.0, 2.0], name="w")
    d = tf.placeholder(tf.float32)
    add, sub = w.assign_add(d), w.assign_sub(d)
    with tf.Session() as sess:
        sess.run(w.initializer)
        for op, given in [(add, np.ones((2, 3))), (sub, np.ones(3)), (add, 1.0)]:
            want = "[" + ",".join(map(str, np.shape(given))) + "]"
            with pytest.raises(
                InvalidArgumentError,
                match=rf"Cannot update variable with shape \[2\] using a Tensor "
                rf"with shape {want.replace('[', '.')}, shapes must be "
                r"equal. \(variable 'w:0'\)",
            ):
                sess.run(op, {d: given})
        np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
        sess.run(add, {d: [0.5, 0.25]})
        sess.run(sub, {d: [2.0, 2.0]})
        np.testing.assert_array_equal(sess.run(w), [-0.5, 0.25])


def test_several_updates_of_one_variable_then_a_failure_restore_the_first_value(graph):
    w = tf.Variable(np.arange(4.0, dtype=np.float32), name="w")
    n = tf.placeholder(tf.int32, [])
    one = tf.ones([4])
    a = w.assign_add(one)
    with tf.control_dependencies([a]):
        s = w.assign_sub(3.0 * one)  # the second write of the run is in place
    with tf.control_dependencies([s]):
        c = w.assign(w.read_value() * 2.0)
    with tf.control_dependencies([c]):
        bad = tf.reshape(w.read_value(), tf.stack([n]))
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(InvalidArgumentError):
            sess.run(bad, {n: 5})
        np.testing.assert_array_equal(sess.run(w), [0.0, 1.0, 2.0, 3.0])
        np.testing.assert_array_equal(sess.run(bad, {n: 4}), [-4.0, -2.0, 0.0, 2.0])
        np.testing.assert_array_equal(sess.run(w), [-4.0, -2.0, 0.0, 2.0])


def test_an_initializer_in_a_failed_run_leaves_the_variable_uninitialized(graph):
    w = tf.Variable([1.0, 2.0], name="w")
    x = tf.placeholder(tf.float32, [None])
    with tf.Session() as sess:
        with pytest.raises(InvalidArgumentError):
            sess.run([w.initializer, tf.reshape(x, [3])], {x: [1.0]})
        assert not w.is_initialized()
        with pytest.raises(FailedPreconditionError):
            sess.run(w)
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])


def test_a_read_fetched_before_the_failure_still_holds_the_old_value(graph):
    w = tf.Variable([1.0, 2.0], name="w")
    v = tf.placeholder(tf.float32)
    read = tf.identity(w.read_value())
    assign = w.assign(v)
    with tf.Session() as sess:
        sess.run(w.initializer)
        before = sess.run(read)
        with pytest.raises(InvalidArgumentError):
            sess.run([read, assign], {v: [1.0, 2.0, 3.0]})
        np.testing.assert_array_equal(before, [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(read), [1.0, 2.0])


def test_compat_v1_assign_is_checked_as_variable_assign(graph):
    w = tf.Variable([1.0, 2.0], name="w")
    v = tf.placeholder(tf.float32)
    with pytest.raises(ValueError, match=r"Shape mismatch.The variable shape \(2,\)"):
        tf.compat.v1.assign(w, tf.zeros([3]))
    with pytest.raises(TypeError, match="must be a tf.Variable"):
        tf.compat.v1.assign(tf.zeros([2]), [1.0, 2.0])
    assign, add = tf.compat.v1.assign(w, v), tf.compat.v1.assign_add(w, v)
    sub = tf.compat.v1.assign_sub(w, v)
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(InvalidArgumentError, match="Shape mismatch"):
            sess.run(assign, {v: np.zeros((1, 2))})
        np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
        sess.run(assign, {v: [3.0, 4.0]})
        sess.run(add, {v: [1.0, 1.0]})
        sess.run(sub, {v: [0.5, 2.0]})
        np.testing.assert_array_equal(sess.run(w), [3.5, 3.0])


# --------------------------------------------------------------------------------------
# Partial and unknown variable shapes


def test_a_partial_shape_accepts_compatible_values_and_refuses_others():
    w = tf.Variable(np.zeros((2, 3), np.float32), shape=[None, 3], name="rows")
    assert w.shape.as_list() == [None, 3]
    w.assign(np.ones((5, 3), np.float32))
    np.testing.assert_array_equal(w.numpy(), np.ones((5, 3)))
    with pytest.raises(
        ValueError,
        match=r"variable shape \(None, 3\), and the assigned value "
        r"shape \(5, 4\)",
    ):
        w.assign(np.ones((5, 4), np.float32))
    with pytest.raises(
        InvalidArgumentError,
        match=r"shape \[5,3\] using a Tensor with shape "
        r"\[2,3\]",
    ):
        w.assign_add(np.ones((2, 3), np.float32))  # an update keeps the value's shape
    np.testing.assert_array_equal(w.numpy(), np.ones((5, 3)))
    w.assign_add(np.ones((5, 3), np.float32))
    np.testing.assert_array_equal(w.numpy(), np.full((5, 3), 2.0))


def test_a_partial_shape_is_checked_when_the_run_knows_the_value(graph):
    w = tf.Variable(np.zeros((2, 3), np.float32), shape=[None, 3], name="rows")
    v = tf.placeholder(tf.float32)
    assign = w.assign(v)
    with tf.Session() as sess:
        sess.run(w.initializer)
        sess.run(assign, {v: np.ones((4, 3))})
        with pytest.raises(InvalidArgumentError, match=r"\(None, 3\).*\(4, 2\)"):
            sess.run(assign, {v: np.ones((4, 2))})
        np.testing.assert_array_equal(sess.run(w), np.ones((4, 3)))


def test_an_unknown_shape_accepts_any_value_and_validate_shape_is_accepted():
    w = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None), name="any")
    w.assign(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(w.numpy(), np.ones((2, 3)))
    v = tf.Variable([1.0, 2.0], validate_shape=False)
    with pytest.raises(ValueError, match="Shape mismatch"):  # as TF2: checked by its shape
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(
        ValueError,
        match=r"the initial value's shape \(\(2,\)\) is not "
        r"compatible with the explicitly supplied `shape` "
        r"argument \(\[3\]\)",  # TF prints the argument as given
    ):
        tf.Variable([1.0, 2.0], shape=[3])


# --------------------------------------------------------------------------------------
# Eager


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_eager_assignments_of_the_wrong_shape_or_dtype_change_nothing(method):
    w = tf.Variable([1.0, 2.0], name="w")
    write = getattr(w, method)
    error = ValueError if method == "assign" else InvalidArgumentError
    with pytest.raises(
        error,
        match=r"\(2,\).*\(2, 3\)"
        if method == "assign"
        else r"\[2\].*\[2,3\], shapes must be equal",
    ):
        write(tf.zeros([2, 3]))
    with pytest.raises(
        ValueError, match="Tensor conversion requested dtype float32 for Tensor with dtype int32"
    ):
        write(tf.constant([1, 2]))
    with pytest.raises(ValueError, match="dtype float32 for Tensor with dtype float64"):
        write(tf.constant([1.0, 2.0], tf.float64))
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    write([0.5, 4.0])
    want = {"assign": [0.5, 4.0], "assign_add": [1.5, 6.0], "assign_sub": [0.5, -2.0]}
    np.testing.assert_array_equal(w.numpy(), want[method])


def test_an_eager_update_outside_a_run_is_in_place():
    w = tf.Variable(np.ones(3, np.float32))
    buffer = id(w._value)  # (holding the array itself would forbid the in-place update)
    w.assign_sub(np.full(3, 0.25, np.float32))
    # in place where reference counts are trusted; a copy with SYMGRAD_NO_REFCOUNT=1
    assert (id(w._value) == buffer) == refcounts.trusted()
    np.testing.assert_array_equal(w.numpy(), [0.75, 0.75, 0.75])


# --------------------------------------------------------------------------------------
# function


def _function_model():
    w = tf.Variable(W0, name="w")
    b = tf.Variable(B0, name="b")

    @tf.function
    def step(x, y, n):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.reduce_sum(x * w, axis=1) + b - y))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(LR * gw)
        b.assign_sub(LR * gb)
        return tf.reshape(w.read_value(), tf.stack([n]))  # fails unless n == 2

    return w, b, step


def test_a_function_call_that_fails_changes_no_variable():
    w, b, step = _function_model()
    for _ in range(2):
        with pytest.raises(InvalidArgumentError, match="Reshape"):
            step(X, Y, tf.constant(3))
        np.testing.assert_array_equal(w.numpy(), W0)
        assert b.numpy() == B0
    out = step(X, Y, tf.constant(2))
    want_w, want_b = _numpy_step(W0, B0)
    np.testing.assert_allclose(out.numpy(), want_w, rtol=1e-6)
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), want_b, rtol=1e-6)


def test_a_function_call_replayed_under_a_tape_that_fails_changes_no_variable():
    w, b, step = _function_model()
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)  # the call is replayed op by op, so the tape records it
        with pytest.raises(ValueError, match="Cannot reshape a tensor with 2 elements"):
            step(x, Y, tf.constant(3))
    np.testing.assert_array_equal(w.numpy(), W0)
    assert b.numpy() == B0
    with tf.GradientTape() as tape:
        tape.watch(x)
        step(x, Y, tf.constant(2))
    want_w, want_b = _numpy_step(W0, B0)
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), want_b, rtol=1e-6)


def test_a_function_assigning_a_value_of_the_wrong_run_time_shape_changes_nothing():
    w = tf.Variable([1.0, 2.0], name="w")
    u = tf.Variable([3.0], name="u")

    @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([None])])
    def put(a, c):
        w.assign(a)
        u.assign_add(c)
        return w.read_value() + 0.0

    with pytest.raises(
        InvalidArgumentError,
        match=r"shape \[1\] using a Tensor with shape "
        r"\[2\]",
    ):
        put(tf.constant([5.0, 6.0]), tf.constant([1.0, 1.0]))
    with pytest.raises(InvalidArgumentError, match=r"variable ' w(_\d+)?:0'.*\(2,\).*\(3,\)"):
        put(tf.constant([5.0, 6.0, 7.0]), tf.constant([1.0]))
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(u.numpy(), [3.0])
    np.testing.assert_array_equal(
        put(tf.constant([5.0, 6.0]), tf.constant([0.5])).numpy(), [5.0, 6.0]
    )
    np.testing.assert_array_equal(u.numpy(), [3.5])


@pytest.mark.parametrize("jit_compile", [None, True])
def test_a_function_called_in_a_session_run_that_fails_is_undone_with_it(graph, jit_compile):
    if jit_compile:
        pytest.importorskip("jax")
    w = tf.Variable([1.0, 2.0], name="w")

    @tf.function(jit_compile=jit_compile)
    def bump(d):
        w.assign_add(d)
        return w.read_value()

    d = tf.placeholder(tf.float32, [2])
    n = tf.placeholder(tf.int32, [])
    out = bump(d)
    with tf.control_dependencies([out]):
        bad = tf.reshape(out, tf.stack([n]))
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(InvalidArgumentError):
            sess.run(bad, {d: [1.0, 1.0], n: 3})
        np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(bad, {d: [1.0, 1.0], n: 2}), [2.0, 3.0])
        np.testing.assert_array_equal(sess.run(w), [2.0, 3.0])
        # (compiled: the value XLA left on the device is what a failed run puts back)
        with pytest.raises(InvalidArgumentError):
            sess.run(bad, {d: [1.0, 1.0], n: 3})
        np.testing.assert_array_equal(sess.run(w), [2.0, 3.0])
        np.testing.assert_array_equal(sess.run(bad, {d: [1.0, 1.0], n: 2}), [3.0, 4.0])


@pytest.fixture
def non_atomic():
    assert tf.config.atomic_runs_enabled()
    tf.config.set_atomic_runs(False)
    try:
        yield
    finally:
        tf.config.set_atomic_runs(True)


def test_with_atomic_runs_off_a_failed_run_keeps_its_updates_as_tensorflow(graph, non_atomic):
    w, b, x, y, train = _linear_model()
    n = tf.placeholder(tf.int32, [])
    with tf.control_dependencies([train]):  # fails after both updates have run
        bad = tf.reshape(w.read_value(), tf.stack([n]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(InvalidArgumentError, match="Reshape"):
            sess.run([train, bad], {x: X, y: Y, n: 3})
        want_w, want_b = _numpy_step(W0, B0)  # TF: the updates that ran stay applied
        np.testing.assert_allclose(sess.run(w), want_w, rtol=1e-6)
        np.testing.assert_allclose(sess.run(b), want_b, rtol=1e-6)


def test_with_atomic_runs_off_a_function_that_raises_keeps_its_first_update(non_atomic):
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def step(k):
        v.assign_add([1.0, 1.0])
        return tf.reshape(v, tf.stack([k]))

    with pytest.raises(InvalidArgumentError):
        step(tf.constant(3))
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])
    tf.config.set_atomic_runs(True)
    with pytest.raises(InvalidArgumentError):
        step(tf.constant(3))
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])  # atomic again: nothing kept
    np.testing.assert_array_equal(step(tf.constant(2)).numpy(), [3.0, 4.0])
