"""A variable's eager read and update (``ops/state/variable_eager.py``, issue 29).

At the eager top level a read and an ``assign*`` are built without the general op path.
Each program here runs twice, once that way and once with a do-nothing output check
installed (which sends every op down the general path, as before issue 29), and every
public attribute of the ops it made, the values, what the tape recorded and the errors
must be the same.
"""

import numpy as np
import pytest
from both_paths import on_both_paths

import symgrad as tf
from symgrad.core import eager

pytestmark = pytest.mark.skipif(
    eager.ERRSTATE is None, reason="NumPy 1.x: every eager op takes the general path"
)


def _describe(x):
    op = x.op
    return (
        op.type,
        op.name,
        [i.name for i in op.inputs],
        [o.name for o in op.outputs],
        [str(s) for s in op.output_shapes],
        [d.name for d in op.output_dtypes],
        sorted(op.attrs),
        op.location.split(":")[0],
        op.device,
        op.control_inputs,
        op.graph.get_operation_by_name(op.name) is op,
    )


def _reads_and_updates():
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    w = tf.Variable(np.ones((2, 2), np.float32))
    with tf.GradientTape(persistent=True) as tape:
        r = v.value()
        y = tf.reduce_sum(r * r) + tf.reduce_sum(tf.matmul(w, w))
    u = v.assign_sub(tf.constant([0.5, 0.5, 0.5]))
    a = w.assign_add(tf.ones((2, 2)), name="step")
    s = v.assign([4.0, 5.0, 6.0])
    ops = [r, u, a, s, v.read_value()]
    described = [_describe(t) for t in ops]
    name = tf.constant(0.0).name  # the name counters moved alike
    # Last: the tape's own backward pass (on the first path) makes fewer ops than
    # ``backprop`` (on the second), so names taken after it differ, by design.
    grads = tape.gradient(y, [v, w])
    return (
        described,
        [g.numpy().tolist() for g in grads],
        v.numpy().tolist(),
        w.numpy().tolist(),
        u.op.name,
        name,
    )


def test_reads_and_updates_are_the_general_paths():
    fast, general = on_both_paths(_reads_and_updates)
    assert fast == general
    descriptions, grads, v, w, _, _ = fast
    assert [d[:4] for d in descriptions] == [
        ("ReadVariableOp", "ReadVariableOp", [], ["ReadVariableOp:0"]),
        ("AssignVariableOp", "AssignSub", ["Const_2:0"], ["AssignSub:0"]),
        ("AssignVariableOp", "step", ["ones:0"], ["step:0"]),
        ("AssignVariableOp", "Assign", ["Const_5:0"], ["Assign:0"]),
        ("ReadVariableOp", "ReadVariableOp_4", [], ["ReadVariableOp_4:0"]),
    ]
    assert descriptions[0][7] == __file__  # the user's line, not the package's
    assert grads == [[2.0, 4.0, 6.0], [[4.0, 4.0], [4.0, 4.0]]]
    assert (v, w) == ([4.0, 5.0, 6.0], [[2.0, 2.0], [2.0, 2.0]])


def test_the_tape_records_a_watched_variables_read_only():
    def program():
        v = tf.Variable(3.0)
        with tf.GradientTape(watch_accessed_variables=False) as t1:
            y1 = v * v
        with tf.GradientTape() as t2:
            y2 = v * v
        with tf.GradientTape() as t3, t3.stop_recording():
            y3 = v * v
        return t1.gradient(y1, v), float(t2.gradient(y2, v)), t3.gradient(y3, v)

    fast, general = on_both_paths(program)
    assert fast == general == (None, 6.0, None)


def test_a_light_read_tells_each_tape_of_the_access_as_the_general_path_does():
    # The fast path's read notes the access in each tape's record_light (not before the
    # read): nested tapes, one not watching accessed variables, a variable not trainable
    # (watched only where asked), a tape that already watches the variable, and a read
    # under a recorder that takes no light tensor (the access told before the op).
    from symgrad.core import context

    class Other:
        def record(self, op):
            pass

        def variable_accessed(self, var):
            pass

        def would_record(self, inputs, variables):
            return False

    def program():
        v, w = tf.Variable(3.0), tf.Variable(2.0, trainable=False)
        out = []
        with tf.GradientTape() as t1, tf.GradientTape(watch_accessed_variables=False) as t2:
            t2.watch(w)
            y = v * w + tf.matmul(tf.reshape(v, (1, 1)), tf.reshape(w, (1, 1)))[0, 0]
        out += [[x.name for x in t.watched_variables()] for t in (t1, t2)]
        out += [t1.gradient(y, [v, w]), t2.gradient(y, [v, w])]
        other = Other()
        with tf.GradientTape() as t3:
            t3.watch(v)
            context.push_recorder(other)
            try:
                z = v * v + w
            finally:
                context.remove_recorder(other)
        out += [[x.name for x in t3.watched_variables()], t3.gradient(z, [v, w])]
        return [
            [None if g is None else float(g) for g in o] if o and type(o[0]) is not str else o
            for o in out
        ]

    fast, general = on_both_paths(program)
    assert fast == general
    assert fast[:4] == [["Variable:0"], ["Variable_1:0"], [4.0, None], [None, 6.0]]


def test_a_failed_update_leaves_the_variable_as_it_was():
    def program():
        v = tf.Variable([1.0, 2.0], shape=tf.TensorShape([None]))
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            v.assign_add(tf.constant([1.0, 2.0, 3.0]))
        with pytest.raises(ValueError) as e2:
            v.assign_sub(tf.constant([1, 2]))
        return str(e.value), str(e2.value), v.numpy().tolist(), v.assign_add([1.0, 1.0]).op.name

    fast, general = on_both_paths(program)
    assert fast == general
    assert fast[0] == (
        "Cannot update variable with shape [2] using a Tensor with shape [3], shapes must "
        "be equal. (variable 'Variable:0')"
    )
    assert fast[2:] == ([1.0, 2.0], "AssignAdd_1")


def test_an_uninitialised_variable_and_placeholders_take_the_general_path():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0)  # TF1 style: no value until its initializer runs
    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
        v.value()
    w = tf.Variable(2.0)
    x = tf.compat.v1.placeholder(tf.float32, [])
    u = w.assign_add(x)  # eager top level, fed later: symbolic, as before
    assert u.op.output_values is None and float(w.numpy()) == 2.0


def test_a_read_outside_a_tape_is_a_snapshot_whose_op_is_built_on_first_access():
    tf.compat.v1.reset_default_graph()
    v = tf.Variable([1.0, 2.0])
    r = v.value()
    assert type(r) is eager.EagerTensor and r._op is None
    v.assign_add([1.0, 1.0])  # writes a new array: the read holds the old one
    assert r.numpy().tolist() == [1.0, 2.0] and v.numpy().tolist() == [2.0, 3.0]
    assert r.name == "ReadVariableOp:0"
    op = r.op
    assert (op.type, op.name, op.inputs, op.outputs) == (
        "ReadVariableOp",
        "ReadVariableOp",
        (),
        [r],
    )
    assert op.get_attr("var") is v and op.location.split(":")[0] == __file__
    assert op.graph.get_operation_by_name("ReadVariableOp") is op
    tf.compat.v1.reset_default_graph()


def test_an_eager_update_builds_its_op_when_asked_for():
    """Nothing records: ``assign_sub`` returns at once, its op built on ``.op``, with the
    fields the general path gives it (``test_reads_and_updates_are_the_general_paths``)."""
    v = tf.Variable([1.0, 2.0], name="lazy")
    g = tf.constant([0.5, 0.25])
    u = v.assign_sub(2.0 * g)
    assert type(u._parent_op) is eager.EagerTensor and u._parent_op._op is None
    assert v.numpy().tolist() == [0.0, 1.5] and u.numpy().tolist() == [0.0, 1.5]
    op = u.op
    assert (op.type, op.name, op.inputs[0].op.type) == ("AssignVariableOp", "AssignSub", "Mul")
    assert op.location.split(":")[0] == __file__
    assert op.get_attr("var") is v and u.op is op
    with tf.control_dependencies([u]):
        assert tf.identity(1.0).op.control_inputs == (op,)


def test_a_python_scalar_times_a_tensor_is_the_general_paths():
    """``lr * g`` (a Python scalar first) takes the fast path: the same op, name, inputs
    (the scalar's constant first), value and line as the general path's."""

    def program():
        g = tf.constant([0.5, 0.25])
        ys = [0.1 * g, 2 - g, 3.0 / g, 1.5 + g]
        return [(_describe(y), y.numpy().tolist()) for y in ys]

    fast, general = on_both_paths(program)
    assert fast == general
    assert [d[0][:3] for d in fast] == [
        ("Mul", "mul", ["Const_1:0", "Const:0"]),
        ("Sub", "sub", ["Const_2:0", "Const:0"]),
        ("RealDiv", "truediv", ["Const_3:0", "Const:0"]),
        ("AddV2", "add", ["Const_4:0", "Const:0"]),
    ]
    assert fast[0][0][7] == __file__
