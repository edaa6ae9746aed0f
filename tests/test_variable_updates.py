"""An eager ``assign*`` of a light tensor in one step (``variable_eager.update``, issue 29),
and what it rests on: ``_combine``'s in-place write, ``UnreadVariable``'s updates (through
``_write``), and ``Variable._value`` of a variable a compiled call left on its device.

Each program runs on the one-step path and on the general path (a do-nothing output
check installed), and must give the same names, op types, inputs, values, errors, write
counts and versions.
"""

import sys
import threading

import numpy as np
import pytest
from both_paths import on_both_paths

import symgrad as tf
from symgrad.core import eager
from symgrad.ops.state import variables

pytestmark = pytest.mark.skipif(
    eager.ERRSTATE is None, reason="NumPy 1.x: every eager op takes the general path"
)


def _op(u):
    op = u.op
    return (
        op.type,
        op.name,
        [i.name for i in op.inputs],
        op.get_attr("mode"),
        op.get_attr("var") is u._variable,
        op.location.split(":")[0],
        op.graph.get_operation_by_name(op.name) is op,
    )


def test_updates_of_every_kind_and_dtype_are_the_general_paths():
    def program():
        rows = []
        for dtype in (tf.float32, tf.float64, tf.int32, tf.complex64):
            v = tf.Variable(tf.cast([[1, 2, 3], [4, 5, 6]], dtype), name="v")
            t = tf.cast(tf.constant([[1, 1, 1], [2, 2, 2]]), dtype)  # a light tensor
            before = (variables.WRITES[0], v._version)
            us = [v.assign_add(t), v.assign_sub(t + t), v.assign(t * t)]
            writes = (variables.WRITES[0] - before[0], v._version - before[1])
            rows.append(([_op(u) for u in us], writes, v.numpy().tolist()))
        return rows

    fast, general = on_both_paths(program)
    assert fast == general
    ops, writes, value = fast[0]
    assert [o[:4] for o in ops] == [
        ("AssignVariableOp", "AssignAdd", ["Cast_1:0"], "assign_add"),
        ("AssignVariableOp", "AssignSub", ["add:0"], "assign_sub"),
        ("AssignVariableOp", "Assign", ["mul:0"], "assign"),
    ]
    assert all(o[4:] == (True, __file__, True) for o in ops)
    assert writes == (3, 3)  # one write counted for each update, one version each
    assert value == [[1.0, 1.0, 1.0], [4.0, 4.0, 4.0]]
    assert fast[2][2] == [[1, 1, 1], [4, 4, 4]]  # int32


def test_a_failed_update_leaves_the_variable_and_its_counts_as_they_were_but_the_name():
    def program():
        v = tf.Variable([True, False])
        writes = variables.WRITES[0]
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            v.assign_sub(tf.constant([True, True]))  # NumPy has no boolean subtract
        w = tf.Variable([1.0, 2.0])
        with pytest.raises(tf.errors.InvalidArgumentError) as e2:
            w.assign_add(tf.constant([1.0, 2.0, 3.0]))
        counts = (variables.WRITES[0] - writes, v._version, w._version)
        return (
            str(e.value).split(" (type")[0],
            str(e2.value),
            v.numpy().tolist(),
            counts,
            (v.assign(tf.constant([False, True])).op.name),
        )

    fast, general = on_both_paths(program)
    assert fast == general
    assert fast[0] == "AssignVariableOp op 'AssignSub'"
    assert fast[1] == (
        "Cannot update variable with shape [2] using a Tensor with shape [3], shapes must "
        "be equal. (variable 'Variable_1:0')"
    )
    # The kernel's failure counted a write (as before: ``_remember`` runs first); the
    # shape's check is TF's at the call, before any.
    assert fast[2:] == ([True, False], (1, 0, 0), "Assign")


def test_an_unshared_value_is_written_in_place_and_a_held_one_is_not():
    v = tf.Variable(np.zeros((2, 3), np.float32))
    t = tf.constant(np.ones((2, 3), np.float32))
    first = id(v._value)
    v.assign_add(t)
    assert id(v._value) == first  # nothing else held it
    r = v.value()  # a read holds the array now
    v.assign_add(t)
    assert r.numpy().tolist() == [[1.0] * 3] * 2 and v.numpy().tolist() == [[2.0] * 3] * 2
    v._value.flags.writeable = False  # as a device buffer's view may be
    v.assign_sub(t)
    assert v._value.flags.writeable and v.numpy().tolist() == [[1.0] * 3] * 2


def test_an_update_of_an_update_writes_the_variable():
    v = tf.Variable([1.0, 2.0], name="v")
    t = tf.constant([0.5, 0.5])
    u = v.assign_sub(t).assign_sub(t).assign_add(t * 4.0)
    assert type(u._parent_op) is eager.EagerTensor  # the one step's light tensor
    assert u._variable is v and u.op.get_attr("var") is v
    assert (u.numpy().tolist(), v.numpy().tolist()) == ([2.0, 3.0], [2.0, 3.0])
    assert u.op.location.split(":")[0] == __file__
    tf.compat.v1.reset_default_graph()


def test_what_an_update_returns_is_named_as_tfs_unread_variable():
    """TF 2.21: ``v.assign_sub(d).name`` is "UnreadVariable" eagerly and inside
    ``function``, the assignment op's name in a TF1 graph; never the variable's."""
    v = tf.Variable([1.0, 2.0], name="w")
    eager = [
        u.name for u in (v.assign_sub([0.5, 0.5]), v.assign_add([1.0, 1.0]), v.assign([3.0] * 2))
    ]
    assert eager == ["UnreadVariable"] * 3
    assert repr(v.assign_sub([1.0, 1.0])).startswith("<symgrad.Variable 'UnreadVariable' ")

    @tf.function
    def f():
        return v.assign_sub([0.5, 0.5]).name

    assert f() == "UnreadVariable"
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        u = w.assign_sub([0.5, 0.5])
        assert (u.name, w.name) == (u.op.name, "w:0")


def test_the_general_path_takes_what_the_one_step_does_not():
    v = tf.Variable([1.0, 2.0])
    x = tf.compat.v1.placeholder(tf.float32, [2])
    u = v.assign_add(x)  # fed later: symbolic, as before
    assert u.op.output_values is None and v.numpy().tolist() == [1.0, 2.0]
    with tf.GradientTape() as tape:  # a tape records the op
        y = v.assign_add(tf.constant([1.0, 1.0]))
    assert type(y._parent_op) is tf.Operation and tape is not None
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32"):
        v.assign_sub(tf.constant([1, 2]))
    assert v.numpy().tolist() == [2.0, 3.0]
    tf.compat.v1.reset_default_graph()


def test_a_value_left_on_the_device_is_read_once_and_a_missing_attribute_raises():
    v = tf.Variable(np.arange(3.0))
    state = v.__dict__
    held = variables.DeviceValues()
    held.put([np.arange(3.0) * 2])  # as a compiled call leaves it (here a NumPy array)
    state["_device_value"] = (held, 0, 4 - held.calls)
    del state["_value"], state["_version"]
    assert v.numpy().tolist() == [0.0, 2.0, 4.0]  # a NumPy view made once a call, and kept
    assert v._value is v._value and v._version == 4
    assert variables.device_array(v) is held.device(0)
    held.put([np.arange(3.0) * 3])  # the next call: every variable it wrote moves on
    assert v.numpy().tolist() == [0.0, 3.0, 6.0] and v._version == 5
    v.assign([1.0, 1.0, 1.0])  # the NumPy path: its own value and version again
    assert v._version == 6 and variables.device_array(v) is None
    assert v.numpy().tolist() == [1.0, 1.0, 1.0]
    del state["_value"], state["_version"], state["_device_value"]
    with pytest.raises(AttributeError, match="'Variable' object has no attribute '_value'"):
        v._value  # noqa: B018
    with pytest.raises(AttributeError, match="'Variable' object has no attribute '_version'"):
        v._version  # noqa: B018
    with pytest.raises(AttributeError, match="'Variable' object has no attribute 'missing'"):
        v.missing  # noqa: B018
    assert isinstance(variables.Variable._value, variables._DeviceValue)


def test_threads_updating_one_variable_at_once_lose_no_update():
    v = tf.Variable(np.zeros(3))
    one = tf.constant(np.ones(3))

    def work():
        for _ in range(2000):
            held = v.value()  # so that each update writes a new array (a slower update)
            v.assign_add(one)
            del held

    threads = [threading.Thread(target=work) for _ in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often: inside updates too
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert v.numpy().tolist() == [8000.0] * 3 and v._version == 8000
    tf.compat.v1.reset_default_graph()


def test_reads_are_the_general_paths_for_tapes_trainable_and_dtypes():
    def program():
        v = tf.Variable(np.array([1.0, 2.0]), name="v")  # float64
        frozen = tf.Variable(np.array([3.0]), trainable=False)
        with tf.GradientTape(persistent=True) as tape:
            r = v.read_value()
            y = tf.reduce_sum(r * r) + tf.reduce_sum(frozen * frozen)
            with tf.init_scope():  # the top-level graph pushed: still read eagerly
                z = tf.convert_to_tensor(v)
        grads = tape.gradient(y, [v, frozen])
        names = [r.name, z.name, r.op.type, r.op.get_attr("var") is v, str(r.dtype.name)]
        return names, [None if g is None else g.numpy().tolist() for g in grads]

    fast, general = on_both_paths(program)
    assert fast == general
    assert fast == (
        ["ReadVariableOp:0", "ReadVariableOp_4:0", "ReadVariableOp", True, "float64"],
        [[2.0, 4.0], None],
    )


def test_read_value_false_returns_the_update_op():
    """TF 2.21: ``assign(x, read_value=False)`` is the AssignVariableOp in a TF1 graph and
    inside ``function`` (eagerly TF's is None: its eager ops are not kept; here it is the
    update's op, which a Session at the eager top level can run, as ``.op`` of the
    update read back)."""
    v = tf.Variable(1.0)
    op = v.assign(2.0, read_value=False)
    assert op.type == "AssignVariableOp" and float(v.numpy()) == 2.0
    with tf.Graph().as_default():
        a = tf.Variable(1.0)
        op = a.assign(2.0, read_value=False)
        assert isinstance(op, tf.Operation) and op.type == "AssignVariableOp"
        with tf.compat.v1.Session() as sess:
            sess.run(a.initializer)
            sess.run(op)
            assert sess.run(a) == 2.0
    seen = []

    @tf.function
    def f():
        seen.append(v.assign(5.0, read_value=False))
        return v.read_value()

    assert float(f()) == 5.0 and seen[0].type == "AssignVariableOp"
    tf.compat.v1.reset_default_graph()


def test_an_update_read_back_is_an_access_a_tape_watches():
    """TF 2.21 (``_lazy_read``): under a tape, ``v.assign(x)`` watches a trainable ``v``;
    with ``read_value=False``, or of a variable not trainable, it does not."""
    v, w = tf.Variable(1.0, name="v"), tf.Variable(1.0, name="w")
    z = tf.Variable(1.0, trainable=False, name="z")
    with tf.GradientTape() as tape:
        v.assign(2.0)
        w.assign(2.0, read_value=False)
        z.assign(3.0)
    assert [x.name for x in tape.watched_variables()] == ["v:0"]
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        v.assign_add(1.0)
    assert tape.watched_variables() == ()
    tf.compat.v1.reset_default_graph()
