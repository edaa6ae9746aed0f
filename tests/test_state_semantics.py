"""State as TensorFlow 2.21 has it: a read is a snapshot; TF1 runs read before they write;
``function`` runs stateful ops in program order; ``assign*`` returns the variable read
where it is used; ``disable_eager_execution`` makes the top level a graph.

Every literal below is what TensorFlow 2.21 printed for the same program (float32 values
through + - * only are compared exactly; through sqrt/division within 1e-6).
"""

import numpy as np
import pytest

import symgrad as tf
from symgrad.ops.state.unread_variable import UnreadVariable

v1 = tf.compat.v1


def _coupled(w, b):
    """A loss where two variables meet: a product and a slice."""
    return tf.reduce_sum((w - [3.0, 1.0]) ** 2) + 2.0 * b * b + w[0] * b


# TF 2.21: [w0, w1, b] after three steps of lr 0.1 on _coupled from w=[1, -2], b=0.5.
V1_OPTIMIZERS = {
    "GradientDescentOptimizer": (
        {},
        [1.9295001029968262, -0.5359999537467957, -0.17500002682209015],
    ),
    "MomentumOptimizer": (
        {"momentum": 0.9},
        [2.7709999084472656, 0.8140000104904175, -0.8049999475479126],
    ),
    "AdamOptimizer": ({}, [1.2996796369552612, -1.7003825902938843, 0.20158636569976807]),
    "AdagradOptimizer": ({}, [1.2253923416137695, -1.7745720148086548, 0.2812361717224121]),
    "RMSPropOptimizer": ({}, [1.5883171558380127, -1.3427150249481201, -0.007572144269943237]),
}
KERAS_OPTIMIZERS = {
    "SGD": [1.9295001029968262, -0.5359999537467957, -0.17500002682209015],
    "Adam": [1.2996783256530762, -1.7003835439682007, 0.20158755779266357],
    "AdamW": [1.2983626127243042, -1.6981079578399658, 0.20111660659313202],
    "RMSprop": [1.7113978862762451, -1.2917656898498535, -0.1332532912492752],
    "Adagrad": [1.2253923416137695, -1.7745720148086548, 0.2812361717224121],
}


@pytest.mark.parametrize("name", V1_OPTIMIZERS)
def test_compat_v1_optimizers_read_every_variable_before_any_update(name):
    kwargs, want = V1_OPTIMIZERS[name]
    with tf.Graph().as_default():
        w, b = tf.Variable([1.0, -2.0]), tf.Variable(0.5)
        train = getattr(v1.train, name)(0.1, **kwargs).minimize(_coupled(w, b))
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())
            for _ in range(3):
                s.run(train)
            got = [*s.run(w), s.run(b)]
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("in_function", [False, True])
@pytest.mark.parametrize("name", KERAS_OPTIMIZERS)
def test_keras_optimizers_on_coupled_variables(name, in_function):
    w, b = tf.Variable([1.0, -2.0]), tf.Variable(0.5)
    opt = getattr(tf.keras.optimizers, name)(learning_rate=0.1)

    def step():
        with tf.GradientTape() as tape:
            loss = _coupled(w, b)
        opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b], strict=True))

    run = tf.function(step) if in_function else step
    for _ in range(3):
        run()
    np.testing.assert_allclose([*w.numpy(), b.numpy()], KERAS_OPTIMIZERS[name], rtol=1e-6)


def test_a_tf1_read_runs_before_the_write_no_edge_orders_it_after():
    """The plan puts every op that no write depends on before the writes (TF1's rule):
    b's gradient reads w through a slice that w's own gradient does not need."""
    with tf.Graph().as_default():
        w, b = tf.Variable([1.0, -2.0]), tf.Variable(0.5)
        loss = _coupled(w, b)
        gw, gb = tf.gradients(loss, [w, b])
        train = tf.group(w.assign_sub(0.1 * gw), b.assign_sub(0.1 * gb))
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())
            s.run(train)
            plan = list(s._plans.values())[-1]
            types = [step[4].type for step in plan.steps]
            first_write = types.index("AssignVariableOp")
            assert "ReadVariableOp" not in types[first_write:]
            # gb = 4 b + w[0] = 3 in float32; float32 throughout (NumPy 1.x would widen a
            # float32 scalar plus a Python float to float64).
            assert s.run(b) == np.float32(0.5) - np.float32(0.1) * np.float32(3.0)


def test_a_fetched_variable_is_a_copy_a_write_into_it_does_not_change_the_variable():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        with v1.Session() as s:
            s.run(v.initializer)
            a = s.run(v)
            a[0] = 100.0  # writable, as TF's
            b = s.run(v.read_value())
            b[1] = 7.0
            assert s.run(v).tolist() == [1.0, 2.0]  # TF 2.21


# --------------------------------------------------------------------------------------
# What assign* returns: the variable, read where it is used


def test_an_assignment_result_is_read_where_used_in_a_function():
    v = tf.Variable([1.0, -0.4])

    @tf.function
    def f():
        x = v.assign_sub([0.56, 0.54])
        v.assign_sub([0.94, 0.4])
        return x

    np.testing.assert_array_equal(f(), np.float32([-0.5, -1.34]))  # TF 2.21


def test_an_assignment_result_is_read_where_used_eagerly():
    v = tf.Variable([1.0, -0.4])
    x = v.assign_sub([0.56, 0.54])
    r = v.read_value()
    v.assign_sub([0.94, 0.4])
    assert isinstance(x, UnreadVariable)
    np.testing.assert_array_equal(np.asarray(x), np.float32([-0.5, -1.34]))  # TF 2.21
    # A read: a snapshot (TF 2.21 [0.44, -0.94000006])
    np.testing.assert_array_equal(r, np.float32([1.0, -0.4]) - np.float32([0.56, 0.54]))


def test_interleaved_reads_writes_and_scatters_in_one_function():
    v = tf.Variable([1.0, -0.4])
    u = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

    @tf.function
    def f():
        r0 = v.read_value()
        x = v.assign_sub([0.56, 0.54])
        r1 = v * 2.0
        v.assign_sub([0.94, 0.4])
        row = u[1]
        u.scatter_add(tf.IndexedSlices(tf.constant([[10.0, 10.0, 10.0]]), tf.constant([1])))
        tail = u[1, 1:]
        u.scatter_update(tf.IndexedSlices(tf.constant([[0.5, 0.5, 0.5]]), tf.constant([0])))
        return r0, x, r1, row, tail, tf.reduce_sum(u)

    got = [np.asarray(t) for t in f()]
    want = [[1.0, -0.4], [-0.5, -1.34], [0.88, -1.88], [4.0, 5.0, 6.0], [15.0, 16.0], 46.5]
    for a, b in zip(got, want, strict=True):  # TF 2.21
        np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_array_equal(u.numpy(), [[0.5, 0.5, 0.5], [14.0, 15.0, 16.0]])


def test_a_tf1_assignment_fetched_is_its_value_after_it():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        x = v.assign_add([0.5, 0.5])
        assert x.op.type == "AssignVariableOp"  # TF: AssignAddVariableOp, the assignment
        with tf.control_dependencies([x]):
            y = v.assign_add([1.0, 1.0])
        g = tf.group(x, y)
        with v1.Session() as s:
            s.run(v.initializer)
            got = [s.run(x).tolist(), s.run(y).tolist(), s.run(g), s.run(v).tolist()]
    assert got == [[1.5, 2.5], [3.0, 4.0], None, [4.5, 5.5]]  # TF 2.21


# --------------------------------------------------------------------------------------
# control_dependencies on a loop variable; the top level after disable_eager_execution


def _gated_loop(v):
    def cond(k, acc):
        with tf.control_dependencies([acc]):
            return k < 2

    def body(k, acc):
        with tf.control_dependencies([acc]):
            total = acc + tf.reduce_sum(v.assign_add([0.5, 0.25]))
        return k + 1, total

    return v1.while_loop(cond, body, (tf.constant(0), tf.constant(1.0)))[1]


def test_control_dependencies_on_a_loop_variable():
    v = tf.Variable([1.0, 2.0])
    assert _gated_loop(v).numpy() == 9.25 and v.numpy().tolist() == [2.0, 2.5]  # TF 2.21
    assert tf.function(lambda: _gated_loop(v))().numpy() == 12.25
    assert v.numpy().tolist() == [3.0, 3.0]
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0])
        r = _gated_loop(w)
        with v1.Session() as s:
            s.run(w.initializer)
            assert s.run(r) == 9.25 and s.run(w).tolist() == [2.0, 2.5]


def test_disable_eager_execution_makes_the_top_level_a_graph():
    v1.disable_eager_execution()  # (tests/conftest.py makes the top level eager again)
    assert not tf.executing_eagerly()
    v = tf.Variable([1.5, -0.3])
    g = tf.gradients(tf.reduce_sum(v * v * v), v)[0]
    with v1.Session() as s:
        s.run(v1.global_variables_initializer())
        update = v.assign_sub(0.2 * g)  # built here, applied only when run: once
        s.run(update)
        want = np.float32([0.14999998, -0.354])  # TF 2.21
        np.testing.assert_allclose(s.run(v), want, rtol=1e-6)
        p = v1.placeholder(tf.float32, [])
        c = tf.cond(tf.reduce_sum(v) > p, lambda: v * 2.0, lambda: v * 3.0)
        np.testing.assert_allclose(s.run(c, {p: -1.0}), 2 * want, rtol=1e-6)  # decided per run
        np.testing.assert_allclose(s.run(c, {p: 10.0}), 3 * want, rtol=1e-6)


# --------------------------------------------------------------------------------------
# Leftovers the random programs found


def test_keras_adagrad_float64_accumulator_starts_at_float32_point_one():
    v = tf.Variable([1.0, -2.0], dtype=tf.float64)
    opt = tf.keras.optimizers.Adagrad(learning_rate=0.5)
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * v * v)
        opt.apply_gradients([(tape.gradient(loss, v), v)])
    np.testing.assert_allclose(v.numpy(), [0.3808619735578124, -2.9209026991125566], rtol=1e-15)


def test_reduce_prod_of_a_scalar_through_an_unknown_rank_placeholder():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32)
        y = tf.reduce_prod(x)
        (g,) = tf.gradients(y, x)
        with v1.Session() as s:
            assert s.run([y, g], {x: 3.0}) == [3.0, 1.0]  # TF 2.21
            out, dx = s.run([y, g], {x: [[2.0, 3.0]]})
            assert out == 6.0 and dx.tolist() == [[3.0, 2.0]]


# --------------------------------------------------------------------------------------
# Deliberate differences (docs/semantics.md, "Variables and runs")


def test_a_loop_start_read_from_a_variable_the_body_writes_is_a_snapshot_in_tf1_too():
    """TF1's While may hold a slice of the variable's buffer by reference (TF: 16.25);
    symgrad's read is a snapshot, as TF's eager and function answers (15.25)."""

    def program():
        v = tf.Variable([1.0, 2.0, 3.0], dtype=tf.float64)

        def body(k, acc):
            return k + 1, acc + tf.reduce_sum(v.assign_add([0.5, 0.25, 0.0]))

        start = (tf.constant(0), tf.reduce_sum(v[0]))
        return v, v1.while_loop(lambda k, a: k < 2, body, start)[1]

    v, r = program()
    assert r.numpy() == 15.25  # TF 2.21 eagerly
    with tf.Graph().as_default():
        v, r = program()
        with v1.Session() as s:
            s.run(v.initializer)
            assert s.run(r) == 15.25 and s.run(v).tolist() == [2.0, 2.5, 3.0]


def test_a_tf1_cond_branch_runs_an_assignment_whose_result_it_does_not_use():
    """TF1 graphs add no automatic control dependencies in a branch, so TF skips
    ``v.assign_add`` there (v stays 1.0); symgrad runs a branch's stateful ops in order."""
    with tf.Graph().as_default():
        v = tf.Variable(1.0)

        def branch():
            v.assign_add(1.0)
            return tf.constant(0.0)

        r = tf.cond(tf.constant(True), branch, lambda: tf.constant(1.0))
        with v1.Session() as s:
            s.run(v.initializer)
            s.run(r)
            assert s.run(v) == 2.0
