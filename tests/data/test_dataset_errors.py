"""Bad input to tf.data: the error class TF 2.21 raises (checked there), at the call that
caused it, with a message naming the argument and what was expected vs given."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf

D = tf.data.Dataset
E = tf.errors


def _ragged(n):
    return D.range(n).map(lambda x: tf.fill([tf.cast(x, tf.int32) + 1], x))


CASES = [
    ("batch0", lambda: list(D.range(3).batch(0)), E.InvalidArgumentError, "Batch size must be"),
    ("shuffle0", lambda: list(D.range(3).shuffle(0)), E.InvalidArgumentError, "buffer_size"),
    ("slices", lambda: D.from_tensor_slices((np.zeros(3), np.zeros(4))), ValueError, "3, 4"),
    ("scalar", lambda: D.from_tensor_slices(3), ValueError, "rank >= 1"),
    ("filter", lambda: D.range(3).filter(lambda x: x), ValueError, "`predicate` must return"),
    ("unbatch", lambda: D.range(3).unbatch(), ValueError, "scalar components"),
    (
        "concat",
        lambda: D.range(3).concatenate(D.from_tensor_slices(np.zeros(3, np.float32))),
        TypeError,
        "Incompatible dataset elements",
    ),
    ("window0", lambda: D.range(3).window(0), E.InvalidArgumentError, "Window size"),
    ("shard0", lambda: D.range(3).shard(0, 0), E.InvalidArgumentError, "num_shards = 0"),
    ("shard_index", lambda: D.range(3).shard(2, 3), E.InvalidArgumentError, "index = 3"),
    ("zip", lambda: D.zip((D.range(3), 5)), TypeError, "encountered object of type <class 'int'>"),
    (
        "batch_shapes",
        lambda: list(_ragged(2).batch(2)),
        E.InvalidArgumentError,
        "First element had shape [1] and element 1 had shape [2]",
    ),
    (
        "padded",
        lambda: list(_ragged(3).padded_batch(3, padded_shapes=[2])),
        E.InvalidArgumentError,
        "pad to a smaller size",
    ),
    ("single", lambda: D.range(3).get_single_element(), E.InvalidArgumentError, "more than one"),
    (
        "gen_shape",
        lambda: list(
            D.from_generator(lambda: iter([[1, 2]]), output_signature=tf.TensorSpec([3], tf.int32))
        ),
        E.InvalidArgumentError,
        "shape (2,) where an element of shape (3,)",
    ),
    ("next_end", lambda: iter(D.range(0)).get_next(), E.OutOfRangeError, "End of sequence"),
    ("map", lambda: D.range(3).map(5), ValueError, "must be a callable"),
    ("gen_types", lambda: D.from_generator(lambda: iter([])), TypeError, "output_signature"),
    (
        "bucket_sizes",
        lambda: D.range(3).bucket_by_sequence_length(lambda x: x, [2], [1]),
        ValueError,
        "len(bucket_batch_sizes)",
    ),
    (
        "group_args",
        lambda: D.range(3).group_by_window(lambda x: x, None),
        ValueError,
        "window_size",
    ),
    ("cache_file", lambda: D.range(3).cache("f"), NotImplementedError, "in memory only"),
    (
        "rebatch_scalars",
        lambda: D.range(3).rebatch(2),
        ValueError,
        "Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a dataset with",
    ),
    (
        "cardinality_more",
        lambda: list(D.range(5).apply(tf.data.experimental.assert_cardinality(3))),
        E.FailedPreconditionError,
        "Input dataset was expected to contain 3 elements but contained at least 4 elements.",
    ),
    (
        "cardinality_fewer",
        lambda: list(D.range(5).apply(tf.data.experimental.assert_cardinality(7))),
        E.FailedPreconditionError,
        "Input dataset was expected to contain 7 elements but contained only 5 elements.",
    ),
    (
        "cardinality_infinite",
        lambda: list(D.range(1).apply(tf.data.experimental.assert_cardinality(-1))),
        E.FailedPreconditionError,
        "an infinite number of elements but contained only 1 element.",
    ),
]


@pytest.mark.parametrize("call, error, text", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_tensorflows_error(call, error, text):
    with pytest.raises(error) as info:
        call()
    assert text in str(info.value)


def test_symbolic_source_inside_a_function_says_what_to_do():
    @tf.function
    def f(x):
        return D.from_tensor_slices(x).reduce(tf.constant(0.0), lambda a, b: a + b)

    with pytest.raises(ValueError, match="builds datasets from values, and x:0 is symbolic"):
        f(tf.constant([1.0, 2.0]))


def test_len_of_infinite_and_unknown_datasets():
    with pytest.raises(TypeError, match="infinite"):
        len(D.range(3).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(D.range(3).filter(lambda x: tf.equal(x, 1)))
    assert tf.data.experimental.cardinality(D.range(3).repeat()) == tf.data.INFINITE_CARDINALITY


def test_assert_cardinality_sets_what_cardinality_reads():
    """TF 2.21: a filter's cardinality is unknown (-2); asserted, it reads 5, and the
    elements pass through."""
    ds = D.range(5).filter(lambda x: x < 10)
    assert int(ds.cardinality()) == -2
    asserted = ds.apply(tf.data.experimental.assert_cardinality(5))
    assert int(asserted.cardinality()) == 5 and list(asserted.as_numpy_iterator()) == [
        0,
        1,
        2,
        3,
        4,
    ]
    assert int(ds.apply(tf.data.experimental.assert_cardinality(-1)).cardinality()) == -1
