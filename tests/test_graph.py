"""The graph IR: names, scopes, lookups, attrs, modes, printing, threads, deep graphs."""

import gc
import inspect
import resource
import sys
import threading
import weakref

import numpy as np
import pytest
from ulp import assert_ulp

import symgrad as tf


def test_op_and_tensor_names_are_unique_and_scoped():
    with tf.Graph().as_default() as g:
        a = tf.constant([[1.0, 2.0]])
        b = tf.constant([[3.0], [4.0]])
        m1 = tf.matmul(a, b)
        m2 = tf.matmul(a, b)
        w1 = tf.identity(a, name="w")
        w2 = tf.identity(a, name="w")
        with tf.name_scope("layer"):
            s = a + a
            with tf.name_scope("inner"):
                t = a * a
        with tf.name_scope("layer"):
            u = a - a
    assert (m1.op.name, m2.op.name) == ("MatMul", "MatMul_1")
    assert (m1.name, m2.name) == ("MatMul:0", "MatMul_1:0")
    assert (w1.op.name, w2.op.name) == ("w", "w_1")
    assert s.op.name == "layer/add" and t.op.name == "layer/inner/mul"
    assert u.op.name == "layer_1/sub"
    assert m1.op.type == "MatMul" and s.op.type == "AddV2" and t.op.type == "Mul"
    assert g.get_operation_by_name("MatMul_1") is m2.op
    assert g.get_tensor_by_name("MatMul_1:0") is m2
    assert m2.graph is g and m2.op.outputs[0] is m2 and m2.op.inputs[0] is a
    assert [o.name for o in g.get_operations()][:3] == ["Const", "Const_1", "MatMul"]
    with pytest.raises(KeyError, match="nope"):
        g.get_operation_by_name("nope")
    with pytest.raises(KeyError, match="MatMul:3"):
        g.get_tensor_by_name("MatMul:3")


def test_api_op_types_match_tensorflow():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        y = tf.placeholder(tf.float32, [3])
        types = {
            "AddV2": x + y,
            "Sub": x - y,
            "Mul": x * y,
            "RealDiv": x / y,
            "Neg": -x,
            "Pow": x**y,
            "Sum": tf.reduce_sum(x),
            "Mean": tf.reduce_mean(x, 1),
            "SelectV2": tf.where(x > y, x, y),
            "Identity": tf.identity(x),
            "StopGradient": tf.stop_gradient(x),
            "Cast": tf.cast(x, tf.float64),
            "Reshape": tf.reshape(x, [3, 2]),
            "Transpose": tf.transpose(x),
            "BatchMatMulV2": tf.matmul(tf.reshape(x, [1, 2, 3]), tf.reshape(y, [1, 3, 1])),
            "Greater": x > y,
        }
    for op_type, t in types.items():
        assert t.op.type == op_type


def test_get_attr_names_the_op_and_attr():
    a = tf.constant([[1.0]])
    m = tf.matmul(a, a, transpose_b=True)
    assert m.op.get_attr("transpose_b") is True and m.op.get_attr("transpose_a") is False
    with pytest.raises(ValueError, match=r"'MatMul.*' \(type MatMul\) has no attr named 'bogus'"):
        m.op.get_attr("bogus")


def test_eager_printing_matches_tensorflow_format():
    assert str(tf.constant(3.0)) == "symgrad.Tensor(3.0, shape=(), dtype=float32)"
    assert repr(tf.constant(3.0)) == "<symgrad.Tensor: shape=(), dtype=float32, numpy=3.0>"
    assert str(tf.constant([1, 2])) == "symgrad.Tensor([1 2], shape=(2,), dtype=int32)"
    assert str(tf.constant([[1.0, 2.0], [3.0, 4.0]])) == (
        "symgrad.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)"
    )
    assert repr(tf.constant([1.0, 2.0])) == (
        "<symgrad.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    )


def test_a_scalars_repr_and_an_f_string_read_as_tensorflows():
    """TF 2.21's literals: a scalar's repr shows its Python item (float32 0.1 is
    0.10000000149011612), a matrix's starts on its own line, and a value formats as its
    NumPy value (``f"{loss:.4f}"``); a symbolic tensor or a variable takes no format spec."""
    assert repr(tf.constant(0.1)).endswith("numpy=0.10000000149011612>")
    assert repr(tf.Variable(0.1)).endswith("numpy=0.10000000149011612>")
    assert repr(tf.constant([[1.0, 2.0], [3.0, 4.0]])) == (
        "<symgrad.Tensor: shape=(2, 2), dtype=float32, numpy=\n"
        "array([[1., 2.],\n       [3., 4.]], dtype=float32)>"
    )
    pi = tf.constant(3.14159)
    assert [f"{pi:.2f}", f"{pi}", f"{pi:>10.3f}", f"{pi:e}"] == [
        "3.14",
        "3.141590118408203",
        "     3.142",
        "3.141590e+00",
    ]
    assert [f"{tf.constant([1.0, 2.0])}", f"{tf.constant(True)}", f"{tf.constant(7):>4}"] == [
        "[1. 2.]",
        "True",
        "   7",
    ]
    with pytest.raises(TypeError, match="numpy.ndarray.__format__"):
        format(tf.constant([1.0, 2.0]), ".2f")
    with pytest.raises(TypeError, match="Variable.__format__"):
        format(tf.Variable(2.5), ".2f")
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2])
        assert f"{p}" == 'symgrad.Tensor("Placeholder:0", shape=(2,), dtype=float32)'
        with pytest.raises(TypeError, match="Tensor.__format__"):
            format(p, ".2f")


def test_modes_eager_symbolic_and_building():
    x = tf.constant(2.0) * 3.0
    assert x.numpy() == np.float32(6.0) and tf.executing_eagerly()
    p = tf.placeholder(tf.float32, [None, 2])
    q = p * 2.0
    assert not q.has_value() and q.shape.as_list() == [None, 2]
    with pytest.raises(ValueError, match="symbolic"):
        q.numpy()
    with tf.Graph().as_default():
        assert not tf.executing_eagerly()
        c = tf.constant(1.0) + 1.0
        assert not c.has_value()


def test_dtype_rules():
    assert tf.constant(1.0).dtype == tf.float32 and tf.constant(1).dtype == tf.int32
    assert tf.constant(np.float64(1.0)).dtype == tf.float64
    assert (tf.constant(1.0, tf.float64) + 1).dtype == tf.float64
    assert tf.placeholder("float").dtype == tf.float32
    with pytest.raises(TypeError, match="float64 that does not match dtype float32"):
        tf.constant(1.0) + tf.constant(1.0, tf.float64)
    with pytest.raises(TypeError, match="Cannot convert value 1.5 to a tensor of dtype int32"):
        tf.constant(1) + 1.5
    assert (tf.constant(3) / tf.constant(2)).numpy() == 1.5  # int truediv -> float64


def test_shape_errors_name_op_and_shapes():
    with pytest.raises(
        ValueError, match=r"AddV2 op 'add.*Incompatible shapes.*\(2, 3\) and \(4,\)"
    ):
        tf.ones([2, 3]) + tf.ones([4])
    with pytest.raises(ValueError, match=r"MatMul.*inner dimensions 3 and 4 differ"):
        tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]))
    with pytest.raises(ValueError, match=r"Reshape.*Cannot reshape a tensor with 6 elements"):
        tf.reshape(tf.ones([2, 3]), [4])
    with pytest.raises(ValueError, match=r"perm \[0, 0\] is not a permutation"):
        tf.transpose(tf.ones([2, 3]), [0, 0])
    with pytest.raises(ValueError, match="Invalid reduction dimension 2"):
        tf.reduce_sum(tf.ones([2, 3]), axis=2)


def test_kernel_failures_are_wrapped_with_the_op():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"FloorDiv op 'floordiv.*division"):
        tf.constant([1, 2]) // tf.constant([1, 0])


def test_eager_ops_are_not_kept_alive_by_the_top_level_graph():
    t = tf.constant(1.0) + 1.0
    ref = weakref.ref(t.op)
    del t
    gc.collect()
    assert ref() is None


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def test_eager_loop_of_a_million_ops_runs_in_constant_memory():
    x = tf.constant(np.ones(4, np.float32))

    def step(n):
        for _ in range(n):
            y = x * 2.0 + 1.0  # noqa: F841  4 ops: two scalar Consts, Mul, AddV2; then dropped

    step(25_000)  # 100,000 ops: warm-up, the peak settles
    before = _peak_rss_mib()
    step(225_000)  # 900,000 more ops: a million in all
    grown = _peak_rss_mib() - before
    # Kept alive, a million ops would take hundreds of MiB (about 0.5 KiB each).
    assert grown < 16, f"peak memory grew by {grown:.1f} MiB over 900,000 eager ops"


def test_hundred_thousand_op_chain_builds_runs_and_differentiates():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [])
        y = x
        for _ in range(100_000):
            y = y * 1.0
        (g,) = tf.gradients(y, x)
        with tf.Session() as sess:
            yv, gv = sess.run([y, g], feed_dict={x: 3.0})
    assert yv == 3.0 and gv == 1.0


def test_one_graph_run_by_several_threads():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [3])
        y = tf.reduce_sum(tf.square(x))
    sess = tf.Session(graph=g)
    results = {}

    def work(i):
        results[i] = [sess.run(y, {x: np.full(3, float(i))}) for _ in range(200)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        assert all(v == 3 * i * i for v in results[i])


def test_default_graph_and_scopes_are_per_thread():
    g = tf.Graph()
    seen = {}
    with g.as_default():

        def other():
            seen["graph"] = tf.get_default_graph()

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert tf.get_default_graph() is g
    assert seen["graph"] is not g and seen["graph"].eager


def test_python_scalars_of_eager_tensors():
    """float(), int() and indexing with a one-element eager tensor, as TF's EagerTensor."""
    assert float(tf.constant(2.5)) == 2.5 and type(float(tf.constant(2.5))) is float
    assert int(tf.constant([[7]])) == 7
    assert [10, 20, 30][tf.constant(2)] == 30
    assert f"{float(tf.reduce_sum(tf.constant([1.0, 2.0]))):.1f}" == "3.0"
    with pytest.raises(TypeError, match="one element, got shape"):
        float(tf.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="Only integer tensors"):
        [1, 2][tf.constant(1.0)]
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [])
        with pytest.raises(TypeError, match="symbolic Tensor .*Placeholder:0"):
            float(p)


def test_ops_record_the_line_of_the_users_code_that_made_them():
    with tf.Graph().as_default():
        line = inspect.currentframe().f_lineno + 1
        y = tf.sin(tf.constant(1.0))
    assert y.op.location == f"{__file__}:{line}"
    # Code of any other file is the user's too, here code compiled under a made-up name;
    # the eager call of a traced function is made at the caller's line.
    ns = {"tf": tf}
    exec(compile("def f(x):\n    return tf.cos(x)\n", "<user-module>", "exec"), ns)
    assert ns["f"](tf.constant(1.0)).op.location == "<user-module>:2"
    g = tf.function(lambda x: x * 2.0)
    line = inspect.currentframe().f_lineno + 1
    out = g(tf.constant(1.0))
    assert out.op.type == "PartitionedCall" and out.op.location == f"{__file__}:{line}"


def test_a_users_line_is_remembered_per_instruction_and_a_tracer_reads_its_own():
    """Graph ops read the user's line through a cache keyed by (code, instruction): each
    call site keeps its own line, a loop's one site one line, and under a tracer (a
    debugger or coverage) the line comes from the frame itself."""

    def build() -> list[str]:
        out = []
        for _ in range(2):
            out.append(tf.sin(tf.constant(1.0)).op.location)
        out.append(tf.cos(tf.constant(1.0)).op.location)
        return out

    first = inspect.getsourcelines(build)[1]
    want = [f"{__file__}:{first + 3}"] * 2 + [f"{__file__}:{first + 4}"]
    with tf.Graph().as_default():
        assert build() == want
        assert build() == want  # the remembered lines
        old = sys.gettrace()
        sys.settrace(lambda *a: None)
        try:
            assert build() == want
        finally:
            sys.settrace(old)


def test_a_name_ending_in_a_slash_is_the_ops_whole_name():
    """TF's create_op: ``name="a/"`` (a scope's name, as ``name_scope`` returns it) names
    the op "a" itself, not "a/a/"; a second op of that name is refused, as TF's
    "Duplicate node name in graph"."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        with tf.name_scope("a") as scope:
            assert (tf.identity(x, name=scope).name, tf.identity(x).name) == (
                "a:0",
                "a/Identity:0",
            )
        with tf.name_scope("c") as scope:
            assert tf.group(x, name=scope).name == "c"
        with pytest.raises(ValueError, match="Duplicate node name in graph: 'a'"):
            tf.identity(x, name="a/")


def test_a_functions_default_op_name_is_tfs_not_its_operators():
    """TF 2.21: ``tf.multiply`` names its op "Mul" where ``x * y`` names it "mul" (one
    counter for both, as names are unique ignoring case), and so add/Add, sub/Sub,
    pow/Pow, mod/FloorMod; the other functions share their operator's name."""
    with tf.Graph().as_default():
        a, b = tf.constant([1.0]), tf.constant([2.0])
        names = [
            t.name
            for t in (
                tf.multiply(a, b),
                a * b,
                tf.add(a, b),
                a + b,
                tf.subtract(a, b),
                a - b,
                tf.pow(a, b),
                a**b,
                tf.math.floormod(a, b),
                a % b,
                tf.divide(a, b),
                a / b,
                tf.multiply(2.0, a),
            )
        ]
    assert names == [
        "Mul:0",
        "mul_1:0",
        "Add:0",
        "add_1:0",
        "Sub:0",
        "sub_1:0",
        "Pow:0",
        "pow_1:0",
        "FloorMod:0",
        "mod:0",
        "truediv:0",
        "truediv_1:0",
        "Mul_2:0",
    ]


def test_eager_values_outlive_reset_default_graph():
    """TF's eager tensors belong to no graph: one made before reset_default_graph() is still
    usable after it (as a constant of the new top-level graph)."""
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    tf.reset_default_graph()
    y = tf.matmul(x, x)
    np.testing.assert_allclose(y.numpy(), [[7.0, 10.0], [15.0, 22.0]])
    with tf.GradientTape() as tape:
        tape.watch(y)
        z = tf.reduce_sum(y * x)
    np.testing.assert_allclose(tape.gradient(z, y).numpy(), [[1.0, 2.0], [3.0, 4.0]])


def test_graph_collection_methods_and_finalize():
    """TF 2.21's ``Graph`` collection methods and ``finalize`` (the same program run on TF:
    a finalized graph takes no new op, with TF's RuntimeError)."""
    g = tf.Graph()
    with g.as_default():
        w = tf.compat.v1.get_variable("w", initializer=tf.constant([[1.0], [2.0]]))
        c = tf.constant(1.0, name="c")
    g.add_to_collection("mine", c)
    g.add_to_collections(["a", "b"], 3)
    assert g.get_collection("mine") == [c] and g.get_collection_ref("a") == [3]
    assert g.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES) == [w]
    assert g.get_collection("mine", scope="x") == [] and g.get_collection("nothing") == []
    assert set(g.get_all_collection_keys()) == {
        "mine",
        "a",
        "b",
        "variables",
        "trainable_variables",
    }
    g.clear_collection("a")
    assert g.get_collection("a") == [] and "a" not in g.get_all_collection_keys()
    assert not g.finalized
    g.finalize()
    assert g.finalized
    with (
        g.as_default(),
        pytest.raises(RuntimeError, match="^Graph is finalized and cannot be modified.$"),
    ):
        tf.constant(2.0)
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(w.initializer)  # running is not modifying
        np.testing.assert_array_equal(sess.run(w), [[1.0], [2.0]])


def test_a_finalized_graph_still_trains_saves_and_restores(tmp_path):
    """TF's Saver makes its restore ops when it is made, and a variable's read exists with
    it: a graph finalized after building them still runs, saves and restores (TF 2.21's
    losses and restored values for this program)."""
    tf1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 2])
        w = tf1.get_variable("w", initializer=tf.constant([[1.0], [2.0]]))
        loss = tf.reduce_sum(tf.matmul(x, w) ** 2)
        gs = tf1.train.get_or_create_global_step()
        train = tf1.train.AdamOptimizer(0.1).minimize(loss, global_step=gs)
        init = tf1.global_variables_initializer()
        saver = tf1.train.Saver()
    g.finalize()
    with tf1.Session(graph=g) as s:
        s.run(init)
        losses = [s.run([loss, train], {x: [[1, 1]]})[0] for _ in range(3)]
        path = saver.save(s, str(tmp_path / "m"), global_step=gs)
        s.run(init)
        saver.restore(s, path)
        restored, step = s.run(w), s.run(gs)
    assert_ulp(losses, np.float32([9.0, 7.8399997, 6.7624893]), ulps=4)
    assert_ulp(restored.ravel(), np.float32([0.7009039, 1.7009038]), ulps=4)
    assert path.endswith("m-3") and step == 3
