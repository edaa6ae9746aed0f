"""cond, case and switch_case in every mode, with TensorFlow 2.21's numbers.

Expected values come from running the same programs on TF 2.21 (tf.cond, tf.gradients,
GradientTape eager and inside tf.function, Graph + Session with a placeholder predicate).
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.gradient_registry import gradient_registry


def _np(v):
    return None if v is None else np.asarray(v)


def _close(got, want):
    if want is None:
        assert got is None
        return
    if isinstance(want, dict):
        assert set(got) == set(want)
        for k in want:
            _close(got[k], want[k])
        return
    if isinstance(want, list | tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _close(g, w)
        return
    np.testing.assert_allclose(_np(got), want, rtol=1e-5, atol=1e-6)


X, Y, W = 1.5, -0.7, 2.5


def test_eager_runs_the_taken_branch_only():
    x, y = tf.constant(X), tf.constant(Y)
    ran = []
    out = tf.cond(x > y, lambda: ran.append("t") or x * y, lambda: ran.append("f") or x - y)
    _close(out, -1.05)
    assert ran == ["t"]
    _close(tf.cond(x < y, lambda: x * y, lambda: x - y), 2.2)


def test_eager_tape_untaken_branch_is_none():
    x, y, w = tf.constant(X), tf.constant(Y), tf.constant(W)
    with tf.GradientTape() as t:
        t.watch([x, y, w])
        r = tf.cond(x > 0, lambda: tf.sin(x) * y * w, lambda: x * x + y)
    _close(t.gradient(r, [x, y, w]), [-0.12379010, 2.4937375, -0.69824648])
    with tf.GradientTape() as t:
        t.watch([x, y])
        r = tf.cond(x > 0, lambda: x * x, lambda: y * 3.0)
    _close(t.gradient(r, [x, y]), [3.0, None])  # TF: None, the branch never ran


def test_function_records_one_stateless_if():
    w = tf.constant(W)

    @tf.function
    def f(p, x, y):
        return tf.cond(p, lambda: tf.sin(x) * y * w, lambda: x * x + y)

    x, y = tf.constant(X), tf.constant(Y)
    _close([f(tf.constant(True), x, y), f(tf.constant(False), x, y)], [-1.7456162, 1.55])
    types = [
        o.type for o in f.get_concrete_function(tf.constant(True), x, y).graph.get_operations()
    ]
    assert types.count("StatelessIf") == 1 and "Sin" not in types


def test_branch_reading_a_variable_records_if():
    v = tf.Variable(2.0)

    @tf.function
    def f(p, x):
        return tf.cond(p, lambda: x * v, lambda: x + 1.0)

    x = tf.constant(3.0)
    types = [o.type for o in f.get_concrete_function(tf.constant(True), x).graph.get_operations()]
    assert "If" in types and "StatelessIf" not in types
    _close([f(tf.constant(True), x), f(tf.constant(False), x)], [6.0, 4.0])
    v.assign(5.0)
    _close(f(tf.constant(True), x), 15.0)


def test_function_tape_untaken_branch_is_zero():
    @tf.function
    def f(p, x, y):
        with tf.GradientTape() as t:
            t.watch([x, y])
            w = x * 0.0 + W  # captured by the branch from the function's graph
            r = tf.cond(p, lambda: tf.sin(x) * y * w, lambda: x * x + y)
        return t.gradient(r, [x, y])

    x, y = tf.constant(X), tf.constant(Y)
    _close(f(tf.constant(True), x, y), [-0.12379010, 2.4937375])
    _close(f(tf.constant(False), x, y), [3.0, 1.0])

    @tf.function
    def g(x, y):
        with tf.GradientTape() as t:
            t.watch([x, y])
            r = tf.cond(x > 0, lambda: x * x, lambda: y * 3.0)
        return t.gradient(r, [x, y]), tf.gradients(r, [x, y])

    _close(g(tf.constant(3.0), tf.constant(4.0)), [[6.0, 0.0], [6.0, 0.0]])  # TF: zeros


# p, q -> [r, grads of r wrt a, b, c, s, ds/da, [d2s/da2, d2s/dadb], nested n, its grads, dict]
GRAPH = {
    (True, True): [
        -1.7456162,
        [-0.1237901, 2.4937375, -0.6982465],
        -2.3625,
        -4.725,
        [-6.3, 6.75],
        -1.575,
        [-2.1, 2.25, 0.0],
        {"u": 3.0, "v": (-0.7, -1.05)},
    ],
    (True, False): [
        -1.7456162,
        [-0.1237901, 2.4937375, -0.6982465],
        -2.3625,
        -4.725,
        [-6.3, 6.75],
        -0.25,
        [1.0, 2.5, -0.7],
        {"u": 3.0, "v": (-0.7, -1.05)},
    ],
    (False, True): [
        1.55,
        [3.0, 1.0, 0.0],
        0.48877254,
        0.034661226,
        [-0.48877254, -0.09903207],
        9.375,
        [6.25, 0.0, 7.5],
        {"u": 2.5, "v": (0.49, 1.5)},
    ],
}


def test_graph_session_placeholder_predicate():
    with tf.Graph().as_default():
        p, q = tf.placeholder(tf.bool, []), tf.placeholder(tf.bool, [])
        a, b, c = tf.constant(X), tf.constant(Y), tf.constant(W)
        r = tf.cond(p, lambda: tf.sin(a) * b * c, lambda: a * a + b)
        g = tf.gradients(r, [a, b, c])
        s = tf.cond(p, lambda: a**3 * b, lambda: tf.sin(a) * b * b)
        ga = tf.gradients(s, a)[0]
        h = tf.gradients(ga, [a, b])  # second order: the gradient If differentiated
        n = tf.cond(p, lambda: tf.cond(q, lambda: a * a * b, lambda: a + b * c), lambda: c * c * a)
        gn = tf.gradients(n, [a, b, c])
        d = tf.cond(p, lambda: {"u": a * 2.0, "v": (b, a * b)}, lambda: {"u": c, "v": (b * b, a)})
        assert r.op.type == "Identity" and r.op.inputs[0].op.type == "StatelessIf"
        assert isinstance(d["v"], tuple)
        with tf.Session() as sess:
            for (pv, qv), want in GRAPH.items():
                _close(sess.run([r, g, s, ga, h, n, gn, d], {p: pv, q: qv}), want)


def test_if_gradient_is_registered():
    for t in ("If", "StatelessIf", "Case", "StatelessCase"):
        assert gradient_registry.lookup(t) is not None


# index -> (value, [d/dx, d/dy]); 7 and -1 run the last branch, as TF's Case does
SWITCH = {
    0: (-1.05, [-0.7, 1.5]),
    1: (3.7816889, [4.481689, 1.0]),
    2: (1.2249999, [0.0, -3.5]),
    7: (1.2249999, [0.0, -3.5]),
    -1: (1.2249999, [0.0, -3.5]),
}


def test_switch_case():
    w = tf.constant(W)

    @tf.function
    def f(i, x, y):
        with tf.GradientTape() as t:
            t.watch([x, y])
            r = tf.switch_case(i, [lambda: x * y, lambda: tf.exp(x) + y, lambda: y * y * w])
        return r, t.gradient(r, [x, y])

    x, y = tf.constant(X), tf.constant(Y)
    for i, want in SWITCH.items():
        _close(f(tf.constant(i), x, y), want)
    types = [o.type for o in f.get_concrete_function(tf.constant(0), x, y).graph.get_operations()]
    assert "StatelessCase" in types
    _close(
        [
            tf.switch_case(tf.constant(1), [lambda: x, lambda: y]),
            tf.switch_case(tf.constant(5), {1: lambda: y, 0: lambda: x}),
        ],
        [Y, Y],
    )
    with pytest.raises(TypeError, match="'branch_index' must be a Tensor"):
        tf.switch_case(5, [lambda: x])
    with pytest.raises(ValueError, match=r"contiguous range of \[0 to 2\) but found \{0,3\}"):
        tf.switch_case(tf.constant(0), {0: lambda: x, 3: lambda: y})


CASE = {
    (3.0, 1.0): (3.0, [1.0, 3.0]),
    (1.5, -0.7): (-1.575, [-2.1, 2.25]),
    (1.5, 0.7): (2.2, [1.0, 1.0]),
    (3.0, -1.0): (-3.0, [-1.0, 3.0]),
}


def test_case():
    @tf.function
    def f(x, y):
        with tf.GradientTape() as t:
            t.watch([x, y])
            r = tf.case(
                [(x > 2.0, lambda: x * y), (y < 0.0, lambda: x * x * y)], default=lambda: x + y
            )
        return r, t.gradient(r, [x, y])

    for (xv, yv), want in CASE.items():
        _close(f(tf.constant(xv), tf.constant(yv)), want)
    x, y = tf.constant(X), tf.constant(Y)
    _close(tf.case([(x > 2.0, lambda: x * y)], default=lambda: x + y), 0.8)


def test_branch_structure_and_dtype_must_agree():
    x = tf.constant(X)
    msg = (
        "true_fn and false_fn arguments to tf.cond must have the same number, type, "
        "and overall structure of return values."
    )
    bad = [
        (lambda: x, lambda: tf.constant(1, tf.int32), "have different types"),
        (lambda: {"a": x}, lambda: {"b": x}, "don't have the same nested structure"),
        (lambda: [x, x], lambda: (x, x), "don't have the same nested structure"),
    ]
    for fa, fb, detail in bad:
        with pytest.raises(TypeError) as e:
            tf.function(lambda fa=fa, fb=fb: tf.cond(x > 0, fa, fb))()
        assert msg in str(e.value) and detail in str(e.value)
        tf.cond(tf.constant(True), fa, fb)  # eager runs one branch: no check, as TF
    with pytest.raises(
        TypeError,
        match=r"branches\[0\] and branches\[1\] arguments to "
        "tf.switch_case",
    ):
        tf.function(lambda i: tf.switch_case(i, [lambda: x, lambda: tf.constant(1)]))(
            tf.constant(0)
        )


@pytest.mark.parametrize("taken", [True, False])
def test_first_and_second_order_against_finite_differences(taken):
    from symgrad.control_flow.cond import _cond_row, _switch_row

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal(4)
    tf.test.check_vjp(
        lambda a, b: _cond_row(tf.constant(taken), a, b),
        [x, y],
        order=2,
        rng=1,
        name=f"cond-{taken}",
    )
    tf.test.check_vjp(
        lambda a, b: _switch_row(tf.constant(int(taken)), a, b),
        [x, y],
        order=2,
        rng=1,
        name=f"switch_case-{taken}",
    )


def test_a_branch_reads_the_outer_graphs_collections():
    """TF's cond_v2 test testCollectionIntValueAccessInCond: a FuncGraph starts with a
    copy of its outer graph's collections."""
    with tf.Graph().as_default():
        tf.compat.v1.add_to_collection("x", 2)
        tf.compat.v1.add_to_collection("y", tf.constant(5))

        def fn():
            x = tf.constant(tf.compat.v1.get_collection("x")[0])
            return x + tf.compat.v1.get_collection("y")[0]

        out = tf.cond(tf.constant(True), fn, fn)
        with tf.compat.v1.Session() as sess:
            assert sess.run(out) == 7


def test_a_branch_or_loop_body_writes_the_outer_graphs_collections():
    """TF's cond_v2 and while_v2 share the outer graph's collections with a branch or loop
    body (testCollectionIntValueWriteInCond); a function body writes to its own copy.
    TF 2.21 prints ``[7] 1 [1] []``."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 2])
        mm = v1.get_variable("mm", [2], initializer=v1.zeros_initializer())

        def taken():
            v1.add_to_collection("z", 7)
            m = tf.reduce_mean(x, 0)
            v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, mm.assign(0.5 * mm + 0.5 * m))
            return x - m

        tf.cond(v1.placeholder_with_default(True, []), taken, lambda: x - mm)

        def body(i):
            v1.add_to_collection("loop", 1)
            return i + 1

        tf.while_loop(lambda i: i < 2, body, [0])

        @tf.function
        def f():
            v1.add_to_collection("fn", 3)
            return tf.constant(1.0)

        f()
        assert v1.get_collection("z") == [7]
        assert len(v1.get_collection(v1.GraphKeys.UPDATE_OPS)) == 1
        assert (v1.get_collection("loop"), v1.get_collection("fn")) == ([1], [])


def test_a_branch_returning_indexed_slices_and_none():
    """TF's cond_v2 test testReturnsIndexedSlicesAndNones: the If's outputs are put back
    into the branches' structure, IndexedSlices included."""

    @tf.function
    def f():
        def branch(v):
            return lambda: (tf.IndexedSlices(tf.constant([v]), tf.constant([0]), [1]), None)

        result = tf.cond(tf.constant(True), branch(1.0), branch(2.0))
        assert isinstance(result[0], tf.IndexedSlices) and result[1] is None
        return tf.convert_to_tensor(result[0])

    np.testing.assert_array_equal(f().numpy(), [1.0])


def test_branch_graphs_are_control_flow_graphs_and_the_op_names_them():
    """TF's FuncGraph.is_control_flow_graph (True in a branch, False in a function body)
    and cond_v2.get_func_graphs(op) -> (true graph, false graph)."""
    from symgrad.python.ops import cond_v2

    seen = []

    @tf.function
    def f(c):
        def branch():
            y = tf.constant(1.0) + 1.0
            seen.append(y.graph.is_control_flow_graph)
            return y

        return tf.cond(c, branch, branch)

    cf = f.get_concrete_function(tf.constant(True))
    assert seen == [True, True] and not cf.graph.is_control_flow_graph
    op = next(o for o in cf.graph.get_operations() if o.type in ("If", "StatelessIf"))
    true_graph, false_graph = cond_v2.get_func_graphs(op)
    assert true_graph.name.endswith("true_fn") and false_graph.name.endswith("false_fn")


def test_argument_checks_have_tfs_types_and_texts():
    """tf.cond / tf.case / tf.switch_case check their arguments as TF 2.21 does (texts
    recorded from TF, in a Graph)."""
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float64, [None, 3])
        t = tf.constant(True, name="t")
        with pytest.raises(TypeError, match="^'true_fn' must be callable.$"):
            tf.cond(t, x, lambda: x)
        with pytest.raises(TypeError, match="^'false_fn' must be callable.$"):
            tf.cond(t, lambda: x, x)
        with pytest.raises(TypeError, match="^pred must be Tensor of type bool: one:0$"):
            tf.case([(tf.constant(1, name="one"), lambda: x)])
        with pytest.raises(TypeError, match="^fn for pred t:0 must be callable.$"):
            tf.case([(t, x)])
        with pytest.raises(TypeError, match="^pred must be a Tensor, got: True$"):
            tf.case([(True, lambda: x)])
        with pytest.raises(TypeError, match="Each entry in 'pred_fn_pairs' must be a 2-tuple"):
            tf.case([[t, lambda: x]])
        with pytest.raises(TypeError, match="'pred_fn_pairs' must be a list, tuple, or dict"):
            tf.case(t)
        with pytest.raises(ValueError, match="'pred_fn_pairs'"):
            tf.case([], default=lambda: x)
        with pytest.raises(
            TypeError, match="^'branch_index' must be an integer Tensor, got <dtype: 'float32'>$"
        ):
            tf.switch_case(tf.constant(1.0), [lambda: x])
        with pytest.raises(ValueError, match="^Must provide at least one item in 'branch_fns'$"):
            tf.switch_case(tf.constant(1), [])
        with pytest.raises(TypeError, match="^fn for key 0 must be callable.$"):
            tf.switch_case(tf.constant(1), {0: x})


def test_case_with_a_dict_tries_predicates_in_the_order_of_their_names():
    """TF sorts an unordered dict of pairs by the predicates' names in a graph, so with
    both predicates true the one named first wins (TF: 20.0), whatever the dict order."""
    with tf.Graph().as_default():
        x = tf.constant(10.0)
        b, a = tf.constant(True, name="b"), tf.constant(True, name="a")
        r = tf.case({b: lambda: x * 3.0, a: lambda: x * 2.0})
        with tf.compat.v1.Session() as s:
            assert s.run(r) == 20.0
    with pytest.raises(ValueError, match="Unordered dictionaries are not supported"):
        tf.case({tf.constant(True): lambda: 1.0})


def test_compat_v1_cond_takes_strict_and_the_old_fn_names():
    """tf.compat.v1.cond (TF 2.21): eagerly a one-element list comes back unpacked unless
    strict=True; a graph's keeps its structure; fn1/fn2 stand for true_fn/false_fn."""
    v1 = tf.compat.v1
    x = tf.constant(1.0)
    assert isinstance(v1.cond(x > 0, lambda: [x], lambda: [x]), tf.Tensor)
    assert isinstance(v1.cond(x > 0, lambda: [x], lambda: [x], strict=True), list)
    with tf.Graph().as_default():
        p = v1.placeholder(tf.bool, [])
        y = v1.placeholder(tf.float64, [None])
        r = v1.cond(p, lambda: [y * 2.0], lambda: [y], strict=False, name="cc")
        assert isinstance(r, list)
        r2 = v1.cond(p, fn1=lambda: y * 3.0, fn2=lambda: y)
        with v1.Session() as s:
            assert s.run([r[0], r2], {p: True, y: [1.0]}) == [[2.0], [3.0]]
        with pytest.raises(TypeError, match=r"^cond\(\): 'false_fn' argument required$"):
            v1.cond(p, lambda: y)
        with pytest.raises(
            TypeError, match=r"^cond\(\): 'true_fn' and 'fn1' may not be set simultaneously.$"
        ):
            v1.cond(p, lambda: y, lambda: y, fn1=lambda: y)


def test_control_flow_ops_and_outputs_have_tfs_names():
    """TF's cond_v2/while_v2 name the op by a name scope its outputs' Identities are in
    (TF 2.21's names below); a TF1 graph's branches start at the root."""
    v1 = tf.compat.v1
    with tf.Graph().as_default() as g:
        p = v1.placeholder(tf.bool, [])
        x = tf.constant(2.0)
        with tf.name_scope("foo"):
            y = tf.cond(p, lambda: x * 2.0, lambda: x)
            y2 = tf.cond(p, lambda: (x, x + 1), lambda: (x, x))
            (z,) = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
            c = tf.switch_case(tf.constant(1), [lambda: x, lambda: x * 3])
            r = tf.case([(p, lambda: x * 2), (x > 0, lambda: x * 3)], default=lambda: x)

            def branch():
                with tf.name_scope("then"):
                    return tf.identity(x, name="idt")

            inner = tf.cond(p, branch, lambda: x)
        names = [y.name, y.op.inputs[0].op.name, *(t.name for t in y2), z.name, c.name, r.name]
        assert names == [
            "foo/cond/Identity:0",
            "foo/cond",
            "foo/cond_1/Identity:0",
            "foo/cond_1/Identity_1:0",
            "foo/while/Identity_2:0",
            "foo/switch_case/indexed_case/Identity:0",
            "foo/case/cond/Identity:0",
        ]
        ops = {o.name for o in g.get_operations()}
        assert {"foo/while", "foo/while/loop_counter", "foo/while/maximum_iterations"} <= ops
        assert tf.gradients(y, x)[0].name == "gradients/foo/cond_grad/Identity:0"
        body = inner.op.inputs[0].op.get_attr("branches")[0].graph
        assert "then/idt" in {o.name for o in body.get_operations()}


def test_a_tf2_branch_or_loop_body_continues_the_ops_name_scope():
    """In a function (TF2), a branch's or loop body's names start in its op's scope:
    TF 2.21 gives the scopes and name below."""
    seen = []

    @tf.function
    def f(x):
        with tf.name_scope("foo"):

            def then():
                with tf.name_scope("then"):
                    seen.append(tf.get_current_name_scope())
                    seen.append(tf.identity(x, name="idt").name)
                return x + 1

            def otherwise():
                seen.append(tf.get_current_name_scope())
                return x - 1

            y = tf.cond(x > 0, then, otherwise)

            def body(i):
                seen.append(tf.get_current_name_scope())
                return i + 1

            tf.while_loop(lambda i: i < 3, body, [0])
            if x > 2:  # autograph's cond
                seen.append(tf.get_current_name_scope())
                y = y * 2
        return y

    f(tf.constant(1.0))
    assert seen == ["foo/cond/then", "foo/cond/then/idt:0", "foo/cond", "foo/while", "foo/cond_1"]
