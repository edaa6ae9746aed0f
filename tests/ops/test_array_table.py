"""Op table: shapes and structure (array.py) and indexing/slicing (slicing.py)."""

import numpy as np
from optable import OpCase, fixed, parametrize, randn

import symgrad as tf
from symgrad.op_registry import apply_op
from symgrad.ops.array import invert_permutation

I32 = np.int32


def _ss(x, begin, end, strides, **masks):
    return tf.strided_slice(x, begin, end, strides, **masks)


def _ssg(dy):
    # The gradient of x[1:, ::-2] for x of shape (4, 5): scatter dy into zeros.
    return apply_op("StridedSliceGrad", [tf.constant([4, 5]), tf.constant([1, 0]),
                                         tf.constant([0, 0]), tf.constant([1, -2]), dy],
                    {"begin_mask": 2, "end_mask": 3, "ellipsis_mask": 0, "new_axis_mask": 0,
                     "shrink_axis_mask": 0})._output(0)


def _ssg_ref(dy):
    out = np.zeros((4, 5), dy.dtype)
    out[1:, ::-2] = dy
    return out


def _scatter_nd_ref(idx, u, shape):
    out = np.zeros(shape, u.dtype)
    np.add.at(out, tuple(np.moveaxis(idx, -1, 0)), u)
    return out


def _segment_sum_ref(data, ids, n):
    out = np.zeros((n, *data.shape[ids.ndim:]), data.dtype)
    np.add.at(out, ids, data)
    return out


def _one_hot_ref(idx, depth):
    return (idx[..., None] == np.arange(depth)).astype(np.float32)


def _bga(sx, sy):
    return apply_op("BroadcastGradientArgs", [sx, sy]).outputs


def _reduced_shape(s, a):
    return apply_op("ReducedShape", [s, a])._output(0)


SHAPE_ROWS = [
    OpCase("Shape", tf.shape, lambda x: np.array(x.shape, I32), [randn(2, 3, 4)], grad=False),
    OpCase("Size", tf.size, lambda x: np.array(x.size, I32), [randn(2, 3, 4)], grad=False),
    OpCase("Rank", tf.rank, lambda x: np.array(x.ndim, I32), [randn(2, 3, 4)], grad=False),
    OpCase("Reshape", lambda x: tf.reshape(x, [4, -1]), lambda x: x.reshape(4, -1),
           [randn(2, 3, 4)]),
    OpCase("ExpandDims", lambda x: tf.expand_dims(x, -2), lambda x: np.expand_dims(x, -2),
           [randn(3, 4)]),
    OpCase("Squeeze", lambda x: tf.squeeze(x, [1]), lambda x: np.squeeze(x, 1),
           [randn(3, 1, 4, 1)]),
    OpCase("Squeeze", tf.squeeze, np.squeeze, [randn(3, 1, 4, 1)], name="all"),
    OpCase("Transpose", lambda x: tf.transpose(x, [2, 0, 1]),
           lambda x: np.transpose(x, [2, 0, 1]), [randn(2, 3, 4)]),
    OpCase("Transpose", tf.transpose, np.transpose, [randn(2, 3, 4)], name="default"),
    OpCase("InvertPermutation", invert_permutation,
           np.argsort, [fixed([2, 0, 3, 1], I32)], grad=False),
    OpCase("Fill", lambda v: tf.fill([2, 3], v), lambda v: np.full((2, 3), v),
           [randn()]),
    OpCase("ZerosLike", tf.zeros_like, np.zeros_like, [randn(3, 4)], grad=False),
    OpCase("OnesLike", tf.ones_like, np.ones_like, [randn(3, 4)], grad=False),
    OpCase("SelectV2", tf.where, np.where,
           [fixed([[True, False, True, False]]), randn(3, 4), randn(3, 1)]),
    OpCase("Where", tf.where, np.argwhere, [fixed([[True, False], [False, True], [True, True]])],
           grad=False),
    OpCase("BroadcastTo", lambda x: tf.broadcast_to(x, [2, 3, 4]),
           lambda x: np.broadcast_to(x, (2, 3, 4)), [randn(3, 1)]),
    OpCase("Tile", lambda x: tf.tile(x, [2, 1, 3]), lambda x: np.tile(x, (2, 1, 3)),
           [randn(2, 3, 4)]),
    OpCase("Tile", lambda x: tf.tile(x * x, [3, 2]), lambda x: np.tile(x * x, (3, 2)),
           [randn(2, 4)], name="squared"),
    OpCase("Range", lambda: tf.range(2, 11, 3), lambda: np.arange(2, 11, 3, dtype=I32), [],
           grad=False),
    OpCase("Range", lambda a, b: tf.range(a, b, -0.5), lambda a, b: np.arange(a, b, -0.5),
           [fixed(2.0, np.float32), fixed(-1.2, np.float32)], dtypes=(np.float32,),
           grad=False, diff=[], name="float_negative"),
    OpCase("OneHot", lambda i: tf.one_hot(i, 4), lambda i: _one_hot_ref(i, 4),
           [fixed([[0, 3, 5], [2, -1, 1]], I32)], grad=False),
    OpCase("OneHot", lambda i: tf.one_hot(i, 4, 2.0, -1.0, axis=0),
           lambda i: np.moveaxis(np.where(_one_hot_ref(i, 4), 2.0, -1.0), -1, 0),
           [fixed([0, 3, 1], I32)], grad=False, name="axis0_on_off"),
    OpCase("BroadcastGradientArgs", _bga,
           lambda sx, sy: [np.array([0, 2], I32), np.array([1], I32)],
           [fixed([3, 1], I32), fixed([2, 1, 4], I32)], grad=False),
    OpCase("ReducedShape", _reduced_shape, lambda s, a: np.array([2, 1, 4, 1], I32),
           [fixed([2, 3, 4, 5], I32), fixed([1, -1], I32)], grad=False),
]

JOIN_ROWS = [
    OpCase("ConcatV2", lambda a, b, c: tf.concat([a, b, c], 1),
           lambda a, b, c: np.concatenate([a, b, c], 1), [randn(2, 3), randn(2, 1), randn(2, 4)]),
    OpCase("ConcatV2", lambda a, b: tf.concat([a * a, b], -1),
           lambda a, b: np.concatenate([a * a, b], -1), [randn(3, 2), randn(3, 4)],
           name="squared_negative_axis"),
    OpCase("Pack", lambda a, b, c: tf.stack([a, b, c], 1), lambda a, b, c: np.stack([a, b, c], 1),
           [randn(2, 4), randn(2, 4), randn(2, 4)]),
    OpCase("Pack", lambda a, b: tf.stack([a, b], -1), lambda a, b: np.stack([a, b], -1),
           [randn(2, 4), randn(2, 4)], name="last_axis"),
    OpCase("Unpack", lambda x: tf.unstack(x, num=3, axis=1), lambda x: list(np.moveaxis(x, 1, 0)),
           [randn(2, 3, 4)]),
    OpCase("Unpack", lambda x: tf.unstack(x * x, num=2)[1], lambda x: (x * x)[1],
           [randn(2, 3)], name="one_output_used"),
    OpCase("Split", lambda x: tf.split(x, 2, axis=1), lambda x: np.split(x, 2, 1),
           [randn(3, 4, 5)]),
    OpCase("Split", lambda x: tf.split(x * x, 3)[2], lambda x: np.split(x * x, 3)[2],
           [randn(6, 2)], name="one_output_used"),
    OpCase("SplitV", lambda x: tf.split(x, [1, -1, 2], axis=-1),
           lambda x: np.split(x, [1, 2], -1), [randn(3, 4)]),
]

SLICE_ROWS = [
    OpCase("Slice", lambda x: tf.slice(x, [1, 0, 2], [2, -1, 2]),
           lambda x: x[1:3, :, 2:4], [randn(3, 4, 5)]),
    OpCase("Pad", lambda x: tf.pad(x, [[1, 0], [2, 3]]),
           lambda x: np.pad(x, [[1, 0], [2, 3]]), [randn(2, 3)]),
    OpCase("Pad", lambda x: tf.pad(x * x, [[0, 2], [1, 1]]),
           lambda x: np.pad(x * x, [[0, 2], [1, 1]]), [randn(3, 2)], name="squared"),
    OpCase("PadV2", lambda x, c: tf.pad(x, [[1, 2], [0, 1]], constant_values=c),
           lambda x, c: np.pad(x, [[1, 2], [0, 1]], constant_values=c), [randn(2, 3), randn()],
           diff=[0]),
    OpCase("StridedSlice", lambda x: _ss(x, [1, -1], [3, 0], [1, -1]),
           lambda x: x[1:3, -1:0:-1], [randn(4, 5)], name="negative_stride"),
    OpCase("StridedSlice", lambda x: _ss(x, [0, 1], [0, 0], [1, 2], begin_mask=1, end_mask=3),
           lambda x: x[:, 1::2], [randn(4, 5)], name="masks"),
    OpCase("StridedSlice", lambda x: _ss(x, [0, 1], [0, 2], [1, 1], ellipsis_mask=1,
                                         shrink_axis_mask=2),
           lambda x: x[..., 1], [randn(2, 3, 4)], name="ellipsis_shrink"),
    OpCase("StridedSlice", lambda x: _ss(x, [-1, 0, 0], [0, 0, 0], [1, 1, 1],
                                         shrink_axis_mask=1, new_axis_mask=2, end_mask=4),
           lambda x: x[-1, None, :], [randn(3, 4)], name="newaxis_shrink_negative"),
    OpCase("StridedSlice", lambda x: x[::-2, None, 1:, ..., 0], lambda x: x[::-2, None, 1:, ..., 0],
           [randn(5, 3, 2, 4)], name="getitem"),
    OpCase("StridedSlice", lambda x: (x * x)[1:, ::-1], lambda x: (x * x)[1:, ::-1],
           [randn(3, 4)], name="squared"),
    OpCase("StridedSliceGrad", _ssg, _ssg_ref, [randn(3, 3)]),
    OpCase("GatherV2", lambda p, i: tf.gather(p, i), lambda p, i: p[i],
           [randn(5, 3), fixed([[1, 4], [1, 0], [1, 2]], I32)], name="axis0_duplicates"),
    OpCase("GatherV2", lambda p, i: tf.gather(p, i, axis=1), lambda p, i: np.take(p, i, 1),
           [randn(2, 5, 3), fixed([4, 0, 4, 2], I32)], name="axis1"),
    OpCase("GatherV2", lambda p, i: tf.gather(p * p, i, axis=-1),
           lambda p, i: np.take(p * p, i, -1),
           [randn(2, 4), fixed(3, I32)], name="squared_scalar_index"),
    OpCase("UnsortedSegmentSum", lambda d, i: tf.unsorted_segment_sum(d, i, 4),
           lambda d, i: _segment_sum_ref(d, i, 4), [randn(5, 3), fixed([3, 0, 3, 1, 3], I32)]),
    OpCase("UnsortedSegmentSum", lambda d, i: tf.unsorted_segment_sum(d, i, 3),
           lambda d, i: _segment_sum_ref(d[i >= 0], i[i >= 0], 3),
           [randn(4, 2), fixed([2, -1, 0, 2], I32)], name="negative_ids_dropped"),
    OpCase("GatherNd", tf.gather_nd, lambda p, i: p[tuple(np.moveaxis(i, -1, 0))],
           [randn(3, 4, 2), fixed([[2, 1], [0, 3], [2, 1]], I32)]),
    OpCase("ScatterNd", lambda i, u: tf.scatter_nd(i, u, [4, 3]),
           lambda i, u: _scatter_nd_ref(i, u, (4, 3)),
           [fixed([[1], [3], [1]], I32), randn(3, 3)]),
]

CASES = SHAPE_ROWS + JOIN_ROWS + SLICE_ROWS

globals().update(parametrize(CASES))
