"""The IR's public surface: per-thread context, recorders, the output check, the graph walk."""

import threading

import numpy as np
import pytest

import symgrad as tf
from symgrad.core import context, op_registry
from symgrad.core.graph import Operation, walk_ops
from symgrad.core.shapes import TensorShape

# --------------------------------------------------------------------------------------
# Modes: executing_eagerly, inside_function, default_graph_stack, init_scope


def test_modes_at_top_level_in_a_graph_and_in_a_trace():
    seen = {}

    @tf.function
    def f(x):
        seen["eager"], seen["inside"] = tf.executing_eagerly(), tf.inside_function()
        seen["stack"] = tf.default_graph_stack()
        return x * 2.0

    assert tf.executing_eagerly() and not tf.inside_function()
    assert tf.default_graph_stack() == []
    with tf.Graph().as_default() as g:
        assert not tf.executing_eagerly() and not tf.inside_function()
        assert tf.default_graph_stack() == [g]
        with tf.Graph().as_default() as h:
            assert tf.default_graph_stack() == [g, h]
        assert tf.default_graph_stack() == [g]
    assert f(tf.constant(1.0)).numpy() == 2.0
    assert seen["eager"] is False and seen["inside"] is True
    assert len(seen["stack"]) == 1 and seen["stack"][0].building_function
    assert tf.default_graph_stack() == []


def test_default_graph_stack_is_a_copy_and_per_thread():
    with tf.Graph().as_default() as g:
        stack = tf.default_graph_stack()
        stack.clear()
        assert tf.default_graph_stack() == [g]
        other = {}
        t = threading.Thread(
            target=lambda: other.update(
                stack=tf.default_graph_stack(), eager=tf.executing_eagerly()
            )
        )
        t.start()
        t.join()
    assert other == {"stack": [], "eager": True}


def test_init_scope_runs_ops_eagerly_from_inside_a_graph():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [])
        with tf.name_scope("layer"), g.control_dependencies([x.op]):
            with tf.init_scope():
                assert tf.executing_eagerly()
                assert tf.default_graph_stack() == [g, tf.get_default_graph()]
                c = tf.constant(2.0) * 3.0
                assert c.op.control_inputs == ()  # g's control dependencies stay in g
            inner = tf.identity(x)
        assert not tf.executing_eagerly()
        assert tf.default_graph_stack() == [g]
    assert c.numpy() == 6.0 and c.graph.eager
    assert c.op.name.startswith("layer/")  # the name scope in force is kept
    assert inner.graph is g and inner.op.control_inputs == (x.op,)


def test_init_scope_inside_a_trace_and_at_top_level():
    values = []

    @tf.function
    def f(x):
        with tf.init_scope():
            assert tf.executing_eagerly() and not tf.inside_function()
            values.append(tf.constant(5.0).numpy())
        assert tf.inside_function()
        return x + 1.0

    assert f(tf.constant(1.0)).numpy() == 2.0 and values == [5.0]
    with tf.init_scope():  # already eager: nothing changes but the tapes pause
        assert tf.executing_eagerly() and tf.default_graph_stack() == []


def test_init_scope_pauses_tapes():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tf.init_scope():
            hidden = x * x
        seen = x * x
    assert tape.gradient(hidden, x) is None
    assert tape.gradient(seen, x).numpy() == 6.0


def test_reset_default_graph_replaces_the_top_level_graph():
    before = tf.get_default_graph()
    tf.reset_default_graph()
    after = tf.get_default_graph()
    assert after is not before and after.eager
    with tf.Graph().as_default(), tf.init_scope():
        assert tf.get_default_graph() is after
        with pytest.raises(AssertionError, match="reset_default_graph"):
            tf.reset_default_graph()


# --------------------------------------------------------------------------------------
# Recorders and the output check


class Spy:
    """A Recorder that keeps every op it is handed."""

    def __init__(self):
        self.ops = []

    def record(self, op):
        self.ops.append(op)

    def variable_accessed(self, var):
        pass

    def would_record(self, inputs, variables):
        return False


def test_recorders_see_every_op_created_on_their_thread():
    spy = Spy()
    x = tf.constant([1.0, 2.0])
    context.push_recorder(spy)
    try:
        y = x * 2.0
        with tf.Graph().as_default():
            z = tf.placeholder(tf.float32) + 1.0
        with context.stop_recording():
            tf.exp(x)
        other = threading.Thread(target=lambda: tf.exp(x))
        other.start()
        other.join()
    finally:
        context.remove_recorder(spy)
    tf.exp(x)
    types = [op.type for op in spy.ops]
    assert y.op in spy.ops and z.op in spy.ops
    assert "Exp" not in types  # paused, on another thread, or after removal
    assert [op.output_values is not None for op in spy.ops if op is y.op] == [True]
    assert context.current.recorders == []


def test_heavy_says_whether_a_recorder_wants_every_op_built():
    """``current.heavy`` (read by the fast path for each op) follows the recorders: a
    recorder without ``takes_light`` (Spy) makes it true until removed; a tape does not;
    stop_recording and custom_gradient's swap set and restore it.  Under a Spy beside a
    tape, an eager op is built and handed to both."""
    x = tf.constant([1.0, 2.0])
    spy = Spy()
    assert context.current.heavy is False
    with tf.GradientTape() as tape:
        tape.watch(x)
        assert context.current.heavy is False
        context.push_recorder(spy)
        assert context.current.heavy is True
        with context.stop_recording():
            assert context.current.heavy is False
        assert context.current.heavy is True
        y = x * 2.0
        context.remove_recorder(spy)
        assert context.current.heavy is False
        seen = []

        @tf.custom_gradient
        def f(v):
            seen.append(context.current.heavy)
            return v * 3.0, lambda g: g * 3.0

        z = f(y)
        assert seen == [True] and context.current.heavy is False
    assert spy.ops == [y.op] and type(y).__name__ == "Tensor"
    assert tape.gradient(z, x).numpy().tolist() == [6.0, 6.0]
    assert context.current.heavy is False and context.current.recorders == []


def test_remove_recorder_takes_the_innermost_entry_only():
    a, b = Spy(), Spy()
    for r in (a, b, a):
        context.push_recorder(r)
    context.remove_recorder(a)
    assert context.current.recorders == [a, b]
    context.remove_recorder(b)
    context.remove_recorder(b)  # absent: nothing happens
    context.remove_recorder(a)
    assert context.current.recorders == []


def test_a_gradient_tape_is_a_recorder():
    x = tf.constant(2.0)
    tape = tf.GradientTape()
    with tape:
        assert context.current.recorders == [tape]
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            assert context.current.recorders == []
    assert context.current.recorders == []
    assert tape.gradient(y, x).numpy() == 4.0


def test_output_check_sees_eager_ops_and_plan_steps():
    calls = []

    def check(op, outputs, inputs, mode):
        calls.append(
            (
                op.type,
                mode,
                [np.asarray(v).tolist() for v in inputs],
                [np.asarray(v).tolist() for v in outputs],
            )
        )

    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [])
        q = tf.exp(p)
        sess = tf.Session()
    assert sess.run(q, {p: 0.0}) == 1.0
    op_registry.set_output_check(check)
    try:
        tf.exp(tf.constant(0.0))
        assert sess.run(q, {p: 0.0}) == 1.0
    finally:
        op_registry.set_output_check(None)
    assert ("Exp", "eagerly-executing", [0.0], [1.0]) in calls
    assert ("Exp", "graph", [0.0], [1.0]) in calls
    calls.clear()
    tf.exp(tf.constant(0.0))
    assert sess.run(q, {p: 0.0}) == 1.0
    assert calls == [] and op_registry.output_check is None


# --------------------------------------------------------------------------------------
# Graph surface: capture, name scopes, public reads


def test_capture_of_a_plain_graph_refuses_other_graphs_tensors():
    outer = tf.constant(1.0)
    with tf.Graph().as_default() as g:
        with pytest.raises(ValueError, match="must be from the same graph"):
            g.capture(outer)
        with pytest.raises(ValueError, match=r"^AddV2: Tensor Const(_\d+)?:0 must be from"):
            tf.add(outer, outer)


def test_current_name_scope_is_tf2s_eagerly_and_the_graphs_in_a_trace():
    """TF 2.21's ``tf.get_current_name_scope()`` (tests/test_context.py's program run on
    TF): eagerly no scope is made unique, a loop's scope is the same each time; in a
    function or a TF1 graph the second entry is ``s_1``.  The eager ops' names stay
    unique (TF1's ``s_1/...``), as the top level is also TF1's default graph."""
    seen = []
    for _ in range(2):
        with tf.name_scope("train"):
            with tf.name_scope("inner"):
                seen.append(tf.get_current_name_scope())
                c = tf.constant(1.0, name="c")
        with tf.name_scope("abs/"):
            seen.append(tf.get_current_name_scope())
            with tf.name_scope(""):
                seen.append(tf.get_current_name_scope())
    assert seen == ["train/inner", "abs", "", "train/inner", "abs", ""]
    assert c.op.name == "train_1/inner/c" and tf.get_current_name_scope() == ""
    traced = []

    @tf.function
    def f(x):
        for _ in range(2):
            with tf.name_scope("s"):
                traced.append(tf.get_current_name_scope())
        return x

    f(tf.constant(1.0))
    assert traced == ["s", "s_1"]
    with tf.Graph().as_default():
        graph = []
        for _ in range(2):
            with tf.name_scope("s"):
                graph.append(tf.get_current_name_scope())
    assert graph == ["s", "s_1"]


def test_name_scope_reenters_exact_scopes_and_restores():
    with tf.Graph().as_default() as g:
        assert g.get_name_scope() == ""
        with g.name_scope("a") as a:
            assert a == "a/" and g.get_name_scope() == "a"
            with g.name_scope("x/y/") as exact:
                assert exact == "x/y/" and tf.constant(1.0).op.name == "x/y/Const"
            with g.name_scope(None) as root:
                assert root == "" and g.get_name_scope() == ""
        with pytest.raises(RuntimeError), g.name_scope("b"):
            assert g.get_name_scope() == "b"
            raise RuntimeError
        assert g.get_name_scope() == ""
        with g.name_scope("a") as again:
            assert again == "a_1/"
            previous = g.set_name_scope("exact/scope")
            assert previous == "a_1" and tf.constant(1.0).op.name == "exact/scope/Const"
            assert g.set_name_scope(previous) == "exact/scope"
        assert g.get_name_scope() == ""
        with pytest.raises(ValueError, match="not a valid scope name"), g.name_scope("a b"):
            pass


def test_public_reads_of_ops_and_tensors():
    x = tf.constant([1.0, 2.0])
    y = x * 3.0
    op = y.op
    assert op.inputs[0] is x and isinstance(op.inputs, tuple)
    assert op.output_dtypes == [tf.float32] and op.output_shapes[0].as_list() == [2]
    assert op.output_values[0] is y.eager_value
    assert y.eager_value.tolist() == [3.0, 6.0] and y.numpy() is not y.eager_value
    assert op.gradient_override is None
    with tf.Graph().as_default() as g:
        p = tf.placeholder(tf.float32, [2])
        with g.gradient_override_map({"Identity": "StopGradient"}):
            assert g.gradient_overrides() == {"Identity": "StopGradient"}
            i = tf.identity(p)
        assert g.gradient_overrides() == {}
    assert i.op.output_values is None and i.eager_value is None and not i.has_value()
    assert i.op.gradient_override == "StopGradient"


# --------------------------------------------------------------------------------------
# The graph walk


def _op(graph, name, inputs):
    return Operation(
        graph, "Identity", name, [t for t in inputs], {}, [tf.float32], [TensorShape([])]
    )


def test_walk_ops_puts_producers_first_and_visits_each_op_once():
    g = tf.Graph()
    a = _op(g, "a", [])
    b = _op(g, "b", [a.output(0)])
    c = _op(g, "c", [a.output(0)])
    d = _op(g, "d", [b.output(0), c.output(0), a.output(0)])
    # A stack: an op's inputs are pushed first to last, so the last is walked first.
    assert [op.name for op in walk_ops([d])] == ["a", "c", "b", "d"]
    assert [op.name for op in walk_ops([d], topological=False)] == ["d", "a", "c", "b"]
    visited = []

    def preds(op):
        visited.append(op.name)
        return [t.op for t in reversed(op.inputs)]

    assert [op.name for op in walk_ops([d], preds)] == ["a", "b", "c", "d"]
    assert visited == ["d", "b", "a", "c"]  # once each, when the walk reaches it
    assert walk_ops([b, c, b]) == [a, b, c]
    assert walk_ops([b, c], topological=False) == [c, a, b]


def test_walk_ops_walks_a_hundred_thousand_op_chain():
    g = tf.Graph()
    first = op = _op(g, "x", [])
    for i in range(100_000):
        op = _op(g, f"op{i}", [op.output(0)])
    order = walk_ops([op])
    assert len(order) == 100_001 and order[0] is first and order[-1] is op
    reached = walk_ops([op], topological=False)
    assert len(reached) == 100_001 and reached[0] is op and reached[-1] is first
