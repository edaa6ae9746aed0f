"""``tf.data.Options`` / ``with_options``, ``Dataset.unique`` and
``Dataset.choose_from_datasets``: TensorFlow 2.21's values and errors for the same calls."""

import pytest

import symgrad as tf


def _ints(ds):
    return [int(v) for v in ds]


def test_options_are_kept_merged_and_checked_as_tfs():
    o = tf.data.Options()
    o.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    o.deterministic = False
    ds = tf.data.Dataset.range(6).with_options(o).map(lambda x: x * 2).batch(2)
    got = ds.options()  # carried through map and batch
    assert (int(got.experimental_distribute.auto_shard_policy), got.deterministic) == (2, False)
    assert got.threading.private_threadpool_size is None
    o2 = tf.data.Options()
    o2.threading.private_threadpool_size = 4
    merged = ds.with_options(o2).options()  # the later options over the earlier, field by field
    assert int(merged.experimental_distribute.auto_shard_policy) == 2
    assert merged.threading.private_threadpool_size == 4
    assert merged.experimental_threading.private_threadpool_size == 4
    assert tf.data.Options() == tf.data.Options() and o != tf.data.Options()
    assert _ints(ds.with_options(o2).unbatch()) == [0, 2, 4, 6, 8, 10]  # values unchanged
    with pytest.raises(AttributeError, match="Cannot set the property nope on Options."):
        o.nope = 1
    with pytest.raises(AttributeError, match="on ThreadingOptions."):
        o.threading.nope = 1


def test_unique_is_tfs():
    ds = tf.data.Dataset.from_tensor_slices([3, 1, 3, 2, 1]).unique()
    assert (_ints(ds), int(ds.cardinality())) == ([3, 1, 2], -2)
    rows = tf.data.Dataset.from_tensor_slices([[1, 2], [1, 2], [2, 1]]).unique()
    assert [r.numpy().tolist() for r in rows] == [[1, 2], [2, 1]]
    with pytest.raises(TypeError, match="does not support type <dtype: 'float32'> -- only"):
        tf.data.Dataset.from_tensor_slices([1.0]).unique()


def test_choose_from_datasets_is_tfs():
    def inputs():
        return [tf.data.Dataset.range(1), tf.data.Dataset.range(10, 13)]

    choice = tf.data.Dataset.from_tensor_slices(tf.constant([0, 0, 1, 1], tf.int64))
    assert _ints(tf.data.Dataset.choose_from_datasets(inputs(), choice)) == [0]
    chosen = tf.data.Dataset.choose_from_datasets(inputs(), choice, stop_on_empty_dataset=False)
    assert _ints(chosen) == [0, 10, 11] and int(chosen.cardinality()) == -2
    with pytest.raises(
        TypeError,
        match=r"Elements of `choice_dataset` must be scalar `tf.int64` tensors but are "
        r"TensorSpec\(shape=\(\), dtype=tf.int32, name=None\)",
    ):
        tf.data.Dataset.choose_from_datasets(
            inputs(), tf.data.Dataset.range(2).map(lambda x: tf.cast(x, tf.int32))
        )


def test_choose_from_datasets_bad_arguments_raise_tfs_errors():
    with pytest.raises(ValueError, match=r"Invalid `datasets`. `datasets` should not be empty."):
        tf.data.Dataset.choose_from_datasets([], tf.data.Dataset.range(1))
    choice = tf.data.Dataset.from_tensor_slices(tf.constant([0, 3], tf.int64))
    chosen = tf.data.Dataset.choose_from_datasets([tf.data.Dataset.range(2)], choice)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Selector index out of range: 3 >= 1"):
        _ints(chosen)
