"""Array and slicing ops: TF semantics, op types and attrs, edge cases, gradients, errors."""

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError

X53 = np.arange(15.0).reshape(5, 3)
X456 = np.arange(120.0).reshape(4, 5, 6)


def _grad(fn, value):
    x = tf.constant(value)
    g = tf.gradients(tf.reduce_sum(fn(x)), [x])[0]
    return tf.convert_to_tensor(g).numpy()  # a gather on axis 0 gives IndexedSlices


# --------------------------------------------------------------------------------------
# Indexing: every key agrees with NumPy in value, static shape and gradient

KEYS_2D = [
    (0, 0),
    (-1, -1),
    0,
    -2,
    slice(None, None, -1),
    (Ellipsis, 1),
    (slice(None), None),
    (None, slice(None)),
    (slice(1, -1), slice(None, None, 2)),
    (slice(-2, None), 1),
    (slice(10, None),),
    (slice(-10, 2),),
    (slice(4, 1, -2), slice(None, None, -1)),
    (slice(1, 4, -1),),
    (Ellipsis,),
    (),
    (None, Ellipsis, None),
    (1, None, slice(None)),
    (slice(None, -10, -1),),
    (slice(3, -10, -2), 0),
]
KEYS_3D = [
    (Ellipsis, 0),
    (1, Ellipsis),
    (slice(None), None, Ellipsis, -1),
    (None, 2, Ellipsis, None),
    (slice(None, None, -2), slice(1, None), slice(None, None, -3)),
    (-1, slice(None), 0),
    (Ellipsis, None),
    (slice(1, 3), Ellipsis, slice(4, 0, -2)),
    (None, Ellipsis, 1, None, 2),
]


@pytest.mark.parametrize(
    "value,key",
    [(X53, k) for k in KEYS_2D] + [(X456, k) for k in KEYS_3D],
    ids=[repr(k) for k in KEYS_2D + KEYS_3D],
)
def test_getitem_matches_numpy(value, key):
    x = tf.constant(value)
    y = x[key]
    assert y.op.type == "StridedSlice"
    np.testing.assert_array_equal(y.numpy(), value[key])
    with tf.Graph().as_default():
        assert tf.placeholder(tf.float64, value.shape)[key].shape.dims == value[key].shape
    expected = np.zeros_like(value)
    np.add.at(expected, key, 1.0)
    np.testing.assert_array_equal(_grad(lambda t: t[key], value), expected)


def test_getitem_masks_and_name():
    with tf.Graph().as_default():
        y = tf.placeholder(tf.float32, [5, 3])[1:, None, ..., 2]
    assert y.op.name == "strided_slice"
    attrs = {
        k: y.op.get_attr(k)
        for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
    }
    assert attrs == {
        "begin_mask": 0,
        "end_mask": 1,
        "ellipsis_mask": 4,
        "new_axis_mask": 2,
        "shrink_axis_mask": 8,
    }
    assert [list(t.op.get_attr("value")) for t in y.op.inputs[1:]] == [
        [1, 0, 0, 2],
        [0, 0, 0, 3],
        [1, 1, 1, 1],
    ]


def test_getitem_tensor_indices():
    x = tf.constant(X53)
    np.testing.assert_array_equal(x[tf.constant(2)].numpy(), X53[2])
    np.testing.assert_array_equal(x[: tf.constant(2), tf.constant(-1)].numpy(), X53[:2, -1])
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32, [])
        p = tf.placeholder(tf.float64, [5, 3])
        y = p[i, 1:]
        g = tf.gradients(tf.reduce_sum(y), p)[0]
        with tf.Session() as sess:
            v, gv = sess.run([y, g], {p: X53, i: -2})
    np.testing.assert_array_equal(v, X53[-2, 1:])
    assert gv.sum() == 2 and gv[3, 1:].tolist() == [1.0, 1.0]


def test_getitem_int64_and_partial_shapes():
    x = tf.constant(X53)
    i = tf.constant(1, tf.int64)
    y = x[:i, i]
    assert y.op.inputs[1].dtype == tf.int64
    np.testing.assert_array_equal(y.numpy(), X53[:1, 1])
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 3])
        assert p[1:, 0].shape.dims == (None,) and p[:, ::-2].shape.dims == (None, 2)
        assert p[0].shape.dims == (3,) and p[..., None].shape.dims == (None, 3, 1)


def test_getitem_y00_gradient_on_5x3():
    g = _grad(lambda t: t[0, 0] * 3.0, X53)
    assert g.shape == (5, 3) and g[0, 0] == 3.0 and g.sum() == 3.0


def test_getitem_errors():
    x = tf.constant(X53)
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[1.5]
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[[0, 1]]
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[tf.constant([0, 1])]
    with pytest.raises(
        ValueError,
        match=r"StridedSlice op .*slice index 5 of dimension 0 out "
        r"of bounds",
    ):
        x[5]
    with pytest.raises(ValueError, match="Index out of range using input dim 2"):
        x[0, 0, 0]
    with pytest.raises(ValueError, match="Multiple ellipses"):
        x[..., ...]
    with pytest.raises(ValueError, match=r"strides\[0\] must be non-zero"):
        x[::0]


def test_strided_slice_shrink_with_negative_stride_is_rejected():
    with pytest.raises(ValueError, match="only stride 1 allowed"):
        tf.strided_slice(tf.constant(X53), [1], [2], [-1], shrink_axis_mask=1)


def test_strided_slice_unknown_shape_and_second_order():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float64, None)
        y = tf.reduce_sum(p[1:, ::-2] ** 3)
        (g,) = tf.gradients(y, p)
        (h,) = tf.gradients(tf.reduce_sum(g), p)
        assert g.op.type == "StridedSliceGrad"
        with tf.Session() as sess:
            gv, hv = sess.run([g, h], {p: X53})
    mask = np.zeros_like(X53)
    mask[1:, ::-2] = 1
    np.testing.assert_allclose(gv, 3 * X53**2 * mask)
    np.testing.assert_allclose(hv, 6 * X53 * mask)


# --------------------------------------------------------------------------------------
# Slice, Pad


def test_slice_and_pad():
    x = tf.constant(X53)
    y = tf.slice(x, [1, 1], [-1, 2])
    assert y.op.type == "Slice"
    np.testing.assert_array_equal(y.numpy(), X53[1:, 1:3])
    np.testing.assert_array_equal(
        _grad(lambda t: tf.slice(t, [1, 1], [2, 1]), X53), np.pad(np.ones((2, 1)), [[1, 2], [1, 1]])
    )
    assert tf.pad(x, [[1, 0], [0, 2]]).op.type == "Pad"
    z = tf.pad(x, [[1, 0], [0, 2]], constant_values=-1.0)
    assert z.op.type == "PadV2" and z.numpy()[0, 0] == -1.0


def test_padv2_constant_values_gets_no_gradient():
    x, c = tf.constant(X53), tf.constant(2.0, tf.float64)
    gx, gc = tf.gradients(tf.reduce_sum(tf.pad(x, [[1, 1], [0, 0]], constant_values=c)), [x, c])
    np.testing.assert_array_equal(gx.numpy(), np.ones((5, 3)))
    assert gc is None  # TensorFlow's PadV2 rule returns None for constant_values


def test_slice_pad_errors():
    x = tf.constant(X53)
    with pytest.raises(
        ValueError,
        match=r"Pad op .*paddings must have shape \[2, 2\].* got "
        r"shape \[3, 2\]",
    ):
        tf.pad(x, [[0, 1], [1, 0], [2, 2]])
    with pytest.raises(ValueError, match="paddings must be non-negative"):
        tf.pad(x, [[0, -1], [1, 0]])
    with pytest.raises(ValueError, match=r"Slice op .*Expected size\[1\] in \[0, 2\], but got 3"):
        tf.slice(x, [0, 1], [1, 3])
    with pytest.raises(ValueError, match=r"Expected begin to be a vector of length 2"):
        tf.slice(x, [0], [1])
    with pytest.raises(ValueError, match="paddings must be less than the dimension size"):
        tf.pad(x, [[5, 0], [1, 1]], mode="REFLECT")


# --------------------------------------------------------------------------------------
# ConcatV2, Pack, Unpack, Split, SplitV


def test_concat_op_and_gradient():
    a, b = tf.constant(X53), tf.constant(np.ones((5, 2)))
    y = tf.concat([a, b], axis=-1)
    assert y.op.type == "ConcatV2" and y.op.name.startswith("concat")
    assert y.op.get_attr("N") == 2 and y.op.inputs[-1].numpy() == -1
    ga, gb = tf.gradients(y * tf.constant(np.arange(25.0).reshape(5, 5)), [a, b])
    np.testing.assert_array_equal(ga.numpy(), np.arange(25.0).reshape(5, 5)[:, :3])
    np.testing.assert_array_equal(gb.numpy(), np.arange(25.0).reshape(5, 5)[:, 3:])
    assert tf.concat([a], 0).op.type == "Identity"


def test_concat_errors():
    a, b = tf.constant(X53), tf.constant(np.ones((5, 2)))
    with pytest.raises(
        ValueError,
        match=r"ConcatV2 op 'concat.*Dimension 1 in both shapes must "
        r"be equal: shape\[0\] = \(5, 3\) vs. shape\[1\] = "
        r"\(5, 2\)",
    ):
        tf.concat([a, b], 0)
    with pytest.raises(ValueError, match=r"axis 2 is out of range for a tensor of rank 2"):
        tf.concat([a, b], 2)
    with pytest.raises(TypeError, match=r"values\[1\]' has dtype float32"):
        tf.concat([a, tf.constant(np.ones((5, 2), np.float32))], 1)
    with pytest.raises(ValueError, match="same rank"):
        tf.concat([a, tf.constant([1.0, 2.0], tf.float64)], 0)


def test_stack_unstack():
    a, b = tf.constant(X53), tf.constant(-X53)
    y = tf.stack([a, b], axis=1)
    assert y.op.type == "Pack" and y.op.get_attr("N") == 2 and y.op.get_attr("axis") == 1
    assert y.shape.dims == (5, 2, 3)
    assert tf.stack([1, 2, 3]).op.type == "Const"  # TF folds plain values
    parts = tf.unstack(y, axis=1)
    assert parts[0].op.type == "Unpack" and parts[0].op.get_attr("num") == 2
    with pytest.raises(ValueError, match=r"Pack op .*Shapes of all inputs must match"):
        tf.stack([a, tf.constant(np.ones((3, 5)))])
    with pytest.raises(ValueError, match=r"axis 3 is out of range for a tensor of rank 3"):
        tf.stack([a, b], axis=3)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Cannot infer argument `num`"):
        tf.unstack(tf.placeholder(tf.float32, [None, 2]))


def test_unstack_unused_outputs_get_zero_gradient():
    g = _grad(lambda t: tf.unstack(t)[3], X53)
    assert g[3].tolist() == [1.0, 1.0, 1.0] and g.sum() == 3.0


def test_split_ops_and_one_used_output():
    x = tf.constant(X456)
    parts = tf.split(x, 2, axis=2)
    op = parts[0].op
    assert op.type == "Split" and op.get_attr("num_split") == 2
    assert op.inputs[0].numpy() == 2 and op.inputs[1] is x  # TF's input order: (axis, value)
    g = _grad(lambda t: tf.split(t, 2, axis=2)[1], X456)
    assert (g[..., :3] == 0).all() and (g[..., 3:] == 1).all()
    v = tf.split(x, [1, -1], axis=1)
    assert v[0].op.type == "SplitV" and [t.shape.dims for t in v] == [(4, 1, 6), (4, 4, 6)]
    assert v[0].op.inputs[0] is x  # TF's input order: (value, size_splits, axis)
    g = _grad(lambda t: tf.split(t, [1, -1], axis=1)[0], X456)
    assert (g[:, 0] == 1).all() and (g[:, 1:] == 0).all()


def test_split_errors():
    x = tf.constant(X53)
    with pytest.raises(
        ValueError,
        match=r"Split op .*evenly divide .*split_dim 0 \(size = 5\) "
        r"and num_split 2",
    ):
        tf.split(x, 2)
    with pytest.raises(ValueError, match=r"SplitV op .*size_splits \[2, 2\] must add up to 5"):
        tf.split(x, [2, 2])
    with pytest.raises(ValueError, match="at most one -1"):
        tf.split(x, [-1, -1, 5])


# --------------------------------------------------------------------------------------
# GatherV2, UnsortedSegmentSum, GatherNd, ScatterNd


def test_gather_duplicates_accumulate():
    p = tf.constant(X53)
    y = tf.gather(p, [1, 1, 3, 1])
    assert y.op.type == "GatherV2" and y.op.get_attr("batch_dims") == 0
    g = _grad(lambda t: tf.gather(t, [1, 1, 3, 1]), X53)
    np.testing.assert_array_equal(g[:, 0], [0, 3, 0, 1, 0])
    g = _grad(lambda t: tf.gather(t, [[2, 2], [0, 2]], axis=1), X53)
    np.testing.assert_array_equal(g[0], [1, 0, 3])


def test_gather_out_of_range_is_invalid_argument_at_run_time():
    with pytest.raises(
        InvalidArgumentError,
        match=r"GatherV2 op .*indices\[1\] = 7 is not in "
        r"\[0, 5\)",
    ):
        tf.gather(tf.constant(X53), [0, 7])
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32, [None])
        y = tf.gather(tf.constant(X53), i, axis=1)
        with (
            tf.Session() as sess,
            pytest.raises(InvalidArgumentError, match=r"indices\[2\] = -1 is not in \[0, 3\)"),
        ):
            sess.run(y, {i: [0, 1, -1]})
    with pytest.raises(ValueError, match=r"GatherV2 op .*axis 2 is out of range"):
        tf.gather(tf.constant(X53), [0], axis=2)
    with pytest.raises(TypeError, match="indices"):
        tf.gather(tf.constant(X53), tf.constant([0.0]))


def test_unsorted_segment_sum():
    y = tf.unsorted_segment_sum(tf.constant(X53), [2, 0, 2, -1, 0], 3)
    np.testing.assert_array_equal(y.numpy(), [X53[1] + X53[4], 0 * X53[0], X53[0] + X53[2]])
    g = _grad(lambda t: tf.unsorted_segment_sum(t, [2, 0, 2, -1, 0], 3) * 2.0, X53)
    np.testing.assert_array_equal(g[:, 0], [2, 2, 2, 0, 2])
    with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = 3 is out of range \[0, 3\)"):
        tf.unsorted_segment_sum(tf.constant(X53), [2, 3, 0, 0, 0], 3)


def test_gather_nd_and_scatter_nd():
    p = tf.constant(X456)
    y = tf.gather_nd(p, [[1, 2], [3, 0], [1, 2]])
    assert y.op.type == "GatherNd" and y.shape.dims == (3, 6)
    g = _grad(lambda t: tf.gather_nd(t, [[1, 2], [3, 0], [1, 2]]), X456)
    assert g[1, 2].tolist() == [2.0] * 6 and g.sum() == 18
    s = tf.scatter_nd([[0], [2], [0]], tf.constant([1.0, 2.0, 3.0]), [4])
    assert s.op.type == "ScatterNd" and s.numpy().tolist() == [4.0, 0.0, 2.0, 0.0]
    with pytest.raises(
        InvalidArgumentError,
        match=r"indices\[1\] = \[4, 0\] does not index "
        r"into param shape \[4, 5\]",
    ):
        tf.gather_nd(p, [[0, 0], [4, 0]])
    with pytest.raises(ValueError, match="index innermost dimension length must be <= params"):
        tf.gather_nd(tf.constant(X53), [[0, 0, 0]])
    with pytest.raises(ValueError, match=r"ScatterNd op .*updates must have shape"):
        tf.scatter_nd([[0], [1]], tf.constant([1.0, 2.0, 3.0]), [4])


# --------------------------------------------------------------------------------------
# Tile, BroadcastTo, Range, OneHot


def test_tile_and_broadcast_to():
    y = tf.tile(tf.constant(X53), [2, 3])
    assert y.op.type == "Tile" and y.shape.dims == (10, 9)
    np.testing.assert_array_equal(_grad(lambda t: tf.tile(t, [2, 3]), X53), np.full((5, 3), 6.0))
    with pytest.raises(ValueError, match=r"Tile op .*multiples must be a vector of 2"):
        tf.tile(tf.constant(X53), [2, 3, 1])
    b = tf.broadcast_to(tf.constant([[1.0], [2.0]]), [3, 2, 4])
    assert b.op.type == "BroadcastTo" and b.shape.dims == (3, 2, 4)
    np.testing.assert_array_equal(
        _grad(lambda t: tf.broadcast_to(t, [3, 2, 4]), np.ones((2, 1))), np.full((2, 1), 12.0)
    )
    with pytest.raises(
        ValueError,
        match=r"BroadcastTo op .*Unable to broadcast tensor of shape "
        r"\(5, 3\) to tensor of shape \(5, 2\)",
    ):
        tf.broadcast_to(tf.constant(X53), [5, 2])


def test_range_dtypes_and_errors():
    assert tf.range(5).dtype == tf.int32 and tf.range(5).op.type == "Range"
    assert tf.range(0.0, 1.0, 0.25).dtype == tf.float32
    assert tf.range(1, 2.5).dtype == tf.float32  # the widest argument wins
    assert tf.range(np.int64(4)).dtype == tf.int64
    assert tf.range(3, dtype=tf.float64).numpy().tolist() == [0.0, 1.0, 2.0]
    assert tf.range(5, 0, -2).numpy().tolist() == [5, 3, 1]
    assert tf.range(3, 3).shape.dims == (0,)
    with pytest.raises(ValueError, match="Requires delta != 0"):
        tf.range(0, 5, 0)
    with pytest.raises(ValueError, match=r"Requires start <= limit when delta > 0: 5/1"):
        tf.range(5, 1)
    start = tf.constant(1.0)
    assert tf.gradients(tf.reduce_sum(tf.range(start, 4.0)), start) == [None]


def test_one_hot():
    y = tf.one_hot([0, 3, -1, 2], 3)
    assert y.op.type == "OneHot" and y.dtype == tf.float32
    np.testing.assert_array_equal(y.numpy(), [[1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 1]])
    assert tf.one_hot([1], 2, on_value=5).dtype == tf.int32
    z = tf.one_hot([[1, 0]], 3, axis=0, dtype=tf.float64)
    assert z.shape.dims == (3, 1, 2) and z.dtype == tf.float64
    with pytest.raises(ValueError, match=r"OneHot op .*Expected axis to be -1 or between"):
        tf.one_hot([1], 2, axis=3)


# --------------------------------------------------------------------------------------
# The ops that were already here


def test_shape_family():
    x = tf.constant(X456)
    assert tf.shape(x).numpy().tolist() == [4, 5, 6] and tf.shape(x).op.type == "Shape"
    assert tf.size(x).numpy() == 120 and tf.rank(x).numpy() == 3
    with tf.Graph().as_default():
        assert tf.shape(tf.placeholder(tf.float32, [2, 3])).op.type == "Const"
        assert tf.shape(tf.placeholder(tf.float32, [None, 3])).op.type == "Shape"
    assert tf.zeros([2, 3]).dtype == tf.float32 and tf.ones(2, tf.int32).numpy().tolist() == [1, 1]
    assert tf.zeros_like(tf.constant([1, 2])).dtype == tf.int32
    assert tf.fill([2, 1], 7).numpy().tolist() == [[7], [7]]
    w = tf.where(tf.constant([[True, False], [False, True]]))
    assert w.dtype == tf.int64 and w.numpy().tolist() == [[0, 0], [1, 1]]


def test_reshape_family_errors():
    x = tf.constant(X53)
    with pytest.raises(ValueError, match=r"Reshape op .*Cannot reshape a tensor with 15 elements"):
        tf.reshape(x, [4, -1])
    with pytest.raises(ValueError, match=r"Transpose op .*perm \[0, 2\] is not a permutation"):
        tf.transpose(x, [0, 2])
    with pytest.raises(ValueError, match=r"ExpandDims op .*Tried to expand dim index 3 for tensor"):
        tf.expand_dims(x, 3)
    with pytest.raises(ValueError, match=r"Squeeze op .*Can not squeeze dim\[0\]"):
        tf.squeeze(x, 0)


def test_transpose_of_unknown_rank_and_its_gradient():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float64, None)
        y = tf.transpose(p)
        g = tf.gradients(y * tf.constant(np.arange(15.0).reshape(3, 5)), p)[0]
        with tf.Session() as sess:
            yv, gv = sess.run([y, g], {p: X53})
    np.testing.assert_array_equal(yv, X53.T)
    np.testing.assert_array_equal(gv, np.arange(15.0).reshape(3, 5).T)


def test_dynamic_shape_gradients():
    """The gradient rules fall back to shape ops when static shapes are unknown."""
    xv = np.arange(12.0).reshape(3, 4)
    cases = {
        "concat": (lambda x: tf.concat([x, x * 2.0], 0), 3.0),
        "tile": (lambda x: tf.tile(x, [2, 1]), 2.0),
        "pad": (lambda x: tf.pad(x, [[1, 0], [0, 2]]), 1.0),
        "split": (lambda x: tf.split(x, [1, -1], 1)[1] * 4.0, 4.0),
        "broadcast_to": (lambda x: tf.broadcast_to(x[:, None], [3, 2, 4]), 2.0),
        "gather_axis1": (lambda x: tf.gather(x, [0, 1, 2, 3, 3], axis=1) * 1.0, None),
    }
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float64, None)
        grads = {k: tf.gradients(tf.reduce_sum(f(p)), p)[0] for k, (f, _) in cases.items()}
        with tf.Session() as sess:
            values = sess.run(grads, {p: xv})
    for k, (_, fill) in cases.items():
        expected = np.full((3, 4), fill) if fill is not None else np.tile([1.0, 1, 1, 2], (3, 1))
        if k == "split":
            expected[:, 0] = 0
        np.testing.assert_array_equal(values[k], expected, err_msg=k)


def test_zeros_and_ones_are_consts_only_when_small_in_a_graph():
    with tf.Graph().as_default():
        small, big = tf.zeros([10, 10]), tf.ones([1000, 1000], tf.float64)
        assert small.op.type == "Const" and big.op.type == "Fill"  # as TF: no 8 MB constant
        assert big.shape.as_list() == [1000, 1000] and big.dtype is tf.float64
        with tf.Session() as sess:
            s, b = sess.run([small, big])
    assert s.shape == (10, 10) and not s.any()
    assert b.shape == (1000, 1000) and b.dtype == np.float64 and (b == 1).all()
    eager = tf.zeros([2, 3], tf.int32)
    assert eager.numpy().tolist() == [[0, 0, 0], [0, 0, 0]] and eager.dtype is tf.int32


def test_a_boolean_key_is_a_boolean_mask_as_tfs_getitem():
    """TF 2.21's ``_slice_helper``: ``x[x > 0]``, a bool array or a bool variable mask is
    ``boolean_mask`` (its gradient too); a Python bool is a scalar mask, refused."""
    x = tf.constant([[1.0, -2.0], [3.0, 4.0]])
    assert x[x > 0].numpy().tolist() == [1.0, 3.0, 4.0]
    assert x[np.array([True, False])].numpy().tolist() == [[1.0, -2.0]]
    assert x[tf.constant([[True, False], [False, True]])].numpy().tolist() == [1.0, 4.0]
    v = tf.Variable([1.0, 2.0])
    assert v[v > 1.0].numpy().tolist() == [2.0]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x[x > 0] ** 2)
    assert tape.gradient(y, x).numpy().tolist() == [[2.0, 0.0], [6.0, 8.0]]
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        x[True]
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
        iter(tf.constant(1.0))
