"""``v.op`` is the op standing for the variable (TF1's ``VarHandleOp``), named as the
variable: TF1 code reads ``v.op.name`` for a variable's name without ":0" (savers keyed
by it, summaries).  It was a new read (``ReadVariableOp_<n>``) each time.  An initializer
made when first asked for is named as TF names it at creation.  TensorFlow 2.21's
answers, from the same program (``compat.v1`` graph mode)."""

import symgrad as tf

v1 = tf.compat.v1


def test_a_variables_op_is_its_handle_named_as_it_is(tmp_path) -> None:
    g = tf.Graph()
    with g.as_default():
        with v1.variable_scope("net"):
            w = v1.get_variable("w", [5, 4])
            b = tf.Variable(1.0, name="b")
            init = v1.global_variables_initializer()
        assert (w.op.name, b.op.name, b.op.type, w.op.graph) == ("net/w", "net/b", "VarHandleOp", g)
        assert w.op is w.op and w.op.inputs == () and w.op.outputs == []
        assert g.get_operation_by_name("net/b") is b.op
        assert w.value().name == "ReadVariableOp:0"  # .op made no read
        names = sorted(op.name for op in init.control_inputs)
        assert (init.name, names) == ("net/init", ["net/b/Assign", "net/w/Assign"])
        assert w.initializer.name == "net/w/Assign"  # not net/net/w/Assign
        saver = v1.train.Saver({v.op.name: v for v in v1.global_variables()})
        with v1.Session() as sess:
            sess.run(init)
            assert sess.run(b.op) is None
            assert sess.run(b) == 1.0
            path = saver.save(sess, str(tmp_path / "model"))
        assert [name for name, _ in tf.train.list_variables(path)] == ["net/b", "net/w"]


def test_a_dependency_on_a_variable_is_on_its_handle() -> None:
    """``control_dependencies([v])`` and ``group(v)``, as TF's: on ``v.op``, which runs
    nothing (not a read, which would fail before the variable is initialised)."""
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        with tf.control_dependencies([v]):
            c = tf.constant(2.0)
        assert list(c.op.control_inputs) == [v.op]
        assert list(tf.group(v).control_inputs) == [v.op]
        with v1.Session() as sess:
            assert sess.run(c) == 2.0  # v is not initialised: nothing reads it
