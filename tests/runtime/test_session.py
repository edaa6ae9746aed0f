"""Session.run: fetch structures, feeds and their errors, plans, variables, InteractiveSession."""

import collections

import numpy as np
import pytest

import symgrad as tf


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def test_nested_fetches_keep_their_structure(graph):
    a = tf.constant(1.0)
    b = tf.constant([2, 3])
    Pair = collections.namedtuple("Pair", "x y")
    with tf.Session() as sess:
        out = sess.run({"a": a, "rest": [b, (a, "Const:0")], "pair": Pair(a, b)})
    assert out["a"] == 1.0 and isinstance(out["a"], np.float32)
    assert out["rest"][0].tolist() == [2, 3] and out["rest"][1] == (1.0, 1.0)
    assert isinstance(out["pair"], Pair) and out["pair"].y.tolist() == [2, 3]


def test_flat_fetches_keep_their_container_type_on_every_run(graph):
    x = tf.placeholder(tf.float32, [2])
    y, z = x * 2.0, tf.reduce_sum(x)
    v = tf.Variable(0.0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        for k in (1.0, 2.0):  # the second run reuses the prepared call
            feed = {x: [k, 3.0]}
            out = sess.run((y, z), feed)
            assert isinstance(out, tuple) and out[0].tolist() == [2 * k, 6.0] and out[1] == k + 3
            out = sess.run([z, v.assign_add(1.0).op, y], feed)
            assert isinstance(out, list) and out[0] == k + 3 and out[1] is None
            assert out[2].tolist() == [2 * k, 6.0]
            assert sess.run(z, feed) == k + 3
        assert sess.run(v) == 2.0


def test_fetching_an_op_returns_none_and_runs_it(graph):
    v = tf.Variable(1.0)
    with tf.Session() as sess:
        assert sess.run(v.initializer) is None
        assert sess.run(v.assign_add(2.0).op) is None
        assert sess.run(v) == 3.0


def test_feeds_by_tensor_and_name_with_conversion(graph):
    x = tf.placeholder(tf.float32, [None, 2], name="xin")
    y = tf.reduce_sum(x * 2.0)
    with tf.Session() as sess:
        assert sess.run(y, {x: np.ones((3, 2), np.float64)}) == 12.0
        assert sess.run(y, {"xin:0": [[1.0, 2.0]]}) == 6.0


def test_missing_feed_names_the_placeholder(graph):
    x = tf.placeholder(tf.float32, [2, 1], name="my_input")
    with (
        tf.Session() as sess,
        pytest.raises(
            tf.errors.InvalidArgumentError,
            match=r"You must feed a value for placeholder tensor 'my_input' with dtype float "
            r"and shape \[2,1\]",
        ),
    ):
        sess.run(x * 2.0)
    y = tf.placeholder(tf.float64, [None, 3])  # TF names dtypes as C++ does: double
    with (
        tf.Session() as sess,
        pytest.raises(
            tf.errors.InvalidArgumentError, match=r"with dtype double and shape \[\?,3\]"
        ),
    ):
        sess.run(y)


def test_feed_errors(graph):
    x = tf.placeholder(tf.float32, [2, 1], name="my_input")
    i = tf.placeholder(tf.int32, [2])
    with tf.Session() as sess:
        with pytest.raises(
            ValueError,
            match=r"Cannot feed value of shape \(3,\) for Tensor "
            r"my_input:0, which has shape \(2, 1\)",
        ):
            sess.run(x, {x: [1.0, 2.0, 3.0]})
        with pytest.raises(TypeError, match="Cannot convert .*1.5.* int32"):
            sess.run(i, {i: [1.5, 2.0]})
        with pytest.raises(TypeError, match="feed_dict keys must be Tensors"):
            sess.run(x, {x.op: [[1.0], [2.0]]})
        with pytest.raises(TypeError, match=r"Cannot be None.*symgrad.why_none\(ys, xs\)"):
            sess.run(None)
        with pytest.raises(TypeError, match="invalid type 'int'"):
            sess.run(3)


def test_any_tensor_can_be_fed(graph):
    x = tf.placeholder(tf.float32, [])
    m = x * 3.0
    y = m + 1.0
    with tf.Session() as sess:
        assert sess.run(y, {m: 10.0}) == 11.0  # feeds are always honoured


def test_plans_are_compiled_once_and_pruned(graph):
    x = tf.placeholder(tf.float32, [])
    y = x * 2.0
    unrelated = tf.placeholder(tf.float32, []) + 1.0  # never needed: not in the plan
    with tf.Session() as sess:
        for v in range(5):
            assert sess.run(y, {x: float(v)}) == 2.0 * v
        assert len(sess._plans) == 1
        plan = next(iter(sess._plans.values()))
        assert [s[4].type for s in plan.steps] == ["Mul"]
        assert unrelated.op not in plan.ops


def test_a_repeated_run_reuses_its_preparation_and_still_checks_feeds(graph):
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.reduce_sum(x * 2.0)
    fetches = [y, y * 1.0]
    with tf.Session() as sess:
        for v in (1.0, 2.0):  # the second run takes the prepared path
            assert sess.run(fetches, {x: np.full(2, v, np.float32)}) == [4 * v, 4 * v]
        assert len(sess._calls) == 1
        assert sess.run(fetches, {x: [1, 2]}) == [6.0, 6.0]  # a list is converted
        assert sess.run(fetches, {x: np.ones(2, np.float64)}) == [4.0, 4.0]  # and a float64
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\)"):
            sess.run(fetches, {x: np.ones(3, np.float32)})
        fetches[1] = y + 1.0  # the same list object, other contents: a new preparation
        assert sess.run(fetches, {x: np.ones(2, np.float32)}) == [4.0, 5.0]


def test_intermediate_buffers_are_freed_after_last_use(graph):
    x = tf.placeholder(tf.float32, [3])
    y = tf.exp(tf.sin(x) * 2.0)
    with tf.Session() as sess:
        sess.run(y, {x: np.zeros(3)})
        plan = next(iter(sess._plans.values()))
    freed = [s for step in plan.steps for s in step[3]]
    assert len(freed) >= 2  # sin's and mul's outputs are dropped once read


def test_closed_session_and_uninitialized_variable(graph):
    v = tf.Variable(1.0, name="w")
    sess = tf.Session()
    with pytest.raises(
        tf.errors.FailedPreconditionError, match="variable 'w:0': it is uninitialized"
    ):
        sess.run(v)
    sess.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        sess.run(v)


def test_session_reexecutes_from_sources_and_reads_variables_now():
    v = tf.Variable(2.0)
    y = v * 3.0  # eager: a snapshot 6.0
    assert y.numpy() == 6.0
    v.assign(5.0)
    with tf.Session() as sess:
        assert sess.run(y) == 15.0  # re-executed: reads v as it is now
    assert y.numpy() == 6.0


def test_interactive_session_eval_and_run():
    sess = tf.InteractiveSession()
    try:
        x = tf.placeholder(tf.float32, [2])
        v = tf.Variable([1.0, 2.0])
        tf.global_variables_initializer().run()
        assert (x * v).eval({x: [3.0, 4.0]}).tolist() == [3.0, 8.0]
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_variable_api():
    v = tf.Variable([1.0, 2.0], name="vec")
    assert v.name.startswith("vec") and v.dtype == tf.float32 and v.shape == (2,)
    v.assign_add([1.0, 1.0])
    v.assign_sub([0.5, 0.5])
    np.testing.assert_allclose(v.numpy(), [1.5, 2.5])
    assert v.read_value().numpy().tolist() == [1.5, 2.5]
    assert (v + 1.0).numpy().tolist() == [2.5, 3.5]
    assert tf.Variable(3.0, trainable=False) not in tf.trainable_variables()
    with pytest.raises(
        ValueError,
        match=r"Shape mismatch.The variable shape \(2,\), and the "
        r"assigned value shape \(3,\) are incompatible",
    ):
        v.assign([1.0, 2.0, 3.0])
