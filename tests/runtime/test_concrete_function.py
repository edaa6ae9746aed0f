"""Calls of traced functions (runtime/concrete_function.py): side effects in program order
on every route, and gradients through a call op that use the forward pass's values."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf

# -- automatic control dependencies: side effects in program order, on every route


def _order_fn():
    """A read before an assignment, then reads after it: (old v, 3 * new v)."""
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        before = v * 1.0
        v.assign(2.0 * x)
        return before, v * 3.0

    return v, f


def _expected_order(x_values):
    """The same program in plain Python: what each call must return."""
    state, out = 1.0, []
    for x in x_values:
        before = state
        state = 2.0 * x
        out.append((before, 3.0 * state, state))
    return out


XS = [1.0, 5.0, -2.0]


def test_program_order_in_eager_calls():
    v, f = _order_fn()
    for x, (before, after, state) in zip(XS, _expected_order(XS), strict=True):
        b, a = f(tf.constant(x))
        assert b.op.type == "PartitionedCall"
        assert (b.numpy(), a.numpy(), v.numpy()) == (before, after, state)


def test_program_order_under_a_tape():
    v, f = _order_fn()
    for x, (before, after, state) in zip(XS, _expected_order(XS), strict=True):
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            b, a = f(xt)
        assert b.op.type != "PartitionedCall"  # replayed: the tape recorded the body's ops
        assert (b.numpy(), a.numpy(), v.numpy()) == (before, after, state)
        assert tape.gradient(a, xt) is None  # an assignment passes no gradient, as in TF


def test_program_order_via_partitioned_call_in_a_tf1_graph():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)

        @tf.function
        def f(x):
            before = v * 1.0
            v.assign(2.0 * x)
            return before, v * 3.0

        x = tf.placeholder(tf.float32, [])
        b, a = f(x)
        assert b.op.type == "PartitionedCall" and b.op is a.op
        with tf.Session() as sess:
            sess.run(v.initializer)
            for xv, (before, after, state) in zip(XS, _expected_order(XS), strict=True):
                assert sess.run([b, a], {x: xv}) == [before, after]
                assert sess.run(v) == state


def test_program_order_at_top_level_with_a_placeholder():
    v, f = _order_fn()
    x = tf.placeholder(tf.float32, [])
    b, a = f(x)  # symbolic: one call op that a Session runs
    assert b.op.type == "PartitionedCall"
    with tf.Session() as sess:
        for xv, (before, after, state) in zip(XS, _expected_order(XS), strict=True):
            assert sess.run([b, a], {x: xv}) == [before, after]
            assert v.numpy() == state


def test_assign_then_read_in_the_traced_plan():
    v = tf.Variable(0.0)

    @tf.function
    def f():
        v.assign(2.0)
        return v * 3.0

    assert f().numpy() == 6.0
    v.assign(7.0)
    assert f().numpy() == 6.0 and v.numpy() == 2.0
    reads = [
        op for op in f.get_concrete_function().graph.get_operations() if op.type == "ReadVariableOp"
    ]
    assert reads[0].control_inputs[0].type == "AssignVariableOp"


# -- gradients through a body that reads, assigns and reads again
#
# h(x) = w1 * x + a with a = w0 * x * x and w1 = a + 1 assigned in between.  As in TF, an
# assignment passes no gradient, and d/dw sums over both reads of w:
#   dy/dx = w1 + 2 * w0 * x,   dy/dw = x * x + x.
# (So no finite difference of the stateful h is the reference: the values are by hand.)


def _read_assign_read(w):
    @tf.function
    def h(x):
        a = w * x * x
        w.assign(a + 1.0)
        return w * x + a

    return h


def _by_hand(w0, x):
    a = w0 * x * x
    w1 = a + 1.0
    return w1 * x + a, w1 + 2.0 * w0 * x, x * x + x, w1


@pytest.mark.parametrize("w0,x", [(2.0, 3.0), (-0.5, 1.5)])
def test_gradient_of_the_call_in_a_tf1_graph(w0, x):
    y_ref, dx_ref, dw_ref, w1 = _by_hand(w0, x)
    with tf.Graph().as_default():
        w = tf.Variable(w0)
        h = _read_assign_read(w)
        xp = tf.placeholder(tf.float32, [])
        y = h(xp)
        assert y.op.type == "PartitionedCall"
        gx, gw = tf.gradients(y, [xp, w])
        with tf.Session() as sess:
            sess.run(w.initializer)
            np.testing.assert_allclose(sess.run([gx, gw], {xp: x}), [dx_ref, dw_ref], rtol=1e-6)
            assert sess.run(w) == np.float32(w1)  # one forward's assignment, not two
            sess.run(w.initializer)
            np.testing.assert_allclose(sess.run([y, gx], {xp: x}), [y_ref, dx_ref], rtol=1e-6)
            assert sess.run(w) == np.float32(w1)


def test_second_order_through_the_call_in_a_tf1_graph():
    # d(dy/dx)/dx = 2 * w0 (w1 is a read: constant to x); d(dy/dx)/dw = 1 + 2 * x.
    w0, x = 2.0, 3.0
    with tf.Graph().as_default():
        w = tf.Variable(w0)
        xp = tf.placeholder(tf.float32, [])
        y = _read_assign_read(w)(xp)
        (gx,) = tf.gradients(y, [xp])
        ggx, gwx = tf.gradients(gx, [xp, w])
        with tf.Session() as sess:
            sess.run(w.initializer)
            got = sess.run([y, gx, ggx, gwx], {xp: x})
            assert sess.run(w) == _by_hand(w0, x)[3]
    y_ref, dx_ref, _, _ = _by_hand(w0, x)
    np.testing.assert_allclose(got, [y_ref, dx_ref, 2.0 * w0, 1.0 + 2.0 * x], rtol=1e-6)


@pytest.mark.parametrize("w0,x", [(2.0, 3.0), (-0.5, 1.5)])
def test_gradient_of_the_call_under_a_tape(w0, x):
    y_ref, dx_ref, dw_ref, w1 = _by_hand(w0, x)
    w = tf.Variable(w0)
    h = _read_assign_read(w)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = h(xt)
    gx, gw = tape.gradient(y, [xt, w])
    np.testing.assert_allclose(
        [y.numpy(), gx.numpy(), gw.numpy()], [y_ref, dx_ref, dw_ref], rtol=1e-6
    )
    assert w.numpy() == np.float32(w1)


def test_an_eager_call_that_assigned_cannot_be_differentiated_afterwards():
    # An eager call with no tape records no variable values (they would pin every
    # variable's array); when the values its gradient needs are gone, it says so.
    w0, x = 2.0, 3.0
    y_ref, _, _, w1 = _by_hand(w0, x)
    w = tf.Variable(w0)
    xt = tf.constant(x)
    y = _read_assign_read(w)(xt)
    assert y.op.type == "PartitionedCall" and y.numpy() == y_ref
    assert w.numpy() == np.float32(w1)
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"Cannot differentiate the call of function '.*' .*variable "
        r"'Variable.*:0' .*assigned.* inside a GradientTape",
    ):
        tf.gradients(y, [xt, w])


def test_an_eager_call_is_differentiable_while_its_variables_are_unchanged():
    w = tf.Variable(3.0)
    f = tf.function(lambda x: w * x * x)
    x = tf.constant(2.0)
    y = f(x)
    assert [g.numpy() for g in tf.gradients(y, [x, w])] == [12.0, 4.0]
    w.assign(5.0)  # now the value the call read is gone
    with pytest.raises(tf.errors.InvalidArgumentError, match="has been assigned"):
        tf.gradients(y, [x, w])


def test_stateful_call_gradient_equals_the_same_program_without_function():
    rng = np.random.default_rng(3)
    xv, wv = rng.standard_normal((4, 3)), rng.standard_normal((3, 3))

    def body(x, w):
        h = tf.tanh(tf.matmul(x, w))
        w.assign_sub(0.1 * tf.matmul(tf.transpose(x), h))
        return tf.reduce_sum(tf.matmul(h, w) ** 2)

    def under_tape(fn):
        x, w = tf.constant(xv), tf.Variable(wv)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x, w)
        return [y.numpy(), *[g.numpy() for g in tape.gradient(y, [x, w])], w.numpy()]

    def in_graph(fn):  # a plain TF1 graph would not order the assignment: only functions do
        with tf.Graph().as_default():
            x, w = tf.constant(xv), tf.Variable(wv)
            y = fn(x, w)
            gx, gw = tf.gradients(y, [x, w])
            with tf.Session() as sess:
                sess.run(w.initializer)
                return [*sess.run([y, gx, gw]), sess.run(w)]

    # (An eager call with no tape cannot be differentiated afterwards once it assigned:
    # see test_an_eager_call_that_assigned_cannot_be_differentiated_afterwards.)
    want = under_tape(body)
    for got in (under_tape(tf.function(body)), in_graph(tf.function(body))):
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-10)


def test_stop_gradient_inside_a_call():
    v = tf.Variable(2.0)

    @tf.function
    def f(x):
        return tf.stop_gradient(v * x) * x + v * x

    x = tf.constant(3.0)
    y = f(x)  # y = (v x) x + v x: dy/dx = v x + v, dy/dv = x (the stopped path gives none)
    gx, gv = tf.gradients(y, [x, v])
    assert (gx.numpy(), gv.numpy()) == (8.0, 3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert [g.numpy() for g in tape.gradient(y, [x, v])] == [8.0, 3.0]


def test_a_tensor_passed_twice_gets_its_gradient_once():
    @tf.function
    def f(a, b):
        return a * b

    x = tf.constant(3.0)
    y = f(x, x)
    (gx,) = tf.gradients(y, [x])
    assert gx.numpy() == 6.0


def test_a_traces_input_signature_and_output_specs_are_tfs():
    """TF 2.21's ``structured_input_signature`` (bound, defaults filled in),
    ``output_shapes``/``output_dtypes`` and ``input_signature`` (a tuple)."""

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x")])
    def g(x):
        return tf.reduce_sum(x)

    cf = g.get_concrete_function()
    assert cf.structured_input_signature == ((tf.TensorSpec([None], tf.float32, name="x"),), {})
    assert (cf.output_shapes, cf.output_dtypes) == (tf.TensorShape([]), tf.float32)
    assert g.input_signature == (tf.TensorSpec([None], tf.float32, name="x"),)

    @tf.function
    def h(a, b=2):
        return {"p": a * b, "q": [a]}

    two = h.get_concrete_function(tf.constant([1.0, 2.0]), b=3)
    assert two.structured_input_signature == ((tf.TensorSpec([2], tf.float32, name="a"), 3), {})
    spec = h.get_concrete_function(tf.TensorSpec([2, None], tf.int32))
    assert spec.structured_input_signature == (
        (tf.TensorSpec([2, None], tf.int32, name="a"), 2),  # the default, filled in
        {},
    )
    assert spec.output_shapes == {"p": tf.TensorShape([2, None]), "q": [tf.TensorShape([2, None])]}
    assert spec.output_dtypes == {"p": tf.int32, "q": [tf.int32]}
