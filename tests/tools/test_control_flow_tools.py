"""The tools inside control flow: why_none names a cut inside a branch or loop body, the
renderer draws branches and bodies as clusters, the NaN check names the loop iteration."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import symgrad as tf


def lineno() -> int:
    return sys._getframe(1).f_lineno


# --------------------------------------------------------------------------------------
# why_none


def test_stop_gradient_in_a_while_body_is_named_with_its_loop():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        w = tf.placeholder(tf.float32, [], name="w")

        def body(i, y):
            return i + 1, tf.stop_gradient(y * w, name="frozen") + y

        line = lineno() - 2
        _, y = tf.while_loop(lambda i, y: i < 3, body, [0, x], name="loop")
        gx, gw = tf.gradients(y, [x, w])
        ex, ew = tf.why_none(y, [x, w])
        with tf.Session() as sess:
            values = sess.run([gx, gw], {x: 1.5, w: 2.0})
    assert ex is None  # y + ... carries x through every iteration
    assert values == [1.0, 0.0]  # what why_none explains: w gets zeros
    assert (ew.result, ew.reason) == ("zeros", "stop_gradient")
    assert ew.op.type == "StopGradient" and ew.op.name == "frozen"
    assert ew.op.location == f"{__file__}:{line}"
    assert ew.cut.within == "the body of StatelessWhile 'loop'"
    assert ew.path == ("w", "loop", "capture", "mul", "frozen")
    text = str(ew)
    assert text.startswith("The gradient w.r.t. w:0 is zeros: every path to ys is cut by ")
    assert "inside the body of StatelessWhile 'loop'" in text


def test_integer_cast_in_a_cond_branch_is_named_with_its_branch():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [], name="p")
        w = tf.placeholder(tf.float32, [], name="w")
        to_int = lambda: tf.cast(tf.cast(w, tf.int32, name="to_int"), tf.float32)  # noqa: E731
        line = lineno() - 1
        z = tf.cond(p, lambda: w * 3.0, to_int, name="reaches")
        z_cut = tf.cond(p, lambda: tf.stop_gradient(w, name="frozen"), to_int, name="choose")
        [e], [e_cut] = tf.why_none(z, [w]), tf.why_none(z_cut, [w])
        assert tf.gradients(z_cut, [w]) == [None]  # TF 2.21: [None], every branch cuts
    assert e is None  # w reaches z through true_fn
    assert (e_cut.result, e_cut.reason) == ("None", "stop_gradient")
    cuts = {c.op.name: c for c in e_cut.cuts}
    assert set(cuts) == {"frozen", "to_int"}
    assert cuts["frozen"].within == "the true_fn branch of StatelessIf 'choose'"
    assert cuts["to_int"].kind == "dtype" and cuts["to_int"].op.location == f"{__file__}:{line}"
    assert cuts["to_int"].within == "the false_fn branch of StatelessIf 'choose'"
    assert cuts["to_int"].path == ("w", "choose", "capture", "to_int")


def test_a_cut_inside_a_cond_inside_a_loop_names_both_levels():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")

        def body(i, y):
            return i + 1, tf.cond(y > 0.0, lambda: tf.stop_gradient(y), lambda: 0.0 * y)

        _, y = tf.while_loop(lambda i, y: i < 2, body, [0, x])
        [e] = tf.why_none(y, [x])
    assert e is None  # the false branch still carries a (zero-valued) path


def test_nested_cut_names_branch_then_loop():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")

        def body(i, y):
            as_int = lambda: tf.cast(tf.cast(y, tf.int32), tf.float32)  # noqa: E731
            return i + 1, tf.cond(y > 0.0, lambda: tf.stop_gradient(y), as_int)

        _, y = tf.while_loop(lambda i, y: i < 2, body, [0, x])
        [e] = tf.why_none(y, [x])
    assert e.result == "zeros"
    whereabouts = {c.op.type: c.within for c in e.cuts}
    assert whereabouts == {
        "StopGradient": "the true_fn branch of StatelessIf 'cond', in the body of "
        "StatelessWhile 'while'",
        "Cast": "the false_fn branch of StatelessIf 'cond', in the body of StatelessWhile 'while'",
        "Greater": "the body of StatelessWhile 'while'",  # the predicate y > 0
    }


def test_loop_variables_hand_gradient_on_across_iterations():
    """x enters as variable a; only the next iteration moves a into b, which is y."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        body = lambda i, a, b: (i + 1, a * 2.0, b + a)  # noqa: E731
        cut = lambda i, a, b: (i + 1, a * 2.0, b + tf.stop_gradient(a))  # noqa: E731
        _, _, y = tf.while_loop(lambda i, a, b: i < 3, body, [0, x, 0.0])
        _, _, y_cut = tf.while_loop(lambda i, a, b: i < 3, cut, [0, x, 0.0])
        e, e_cut = tf.why_none([y], [x]), tf.why_none([y_cut], [x])
        with tf.Session() as sess:
            g = sess.run(tf.gradients(y, x) + tf.gradients(y_cut, x), {x: 1.0})
    assert g == [7.0, 0.0]  # 1 + 2 + 4; and the cut gives zeros
    assert e == [None]
    assert e_cut[0].reason == "stop_gradient" and e_cut[0].result == "zeros"


# --------------------------------------------------------------------------------------
# render


@pytest.fixture
def loop_graph():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")

        def body(i, y):
            return i + 1, tf.cond(y > 0.0, lambda: tf.stop_gradient(y) * y, lambda: y) + 1.0

        _, y = tf.while_loop(lambda i, y: i < 3, body, [0, x], name="loop")
        grads = tf.gradients(y, [x])
    return y, x, grads


def test_dot_draws_cond_and_body_as_clusters_of_the_while_node(loop_graph):
    y, x, grads = loop_graph
    dot = tf.render.to_dot(y, [x], grads)
    for label in ("cond of loop", "body of loop", "true_fn of cond", "false_fn of cond"):
        assert f'label="{label}"' in dot
    assert "body of gradients/loop_grad/while_grad" in dot  # the gradient loop's body too
    body_line = next(line for line in dot.splitlines() if 'label="body of loop"' in line)
    indent = len(body_line) - len(body_line.lstrip())
    nested = next(line for line in dot.splitlines() if 'label="true_fn of cond"' in line)
    assert len(nested) - len(nested.lstrip()) > indent  # the branch cluster is inside the body
    assert "loop variable 1" in dot and "next loop variable 1" in dot
    stop = next(line for line in dot.splitlines() if 'label="StopGradient\\nStopGradient' in line)
    assert "shape=octagon" in stop
    assert "lhead=cluster_" in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_dot_with_clusters_is_valid_graphviz(loop_graph):
    y, x, grads = loop_graph
    done = subprocess.run(
        ["dot", "-Tsvg"], input=tf.render.to_dot(y, [x], grads).encode(), capture_output=True
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"body of loop" in done.stdout


def test_text_lists_the_body_under_the_while_line(loop_graph):
    y, x, _ = loop_graph
    text = tf.render.to_text(y, [x])
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("loop "))
    assert lines[at + 1].strip().startswith("cond of loop (")
    assert any(line.strip() == "StopGradient = StopGradient(capture:0)  [stop]" for line in lines)
    assert "[capture of loop_var_2:0]" in text


# --------------------------------------------------------------------------------------
# enable_check_numerics inside loops


@pytest.fixture
def checking():
    tf.enable_check_numerics()
    try:
        yield
    finally:
        tf.disable_check_numerics()


def _first_nan_iteration(x: float) -> int:
    """x <- log(x) in float32 until it is NaN: the iteration (from 0) that makes it."""
    v = np.float32(x)
    for i in range(100):
        with np.errstate(invalid="ignore"):
            v = np.log(v)
        if np.isnan(v):
            return i
    raise AssertionError


def log_body(i, x):
    return i + 1, tf.math.log(x, name="lg")


def test_eager_loop_names_the_iteration(checking):
    assert _first_nan_iteration(50.0) == 4  # 3.91, 1.36, 0.31, -1.17, NaN
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.while_loop(lambda i, x: i < 100, log_body, [0, tf.constant(50.0)])
    e = info.value
    assert str(e).startswith("while_loop iteration 4: op 'Log' in cond or body produced NaN\n")
    assert e.iterations == [("while_loop", 4)]
    assert e.op.type == "Log" and str(e).endswith(": Tensor had NaN values")


def test_graph_while_names_the_iteration_and_the_body_op(checking):
    with tf.Graph().as_default():
        x0 = tf.placeholder(tf.float32, [], name="x0")
        _, x = tf.while_loop(lambda i, x: i < 100, log_body, [0, x0], name="logs")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(x, {x0: 50.0})
    e = info.value
    assert str(e).startswith("StatelessWhile 'logs' iteration 4: op 'Log' in body produced NaN\n")
    assert e.op.name == "lg" and e.op.graph is not x.graph  # the op in the body's graph
    assert "input 0 (x0:0 (loop variable 1)): -1.1696" in str(e)


def test_nested_loops_in_a_function_name_both_iterations(checking):
    @tf.function
    def f(x0):
        def outer(j, x):
            inner = lambda i, x: (i + 1, tf.sqrt(x - 1.0))  # noqa: E731
            return j + 1, tf.while_loop(lambda i, x: i < 3, inner, [0, x], name="inner")[1]

        return tf.while_loop(lambda j, x: j < 10, outer, [0, x0], name="outer")

    # 200 -> 14.1, 3.61, 1.62 (outer 0) -> 0.79, sqrt(-0.21): NaN at outer 1, inner 1
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant(200.0))
    e = info.value
    # (the inner loop's op is named in the outer body's scope, as TF2's)
    assert e.iterations == [("StatelessWhile 'outer'", 1), ("StatelessWhile 'outer/inner'", 1)]
    assert str(e).startswith(
        "StatelessWhile 'outer' iteration 1 > StatelessWhile 'outer/inner' iteration 1: "
        "op 'Sqrt' in body produced NaN\n"
    )


def test_without_the_check_a_loop_just_computes_nan():
    _, x = tf.while_loop(lambda i, x: i < 6, log_body, [0, tf.constant(50.0)])
    assert np.isnan(x.numpy())


# --------------------------------------------------------------------------------------
# variables read inside bodies and branches; branches that all cut


def test_a_variable_read_only_inside_a_loop_body_gets_its_gradient_and_no_explanation():
    with tf.Graph().as_default():
        v = tf.Variable(2.0, name="v")
        x = tf.placeholder(tf.float32, [], name="x")
        _, out = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * v * v), [0, x])
        loss = out * 1.0
        gv, gx = tf.gradients(loss, [v, x])
        why = tf.why_none(loss, [v, x])
        text = tf.render.to_text(loss, [v, x], [gv, gx])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(gv, {x: 1.5})
    # loss = x v^6, d/dv = 6 x v^5 = 6 * 1.5 * 32 = 288
    assert value == 288.0
    assert list(why) == [None, None] and str(why) == "Every x receives a gradient."
    assert "unconnected" not in text.split("legend")[0]


def test_a_variable_read_in_a_cond_inside_a_loop_is_followed():
    with tf.Graph().as_default():
        v = tf.Variable(2.0, name="v")
        x = tf.placeholder(tf.float32, [], name="x")

        def body(i, a):
            return i + 1, tf.cond(i > 0, lambda: a * v, lambda: a + 1.0)

        loss = tf.while_loop(lambda i, a: i < 3, body, [0, x])[1]
        [e] = tf.why_none(loss, [v])
    assert e is None


def test_a_cond_whose_branches_all_cut_gives_none_and_names_each_cut():
    # TF 2.21 gives None here: tf.gradients in a graph and in a function, and a tape
    # inside tf.function ([None], None, None).
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        z = tf.cond(
            p,
            lambda: tf.stop_gradient(x * 2.0, name="frozen"),
            lambda: tf.stop_gradient(x, name="held") + 1.0,
            name="choose",
        )
        assert tf.gradients(z, [x]) == [None]
        [e] = tf.why_none(z, [x])
    assert (e.result, e.reason) == ("None", "stop_gradient")
    assert {(c.op.name, c.within) for c in e.cuts} == {
        ("frozen", "the true_fn branch of StatelessIf 'choose'"),
        ("held", "the false_fn branch of StatelessIf 'choose'"),
    }
    assert str(e).startswith("The gradient w.r.t. x:0 is None: every path to ys is cut by ")

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            z = tf.cond(x > 0, lambda: tf.stop_gradient(x * 2.0), lambda: tf.stop_gradient(x))
        return tape.gradient(z, x), tf.gradients(z, x)

    assert f(tf.constant(1.5)) == (None, [None])


def test_a_cond_where_one_branch_cuts_gives_zeros_as_tf():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            z = tf.cond(x > 0, lambda: tf.stop_gradient(x * 2.0), lambda: x * 3.0)
        return tape.gradient(z, x)

    assert f(tf.constant(1.5)).numpy() == 0.0  # TF 2.21: 0.0


# --------------------------------------------------------------------------------------
# the NaN check in gradients of loops and branches


def _numerics_error(f, *args) -> str:
    tf.debugging.enable_check_numerics()
    try:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            f(*args)
    finally:
        tf.debugging.disable_check_numerics()
    return str(info.value)


def test_a_nan_in_a_loop_gradient_names_the_forward_iteration_and_the_sqrt_line():
    w = tf.Variable(1.0, name="w")

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)

            def body(i, a, s):
                return i + 1, a + 1.0, s + tf.sqrt(tf.abs(a - 5.0)) * w  # Inf' at a = 5

            line = lineno() - 2
            _, _, r = tf.while_loop(lambda i, a, s: i < 8, body, [0, x, 0.0], name="loop")
        found.append(line)
        return tape.gradient(r, [x, w])

    found: list[int] = []
    text = _numerics_error(f, tf.constant(0.0))
    head = text.splitlines()[0]
    assert head == (
        "While 'loop' iteration 5, in its gradient StatelessWhile 'loop_grad/while_grad' "
        "(backward iteration 2): op 'SqrtGrad' in body produced +Inf"
    ), head
    assert (
        f"this op computes part of the gradient of 'loop/Sqrt' (type Sqrt, created at "
        f"{__file__}:{found[0]})"
    ) in text
    # the gradient body's re-created forward value, by what it stands for
    forward = "loop/Sqrt:0 (the forward value of Sqrt 'loop/Sqrt' at iteration 5)"
    assert f"  input 0 ({forward}): 0.0\n" in text


def test_a_loop_gradient_body_names_its_inputs_by_the_forward_program():
    """Inputs of the gradient loop's ops: loop variables' stacked values, re-created
    forward values and the variable the body captured, by their names in the program."""
    from symgrad.runtime.concrete_function import ConcreteFunction
    from symgrad.tools.numerics import input_name

    w = tf.Variable(1.0, name="w")

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            body = lambda i, a, s: (i + 1, a + 1.0, s + tf.sqrt(tf.abs(a - 5.0)) * w)  # noqa: E731
            _, _, r = tf.while_loop(lambda i, a, s: i < 8, body, [0, x, 0.0], name="loop")
        return tape.gradient(r, [x, w])

    graph = tf.function(f).get_concrete_function(tf.constant(0.0)).graph
    (grad,) = [op for op in graph.get_operations() if op.name == "loop_grad/while_grad"]
    (body,) = [
        v
        for v in grad.attrs.values()
        if isinstance(v, ConcreteFunction)
        and any(o.type == "SqrtGrad" for o in v.graph.get_operations())
    ]
    ops = {op.name: op for op in body.graph.get_operations()}
    # (the forward body's names are in the loop's scope, as TF2's)
    names = {
        n: [input_name(t) for t in ops[f"loop/{n}"].inputs] for n in ("mul_grad/mul", "Abs", "Sqrt")
    }
    later = " at the iteration this one mirrors"  # the running loop writes the number in
    assert names["mul_grad/mul"][1] == f"{w.name} (captured)"  # w:0, unless taken
    assert names["Sqrt"] == [f"loop/Abs:0 (the forward value of Abs 'loop/Abs'{later})"]
    assert names["Abs"][0].endswith(f"(the forward value of Sub 'loop/sub'{later})")
    assert ops["loop/Abs"].inputs[0].op.inputs[0].op.type == "GatherV2"
    assert input_name(ops["loop/Abs"].inputs[0].op.inputs[0]) == f"x:0 (loop variable 1{later})"


def test_an_eager_loop_gradient_nan_names_the_forward_iteration_and_the_sqrt_line():
    """The same loop as above, run eagerly: the tape's SqrtGrad of iteration 5's Sqrt."""
    w = tf.Variable(1.0, name="w")

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)

            def body(i, a, s):
                return i + 1, a + 1.0, s + tf.sqrt(tf.abs(a - 5.0)) * w  # Inf' at a = 5

            found.append(lineno() - 2)
            _, _, r = tf.while_loop(lambda i, a, s: i < 8, body, [0, x, 0.0], name="loop")
        return tape.gradient(r, [x, w])

    found: list[int] = []
    tf.debugging.enable_check_numerics()
    try:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            f(tf.constant(0.0))
    finally:
        tf.debugging.disable_check_numerics()
    text = str(info.value)
    assert text.splitlines()[0] == (
        "while_loop iteration 5, in its gradient: op 'SqrtGrad' produced +Inf"
    ), text
    assert info.value.iterations == [("while_loop", 5)]
    sqrt = re.escape("'") + r"(Sqrt(_\d+)?)'"  # eager names depend on what ran before
    assert re.search(
        f"this op computes part of the gradient of {sqrt} "
        + re.escape(f"(type Sqrt, created at {__file__}:{found[0]}) in while_loop body, ")
        + "iteration 5\n",
        text,
    ), text
    assert re.search(
        r"  input 0 \(Sqrt(_\d+)?:0 \(made in while_loop body, iteration 5\)\): 0.0\n", text
    ), text
    # without the check the gradients are TF 2.21's: dx NaN (Inf * 0 in the abs), dw
    dx, dw = f(tf.constant(0.0))
    assert np.isnan(dx.numpy())
    np.testing.assert_allclose(dw.numpy(), 10.79654598236084, rtol=1e-6)


def test_a_nan_in_a_loop_names_loop_variables_and_captures_by_their_names():
    c = tf.Variable(2.0, name="c")

    @tf.function
    def f(x):
        body = lambda i, a: (i + 1, tf.math.log(a) * c)  # noqa: E731
        return tf.while_loop(lambda i, a: i < 8, body, [0, x], name="loop")[1]

    text = _numerics_error(f, tf.constant(4.0))
    assert text.splitlines()[0] == "While 'loop' iteration 5: op 'Log' in body produced NaN"
    assert "input 0 (x:0 (loop variable 1)): -" in text

    @tf.function
    def g(x):
        shifted = x - 5.0
        body = lambda i, a: (i + 1, a + tf.math.log(shifted))  # noqa: E731
        return tf.while_loop(lambda i, a: i < 8, body, [0, x], name="loop")[1]

    text = _numerics_error(g, tf.constant(4.0))
    assert "  input 0 (sub:0 (captured)): -1.0" in text and "capture:0" not in text


def test_a_nan_in_a_branch_names_the_branch():
    @tf.function
    def f(x):
        return tf.cond(x > 0.0, lambda: tf.sqrt(x - 5.0), lambda: x, name="choose")

    text = _numerics_error(f, tf.constant(4.0))
    assert text.startswith("the true_fn branch of StatelessIf 'choose' > !!! Detected")
    assert "input 0 (choose/sub:0): -1.0" in text  # (in the cond's scope, as TF2's)

    @tf.function
    def g(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            r = tf.cond(x > 0.0, lambda: tf.sqrt(x - 4.0), lambda: x, name="choose")
        return tape.gradient(r, x)

    text = _numerics_error(g, tf.constant(4.0))
    assert text.startswith(
        "the true_fn branch of StatelessIf 'choose_grad/StatelessIf' (the gradient of "
        "StatelessIf 'choose') > !!! Detected"
    ), text.splitlines()[0]
