"""function (tf.function): tracing, caching, signatures, variables, tapes, seed 004."""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pytest

import symgrad as tf

# -- seed 004: the tf.gradients reference page's examples, run inside functions


def test_seed_004_partial_and_total_derivatives():
    @tf.function
    def partial():
        a = tf.constant(0.0)
        b = 2 * a
        return tf.gradients(a + b, [a, b], stop_gradients=[a, b])

    @tf.function
    def stopped():
        a = tf.stop_gradient(tf.constant(0.0))
        b = tf.stop_gradient(2 * a)
        return tf.gradients(a + b, [a, b])

    @tf.function
    def total():
        ws = tf.constant(0.0)
        bs = 2 * ws
        cost = ws + bs
        d_w, d_b = tf.gradients(cost, [ws, bs])
        return d_w, d_b

    one = "<symgrad.Tensor: shape=(), dtype=float32, numpy=1.0>"
    assert repr(partial()) == f"[{one}, {one}]"
    assert repr(stopped()) == f"[{one}, {one}]"
    out = total()
    assert isinstance(out, tuple) and [t.numpy() for t in out] == [3.0, 1.0]


def test_seed_004_unconnected_gradients():
    @tf.function
    def example(use_zero):
        a = tf.ones([1, 2])
        b = tf.ones([3, 1])
        if use_zero:
            return tf.gradients([b], [a], unconnected_gradients="zero")
        return tf.gradients([b], [a], unconnected_gradients="none")

    assert example(False) == [None]
    (z,) = example(True)
    assert repr(z) == (
        "<symgrad.Tensor: shape=(1, 2), dtype=float32, numpy=array([[0., 0.]], dtype=float32)>"
    )


# -- tracing and the cache


def test_traces_once_per_signature_and_reruns_the_graph():
    traces = []

    @tf.function
    def f(x, n):
        traces.append(1)  # Python side effects happen only while tracing
        return x * n

    assert f(tf.constant(2.0), 3).numpy() == 6.0
    assert f(tf.constant(5.0), 3).numpy() == 15.0
    assert len(traces) == 1
    f(tf.constant([1.0, 2.0]), 3)  # new shape
    f(tf.constant(1.0, tf.float64), 3)  # new dtype
    f(tf.constant(1.0), 4)  # new Python value
    assert len(traces) == 4 and f.experimental_get_tracing_count() == 4
    assert f(np.float32(2.0), 4).numpy() == 8.0  # a NumPy value is a tensor argument
    assert len(traces) == 4


def test_traced_graph_is_a_function_graph():
    @tf.function
    def f(x):
        assert not tf.executing_eagerly()
        assert tf.get_default_graph().building_function
        return x + 1.0

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert isinstance(cf, tf.ConcreteFunction)
    assert cf.inputs[0].shape.as_list() == [None]
    assert cf(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    assert cf(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 3.0, 4.0]


def test_structured_outputs_are_the_graphs_tensors_in_the_returned_structure():
    """TF's ``ConcreteFunction.structured_outputs``: the trace's output tensors (of its
    graph, symbolic) packed as the function returned them, a returned Python number an
    int32 tensor too (TF 2.21: Identity_2:0, shape (), int32)."""

    @tf.function
    def f(x):
        return {"double": x * 2.0, "pair": (x + 1.0, 3)}

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    out = cf.structured_outputs
    assert sorted(out) == ["double", "pair"]
    double, (plus, three) = out["double"], out["pair"]
    assert {t.graph for t in (double, plus, three)} == {cf.graph} and double.eager_value is None
    assert (double.shape.as_list(), plus.dtype, three.shape.as_list(), three.dtype) == (
        [None],
        tf.float32,
        [],
        tf.int32,
    )
    assert [id(t) for t in (double, plus, three)] == [id(t) for t in cf.outputs]


def test_input_signature():
    traces = []

    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
    def f(x):
        traces.append(1)
        return tf.reduce_sum(x * x)

    assert f(tf.constant([1.0, 2.0])).numpy() == 5.0
    assert f([1.0, 2.0, 3.0]).numpy() == 14.0
    assert len(traces) == 1
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        f(tf.constant([[1.0]]))
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        f(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        f(tf.constant([1.0]), tf.constant([1.0]))


def test_tensor_spec():
    s = tf.TensorSpec([2, None], tf.float64, name="x")
    assert s.shape.as_list() == [2, None] and s.dtype == tf.float64
    assert s.is_compatible_with(tf.constant(np.zeros((2, 5))))
    assert not s.is_compatible_with(tf.constant(np.zeros((3, 5))))
    assert tf.TensorSpec.from_tensor(tf.constant(1.0)) == tf.TensorSpec([], tf.float32)


def test_retrace_warning(caplog):
    @tf.function
    def f(x):
        return x

    with caplog.at_level(logging.WARNING, logger="symgrad"):
        for i in range(4):
            f(i)
        assert "retracing" not in caplog.text
        f(4)
    assert "5 out of the last 5 calls to" in caplog.text


def test_nested_outputs_and_python_values():
    @tf.function
    def f(x):
        return {"sq": x * x, "pair": (x, None), "k": 2}

    out = f(tf.constant(3.0))
    assert out["sq"].numpy() == 9.0 and out["pair"][0].numpy() == 3.0
    assert out["pair"][1] is None and out["k"].numpy() == 2


def test_flat_outputs_keep_their_container_type():
    @tf.function
    def pair(x):
        return x + 1.0, x * 2.0

    @tf.function
    def as_list(x):
        return [x - 1.0]

    @tf.function
    def one(x):
        return x * 3.0

    x = tf.constant(2.0)
    for _ in range(2):  # the first call traces, the second takes the cached route
        a, b = pair(x)
        assert isinstance(pair(x), tuple) and (a.numpy(), b.numpy()) == (3.0, 4.0)
        out = as_list(x)
        assert isinstance(out, list) and len(out) == 1 and out[0].numpy() == 1.0
        assert isinstance(one(x), tf.Tensor) and one(x).numpy() == 6.0


def test_no_outputs_still_runs_side_effects():
    v = tf.Variable(1.0)

    @tf.function
    def bump():
        v.assign_add(2.0)

    assert bump() is None
    bump()
    assert v.numpy() == 5.0


# -- variables and captures


def test_variables_are_captured_by_reference():
    v = tf.Variable(2.0)

    @tf.function
    def f(x):
        return v * x

    assert f(tf.constant(3.0)).numpy() == 6.0
    v.assign(10.0)
    assert f(tf.constant(3.0)).numpy() == 30.0
    assert f.experimental_get_tracing_count() == 1


def test_side_effects_keep_program_order():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        before = v.read_value()
        v.assign_add(1.0)
        after = v.read_value()
        v.assign(after * 10.0)
        return before, after

    b, a = f()
    assert (b.numpy(), a.numpy(), v.numpy()) == (1.0, 2.0, 20.0)
    b, a = f()
    assert (b.numpy(), a.numpy(), v.numpy()) == (20.0, 21.0, 210.0)


def test_eager_tensor_captured_from_outside():
    c = tf.constant([1.0, 2.0])

    @tf.function
    def f(x):
        return x * c

    assert f(tf.constant(3.0)).numpy().tolist() == [3.0, 6.0]
    with tf.GradientTape() as tape:
        tape.watch(c)
        y = f(tf.constant(3.0))
    assert tape.gradient(y, c).numpy().tolist() == [3.0, 3.0]


def test_nested_functions_and_methods():
    class Model:
        def __init__(self):
            self.w = tf.Variable([[1.0], [2.0]])

        @tf.function
        def __call__(self, x):
            return inner(tf.matmul(x, self.w))

    @tf.function
    def inner(h):
        return h * 2.0

    m = Model()
    assert m(tf.constant([[1.0, 1.0]])).numpy().tolist() == [[6.0]]
    with tf.GradientTape() as tape:
        y = m(tf.constant([[1.0, 3.0]]))
    assert tape.gradient(y, m.w).numpy().tolist() == [[2.0], [6.0]]


def test_side_effect_order_when_replayed_into_a_graph():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        v.assign(x)
        return v.read_value() * 2.0

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [])
        y = f(x)
        with tf.Session() as sess:
            assert sess.run(y, {x: 5.0}) == 10.0
    assert v.numpy() == 5.0


def test_function_called_while_building_a_graph():
    @tf.function
    def f(x):
        return x * x

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2])
        y = f(x)
        (dx,) = tf.gradients(y, x)
        with tf.Session() as sess:
            assert sess.run([y, dx], {x: [1.0, 3.0]})[1].tolist() == [2.0, 6.0]


# -- differentiating through calls


def _loss(x, w):
    return tf.reduce_sum(tf.tanh(tf.matmul(x, w)) ** 2)


def test_tape_through_a_call_equals_tape_without_function():
    rng = np.random.default_rng(5)
    xv, wv = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    x, w = tf.constant(xv), tf.Variable(wv)
    f = tf.function(_loss)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y_fn = f(x, w)
        y_plain = _loss(x, w)
    for a, b in zip(tape.gradient(y_fn, [x, w]), tape.gradient(y_plain, [x, w]), strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_second_order_through_a_call():
    @tf.function
    def f(x):
        return x * x * x

    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    assert (dy.numpy(), outer.gradient(dy, x).numpy()) == (12.0, 12.0)


def test_gradients_through_an_eagerly_run_call():
    v = tf.Variable(3.0)

    @tf.function
    def f(x):
        return v * x * x

    x = tf.constant(2.0)
    y = f(x)  # no tape: one PartitionedCall op ran the plan
    assert y.op.type == "PartitionedCall"
    gx, gv = tf.gradients(y, [x, v])
    assert (gx.numpy(), gv.numpy()) == (12.0, 4.0)


def test_tape_inside_function():
    @tf.function
    def grad_of_square(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x)

    assert grad_of_square(tf.constant(3.0)).numpy() == 6.0
    assert grad_of_square(tf.constant(4.0)).numpy() == 8.0


def test_training_loop_reduces_the_loss():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((32, 3)).astype(np.float32)
    true_w = np.array([[1.5], [-2.0], [0.5]], np.float32)
    ys = np.tanh(xs @ true_w) + 0.3
    w = tf.Variable(np.zeros((3, 1), np.float32))
    b = tf.Variable(np.zeros((1,), np.float32))

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            pred = tf.tanh(tf.matmul(x, w)) + b
            loss = tf.reduce_mean(tf.square(pred - y))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * dw)
        b.assign_sub(0.5 * db)
        return loss

    x, y = tf.constant(xs), tf.constant(ys)
    losses = [float(train_step(x, y).numpy()) for _ in range(100)]
    assert train_step.experimental_get_tracing_count() == 1
    assert losses[-1] < 0.01 * losses[0]
    assert all(b2 <= a2 + 1e-7 for a2, b2 in itertools.pairwise(losses))


# -- variables created inside a function: TF's singleton rule


class Scale:
    def __init__(self):
        self.v = None
        self.traces = 0

    @tf.function
    def __call__(self, x):
        self.traces += 1
        if self.v is None:
            self.v = tf.Variable(tf.ones_like(x) * 2.0, name="scale")
        return self.v * x


def test_variable_created_on_the_first_call_is_lifted_out():
    m = Scale()
    assert m(tf.constant(3.0)).numpy() == 6.0
    # as TF: the first trace created a variable, so it traced again without creating
    assert m.traces == 2 and m.__call__.experimental_get_tracing_count() == 2
    assert m.v.graph is tf.get_default_graph() and m.v.numpy() == 2.0
    assert m(tf.constant(4.0)).numpy() == 8.0 and m.traces == 2
    assert m(tf.constant([1.0, 5.0])).numpy().tolist() == [2.0, 10.0]  # a new trace reuses v
    assert m.traces == 3
    x = tf.constant(5.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = m(x)
    assert [g.numpy() for g in tape.gradient(y, [x, m.v])] == [2.0, 5.0]
    assert Scale()(tf.constant(1.0)).numpy() == 2.0  # each instance its own variable


def test_variable_created_on_every_call_raises():
    @tf.function
    def fresh(x):
        v = tf.Variable(1.0)
        return v + x

    with pytest.raises(
        ValueError,
        match=r"tf\.function only supports singleton tf\.Variables "
        r"created on the first call\..*function .*fresh' created tf\.Variable",
    ):
        fresh(tf.constant(1.0))


def test_variable_created_on_a_later_trace_raises():
    @tf.function
    def later(x, make):
        if make:
            tf.Variable(1.0)
        return x

    later(tf.constant(1.0), False)
    with pytest.raises(
        ValueError,
        match=r"Creating variables on a non-first call to a "
        r"function decorated with tf\.function\..*later' created",
    ):
        later(tf.constant(1.0), True)


def test_variable_created_in_a_function_called_in_a_tf1_graph():
    class Counter:
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self, step):
            if self.count is None:
                self.count = tf.Variable(10.0)
            return self.count.assign_add(step)

    with tf.Graph().as_default() as g:
        c = Counter()
        step = tf.placeholder(tf.float32, [])
        out = c(step)
        assert c.count.graph is g and tf.global_variables() == [c.count]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert [sess.run(out, {step: s}) for s in (1.0, 2.0)] == [11.0, 13.0]


def test_initial_value_that_needs_a_symbolic_argument_is_a_clear_error():
    @tf.function
    def f(x):
        return tf.Variable(x * 2.0) * x

    with pytest.raises(
        ValueError,
        match="initial value of a tf.Variable created inside "
        "function '.*f' cannot be computed while tracing",
    ):
        f.get_concrete_function(tf.TensorSpec([], tf.float32))


def test_reduce_retracing_generalizes_shapes_as_tf():
    """``reduce_retracing=True``: a call no trace takes is traced with its type made
    common with each earlier trace's (sizes that differ unknown, a rank that differs
    the rank; a dtype or Python value that differs: none in common), and a call is
    dispatched to the most specific trace that takes it; a ``get_concrete_function``
    of a ``[None]`` spec takes later calls of any size without it.  TF 2.21's traces
    and counts below."""
    seen = []

    @tf.function
    def f(x):
        seen.append(str(x.shape))
        return x

    f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    f(tf.ones([3]))
    f(tf.ones([4]))
    assert (seen, f.experimental_get_tracing_count()) == (["(None,)"], 1)
    seen.clear()

    @tf.function(reduce_retracing=True)
    def g(x, y, n):
        seen.append((str(x.shape), str(y.shape), x.dtype.name, n))
        return x

    for shape, size, dtype, n in [
        ([1, 2], 3, tf.float32, 1),
        ([2, 2], 3, tf.float32, 1),
        ([5, 2], 4, tf.float32, 1),
        ([5, 2, 1], 4, tf.float32, 1),
        ([5, 3], 4, tf.float32, 2),
        ([6, 3], 7, tf.float32, 2),
        ([6, 3], 7, tf.int32, 2),
        ([7, 7, 7], 7, tf.float32, 1),  # the unknown-rank trace takes it
        ([1, 2], 3, tf.float32, 1),  # traced: the first, exact trace
    ]:
        g(tf.ones(shape, dtype), tf.ones([size]), n)
    assert seen == [
        ("(1, 2)", "(3,)", "float32", 1),
        ("(None, 2)", "(3,)", "float32", 1),
        ("(None, 2)", "(None,)", "float32", 1),
        ("<unknown>", "(None,)", "float32", 1),
        ("(5, 3)", "(4,)", "float32", 2),
        ("(None, 3)", "(None,)", "float32", 2),
        ("(6, 3)", "(7,)", "int32", 2),
    ]
    assert g.experimental_get_tracing_count() == 7
