"""Plan rewrites (constant folding, forwarding, CSE, transposes into MatMul, dead steps)
and the generated runner."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def _plan(sess: tf.Session):
    return list(sess._plans.values())[-1]  # the latest


def _types(plan) -> list[str]:
    return [step[4].type for step in plan.steps]


def test_constant_subgraphs_are_folded_at_compile_time(graph):
    x = tf.placeholder(tf.float32, [3])
    c = tf.exp(tf.constant([0.0, 1.0, 2.0])) * 2.0  # no placeholder: computed once
    with tf.Session() as sess:
        out = sess.run(x + c, {x: np.ones(3, np.float32)})
        assert _types(_plan(sess)) == ["AddV2"]
    np.testing.assert_allclose(out, 1 + 2 * np.exp([0.0, 1.0, 2.0]), rtol=1e-6)


def test_a_fold_that_makes_nan_is_left_to_run_time_so_numerics_can_name_it(graph):
    x = tf.placeholder(tf.float32, [])
    bad = tf.log(tf.constant(-1.0))
    with tf.Session() as sess:
        assert np.isnan(sess.run(x + bad, {x: 1.0}))
        assert "Log" in _types(_plan(sess))


def test_default_grad_ys_ones_and_identities_cost_nothing(graph):
    x = tf.placeholder(tf.float32, [4, 3])
    loss = tf.reduce_sum(tf.identity(x) * x)
    (g,) = tf.gradients(loss, x)
    xv = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g, {x: xv}), 2 * xv)
        types = _types(_plan(sess))
    # The seed's ones and their broadcast fold; Identity and both ones*x are forwarded:
    # what is left is the sum of the two paths, x + x.
    assert types == ["AddN"]


def test_common_subexpressions_run_once(graph):
    x = tf.placeholder(tf.float32, [2])
    a, b = tf.sin(x) * 3.0, tf.sin(x) * 3.0
    with tf.Session() as sess:
        av, bv = sess.run([a + b, b], {x: np.array([0.5, 1.0], np.float32)})
        assert _types(_plan(sess)) == ["Sin", "Mul", "AddV2"]
    np.testing.assert_allclose(av, 6 * np.sin([0.5, 1.0]), rtol=1e-6)
    np.testing.assert_allclose(bv, 3 * np.sin([0.5, 1.0]), rtol=1e-6)


def test_transposes_fold_into_matmul_attrs(graph):
    a = tf.placeholder(tf.float64, [3, 2])
    b = tf.placeholder(tf.float64, [4, 3])
    av = np.arange(6.0).reshape(3, 2)
    bv = np.arange(12.0).reshape(4, 3) - 5
    # a^T b^T, and (a^T)^T-style double flips: each Transpose read only by a MatMul goes.
    y = tf.matmul(tf.transpose(a), tf.transpose(b))
    z = tf.matmul(tf.transpose(a), tf.transpose(a), transpose_a=True)  # (a^T)^T a^T = a a^T
    with tf.Session() as sess:
        yv, zv = sess.run([y, z], {a: av, b: bv})
        assert _types(_plan(sess)) == ["MatMul", "MatMul"]
        steps = _plan(sess).steps
        assert sorted(step[1] for step in steps) == [(0, 0), (0, 1)]  # the fed a and b
    np.testing.assert_array_equal(yv, av.T @ bv.T)
    np.testing.assert_array_equal(zv, av @ av.T)


def test_a_transpose_that_is_also_fetched_or_read_elsewhere_stays(graph):
    a = tf.placeholder(tf.float32, [2, 3])
    at = tf.transpose(a)
    y = tf.matmul(at, a)
    av = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session() as sess:
        yv, atv = sess.run([y, at], {a: av})
        assert sorted(_types(_plan(sess))) == ["MatMul", "Transpose"]
        yv2 = sess.run(y + tf.reduce_sum(at), {a: av})
        assert "Transpose" in _types(_plan(sess))
    np.testing.assert_array_equal(yv, av.T @ av)
    np.testing.assert_array_equal(atv, av.T)
    np.testing.assert_allclose(yv2, av.T @ av + av.sum())


def test_stateful_steps_are_never_merged_or_dropped(graph):
    v = tf.Variable(1.0)
    step = tf.group(v.assign_add(1.0), v.assign_add(1.0))
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(step)
        # The NoOp is dropped, and so are the reads after each update that group() takes
        # (TF's graph elements of the assignments): nothing uses their values.
        assert _types(_plan(sess)) == ["AssignVariableOp"] * 2
        assert sess.run(v) == 3.0


def test_fetched_values_are_kept_even_when_forwardable(graph):
    x = tf.placeholder(tf.float32, [2])
    y = tf.identity(x)
    with tf.Session() as sess:
        assert sess.run(y, {x: [1.0, 2.0]}).tolist() == [1.0, 2.0]
        assert _types(_plan(sess)) == ["Identity"]


def test_bias_gradient_is_one_sum_even_with_an_unknown_batch(graph):
    x = tf.placeholder(tf.float32, [None, 3])
    b = tf.Variable(np.zeros(3, np.float32))
    (gb,) = tf.gradients(tf.reduce_sum(x + b), [b])
    grad_ops = [op.type for op in gb.graph.get_operations() if op.name.startswith("gradients/")]
    assert "BroadcastGradientArgs" not in grad_ops and "Shape" not in grad_ops
    with tf.Session() as sess:
        sess.run(b.initializer)
        np.testing.assert_array_equal(sess.run(gb, {x: np.ones((5, 3))}), [5.0, 5.0, 5.0])


def test_ambiguous_broadcast_falls_back_to_run_time_axes(graph):
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None, 3])  # either batch may be 1: only data decides
    gx, gy = tf.gradients(x * y, [x, y])
    with tf.Session() as sess:
        a, b = sess.run([gx, gy], {x: np.ones((1, 3)), y: np.full((4, 3), 2.0)})
    np.testing.assert_array_equal(a, [[8.0, 8.0, 8.0]])  # summed over the broadcast batch
    np.testing.assert_array_equal(b, np.ones((4, 3)))


def test_generated_plan_errors_name_the_failing_op(graph):
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None])
    z = tf.sin(x) + tf.multiply(x, y, name="pairwise")
    with (
        tf.Session() as sess,
        pytest.raises(tf.errors.InvalidArgumentError, match="Mul op 'pairwise'.*test_rewrite.py"),
    ):
        sess.run(z, {x: np.ones(2), y: np.ones(3)})


def test_large_plans_run_through_the_loop_with_the_same_values(graph, monkeypatch):
    from symgrad.runtime import plan

    x = tf.placeholder(tf.float64, [2])
    y = x
    for _ in range(30):
        y = tf.sin(y) + 0.5
    feeds = {x: np.array([0.1, 0.2])}
    with tf.Session() as sess:
        fast = sess.run(y, feeds)
    monkeypatch.setattr(plan, "GENERATE_LIMIT", 10)
    with tf.Session() as sess:
        slow = sess.run(y, feeds)
        assert _plan(sess)._generated is None
    np.testing.assert_array_equal(fast, slow)


def test_a_constant_one_that_broadcasts_is_not_forwarded(graph):
    # ones([2, 3, 2]) * g widens g of shape [2, 3, 1]: it must stay (a regression).
    x = tf.placeholder(tf.float64, [2, 3, 1])
    axis = tf.placeholder(tf.int32, [])
    y = tf.reduce_sum(tf.ones([2, 3, 2], tf.float64) * x, axis=tf.stack([axis]))
    (g,) = tf.gradients(y, x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(
            sess.run(g, {x: np.ones((2, 3, 1)), axis: 2}), np.full((2, 3, 1), 2.0)
        )


def test_variable_updates_are_in_place_only_when_nobody_sees_the_old_value(graph):
    v = tf.Variable(np.ones(3, np.float32))
    step = v.assign_sub(tf.constant(np.full(3, 0.25, np.float32)))
    with tf.Session() as sess:
        sess.run(v.initializer)
        buffer = id(v._value)  # (holding the array itself would forbid the in-place update)
        sess.run(step.op)
        # A run holds the value its first update of a variable replaces, to put it back
        # if the run fails (ops/state/variables.py, atomic): so that update is a new array.
        # An update outside a run is in place (test_atomic_runs.py checks it eagerly).
        assert id(v._value) != buffer
        held = sess.run(v)  # the caller now holds the value ...
        sess.run(step.op)
        np.testing.assert_array_equal(held, [0.75, 0.75, 0.75])  # ... so it is not touched
        np.testing.assert_array_equal(sess.run(v), [0.5, 0.5, 0.5])


def test_eager_reads_keep_their_value_across_updates():
    v = tf.Variable([1.0, 2.0])
    before = v.value()
    v.assign_sub([1.0, 1.0])
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0])


N = 1 << 15  # elements: large enough for in-place steps (inplace.MIN_ELEMENTS)


def test_elementwise_steps_overwrite_inputs_that_die_there_and_nothing_else(graph):
    x = tf.placeholder(tf.float32, [N])
    b = tf.constant(np.linspace(1, 3, N, dtype=np.float32))
    h = tf.nn.relu(tf.sin(x) * 2.0 + b)  # the sum dies in relu, the product in the sum
    y = tf.exp(-h) + h
    xv = np.linspace(-2, 2, N, dtype=np.float32)
    x_before = xv.copy()
    with tf.Session() as sess:
        out = sess.run(y, {x: xv})
        plan = _plan(sess)
    want = np.maximum(np.sin(xv) * 2 + b.op.get_attr("value"), 0)
    np.testing.assert_allclose(out, np.exp(-want) + want, rtol=1e-6)
    np.testing.assert_array_equal(xv, x_before)  # the feed is untouched
    np.testing.assert_array_equal(
        b.op.get_attr("value"), np.linspace(1, 3, N, dtype=np.float32)
    )  # the constant too
    inplace = [s[4].type for s in plan.steps if getattr(s[0], "__qualname__", "").startswith("_")]
    assert {"AddV2", "Relu", "Mul"} <= set(inplace)


def test_small_static_results_are_new_arrays_without_checks(graph):
    x = tf.placeholder(tf.float32, [4])
    y = tf.sin(x) * 2.0 + 1.0
    with tf.Session() as sess:
        np.testing.assert_allclose(
            sess.run(y, {x: np.ones(4)}), np.sin(np.ones(4)) * 2 + 1, rtol=1e-6
        )
        plan = _plan(sess)
    assert not [s for s in plan.steps if getattr(s[0], "__qualname__", "").startswith("_")]


def test_in_place_kernels_never_write_over_a_value_someone_else_holds():
    from symgrad.runtime.inplace import inplace_kernel

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])  # unknown size: the fit is checked per run
        op = (x + 1.0).op
        big = tf.placeholder(tf.float32, [N])
        first, second = (1.0 + big).op, (big - tf.ones([N])).op
    kernel = inplace_kernel(op, np.add, 0)
    assert kernel is not None
    # One reference is the plan's own local (here: `mine`): that value may be overwritten.
    mine = np.zeros(3, np.float32)
    assert kernel(mine, np.float32(1.0)) is mine and mine.tolist() == [1.0, 1.0, 1.0]
    # A second holder (a user's variable, another slot, a feed list) forbids it.
    held = np.zeros(3, np.float32)
    also = held
    out = kernel(held, np.float32(1.0))
    assert out is not held and also.tolist() == [0.0, 0.0, 0.0]
    view = np.zeros(6, np.float32)[:3]  # views and broadcasting results are never written
    assert kernel(view, np.float32(1.0)) is not view
    small = np.zeros(1, np.float32)
    assert kernel(small, np.ones(3, np.float32)).shape == (3,)  # would not fit: new array
    # Either input of a same-shape elementwise op may be the one written over.
    into_second = inplace_kernel(first, np.add, 1)
    b = np.zeros(N, np.float32)
    assert into_second is not None and into_second(np.float32(1.0), b) is b and b[0] == 1.0
    sub = inplace_kernel(second, np.subtract, 1)
    a, b = np.full(N, 5.0, np.float32), np.full(N, 2.0, np.float32)
    assert sub is not None and sub(a, b) is b and b[0] == 3.0 and a[0] == 5.0
