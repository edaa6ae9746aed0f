"""``keras.utils.timeseries_dataset_from_array`` as Keras 3 builds it on ``tf.data``: start
positions every ``sequence_stride`` (shuffled by NumPy's ``RandomState(seed)``), each
window ``range(p, p + sequence_length * sampling_rate, sampling_rate)`` gathered from
``data[start_index:end_index]``, targets ``targets[start_index:][p]``, then (with
``shuffle``) ``Dataset.shuffle(batch_size * 8, seed)`` and ``batch``."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.data.dataset import Dataset
from symgrad.ops.array.gather import gather
from symgrad.ops.array.structure import cast
from symgrad.ops.array.structure import range as tf_range


def _check(data: Any, start_index: Any, end_index: Any, sampling_rate: int,
           sequence_stride: int, format: str) -> None:  # fmt: skip
    n = len(data)
    if start_index:
        if start_index < 0:
            raise ValueError(
                f"`start_index` must be 0 or greater. Received: start_index={start_index}"
            )
        if start_index >= n:
            raise ValueError(
                "`start_index` must be lower than the length of the data. Received: "
                f"start_index={start_index}, for data of length {n}"
            )
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(
                "`end_index` must be higher than `start_index`. Received: "
                f"start_index={start_index}, and end_index={end_index} "
            )
        if end_index >= n:
            raise ValueError(
                "`end_index` must be lower than the length of the data. Received: "
                f"end_index={end_index}, for data of length {n}"
            )
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    for name, value in (("sampling_rate", sampling_rate), ("sequence_stride", sequence_stride)):
        if value <= 0:
            raise ValueError(f"`{name}` must be higher than 0. Received: {name}={value}")
        if value >= n:
            raise ValueError(
                f"`{name}` must be lower than the length of the data. Received: "
                f"{name}={value}, for data of length {n}"
            )
    if format not in ("tf", "grain"):
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format}')
    if format == "grain":
        raise NotImplementedError("symgrad builds timeseries datasets on tf.data (format='tf')")


def timeseries_dataset_from_array(
    data: Any,
    targets: Any,
    sequence_length: int,
    sequence_stride: int = 1,
    sampling_rate: int = 1,
    batch_size: Any = 128,
    shuffle: bool = False,
    seed: Any = None,
    start_index: Any = None,
    end_index: Any = None,
    format: str = "tf",
) -> Any:
    _check(data, start_index, end_index, sampling_rate, sequence_stride, format)
    start_index = 0 if start_index is None else start_index
    end_index = len(data) if end_index is None else end_index
    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    index_dtype = "int32" if num_seqs < 2147483647 else "int64"
    starts = np.arange(0, num_seqs, sequence_stride, dtype=index_dtype)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)  # type: ignore[call-overload]  # (Keras passes a float)
        np.random.RandomState(seed).shuffle(starts)
    length = cast(sequence_length, index_dtype)
    rate = cast(sampling_rate, index_dtype)
    positions = Dataset.from_tensors(starts).repeat()
    count = Dataset.range(len(starts))
    windows = Dataset.zip((count, positions)).map(
        lambda i, p: tf_range(p[i], p[i] + length * rate, rate)
    )
    dataset = _sequences(data, windows, start_index, end_index)
    if targets is not None:
        firsts = Dataset.zip((count, positions)).map(lambda i, p: p[i])
        dataset = Dataset.zip((dataset, _sequences(targets, firsts, start_index, end_index)))
    if batch_size is not None:
        if shuffle:
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
        return dataset.batch(batch_size)
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1024, seed=seed)
    return dataset


def _sequences(array: Any, indices: Any, start_index: int, end_index: int) -> Any:
    steps = Dataset.from_tensors(array[start_index:end_index]).repeat()
    return Dataset.zip((steps, indices)).map(lambda s, i: gather(s, i))
