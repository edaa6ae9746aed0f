"""The light path of the wrappers that are not elementwise ones (``core/fast_path.py``
``fast_apply``: MatMul, Relu, the reductions, Const), of a variable as an operand
(``x + v``, ``matmul(x, v)``), and of the variable reads and updates
(``ops/state/variable_eager.py``): each gives what the general path gives (names, op
types, inputs, values, dtypes, shapes, user lines, attrs, the tape's gradients), and bad
input through it raises the general path's error, taking the same names.
"""

import sys

import numpy as np
import pytest

import symgrad as tf
from symgrad.core import eager, fast_path

pytestmark = pytest.mark.skipif(eager.ERRSTATE is None, reason="no eager fast path here")

W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
B = np.array([0.1, -0.2, 0.3])
X = np.array([[1.0, -2.0], [0.5, 3.0], [-1.5, 0.25], [2.0, 1.0]])


def _general_only(monkeypatch):
    """Every op through ``apply_op``'s general path, as before the light path."""
    from symgrad.core import op_registry
    from symgrad.ops.state import variable_eager

    for module in (eager, fast_path, op_registry, variable_eager):
        monkeypatch.setattr(module, "ERRSTATE", None)


def _program(x, w, b):
    """One op (or two: a read and its user) a line; the line of each is ``line + i``."""
    line = _program.__code__.co_firstlineno + 3
    h = tf.matmul(x, w) + b
    r = tf.nn.relu(h)
    m = tf.reduce_mean(r)
    s = tf.reduce_sum(r, axis=0)
    t = tf.matmul(x, w, transpose_b=False) + tf.constant(1.0, tf.float64)
    u = tf.matmul(x, x, transpose_a=True)
    c = tf.constant([1, 2, 3])
    e = tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(r), logits=h)
    return [h, r, m, s, t, u, c, e, e.op.outputs[1]], line


def _rows(ts):
    rows = []
    for t in ts:
        op = t.op
        ins = [(i.name, i.op.type, i.op.traceback[1]) for i in op.inputs]
        attrs = {k: v for k, v in op.attrs.items() if k not in ("var", "value")}
        rows.append((t.name, op.type, ins, op.traceback, str(t.shape), t.dtype.name, attrs))
    return rows


def _run(monkeypatch, general):
    if general:
        _general_only(monkeypatch)
    tf.compat.v1.reset_default_graph()
    x = tf.constant(X, name="x")
    w, b = tf.Variable(W, name="w"), tf.Variable(B, name="b")
    with tf.GradientTape(persistent=True) as tape:
        ts, line = _program(x, w, b)
    grads = [g.numpy() for g in tape.gradient([ts[2], ts[7]], [w, b])]
    rows, kinds = _rows(ts), [type(t).__name__ for t in ts]
    values = [t.numpy() for t in ts]
    monkeypatch.undo()
    tf.compat.v1.reset_default_graph()
    return rows, kinds, values, grads, line


def test_the_light_ops_are_the_general_paths(monkeypatch):
    fast, kinds, values, grads, line = _run(monkeypatch, general=False)
    general, general_kinds, general_values, general_grads, _ = _run(monkeypatch, general=True)
    assert fast == general
    assert kinds.count("EagerTensor") == 7 and general_kinds.count("EagerTensor") == 0
    assert fast[7][1] == "SoftmaxCrossEntropyWithLogits" and fast[8][1] == fast[7][1]
    for a, b in zip(values + grads, general_values + general_grads):
        np.testing.assert_array_equal(a, b)
    assert [r[0] for r in fast] == [
        "add:0", "Relu:0", "Mean:0", "Sum:0", "add_1:0", "MatMul_2:0", "Const_3:0",
        "softmax_cross_entropy_with_logits/SoftmaxCrossEntropyWithLogits:0",
        "softmax_cross_entropy_with_logits/SoftmaxCrossEntropyWithLogits:1",
    ]  # fmt: skip
    assert [r[3] for r in fast] == [(__file__, line + i) for i in range(8)] + [(__file__, line + 7)]
    assert fast[0][2] == [
        ("MatMul:0", "MatMul", line),
        ("ReadVariableOp_1:0", "ReadVariableOp", line),
    ]
    assert fast[2][2][1][:2] == ("Const:0", "Const") and fast[2][6] == {"keep_dims": False}
    assert fast[5][6] == {"transpose_a": True, "transpose_b": False}


def test_the_light_ops_gradients_match_finite_differences():
    """float64: d mean(relu(x @ w + b)) / dw, db under a tape, against central differences."""
    x = tf.constant(X)
    w, b = tf.Variable(W), tf.Variable(B)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.relu(tf.matmul(x, w) + b))
    dw, db = (g.numpy() for g in tape.gradient(loss, [w, b]))

    def f(wv, bv):
        return np.maximum(X @ wv + bv, 0).mean()

    eps = 1e-6
    for grad, value, at in ((dw, W, lambda v: f(v, B)), (db, B, lambda v: f(W, v))):
        num = np.zeros_like(value)
        for i in np.ndindex(value.shape):
            e = np.zeros_like(value)
            e[i] = eps
            num[i] = (at(value + e) - at(value - e)) / (2 * eps)
        np.testing.assert_allclose(grad, num, rtol=1e-6, atol=1e-9)


def test_a_variable_operand_is_read_as_convert_to_tensor_reads_it():
    """``x + v`` and ``matmul(x, v)`` read ``v`` once, recorded by the tape
    (watch_accessed_variables), and not at all for a tape that does not watch it."""
    tf.compat.v1.reset_default_graph()
    x = tf.constant(X[:, :1].T)  # [1, 4]
    v = tf.Variable(np.ones((4, 2)))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.matmul(x, v) + tf.Variable(np.zeros(2)))
    assert [var.shape.as_list() for var in tape.watched_variables()] == [[4, 2], [2]]
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), np.repeat(X[:, :1], 2, axis=1))
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = tf.reduce_sum(tf.matmul(x, v))
    assert tape.watched_variables() == () and tape.gradient(y, v) is None
    tf.compat.v1.reset_default_graph()


def _bad_calls():
    x = tf.constant(X)
    v = tf.Variable(W)
    open_v = tf.Variable(W, shape=tf.TensorShape(None))  # its updates are checked when run
    out = []
    for call in (
        lambda: tf.matmul(x, x),  # inner sizes 2 and 4 differ
        lambda: tf.nn.relu(tf.constant([True])),  # bool
        lambda: tf.reduce_mean(x, axis=2),  # out of range
        lambda: tf.matmul(x, tf.Variable(np.ones((3, 3)))),
        lambda: v.assign_sub(np.ones((3, 2))),  # shape
        lambda: v.assign_sub(tf.constant(np.ones((2, 3), np.float32))),  # dtype
        lambda: v.assign_add(np.ones((2, 2))),
        lambda: open_v.assign_sub(np.ones((3, 2))),  # in the kernel: the op took its name
    ):
        with pytest.raises((ValueError, TypeError)) as e:
            call()
        out.append((type(e.value).__name__, str(e.value)))
    for var in (v, open_v):  # the failed updates changed nothing
        np.testing.assert_array_equal(var.numpy(), W)
    after = [tf.matmul(x, tf.transpose(x)).name, v.assign_sub(np.zeros((2, 3))).op.name]
    return out, after


def test_bad_input_raises_the_general_paths_error_and_takes_its_names(monkeypatch):
    tf.compat.v1.reset_default_graph()
    fast = _bad_calls()
    _general_only(monkeypatch)
    tf.compat.v1.reset_default_graph()
    general = _bad_calls()
    monkeypatch.undo()
    tf.compat.v1.reset_default_graph()
    assert fast == general
    errors, after = fast
    # (InvalidDtypeError: an InvalidArgumentError and a TypeError, as TF's eager error)
    assert [kind for kind, _ in errors] == [
        "InvalidArgumentError", "InvalidDtypeError", "InvalidArgumentError",
        "InvalidArgumentError", "InvalidArgumentError", "ValueError", "InvalidArgumentError",
        "InvalidArgumentError",
    ]  # fmt: skip
    assert "Matrix size-incompatible" in errors[0][1] and "MatMul op 'MatMul'" in errors[0][1]
    assert "shapes must be equal" in errors[4][1]
    assert "requested dtype float64 for Tensor with dtype float32" in errors[5][1]
    assert "Cannot update variable with shape [2,3] using a Tensor with shape [3,2]" in errors[7][1]
    assert after == ["MatMul_2:0", "AssignSub_1"]


def test_an_update_returns_what_the_general_path_returns(monkeypatch):
    def run():
        tf.compat.v1.reset_default_graph()
        v = tf.Variable(np.array([1.0, 2.0]), name="v")
        u = v.assign_sub(0.5 * tf.constant([1.0, 4.0], tf.float64))
        line = run.__code__.co_firstlineno + 3
        op = u.op
        ins = [i.op.type for i in op.inputs]
        row = (op.name, op.type, ins, op.traceback == (__file__, line), u.numpy().tolist())
        kind = type(u._parent_op).__name__  # the light tensor, or the op itself
        return (row, op.get_attr("mode"), op.outputs[0].numpy().tolist()), kind

    fast, kind = run()
    _general_only(monkeypatch)
    general, general_kind = run()
    assert (kind, general_kind) == ("EagerTensor", "Operation")
    monkeypatch.undo()
    tf.compat.v1.reset_default_graph()
    assert (
        fast
        == general
        == (("AssignSub", "AssignVariableOp", ["Mul"], True, [0.5, 0.0]), "assign_sub", [0.5, 0.0])
    )


def test_each_update_records_the_line_that_called_it():
    # The light update takes the user's line four frames out (assign*'s caller); one
    # called through an UnreadVariable is a frame deeper and is found by the walk.
    v = tf.Variable(np.array([1.0, 2.0], np.float32))
    x = tf.constant([1.0, 1.0])
    line = sys._getframe().f_lineno + 1
    ops = [v.assign(x).op, v.assign_add(x).op, v.assign_sub(x).op, v.assign(x).assign_add(x).op]
    assert [op.traceback for op in ops] == [(__file__, line)] * 4
    assert [op.get_attr("mode") for op in ops] == [
        "assign",
        "assign_add",
        "assign_sub",
        "assign_add",
    ]
    assert v.numpy().tolist() == [2.0, 2.0]  # exact: sums of ones


def _layer(x, w, b):
    line = sys._getframe().f_lineno + 1
    h = tf.matmul(x, w) + b
    return h, line


def _ops_and_lines():
    """A layer's ops and variable reads, a reflected operator and the reductions, each
    with the line that made it (the layer's: a helper's frame, not its caller's)."""
    x = tf.constant([[1.0, 2.0]])
    w, b = tf.Variable([[1.0], [2.0]]), tf.Variable([0.5])
    h, at = _layer(x, w, b)
    add = h.op
    mm, read_b = (t.op for t in add.inputs)
    read_w = mm.inputs[1].op
    got = [(op.type, op.traceback) for op in (read_w, mm, read_b, add)]
    want = [(k, (__file__, at)) for k in ("ReadVariableOp", "MatMul", "ReadVariableOp", "AddV2")]
    line = sys._getframe().f_lineno + 1
    ts = [2.0 * h, 1.0 - h, tf.reduce_mean(h), tf.reduce_sum(h, axis=0), tf.reduce_max(h, 1)]
    got += [(t.op.type, t.op.traceback) for t in ts]
    want += [(k, (__file__, line)) for k in ("Mul", "Sub", "Mean", "Sum", "Max")]
    mean_axes = ts[2].op.inputs[1].op  # the axis Const reduce_mean made
    got.append((mean_axes.type, mean_axes.traceback))
    want.append(("Const", (__file__, line)))
    return got, want, h.numpy().tolist()


def test_the_reads_operators_and_reductions_record_the_line_that_called_them():
    # Each fast path looks for the user's line where it expects it (a read made for a
    # matmul or an elementwise wrapper, the reflected operator, the public reductions),
    # and walks out from there: a helper's line, not its caller's; with or without a tape.
    tf.compat.v1.reset_default_graph()
    got, want, h = _ops_and_lines()
    assert got == want
    assert h == [[5.5]]  # exact: 1*1 + 2*2 + 0.5
    with tf.GradientTape():
        got, want, _ = _ops_and_lines()
    assert got == want
    tf.compat.v1.reset_default_graph()


def test_a_name_given_to_a_binary_op_is_kept_with_any_operands():
    # name= takes the general path for every pair of operands the fast wrapper accepts:
    # two tensors, a tensor and a variable, a Python scalar first.
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    v = tf.Variable([5.0, 6.0])
    got = [
        tf.add(x, y, name="two").name,
        tf.multiply(x, v, name="with_variable").name,
        tf.subtract(2.0, y, name="scalar_first").name,
        tf.add(x, y).name,
    ]
    assert got == ["two:0", "with_variable:0", "scalar_first:0", "Add:0"]  # tf.add's, not +'s


def _all_axes_program():
    """Reductions over every axis (``axis=None``), each type twice (the first call of a
    type takes the general lines), of ranks 0 to 3, floats and ints, then bad dtypes."""
    x = tf.constant(X)
    xs = [tf.constant(2.5), tf.constant(B), x, tf.reshape(x, [2, 2, 2])]
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        ts = [tf.reduce_mean(t) for t in xs] + [tf.reduce_mean(t) for t in xs]
        ts += [tf.reduce_sum(x), tf.reduce_sum(x), tf.reduce_max(x), tf.reduce_prod(xs[1])]
        ts += [tf.reduce_mean(tf.constant([[1, 2], [4, 8]])), tf.reduce_any(x > 1.0)]
    grads = [g.numpy() for g in tape.gradient(ts[4:8], xs)] + [tape.gradient(ts[8:12], x).numpy()]
    errors = []
    for call in (lambda: tf.reduce_any(x), lambda: tf.reduce_mean(x > 0.0)):
        with pytest.raises((ValueError, TypeError)) as e:
            call()
        errors.append((type(e.value).__name__, str(e.value)))
    return _rows(ts), [t.numpy() for t in ts], grads, errors, tf.reduce_sum(x).name


def test_a_reduction_over_every_axis_is_the_general_paths(monkeypatch):
    from symgrad.ops.reduction import reduce

    tf.compat.v1.reset_default_graph()
    reduce._ALL.clear()
    rows, values, grads, errors, after = _all_axes_program()
    assert {("Mean", 0), ("Mean", 3), ("Sum", 2)} <= set(reduce._ALL)  # taken
    axes = [t.op.inputs[1] for t in (tf.reduce_mean(tf.constant(X)),)]
    tf.compat.v1.reset_default_graph()
    _general_only(monkeypatch)
    general = _all_axes_program()
    monkeypatch.undo()
    tf.compat.v1.reset_default_graph()
    assert (rows, errors, after) == (general[0], general[3], general[4])
    for a, b in zip(values + grads, general[1] + general[2]):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert [r[0] for r in rows[:5]] == ["Mean:0", "Mean_1:0", "Mean_2:0", "Mean_3:0", "Mean_4:0"]
    assert [r[2][1][0] for r in rows[4:8]] == ["Const_8:0", "Const_9:0", "Const_10:0", "Const_11:0"]
    assert "Any" in errors[0][1] and "Mean" in errors[1][1]  # the dtype refused
    # TF 2.21's values and gradients of the second calls (tf.reduce_mean of each)
    assert [v.tolist() for v in values[4:8]] == [2.5, 0.06666666666666667, 0.53125, 0.53125]
    assert values[12].tolist() == 3 and values[13].tolist() is True
    assert [g.tolist() for g in grads[:2]] == [1.0, [1 / 3] * 3]
    np.testing.assert_array_equal(grads[2], np.full((4, 2), 0.125))
    assert axes[0].numpy().tolist() == [0, 1] and axes[0].dtype == tf.int32


def test_remembered_broadcasts_give_each_pair_of_shapes_its_own():
    """``fast_path._broadcast`` remembers results by the two sizes: shapes alternating
    between calls each get their own broadcast, and a pair that cannot broadcast still
    raises the general path's error."""
    a, b = tf.constant(X), tf.constant(B[:2])  # [4, 2] + [2]
    c, d = tf.constant(W), tf.constant(B)  # [2, 3] + [3]
    e = tf.constant(X[:1, :1])  # [1, 1] + [2]
    for _ in range(3):
        got = [a + b, c + d, e + b, b + a]
        assert [t.shape.as_list() for t in got] == [[4, 2], [2, 3], [1, 2], [4, 2]]
        expected = [X + B[:2], W + B, X[:1, :1] + B[:2], B[:2] + X]
        for t, want in zip(got, expected):
            np.testing.assert_array_equal(t.numpy(), want)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        _ = a + d  # [4, 2] + [3]


def test_remembered_matmul_specs_give_each_product_its_own():
    """``matmul._matmul_spec`` remembers the rule's result by sizes, dtypes and
    transposes: products alternating between them each get their own shape and dtype,
    and a product the rule refuses still raises the general path's error each time."""
    x, w = tf.constant(X), tf.constant(W)  # [4, 2] @ [2, 3]
    x32 = tf.constant(X, tf.float32)
    for _ in range(3):
        got = [
            tf.matmul(x, w),
            tf.matmul(x, x, transpose_a=True),
            tf.matmul(x32, x32, transpose_b=True),
        ]
        assert [(t.shape.as_list(), t.dtype.name) for t in got] == [
            ([4, 3], "float64"), ([2, 2], "float64"), ([4, 4], "float32"),
        ]  # fmt: skip
        for t, want in zip(got, [X @ W, X.T @ X, (X @ X.T).astype(np.float32)]):
            np.testing.assert_allclose(t.numpy(), want, rtol=1e-6)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
            tf.matmul(w, x)
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.matmul(x, x32, transpose_a=True)


def _scalar_left_program():
    """A Python scalar on the left of a binary op (``lr * g`` through the reflected
    operator, ``tf.subtract(2.0, y)`` through the function), first seen (not yet a cached
    constant) and seen again, of each scalar type, with a tape and without; then bad
    dtypes.  One op a line."""
    g = tf.constant(W)
    i = tf.constant([[1, 2], [3, 4]])
    line = _scalar_left_program.__code__.co_firstlineno + 8
    ts = [0.125 * g, 0.125 * g, 2.0 - g, tf.subtract(2.0, g), 3 * i]
    ts += [-0.0 * g, 0.0 * g, 3 * i, tf.multiply(0.125, g), 5 // i]
    with tf.GradientTape() as tape:
        tape.watch(g)
        ts += [0.5 * g, 0.5 - g, tf.add(1.0, g)]
    grads = [tape.gradient(ts[-3:], g).numpy()]
    errors = []
    for call in (lambda: 2.5 * i, lambda: True * i, lambda: 1.0 - tf.constant([True])):
        with pytest.raises((ValueError, TypeError)) as e:
            call()
        errors.append((type(e.value).__name__, str(e.value)))
    after = [(0.125 * g).name, tf.subtract(2.0, g).name]
    kinds = {type(t).__name__ for t in ts}  # (before ``.op`` builds the light ones' ops)
    return _rows(ts), [t.numpy() for t in ts], grads, errors, after, line, kinds


def test_a_python_scalar_on_the_left_is_the_general_paths(monkeypatch):
    tf.compat.v1.reset_default_graph()
    rows, values, grads, errors, after, line, kinds = _scalar_left_program()
    _general_only(monkeypatch)
    tf.compat.v1.reset_default_graph()
    general = _scalar_left_program()
    monkeypatch.undo()
    tf.compat.v1.reset_default_graph()
    assert (rows, errors, after) == (general[0], general[3], general[4])
    assert (kinds, general[6]) == ({"EagerTensor"}, {"Tensor"})  # light, then the op's
    assert (kinds, general[6]) == ({"EagerTensor"}, {"Tensor"})  # light, then the op's
    for a, b in zip(values + grads, general[1] + general[2]):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert [r[3] for r in rows] == [(__file__, line)] * 5 + [(__file__, line + 1)] * 5 + [
        (__file__, line + 4)
    ] * 3
    assert [r[1] for r in rows[:5]] == ["Mul", "Mul", "Sub", "Sub", "Mul"]
    assert rows[2][2][0][1] == "Const" and rows[2][2][1][1] == "Const"  # 2.0 first, g second
    assert values[2].tolist() == (2.0 - W).tolist() and values[9].tolist() == [[5, 2], [1, 1]]
    assert np.signbit(values[5]).tolist() != np.signbit(values[6]).tolist()  # -0.0 is not 0.0


def _xent_program():
    """Cross entropies: at the root, in a user's scope, after an op named as the next
    scope's name, along axis 1, along axis 0 (transposes: the general lines), named, and
    under a tape; then Relu's refused dtype."""
    from symgrad.ops.nn import basic

    x, y = tf.constant(X), tf.nn.softmax(tf.constant(X @ W))
    w = tf.Variable(W)
    tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x @ W)  # (XENT.fast cleared)
    scopes, entered = [], basic.name_scope
    basic.name_scope = lambda *a: scopes.append(a) or entered(*a)  # type: ignore[assignment]
    try:
        with tf.GradientTape(persistent=True) as tape:
            h = tf.matmul(x, w)
            es = [tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h) for _ in "ab"]
            with tf.name_scope("outer"):
                es += [tf.nn.softmax_cross_entropy_with_logits(y, h) for _ in "ab"]
            tf.identity(x, name="softmax_cross_entropy_with_logits_4")
            es.append(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h, axis=1))
            es.append(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h))
            es.append(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h, axis=0))
            es.append(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h, name="n"))
            loss = tf.add_n([tf.reduce_mean(e) for e in es])
    finally:
        basic.name_scope = entered
    wiring = [(k, len(ins), len(outs)) for k, ins, outs in tape._wiring]
    grads = [tape.gradient(loss, w).numpy(), tape.gradient(es[1], h).numpy()]
    with pytest.raises(TypeError) as e:
        tf.nn.relu(tf.constant([True]))
    values = [t.numpy() for t in es] + [tf.nn.relu(tf.constant([-1, 2])).numpy()]
    return _rows(es), wiring, values, grads, len(scopes), str(e.value)


def _reflected_program():
    """The reflected operators called as methods with what is not a Python scalar on the
    left (a list, an array, a tensor, a variable): the general path's (the fast one
    takes a Python scalar only), each a line."""
    g, v = tf.constant(W), tf.Variable(W)
    line = _reflected_program.__code__.co_firstlineno + 6
    ts = [g.__rsub__(W.tolist())]
    ts += [g.__rmul__(W)]
    ts += [g.__radd__(tf.constant(W))]
    ts += [g.__rtruediv__(v)]
    ts += [2.0 * g - W.tolist()]
    with pytest.raises(TypeError):
        g.__rmul__(2.0, "twice")  # a method of two arguments
    return _rows(ts), [t.numpy() for t in ts], line


def test_reflected_operators_with_other_left_operands_are_the_general_paths(monkeypatch):
    tf.compat.v1.reset_default_graph()
    rows, values, line = _reflected_program()
    _general_only(monkeypatch)
    tf.compat.v1.reset_default_graph()
    general = _reflected_program()
    monkeypatch.undo()
    tf.compat.v1.reset_default_graph()
    assert rows == general[0]
    for a, b in zip(values, general[1]):
        np.testing.assert_array_equal(a, b)
    assert [r[1] for r in rows] == ["Sub", "Mul", "AddV2", "RealDiv", "Sub"]
    assert [r[3] for r in rows] == [(__file__, line + i) for i in range(5)]


def test_a_cross_entropy_is_named_and_recorded_as_in_its_name_scope(monkeypatch):
    # The common call (light or plain float tensors of one dtype, [batch, classes], no
    # name) takes fast_op without entering the scope: the scope's name and the op's in it
    # are those the general lines give, uniquely, at the root and in a user's scope.
    tf.compat.v1.reset_default_graph()
    rows, wiring, values, grads, entered, error = _xent_program()
    tf.compat.v1.reset_default_graph()
    _general_only(monkeypatch)
    general = _xent_program()
    monkeypatch.undo()
    tf.compat.v1.reset_default_graph()
    assert (rows, wiring, error) == (general[0], general[1], general[5])
    for a, b in zip(values + grads, general[2] + general[3]):
        np.testing.assert_array_equal(a, b)
    assert [r[0] for r in rows] == [
        "softmax_cross_entropy_with_logits_1/SoftmaxCrossEntropyWithLogits:0",
        "softmax_cross_entropy_with_logits_2/SoftmaxCrossEntropyWithLogits:0",
        "outer/softmax_cross_entropy_with_logits/SoftmaxCrossEntropyWithLogits:0",
        "outer/softmax_cross_entropy_with_logits/SoftmaxCrossEntropyWithLogits_1:0",
        "softmax_cross_entropy_with_logits_3/SoftmaxCrossEntropyWithLogits:0",
        "softmax_cross_entropy_with_logits_5/SoftmaxCrossEntropyWithLogits:0",
        "softmax_cross_entropy_with_logits_5/SoftmaxCrossEntropyWithLogits_1:0",
        "n/SoftmaxCrossEntropyWithLogits:0",
    ]  # (unique_name's: after the op "..._4", the next two scopes are both "..._5")
    assert {r[3][0] for r in rows} == {__file__}
    assert (entered, general[4]) == (2, 8)  # the fast calls entered no scope
    assert "expected one of" in error
