"""The fused While loop (control_flow/fused_loop.py): one generated loop runs a stateless
loop's cond and body; it gives the step-by-step loop's values, stacks and errors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.control_flow import fused_loop, while_op
from symgrad.runtime.plan import Plan


def _loop(t: tf.Tensor) -> tf.Operation:
    """The While op of a loop's output (``while_loop`` hands out an Identity of it, as TF)."""
    return t.op.inputs[0].op if t.op.type == "Identity" else t.op


def _fused(t: tf.Tensor) -> object:
    """The loop's fused function (any plan's), or None."""
    entries = fused_loop.FUSED.get(_loop(t).get_attr("body"), {})
    return next((e[1] for e in entries.values() if e[1] is not None), None)


@pytest.fixture
def fused_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail where a loop falls back to running step by step (the fused loop declined
    or raised), so a bug in the generated code cannot hide behind the slow path."""

    def refuse(*args: object) -> None:
        raise AssertionError("the loop ran step by step")

    monkeypatch.setattr(while_op, "_run_stepwise", refuse)


def test_swapped_variables_constants_and_unchanged_ones(fused_only: None) -> None:
    """(a, b, c) -> (b, a + 1, c): a tuple handed over at once; c passes through."""
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [])
        body = lambda i, a, b, c: (i + 1, b, a + 1.0, c)  # noqa: E731
        out = tf.while_loop(lambda i, a, b, c: i < n, body, [0, 1.0, 10.0, 7.0])
        stacks = _loop(out[0]).outputs[6:]
        with tf.Session() as sess:
            i, a, b, c = sess.run(out, {n: 5})
            sa, sb = sess.run([stacks[1], stacks[2]], {n: 3})
    assert _fused(out[0]) is not None
    assert (i, a, b, c) == (5, 12.0, 4.0, 7.0)  # (1, 10) (10, 2) (2, 11) (11, 3) (3, 12)
    assert sa.tolist() == [1.0, 10.0, 2.0]
    assert sb.tolist() == []  # no op of the body reads b: its gradient needs no stack


def test_maximum_iterations_and_no_stacks_without_back_prop():
    with tf.Graph().as_default():
        body = lambda i, x: (i + 1, x * 2.0)  # noqa: E731
        _, x = tf.while_loop(lambda i, x: i < 100, body, [0, 1.0], maximum_iterations=4)
        _, y = tf.while_loop(lambda i, x: i < 3, body, [0, 1.0], back_prop=False)
        with tf.Session() as sess:
            assert sess.run([x, y]) == [16.0, 8.0]
    assert len(_loop(y).outputs) == 4  # counter, maximum, i, x: no stacks


def test_a_kernel_error_is_named_by_the_step_by_step_rerun():
    with tf.Graph().as_default():
        table = tf.constant([1.0, 2.0, 3.0])
        body = lambda i, x: (i + 1, x + tf.gather(table, i, name="lookup"))  # noqa: E731
        _, x = tf.while_loop(lambda i, x: i < 5, body, [0, 0.0])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(x)
    assert "lookup" in str(info.value)
    assert _fused(x) is not None


def test_values_and_gradient_match_the_step_by_step_loop():
    with tf.Graph().as_default():
        w = tf.placeholder(tf.float32, [3])
        body = lambda i, h: (i + 1, tf.tanh(h * w + 0.1))  # noqa: E731
        _, h = tf.while_loop(lambda i, h: i < 20, body, [0, tf.ones([3])])
        [dw] = tf.gradients(tf.reduce_sum(h), [w])
        feed = {w: np.array([0.5, -0.3, 0.9], np.float32)}
        with tf.Session() as sess:
            fused = sess.run([h, dw], feed)
            tf.enable_check_numerics()  # a check installed: the step-by-step loop runs
            try:
                stepwise = sess.run([h, dw], feed)
            finally:
                tf.disable_check_numerics()
    for a, b in zip(fused, stepwise, strict=True):
        np.testing.assert_array_equal(a, b)


def test_integer_scalar_arithmetic_keeps_its_dtype(fused_only: None) -> None:
    """Integer scalar ops of a fused loop run as Python operators on NumPy scalars: the
    values and dtypes are the kernels' (int32 stays int32, int64 stays int64)."""
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [])
        big = tf.constant(3, tf.int64)
        body = lambda i, j, k: (i * 2 + 1, j - big, k + tf.cast(i, tf.float32))  # noqa: E731
        out = tf.while_loop(lambda i, j, k: i < n, body, [0, tf.constant(10, tf.int64), 0.0])
        with tf.Session() as sess:
            i, j, k = sess.run(out, {n: 100})
    assert _fused(out[0]) is not None
    assert (i, j, k) == (127, -11, 120.0)  # i: 0 1 3 7 15 31 63 127; 7 steps
    assert i.dtype == np.int32 and j.dtype == np.int64 and k.dtype == np.float32


def _loop_and_reference(compare, first, step, bound, maximum=None):
    """A loop of ``i`` from ``first`` by ``step`` while ``compare(i, bound)``, that also
    sums ``i`` into ``s`` (the body reads i) and doubles ``x``; and the same in Python."""
    with tf.Graph().as_default():
        b = tf.placeholder(tf.int32, [])
        body = lambda i, s, x: (i + step, s + tf.cast(i, tf.float32), x * 2.0)  # noqa: E731
        out = tf.while_loop(
            lambda i, s, x: compare(i, b), body, [first, 0.0, 1.0], maximum_iterations=maximum
        )
        with tf.Session() as sess:
            got = sess.run(out, {b: bound})
    i, s, x, n = first, 0.0, 1.0, 0
    while compare(i, bound) and (maximum is None or n < maximum):
        i, s, x, n = i + step, s + i, x * 2.0, n + 1
    return out, got, [i, s, x]


@pytest.mark.parametrize(
    "compare, first, step, bound, maximum",
    [
        (lambda i, b: i < b, 0, 1, 10, None),
        (lambda i, b: i < b, 0, 3, 10, None),  # a step that does not divide the range
        (lambda i, b: i <= b, -4, 3, 10, None),
        (lambda i, b: b > i, 2, 2, 9, None),  # the bound on the left
        (lambda i, b: i > b, 10, -3, 0, None),  # counting down
        (lambda i, b: i >= b, 10, -1, 4, None),
        (lambda i, b: i < b, 5, 1, 3, None),  # no iteration
        (lambda i, b: i < b, 0, 1, 100, 7),  # maximum_iterations first
    ],
)
def test_a_counted_loop_runs_its_trip_count(fused_only, compare, first, step, bound, maximum):
    """A loop whose condition compares a variable the body steps by a constant with a
    bound it does not change runs ``for`` its trip count, with no condition per iteration;
    its values are the step-by-step loop's (the body reads the variable: it is kept)."""
    out, got, want = _loop_and_reference(compare, first, step, bound, maximum)
    assert [v.item() for v in got] == want
    assert got[0].dtype == np.int32
    assert "trips = " in _source(out[0])


def test_a_counted_variable_only_stepped_is_computed_once_at_the_end(fused_only: None) -> None:
    with tf.Graph().as_default():
        body = lambda i, x: (i + 2, x * 2.0)  # noqa: E731
        i, x = tf.while_loop(lambda i, x: i < 7, body, [tf.constant(1, tf.int64), 1.0])
        with tf.Session() as sess:
            assert sess.run([i, x]) == [7, 8.0]  # i: 1 3 5 7
            assert sess.run(i).dtype == np.int64
    source = _source(i)
    assert "for counter in range" in source and " + 2" not in source.split("for counter")[1]


def test_a_counted_variable_that_would_wrap_runs_step_by_step() -> None:
    """int32 arithmetic wraps around, as in TF: where the last step would pass the
    largest int32, the trip count is not the formula's, so the loop runs step by step and
    wraps as the kernels do."""
    top = 2**31 - 1
    with tf.Graph().as_default():
        [i] = tf.while_loop(lambda i: i < top, lambda i: [i + 4], [top - 6], maximum_iterations=5)
        with tf.Session() as sess:
            got = sess.run(i)
    assert got == top - 6 + 5 * 4 - 2**32  # top-6, top-2, then past the top: negative


def test_a_plan_without_the_gradient_keeps_no_stacks() -> None:
    """A loop made with back_prop keeps each iteration's values for its gradient only in
    a plan that holds the gradient; a plan of the forward values keeps none."""
    with tf.Graph().as_default():
        w = tf.placeholder(tf.float32, [3])
        _, h = tf.while_loop(lambda i, h: i < 4, lambda i, h: (i + 1, h * w), [0, tf.ones([3])])
        [dw] = tf.gradients(tf.reduce_sum(h), [w])
        loop = _loop(h)
        assert loop.get_attr("accumulate") == (False, True)  # h's values; i's nobody reads
        forward, both = Plan([h], [], [w]), Plan([h, dw], [], [w])
        assert forward.attrs[id(loop)]["accumulate"] == (False, False)
        assert both.attrs[id(loop)]["accumulate"] == (False, True)
        value = np.array([0.5, -2.0, 1.5], np.float32)
        np.testing.assert_allclose(forward.run([value])[0], value**4)
        np.testing.assert_allclose(both.run([value])[1], 4 * value**3)
        # the stacks' gradients backprop filled with zeros are not read by the gradient
        grad_loop = dw.op.inputs[0].op if dw.op.type != "StatelessWhile" else dw.op
        loops = [op for op in tf.get_default_graph().get_operations() if "While" in op.type]
        assert grad_loop is not None and len(loops) == 2
        assert all(t.op.type != "ZerosLike" for t in loops[1].inputs)


def _source(t: tf.Tensor) -> str:
    """The generated source of the loop's fused function (kept as its docstring)."""
    fn = _fused(t)
    assert fn is not None
    return fn.__doc__ or ""  # type: ignore[attr-defined]
