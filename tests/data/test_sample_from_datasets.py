"""Dataset.random, sample_from_datasets and choose_from_datasets: TensorFlow 2.21's
elements, in TF's order, for the same seeds.

``program(tf)`` runs unchanged with ``tf`` = TensorFlow or symgrad; EXPECTED is what
TensorFlow 2.21 printed for it (``python tests/data/test_sample_from_datasets.py`` with
TensorFlow installed prints it again).
"""

from __future__ import annotations

import pytest

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError


@pytest.fixture(autouse=True)
def _fresh_seeds():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def _list(ds):
    return [int(x) for x in ds.as_numpy_iterator()]


def _three(tf):
    return [
        tf.data.Dataset.range(0, 10),
        tf.data.Dataset.range(100, 105),
        tf.data.Dataset.range(200, 230),
    ]


def program(tf):
    out = {}
    out["random"] = _list(tf.data.Dataset.random(seed=4).take(5))
    sample = tf.data.Dataset.sample_from_datasets
    out["uniform"] = _list(sample(_three(tf), seed=3))
    out["zero_weight"] = _list(sample(_three(tf), weights=[0.2, 0.0, 0.8], seed=3).take(12))
    out["stop_on_empty"] = _list(
        sample(_three(tf), weights=[0.2, 0.1, 0.7], seed=3, stop_on_empty_dataset=True)
    )
    out["tensor_weights"] = _list(
        sample(_three(tf), weights=tf.constant([0.5, 0.25, 0.25], tf.float64), seed=8)
    )
    tf.random.set_seed(12)
    ds = sample(_three(tf), rerandomize_each_iteration=True)  # global seed, new draws per pass
    out["rerandomized"] = [_list(ds.take(8)), _list(ds.take(8))]
    ds = sample(_three(tf), seed=5)  # the same draws every pass
    out["fixed"] = [_list(ds.take(8)), _list(ds.take(8))]
    rows = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
    w = tf.data.Dataset.from_tensor_slices(rows).repeat(3)  # weights per element: ends with it
    out["dataset_weights"] = _list(sample(_three(tf), weights=w, seed=1))
    c = tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 2, 1, 1, 1, 1, 0, 2], tf.int64))
    out["choose"] = _list(tf.data.Dataset.choose_from_datasets(_three(tf), c))
    out["choose_experimental"] = _list(tf.data.experimental.choose_from_datasets(_three(tf), c))
    picks = tf.constant([1, 1, 0, 1, 0, 1, 0, 0, 1], tf.int64)
    two = [tf.data.Dataset.range(2), tf.data.Dataset.range(5, 6)]
    forever = tf.data.Dataset.from_tensor_slices(picks).repeat()
    out["all_exhausted"] = _list(tf.data.experimental.choose_from_datasets(two, forever))
    out["sample_experimental"] = _list(
        tf.data.experimental.sample_from_datasets(_three(tf), [0.3, 0.3, 0.4], seed=2)
    )
    out["one_input"] = _list(sample([tf.data.Dataset.range(3)], seed=2))
    out["all_zero"] = _list(sample(_three(tf), [0.0, 0.0, 0.0], seed=2))
    return out


EXPECTED = {
    "random": [3128586565, 2023892699, 452966358, 4293674553, 1485036815],
    "uniform": [100, 101, 200, 0, 201, 102, 103, 202, 104, 1, 203, 2, 3, 204, 4, 205, 206, 5,
                6, 7, 8, 9, *range(207, 230)],
    "zero_weight": [200, 201, 202, 203, 204, 205, 206, 207, 208, 0, 209, 1],
    "stop_on_empty": [200, 201, 202, 100, 203, 204, 205, 206, 207, 0, 208, 1, 209, 210, 211,
                      212, 213, 2, 214, 215, 216, 3, 217, 218, 101, 4, 5, 102, 219, 103, 6,
                      104, 7],
    "tensor_weights": [100, 0, 101, 102, 103, 1, 200, 2, 201, 3, 104, 202, 4, 5, 6, 7, 203,
                       204, 205, 8, 206, 207, 208, 209, 9, *range(210, 230)],
    "rerandomized": [[200, 100, 101, 201, 0, 102, 202, 103], [100, 101, 200, 0, 201, 102, 103, 1]],
    "fixed": [[100, 101, 0, 102, 1, 103, 104, 2], [100, 101, 0, 102, 1, 103, 104, 2]],
    "dataset_weights": [0, 100, 200, 1, 2, 101, 201, 202, 3, 102, 4, 5],
    "choose": [0, 100, 101, 200, 102, 103, 104],
    "choose_experimental": [0, 100, 101, 200, 102, 103, 104, 1, 201],
    "all_exhausted": [5, 0, 1],
    "sample_experimental": [0, 200, 201, 100, 101, 102, 103, 104, 202, 1, 2, 3, 203, 204, 205,
                            206, 207, 4, 208, 209, 5, 210, 211, 6, 212, 7, 213, 8, 9,
                            *range(214, 230)],
    "one_input": [0, 1, 2],
    "all_zero": [],
}  # fmt: skip


def test_tensorflows_elements():
    assert program(tf) == EXPECTED


def test_random_dataset_spec_and_cardinality():
    ds = tf.data.Dataset.random(seed=1)
    assert ds.element_spec == tf.TensorSpec([], tf.int64)
    assert int(ds.cardinality()) == tf.data.INFINITE_CARDINALITY


def test_cardinality_is_tensorflows():
    """Infinite when an input is (TF's DirectedInterleave), else unknown."""
    d = tf.data.Dataset
    c = d.from_tensor_slices(tf.constant([0, 1], tf.int64))
    assert int(d.choose_from_datasets([d.range(3).repeat(), d.range(2)], c).cardinality()) == -1
    assert int(d.choose_from_datasets([d.range(3), d.range(2)], c.repeat()).cardinality()) == -2
    assert int(d.sample_from_datasets([d.range(3), d.range(2).repeat()]).cardinality()) == -1
    assert int(d.sample_from_datasets([d.range(3), d.range(2)]).cardinality()) == -2


def test_errors_are_tensorflows():
    sample = tf.data.Dataset.sample_from_datasets
    with pytest.raises(ValueError, match="`datasets` should not be empty"):
        sample([])
    with pytest.raises(ValueError, match=r"`len\(weights\)=1` vs. `len\(datasets\)=3`"):
        sample(_three(tf), [0.5])
    with pytest.raises(
        TypeError, match="must be either `tf.float32` or `tf.float64` but is <dtype: 'int32'>"
    ):
        sample(_three(tf), tf.constant([1, 2, 3]))
    with pytest.raises(ValueError, match="should be compatible with `\\[len\\(datasets\\)\\]`"):
        sample(_three(tf), tf.constant([1.0, 2.0]))
    bad = tf.data.Dataset.from_tensor_slices(tf.constant([0, 5], tf.int64))
    with pytest.raises(InvalidArgumentError, match="Selector index out of range: 5 >= 3"):
        _list(tf.data.Dataset.choose_from_datasets(_three(tf), bad))
    with pytest.raises(TypeError, match="must be scalar `tf.int64` tensors"):
        tf.data.Dataset.choose_from_datasets(
            _three(tf), tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.int32))
        )


if __name__ == "__main__":
    import tensorflow

    for k, v in program(tensorflow).items():
        print(repr(k), ":", v, ",")
