"""keras.utils.timeseries_dataset_from_array against Keras-on-TF 2.21: windows, targets,
batches, element specs, the seeded shuffles (NumPy's start order, then tf.data's shuffle)
and Keras's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import symgrad as tf

u = tf.keras.utils
DATA = np.arange(40, dtype="float32").reshape(20, 2)
TARGETS = np.arange(100, 120)


def batches(ds: Any) -> list[Any]:
    return [tuple(np.asarray(t) for t in b) if isinstance(b, tuple) else np.asarray(b)
            for b in ds]  # fmt: skip


def test_windows_targets_and_batches() -> None:
    ds = u.timeseries_dataset_from_array(DATA, TARGETS, 4, batch_size=5)
    out = batches(ds)
    assert [len(b[0]) for b in out] == [5, 5, 5, 2]  # 17 windows
    windows = np.concatenate([b[0] for b in out])
    np.testing.assert_array_equal(windows, np.stack([DATA[i : i + 4] for i in range(17)]))
    assert np.concatenate([b[1] for b in out]).tolist() == list(range(100, 117))
    assert str(ds.element_spec) == (
        "(TensorSpec(shape=(None, None, 2), dtype=tf.float32, name=None), "
        "TensorSpec(shape=(None,), dtype=tf.int64, name=None))"
    )


def test_stride_sampling_rate_and_range() -> None:
    ds = u.timeseries_dataset_from_array(
        DATA, None, 3, sequence_stride=3, sampling_rate=2, batch_size=2, start_index=2,
        end_index=18,
    )  # fmt: skip
    out = [b.tolist() for b in batches(ds)]
    assert out == [  # TF's
        [[[4.0, 5.0], [8.0, 9.0], [12.0, 13.0]], [[10.0, 11.0], [14.0, 15.0], [18.0, 19.0]]],
        [[[16.0, 17.0], [20.0, 21.0], [24.0, 25.0]], [[22.0, 23.0], [26.0, 27.0], [30.0, 31.0]]],
    ]
    assert str(ds.element_spec) == "TensorSpec(shape=(None, None, 2), dtype=tf.float32, name=None)"


def test_seeded_shuffles_match_tf() -> None:
    tf.random.set_seed(None)  # TF's run had no global seed (shuffle's seed pairs with it)
    ds = u.timeseries_dataset_from_array(
        DATA[:, 0], TARGETS, 3, batch_size=None, shuffle=True, seed=7
    )
    out = batches(ds)
    order = [int(t) for _, t in out]
    assert order == [111, 112, 106, 108, 102, 117, 116, 115, 110, 103, 113, 114, 100, 109, 107,
                     105, 104, 101]  # fmt: skip
    for window, target in out:
        i = int(target) - 100
        assert window.tolist() == DATA[i : i + 3, 0].tolist()
    ds = u.timeseries_dataset_from_array(
        DATA, TARGETS, 2, sequence_stride=2, batch_size=3, shuffle=True, seed=3
    )
    assert [b[1].tolist() for b in batches(ds)] == [
        [118, 100, 102], [114, 106, 110], [104, 108, 112], [116]]  # fmt: skip


@pytest.mark.parametrize(
    "kwargs,text",
    [
        (dict(start_index=-1), "`start_index` must be 0 or greater. Received: start_index=-1"),
        (dict(end_index=25), "`end_index` must be lower than the length of the data. "
         "Received: end_index=25, for data of length 20"),
        (dict(sampling_rate=0), "`sampling_rate` must be higher than 0. Received: sampling_rate=0"),
        (dict(sequence_stride=30), "`sequence_stride` must be lower than the length of the "
         "data. Received: sequence_stride=30, for data of length 20"),
        (dict(start_index=5, end_index=3), "`end_index` must be higher than `start_index`. "
         "Received: start_index=5, and end_index=3 "),
        (dict(format="x"), '`format` should be either "tf" or "grain". Received: format=x'),
    ],
)  # fmt: skip
def test_errors(kwargs: dict[str, Any], text: str) -> None:
    with pytest.raises(ValueError) as e:
        u.timeseries_dataset_from_array(DATA, None, 3, **kwargs)
    assert str(e.value) == text
