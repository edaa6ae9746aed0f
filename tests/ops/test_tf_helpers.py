"""TF's small helpers (tf.is_tensor, get_static_value, ensure_shape, shape_n, broadcast_*_shape,
realdiv, truncatemod, saturate_cast, unravel_index, math.is_non_decreasing /
is_strictly_increasing, math.polyval, math.accumulate_n) against TensorFlow 2.21.

Every literal below was printed by TF 2.21 for the same call; the error types and texts are
TF's (eager: the kernel's; in a graph: its shape inference's).  Gradients are checked against
TF's literals and, to second order, against float64 finite differences (``check_vjp``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import symgrad as tf


def _raises(kind: type[Exception], text: str, fn: Any) -> None:
    with pytest.raises(kind) as e:
        fn()
    assert text in str(e.value), str(e.value)


def test_is_tensor_and_get_static_value() -> None:
    assert tf.is_tensor(tf.constant(1)) and tf.is_tensor(tf.Variable(1.0))
    assert not tf.is_tensor(np.ones(2)) and not tf.is_tensor(1)
    np.testing.assert_array_equal(tf.get_static_value(tf.constant([1, 2])), [1, 2])
    assert tf.get_static_value([1, 2]) == [1, 2] and tf.get_static_value(3) == 3
    assert tf.get_static_value(tf.Variable([1.0, 2.0])) is None  # a variable may change
    seen: dict[str, Any] = {}

    @tf.function
    def f(x: Any, y: Any) -> Any:
        seen["partial"] = tf.get_static_value(tf.stack([x, 3]), partial=True)
        seen["pack"] = tf.get_static_value(tf.stack([x, 3]))
        seen["shape"] = tf.get_static_value(tf.shape(y))
        seen["size"] = tf.get_static_value(tf.size(y))
        seen["rank"] = tf.get_static_value(tf.rank(y))
        seen["x"] = tf.get_static_value(x)
        return x

    f.get_concrete_function(tf.TensorSpec([], tf.int32), tf.TensorSpec([2, 3]))
    # TF: array([None, array(3, dtype=int32)], dtype=object) None [2 3] 6 2 None
    assert seen["partial"].dtype == object and seen["partial"][0] is None
    assert seen["partial"][1] == 3 and seen["pack"] is None and seen["x"] is None
    np.testing.assert_array_equal(seen["shape"], np.array([2, 3], np.int32))
    assert seen["size"] == 6 and seen["rank"] == 2


def test_ensure_shape_values_errors_and_gradient() -> None:
    x = tf.zeros([2, 3])
    assert tf.ensure_shape(x, [2, None]).shape == [2, 3]
    assert tf.ensure_shape(x, None).shape == [2, 3]
    _raises(
        tf.errors.InvalidArgumentError,
        "Shape of tensor input [2,3] is not compatible with expected shape [2,4].",
        lambda: tf.ensure_shape(x, [2, 4]),
    )
    _raises(
        tf.errors.InvalidArgumentError,
        "Shape of tensor input [2,3] is not compatible with expected shape [?].",
        lambda: tf.ensure_shape(x, [None]),
    )
    f = tf.function(lambda x: tf.ensure_shape(x, [None, 3]))
    _raises(
        ValueError,
        "Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are [?,3] and [2,4].",
        lambda: f(tf.zeros([2, 4])),
    )
    with tf.Graph().as_default():
        ph = tf.compat.v1.placeholder(tf.float32, [None, 2])
        e = tf.ensure_shape(ph, [3, None])
        assert e.name == "EnsureShape:0" and e.shape == [3, 2]  # TF: EnsureShape:0 (3, 2)
        with tf.compat.v1.Session() as s:
            _raises(
                tf.errors.InvalidArgumentError,
                "Shape of tensor input [4,2] is not compatible with expected shape [3,?].",
                lambda: s.run(e, {ph: np.ones([4, 2])}),
            )
    v = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(v)
        y = tf.ensure_shape(v * v, [2])
    np.testing.assert_array_equal(t.gradient(y, v).numpy(), [2.0, 4.0])  # TF: [2. 4.]
    tf.test.check_vjp(lambda a: tf.ensure_shape(tf.sin(a), [3, None]), [np.ones([3, 2])], order=2)


def test_shape_n_and_broadcast_shapes() -> None:
    a, b = tf.shape_n([tf.zeros([2, 3]), tf.zeros([4])])
    np.testing.assert_array_equal(a.numpy(), [2, 3])
    np.testing.assert_array_equal(b.numpy(), [4])
    (c,) = tf.shape_n([tf.zeros([2, 3])], out_type=tf.int64)
    assert c.dtype == tf.int64
    _raises(tf.errors.InvalidArgumentError, "Value for attr 'N' of 0", lambda: tf.shape_n([]))
    with tf.Graph().as_default():
        s = tf.shape_n([tf.ones([2]), tf.ones([3, 1])])
        assert [s[0].op.type, s[0].name, s[1].name] == ["ShapeN", "ShapeN:0", "ShapeN:1"]
    shape = tf.TensorShape
    assert tf.broadcast_static_shape(shape([2, 1, 3]), shape([4, 1])) == [2, 4, 3]
    assert tf.broadcast_static_shape(shape([None, 1, 3]), shape([4, 1])).as_list() == [
        None,
        4,
        3,
    ]
    assert tf.broadcast_static_shape(shape(None), shape([4, 1])).rank is None
    _raises(
        ValueError,
        "Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension "
        "pair they are either equal or one of them is 1. Received: (2, 3) and (4,).",
        lambda: tf.broadcast_static_shape(shape([2, 3]), shape([4])),
    )
    _raises(
        AttributeError,
        "'list' object has no attribute 'ndims'",
        lambda: tf.broadcast_static_shape([2, 3], [3]),
    )
    np.testing.assert_array_equal(tf.broadcast_dynamic_shape([2, 1, 3], [4, 1]).numpy(), [2, 4, 3])
    d = tf.broadcast_dynamic_shape(tf.constant([2, 1], tf.int64), tf.constant([3], tf.int64))
    assert d.dtype == tf.int64 and d.numpy().tolist() == [2, 3]
    err = tf.errors.InvalidArgumentError
    _raises(
        err, "Incompatible shapes: [2,3] vs. [4]", lambda: tf.broadcast_dynamic_shape([2, 3], [4])
    )
    _raises(err, "must be rank 1", lambda: tf.broadcast_dynamic_shape([[2, 3]], [4]))
    _raises(
        err,
        "int64",
        lambda: tf.broadcast_dynamic_shape(tf.constant([2, 3]), tf.constant([4], tf.int64)),
    )


def test_realdiv_and_truncatemod() -> None:
    np.testing.assert_array_equal(
        tf.realdiv(tf.constant([1.0, 2.0]), 3.0).numpy(), np.float32([0.33333334, 0.6666667])
    )
    err = tf.errors.InvalidArgumentError
    _raises(err, "float64", lambda: tf.realdiv(tf.constant([1.0]), tf.constant([1.0], tf.float64)))
    got = tf.truncatemod(tf.constant([7, -7, 7, -7]), tf.constant([3, 3, -3, -3]))
    np.testing.assert_array_equal(got.numpy(), [1, -1, 1, -1])  # TF: [ 1 -1  1 -1]
    got = tf.truncatemod(tf.constant([7.5, -7.5, 7.5, -7.5]), tf.constant([2.0, 2.0, -2.0, -2.0]))
    np.testing.assert_array_equal(got.numpy(), [1.5, -1.5, 1.5, -1.5])
    assert np.isnan(tf.truncatemod(tf.constant([7.0]), tf.constant([0.0])).numpy()[0])
    _raises(
        tf.errors.InternalError,
        "Unexpected error in binary operator (only integer div and mod should have errors)",
        lambda: tf.truncatemod(tf.constant([7]), tf.constant([0])),
    )
    _raises(err, "bool", lambda: tf.truncatemod(tf.constant([True]), tf.constant([True])))
    x = tf.constant([7.5, -7.3])
    with tf.GradientTape() as t:
        t.watch(x)
        z = tf.truncatemod(x, 2.0)
    _raises(LookupError, "TruncateMod", lambda: t.gradient(z, x))  # TF registers none


def test_saturate_cast_values_and_gradient() -> None:
    cases = [
        (tf.constant([-1.5, 300.7, 100.2]), tf.uint8, [0, 255, 100]),
        (tf.constant([1e10, -1e10]), tf.int32, [2147483520, -2147483648]),
        (tf.constant([70000, -5]), tf.int16, [32767, -5]),
        (tf.constant([1e300, -1e300], tf.float64), tf.float32, [3.4028235e38, -3.4028235e38]),
        (tf.constant([3.0 + 4j]), tf.float32, [3.0]),
        (tf.constant([-3, 300]), tf.uint8, [0, 255]),
        (tf.constant([2**31 - 1], tf.int32), tf.float32, [2.1474836e09]),
        (tf.constant([1e10, -1e10, np.nan]), tf.int64, [10000000000, -10000000000, -(2**63)]),
    ]
    for value, dtype, want in cases:
        got = tf.saturate_cast(value, dtype)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.numpy(), np.array(want, dtype.np))
    x = tf.constant([-1.5, 3.0, 70000.0])
    with tf.GradientTape() as t:
        t.watch(x)
        z = tf.saturate_cast(x, tf.float16)
    np.testing.assert_array_equal(t.gradient(z, x).numpy(), [1.0, 1.0, 0.0])  # clamped: 0
    with tf.Graph().as_default():
        assert tf.saturate_cast(tf.ones([3]), tf.uint8).name == "saturate_cast:0"


def test_unravel_index() -> None:
    got = tf.unravel_index(tf.constant([0, 5, 11]), tf.constant([3, 4]))
    np.testing.assert_array_equal(got.numpy(), [[0, 1, 2], [0, 1, 3]])
    np.testing.assert_array_equal(tf.unravel_index(7, [3, 4]).numpy(), [1, 3])
    got = tf.unravel_index(tf.constant([1, 5], tf.int64), tf.constant([2, 3], tf.int64))
    assert got.dtype == tf.int64 and got.numpy().tolist() == [[0, 1], [1, 2]]
    # TF does not check negative indices: C++'s / and % give [[0], [-1]].
    np.testing.assert_array_equal(tf.unravel_index(tf.constant([-1]), [3, 4]).numpy(), [[0], [-1]])
    err = tf.errors.InvalidArgumentError
    for args, text in [
        (([12], [3, 4]), "index is out of bound as with dims"),
        (
            ([1], [3, 0]),
            "Input dims cannot contain a dim of zero, but dims contains zero at index 1",
        ),
        (([1], [3, -4]), "Input dims cannot be negative. Got dim = -4 at index 1"),
        (([[1, 2], [3, 4]], [2, 3]), 'The indices can only be scalar or vector, got "[2,2]"'),
        (([1], [[3, 4]]), 'The indices can only be 1-D, got "[1,2]"'),
        (([1.0], [3, 4]), "float32"),
    ]:
        _raises(err, text, lambda a=args: tf.unravel_index(tf.constant(a[0]), a[1]))


def test_monotonic() -> None:
    m = tf.math
    assert bool(m.is_non_decreasing([1, 2, 2, 3])) and not bool(
        m.is_non_decreasing([[1, 2], [0, 4]])
    )
    assert not bool(m.is_strictly_increasing([1, 2, 2]))
    assert bool(m.is_strictly_increasing([1.0, 2.0, 3.0]))
    assert bool(m.is_strictly_increasing([])) and bool(m.is_non_decreasing(5))
    _raises(
        TypeError,
        "Expected x to be numeric, instead found: ",
        lambda: m.is_non_decreasing([True, False]),
    )
    assert tf.compat.v1.debugging.is_non_decreasing is m.is_non_decreasing
    with tf.Graph().as_default():
        assert m.is_non_decreasing(tf.ones([3])).name == "is_non_decreasing/All:0"
        # TF wraps the difference in a StatelessIf; symgrad needs none (docs/semantics.md).
        assert "StatelessIf" not in [o.type for o in tf.get_default_graph().get_operations()]


def test_polyval_values_and_gradients() -> None:
    assert float(tf.math.polyval([2.0, 3.0, 4.0], 2.0)) == 18.0
    got = tf.math.polyval([tf.constant([1.0, 2.0]), 3.0], tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(got.numpy(), [[4.0, 7.0], [6.0, 11.0]])
    zero = tf.math.polyval([], 3.0)
    assert zero.dtype == tf.float32 and float(zero) == 0.0
    assert int(tf.math.polyval([2, 3], 3)) == 9
    for bad in [tf.constant([1.0, 2.0]), (1.0, 2.0)]:
        _raises(
            ValueError,
            "Argument coeffs must be list type. Received type",
            lambda b=bad: tf.math.polyval(b, 3.0),
        )
    c = [tf.constant(2.0), tf.constant(3.0), tf.constant(4.0)]
    x = tf.constant([1.5, -0.5])
    with tf.GradientTape() as t:
        t.watch([c, x])
        z = tf.math.polyval(c, x)
    gc, gx = t.gradient(z, [c, x])
    assert [float(g) for g in gc] == [2.5, 1.0, 2.0]  # TF: 2.5, 1.0, 2.0
    np.testing.assert_array_equal(gx.numpy(), [9.0, 1.0])  # TF: [9. 1.]
    with tf.Graph().as_default():
        assert tf.math.polyval([1.0, 2.0], tf.ones([3])).name == "polyval/add:0"
    rng = np.random.default_rng(0)
    tf.test.check_vjp(
        lambda a, b, x: tf.math.polyval([a, b, a * b], x),
        [rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal((2, 3))],
        order=2,
    )


def test_accumulate_n() -> None:
    got = tf.math.accumulate_n([tf.ones([2]), tf.ones([2]) * 2])
    np.testing.assert_array_equal(got.numpy(), [3.0, 3.0])
    got = tf.math.accumulate_n([tf.ones([2])], shape=[2], tensor_dtype=tf.float32)
    np.testing.assert_array_equal(got.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(tf.math.accumulate_n([[1.0, 2.0]]).numpy(), [1.0, 2.0])
    msg = "inputs must be a list of at least one Tensor with the same dtype and shape"
    _raises(ValueError, msg, lambda: tf.math.accumulate_n([]))
    _raises(ValueError, msg, lambda: tf.math.accumulate_n([tf.ones([2]), tf.ones([2], tf.float64)]))
    _raises(
        ValueError,
        "Shapes (2,) and (3,) are not compatible",
        lambda: tf.math.accumulate_n([tf.ones([2]), tf.ones([3])]),
    )
    _raises(
        ValueError,
        "Shapes (3,) and (2,) are not compatible",
        lambda: tf.math.accumulate_n([tf.ones([2])], shape=[3]),
    )
    _raises(
        TypeError,
        "The `tensor_dtype` argument is <dtype: 'int32'>, but `input` is of type "
        "<dtype: 'float32'>. These must be equal.",
        lambda: tf.math.accumulate_n([tf.ones([2])], tensor_dtype=tf.int32),
    )
    assert tf.compat.v1.accumulate_n is tf.math.accumulate_n
    with tf.Graph().as_default() as g:
        tf.math.accumulate_n([tf.ones([2]), tf.ones([2])])
        assert [o.type for o in g.get_operations()][-1] == "AddN"  # TF: Const, Const, AddN


def test_crelu_and_normalize_moments() -> None:
    x = tf.constant([[1.5, -0.5, 2.0], [-1.0, 0.25, -3.0]], tf.float64)
    w = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        c = tf.nn.crelu(x)
        loss = tf.reduce_sum(c * tf.concat([w, -w], 1))
    want = [[1.5, 0.0, 2.0, 0.0, 0.5, 0.0], [0.0, 0.25, 0.0, 1.0, 0.0, 3.0]]  # TF's
    np.testing.assert_array_equal(c.numpy(), want)
    np.testing.assert_array_equal(t.gradient(loss, x).numpy(), w.numpy())  # TF: w itself
    assert tf.nn.crelu(x, axis=0).shape == [4, 3]
    assert tf.compat.v1.nn.crelu(x, None, 0).shape == [4, 3]  # TF1: (features, name, axis)
    tf.test.check_vjp(lambda a: tf.nn.crelu(a, axis=0), [np.linspace(-1.3, 1.1, 6).reshape(2, 3)])
    n, m_ss, v_ss = (tf.constant(v, tf.float64) for v in (4.0, [2.0, -1.0], [5.0, 3.0]))
    m, v = tf.nn.normalize_moments(n, m_ss, v_ss, None)
    assert m.numpy().tolist() == [0.5, -0.25] and v.numpy().tolist() == [1.0, 0.6875]  # TF's
    m, v = tf.nn.normalize_moments(n, m_ss, v_ss, tf.constant(0.5, tf.float64))
    assert m.numpy().tolist() == [1.0, 0.25] and v.numpy().tolist() == [1.0, 0.6875]
    with tf.Graph().as_default():
        assert tf.nn.crelu(tf.ones([2, 3])).name == "CRelu/Relu:0"
        m, v = tf.nn.normalize_moments(tf.constant(4.0), tf.ones([2]), tf.ones([2]), 0.5)
        assert (m.name, v.name) == ("normalize/mean:0", "normalize/variance:0")


def test_sufficient_statistics() -> None:
    x = tf.constant([[1.5, -0.5, 2.0], [-1.0, 0.25, -3.0]], tf.float64)

    def values(r: Any) -> list[Any]:
        return [None if v is None else np.asarray(v).tolist() for v in r]

    # TF's numbers:
    assert values(tf.nn.sufficient_statistics(x, [0])) == [
        2.0,
        [0.5, -0.25, -1.0],
        [3.25, 0.3125, 13.0],
        None,
    ]
    shift = tf.constant(0.5, tf.float64)
    got = tf.nn.sufficient_statistics(x, [-1], shift=shift, keepdims=True)
    assert values(got) == [3.0, [[1.5], [-5.25]], [[4.25], [14.5625]], 0.5]
    got = tf.compat.v1.nn.sufficient_statistics(x, [0], None, True)  # TF1: keep_dims 4th
    assert np.asarray(got[1]).shape == (1, 3)
    with tf.Graph().as_default():
        r = tf.nn.sufficient_statistics(tf.ones([2, 3]), [0], shift=1.0)
        assert [t.name for t in r] == [
            "sufficient_statistics/Const:0",
            "sufficient_statistics/mean_ss:0",
            "sufficient_statistics/var_ss:0",
            "sufficient_statistics/shift:0",
        ]
        p = tf.compat.v1.placeholder(tf.float32, [None, 3])
        r = tf.nn.sufficient_statistics(p, [0])
        assert r[0].name == "sufficient_statistics_1/count:0"
        with tf.compat.v1.Session() as s:
            assert s.run(r[0], {p: np.ones([5, 3])}) == 5.0
    tf.test.check_vjp(
        lambda a: tf.nn.sufficient_statistics(a, [1], shift=tf.constant(0.3, a.dtype))[2],
        [np.linspace(-1.3, 1.1, 6).reshape(2, 3)],
        order=2,
    )
