"""Every public attribute of an eager tensor and its op, before, under and after a tape.

The eager fast path (``symgrad.core.eager``, issue 29) builds an eager op without the
general path's branches; these literals were recorded from the general path (main before
issue 29) and must not change: names, op types, inputs, outputs, graph, shapes, dtypes,
device, attrs, locations and values.
"""

import numpy as np
import pytest

import symgrad as tf
from symgrad.python.framework.ops import _gradient_registry

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def _describe(t):
    op = t.op
    return (
        t.name,
        op.type,
        op.name,
        [i.name for i in op.inputs],
        [o.name for o in op.outputs],
        str(t.shape),
        t.dtype.name,
    )


def _same_objects(t):
    op = t.op
    assert op.outputs[0] is t and op.output(0) is t
    assert (t.device, t.value_index, op.num_outputs, op.control_inputs) == (DEVICE, 0, 1, ())
    assert t.graph is op.graph is tf.compat.v1.get_default_graph()
    assert op.location.split(":")[0] == __file__
    assert op.graph.get_operation_by_name(op.name) is op
    assert op.graph.get_tensor_by_name(t.name) is t


@pytest.fixture
def fresh_names():
    tf.compat.v1.reset_default_graph()
    yield
    tf.compat.v1.reset_default_graph()


def test_eager_ops_without_a_tape(fresh_names):
    x = tf.constant([1.0, 2.0], name="x")
    a = tf.sin(x)
    b = a * 2.0
    c = b + a
    d = tf.sin(c, name="mine")
    e = tf.sin(c, name="mine")
    rows = [_describe(t) for t in (a, b, c, d, e)]
    assert rows == [
        ("Sin:0", "Sin", "Sin", ["x:0"], ["Sin:0"], "(2,)", "float32"),
        ("mul:0", "Mul", "mul", ["Sin:0", "Const:0"], ["mul:0"], "(2,)", "float32"),
        ("add:0", "AddV2", "add", ["mul:0", "Sin:0"], ["add:0"], "(2,)", "float32"),
        ("mine:0", "Sin", "mine", ["add:0"], ["mine:0"], "(2,)", "float32"),
        ("mine_1:0", "Sin", "mine_1", ["add:0"], ["mine_1:0"], "(2,)", "float32"),
    ]  # fmt: skip
    for t in (a, b, c, d, e):
        _same_objects(t)
    assert b.op.inputs[0] is a and c.op.inputs[1] is a and c.op.inputs[0] is b
    assert b.op.attrs == {} and a.op.attrs == {}
    assert len({t.op.name for t in (a, b, c, d, e)}) == 5
    np.testing.assert_allclose(c.numpy(), [2.5244131, 2.7278922], rtol=1e-6)
    assert d.op.inputs[0].op is c.op


def test_eager_ops_under_and_after_a_tape(fresh_names):
    x = tf.constant([1.0, 2.0], name="x")
    before = tf.sin(x)
    with tf.GradientTape() as g:
        g.watch(x)
        p = tf.sin(x)
        q = p * 2.0
        r = tf.tanh(q)
    dx = g.gradient(r, x)
    assert dx.device == DEVICE and dx.op.num_outputs == 1
    after = tf.sin(x)
    rows = [_describe(t) for t in (before, p, q, r, dx, after)]
    # The tape's backward pass runs the rules of Tanh, Mul and Sin on arrays (array
    # rules): x's gradient leaves the pass as a Const in Sin's ``_grad`` scope.  On NumPy
    # 1.x (no error-state variable) ``backprop`` runs every rule as registered.
    from symgrad.core.eager import ERRSTATE

    if ERRSTATE is not None:
        dx_row = ("Sin_1_grad/Const:0", "Const", "Sin_1_grad/Const", [],
                  ["Sin_1_grad/Const:0"], "(2,)", "float32")  # fmt: skip
    else:
        dx_row = ("Sin_1_grad/mul:0", "Mul", "Sin_1_grad/mul", ["mul_grad/mul:0",
                  "Sin_1_grad/Cos:0"], ["Sin_1_grad/mul:0"], "(2,)", "float32")  # fmt: skip
    assert rows == [
        ("Sin:0", "Sin", "Sin", ["x:0"], ["Sin:0"], "(2,)", "float32"),
        ("Sin_1:0", "Sin", "Sin_1", ["x:0"], ["Sin_1:0"], "(2,)", "float32"),
        ("mul:0", "Mul", "mul", ["Sin_1:0", "Const:0"], ["mul:0"], "(2,)", "float32"),
        ("Tanh:0", "Tanh", "Tanh", ["mul:0"], ["Tanh:0"], "(2,)", "float32"),
        dx_row,
        ("Sin_2:0", "Sin", "Sin_2", ["x:0"], ["Sin_2:0"], "(2,)", "float32"),
    ]  # fmt: skip
    for t in (before, p, q, r, after):
        _same_objects(t)
    assert q.op.inputs[0] is p and r.op.inputs[0] is q
    # d tanh(2 sin x) / dx = 2 cos x (1 - tanh(2 sin x)^2), in float64 from NumPy
    xs = np.array([1.0, 2.0])
    want = 2 * np.cos(xs) * (1 - np.tanh(2 * np.sin(xs)) ** 2)
    np.testing.assert_allclose(dx.numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(dx.numpy(), [0.13946164, -0.08320597], rtol=1e-6)


def test_a_registered_gradient_called_by_hand_on_an_eager_op(fresh_names):
    # As seed 000 does: the rule of an eager op, called directly on its op.
    x = tf.constant([[1.0, 2.0]])
    w = tf.constant([[3.0], [4.0]])
    y = tf.matmul(x, w)
    dx, dw = _gradient_registry.lookup("MatMul")(y.op, tf.ones_like(y))
    assert (y.op.type, y.op.name, [i.name for i in y.op.inputs]) == (
        "MatMul",
        "MatMul",
        ["Const:0", "Const_1:0"],
    )
    np.testing.assert_array_equal(dx.numpy(), [[3.0, 4.0]])
    np.testing.assert_array_equal(dw.numpy(), [[1.0], [2.0]])


def test_names_stay_unique_and_attributes_survive_the_memory_sweep(fresh_names):
    x = tf.constant(0.5)
    kept = [tf.sin(x)]
    y = x
    for _ in range(3000):  # several sweeps of the eager graph (every >= 1,024 new ops)
        y = y * 1.0
    kept.append(tf.sin(x))
    assert [t.name for t in kept] == ["Sin:0", "Sin_1:0"]
    assert y.op.name == "mul_2999" and y.op.type == "Mul"
    assert y.op.inputs[1].name == "Const_3:0"  # the cached 1.0, re-made at sweeps
    for t in kept:
        _same_objects(t)
        assert t.op.inputs[0] is x


def test_the_fast_path_sets_every_field_the_constructor_sets():
    """core/eager.py builds an eager op field by field: it must set what Operation()
    sets (a field added to one and not the other showed as an AttributeError later)."""
    from symgrad.core.graph import Operation

    x = tf.constant([1.0, 2.0])
    fast = (x * 2.0).op  # a pure op at the top level: the fast path
    with tf.Graph().as_default():
        built = (tf.constant([1.0, 2.0]) * 2.0).op  # a graph op: Operation(...)

    def fields(op):
        return {s for s in Operation.__slots__ if s != "__weakref__" and hasattr(op, s)}

    assert fields(fast) == fields(built)
    assert fast.device == built.device == ""


def test_a_light_tensor_builds_its_op_once_on_first_access(fresh_names):
    from symgrad.core.eager import EagerTensor

    x = tf.constant([1.0, 2.0], name="x")
    y = tf.sin(x)
    assert type(y) is EagerTensor and y._op is None  # no Operation yet
    assert (y.name, y.shape.as_list(), y.dtype.name) == ("Sin:0", [2], "float32")
    assert y._op is None  # reading those built nothing
    g = tf.compat.v1.get_default_graph()
    op = g.get_operation_by_name("Sin")  # the name index builds it
    assert op is y.op is y.op and op.outputs[0] is y and op.inputs[0] is x
    np.testing.assert_allclose(op.output_values[0], np.sin([1.0, 2.0]), rtol=1e-6)


def test_the_graph_finds_counter_named_light_tensors_by_name(fresh_names):
    # The fast path's unscoped counter names ("Sin_1") are kept in the live list only,
    # not the name index: the lookups find them there, built or not, until they die.
    x = tf.constant([1.0, 2.0], name="x")
    a, b, c = tf.sin(x), tf.sin(x), tf.sin(x)
    g = tf.compat.v1.get_default_graph()
    assert [t.name for t in (a, b, c)] == ["Sin:0", "Sin_1:0", "Sin_2:0"]
    assert "Sin_1" not in g._by_name and b._op is None
    assert g.get_tensor_by_name("Sin_1:0") is b and g.get_operation_by_name("Sin_2") is c.op
    assert [op.name for op in g.get_operations()] == ["x", "Sin", "Sin_1", "Sin_2"]
    assert b.op is g.get_operation_by_name("Sin_1")
    del b
    g.sweep()
    with pytest.raises(KeyError, match="'Sin_1' refers to an Operation not in the graph"):
        g.get_operation_by_name("Sin_1")
    assert [op.name for op in g.get_operations()] == ["x", "Sin", "Sin_2"]


def test_scoped_names_stay_unique_among_light_tensors(fresh_names):
    # Literals from main before light tensors (a scoped eager name is unique among live ops).
    x = tf.constant([1.0, 2.0], name="x")
    with tf.name_scope("s"):
        a, b = tf.sin(x), tf.sin(x)
    with tf.name_scope("s"):
        c = tf.sin(x)
    g = tf.compat.v1.get_default_graph()
    assert [t.name for t in (a, b, c)] == ["s/Sin:0", "s/Sin_1:0", "s_1/Sin:0"]
    assert g.get_tensor_by_name("s_1/Sin:0") is c
    assert sorted(op.name for op in g.get_operations() if op.name[0] == "s") == [
        "s/Sin",
        "s/Sin_1",
        "s_1/Sin",
    ]


def test_set_shape_on_a_light_tensor_before_and_after_its_op(fresh_names):
    x = tf.constant(np.ones((2, 3), np.float32))
    y = tf.sin(x)
    y.set_shape([2, None])
    assert y.shape.as_list() == [2, 3]
    with pytest.raises(ValueError):
        y.set_shape([3, 3])
    op = y.op
    y.set_shape([None, 3])
    assert op.output_shapes[0].as_list() == [2, 3] and y.shape.as_list() == [2, 3]


def test_light_history_is_kept_when_a_source_is_upstream(fresh_names):
    held = tf.constant(0.5)
    y = held
    for _ in range(3000):  # several sweeps: every op here is a light tensor
        y = y * 1.0
    # The held start is a source: the whole chain stays, and the gradient goes through it.
    assert y.op.inputs[0].op.inputs[0].op.type == "Mul"
    assert float(tf.gradients(y, held)[0]) == 1.0


def test_light_history_nobody_can_differentiate_is_cut_by_the_sweep(fresh_names):
    z = tf.constant(0.5) * 1.0  # nobody holds the start
    for _ in range(3000):
        z = z * 1.0
    # Cut at a sweep: z's history ends in a frozen Const within the last sweep's ops.
    ops, op = 0, z.op
    while op.inputs and op.type == "Mul":
        op, ops = op.inputs[0].op, ops + 1
    assert op.type == "Const" and ops < 3000


def _program(x):
    """Ops of the elementwise wrappers' light path and of its fallbacks, one a line."""
    line = _program.__code__.co_firstlineno + 3
    out = [tf.sin(x), x * 2.0, 2.0 * x, x + x, tf.tanh(x, name="t"), x - 3]
    with tf.name_scope("s"):
        out += [tf.sin(x), x * 2.0]
    out += [tf.sin(tf.sin(x)), tf.abs(x), x * 2.0]
    out += [tf.sin(x, name="Sin_3"), tf.sin(x), tf.sin(x)]  # a counter's name, by hand
    return out, line


def _record(monkeypatch, general):
    from symgrad.core import eager, fast_path, op_registry

    if general:  # apply_op's general path for every op, as before the light path
        monkeypatch.setattr(eager, "ERRSTATE", None)
        monkeypatch.setattr(fast_path, "ERRSTATE", None)
        monkeypatch.setattr(op_registry, "ERRSTATE", None)
    tf.compat.v1.reset_default_graph()
    x = tf.constant([1.0, -2.0], name="x")
    ts, line = _program(x)
    rows = []
    for t in ts:
        op = t.op
        rows.append((t.name, op.type, [i.name for i in op.inputs], op.traceback, op.attrs))
        np.testing.assert_array_equal(t.numpy(), op.output_values[0])
    monkeypatch.undo()
    return rows, line, [type(t).__name__ for t in ts], [t.numpy() for t in ts]


def test_the_light_path_names_and_locates_ops_as_the_general_path(monkeypatch):
    fast, line, kinds, values = _record(monkeypatch, general=False)
    general, _, general_kinds, general_values = _record(monkeypatch, general=True)
    assert fast == general
    assert kinds.count("EagerTensor") == 14 and general_kinds.count("EagerTensor") == 0
    for a, b in zip(values, general_values):
        np.testing.assert_array_equal(a, b)
    names = [r[0] for r in fast]
    assert names == [
        "Sin:0", "mul:0", "mul_1:0", "add:0", "t:0", "sub:0",
        "s/Sin:0", "s/mul:0", "Sin_2:0", "Abs:0", "mul_2:0", "Sin_3:0", "Sin_4:0", "Sin_4:0",
    ]  # fmt: skip
    lines = [r[3] for r in fast]
    assert lines[:6] == [(__file__, line)] * 6
    assert lines[6:8] == [(__file__, line + 2)] * 2 and lines[8:11] == [(__file__, line + 3)] * 3
    assert lines[11:] == [(__file__, line + 4)] * 3
    # (main names the two last Sin_4: the counter skips a name in use, and forgets it)
    tf.compat.v1.reset_default_graph()


def test_an_op_type_with_several_outputs_learns_to_skip_the_fast_path(monkeypatch):
    """The fast path takes one-output ops; the first eager call of an op type whose shape
    rule gives several outputs clears its ``fast`` flag, so later calls run the rule once
    (in the general path), with the same names and values."""
    from symgrad.core import eager
    from symgrad.core.op_registry import OPS

    xent = OPS["SoftmaxCrossEntropyWithLogits"]
    monkeypatch.setattr(xent, "fast", True)
    labels = tf.constant(np.eye(3, dtype=np.float32)[:2])
    logits = tf.constant(np.array([[0.5, 1.0, -1.0], [2.0, 0.0, 0.0]], np.float32))
    first = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert xent.fast is (eager.ERRSTATE is None)  # (no fast path to learn from: unchanged)
    second = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert first.name == "softmax_cross_entropy_with_logits/SoftmaxCrossEntropyWithLogits:0"
    assert second.name == "softmax_cross_entropy_with_logits_1/SoftmaxCrossEntropyWithLogits:0"
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    # TF 2.21 (log-sum-exp: within float32 rounding)
    np.testing.assert_allclose(first.numpy(), [1.0549569129943848, 2.2395448684692383], rtol=1e-6)


def test_ops_made_at_a_scripts_top_level_report_its_lines(tmp_path):
    # The outermost frame (a script's top level) is the user's: the fast path keeps its
    # line as (code, instruction) from the second op on, and every op reports its own.
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "prog.py"
    script.write_text(
        "import pathlib\n"
        "import symgrad as tf\n"
        "x = tf.constant([1.0, 2.0])\n"
        "ys = []\n"
        "for _ in range(3):\n"
        "    ys.append(x * 2.0)\n"
        "z = tf.sin(x)\n"
        "w = x + z\n"
        "files = {pathlib.Path(t.op.traceback[0]).name for t in (*ys, z, w)}\n"
        "print([y.op.traceback[1] for y in ys], z.op.traceback[1], w.op.traceback[1], files)\n"
    )
    env = dict(os.environ)
    src = str(Path(tf.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[6, 6, 6] 7 8 {'prog.py'}"
