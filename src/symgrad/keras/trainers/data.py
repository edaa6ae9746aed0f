"""What ``fit``/``evaluate``/``predict`` iterate: NumPy arrays cut into batches (Keras's
``validation_split`` takes the last samples, before any shuffling) or a ``tf.data`` Dataset
whose elements are ``x``, ``(x, y)`` or ``(x, y, sample_weight)``."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from symgrad.core import nest
from symgrad.ops.random import philox
from symgrad.ops.random import seeded as tf_random


def is_dataset(x: Any) -> bool:
    return hasattr(x, "element_spec") and hasattr(x, "as_numpy_iterator")


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """Keras's ``keras.utils.unpack_x_y_sample_weight``."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError(
        "Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
        f"found: {data}"
    )


def _num_samples(x: Any) -> int:
    return int(np.shape(nest.flatten(x)[0])[0])


def _check_cardinality(*data: Any) -> None:
    """Keras's ``check_data_cardinality``: every array of ``(x, y, sample_weight)`` has the
    same number of samples (a mismatch would train on misaligned pairs)."""
    parts = []
    for label, d in zip(("x", "y", "sample_weight"), data):
        sizes = [np.shape(a)[0] for a in nest.flatten(d) if a is not None and np.ndim(a)]
        if sizes:
            parts.append((label, sizes))
    if len({n for _, sizes in parts for n in sizes}) > 1:
        msg = (
            "Data cardinality is ambiguous. Make sure all arrays contain the same number of "
            "samples."
        )
        for label, sizes in parts:
            msg += f"'{label}' sizes: {', '.join(map(str, sizes))}\n"
        raise ValueError(msg)


def _take(x: Any, index: Any) -> Any:
    return nest.map_structure(lambda a: None if a is None else np.asarray(a)[index], x)


def split_validation(x: Any, y: Any, sw: Any, fraction: float) -> tuple[Any, Any]:
    """Keras's ``train_validation_split``: the last ``fraction`` of the samples validate."""
    from symgrad.keras.trainers.py_data import is_python_input

    if is_dataset(x) or is_python_input(x):
        raise ValueError(
            "`validation_split` is only supported for Tensors or NumPy arrays, "
            f"found following types in the input: {[type(x)]}"
        )
    n = _num_samples(x)
    split_at = math.floor(n * (1.0 - fraction))
    if split_at == 0 or split_at == n:
        raise ValueError(
            f"Training data contains {n} samples, which is not sufficient to split it into a "
            f"validation and training set as specified by `validation_split={fraction}`."
        )
    head, tail = slice(0, split_at), slice(split_at, n)
    return (_take(x, head), _take(y, head), _take(sw, head)), (
        _take(x, tail),
        _take(y, tail),
        _take(sw, tail),
    )


def class_weights_to_sample_weights(y: Any, class_weight: dict[int, float]) -> np.ndarray:
    y = np.asarray(y)
    labels = np.argmax(y, axis=-1) if y.ndim > 1 and y.shape[-1] > 1 else y.reshape(y.shape[0])
    table = np.zeros(max(class_weight) + 1, np.float32)
    for k, v in class_weight.items():
        table[k] = v
    return table[labels.astype(np.int64)]


def epoch_order(n: int) -> np.ndarray:
    """The sample order of a shuffled epoch.  Keras on TF permutes the indices with
    ``tf.random.shuffle`` in a ``tf.data`` map, op seed 0 under the global seed, and each
    epoch's fresh iterator restarts that op's generator: with ``set_random_seed`` every
    epoch has the same order, TF's.  Without a global seed the order is NumPy's."""
    global_seed = tf_random._Context.seed
    if global_seed is None:
        return np.random.permutation(n)
    seeds = (int(global_seed) % (2**31 - 1), 0)
    stream = philox.Stream(*((0, 2**31 - 1) if seeds == (0, 0) else seeds))
    return philox.shuffle_order(stream.key, stream.reserve((n + 2) // 4), n)


class EpochIterator:
    """Batches for each epoch, and the number of steps an epoch has (``None``: unknown)."""

    def __init__(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        batch_size: Any = None,
        steps_per_epoch: Any = None,
        shuffle: bool = False,
        class_weight: Any = None,
    ) -> None:
        self.dataset = x if is_dataset(x) else None
        if class_weight is not None and sample_weight is not None:
            raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
        self.steps_per_epoch, self._iterator = steps_per_epoch, None
        self._class_weight = class_weight
        if self.dataset is None:
            _check_cardinality(x, y, sample_weight)
            if class_weight is not None and y is not None:
                sample_weight = class_weights_to_sample_weights(y, class_weight)
            self.arrays = (x, y, sample_weight)
            self.num_samples = _num_samples(x)
            self.batch_size = batch_size or 32
            self.shuffle = shuffle
        self.exhausted = False

    @property
    def num_batches(self) -> Any:
        if self.steps_per_epoch is not None:
            return self.steps_per_epoch
        if self.dataset is None:
            return math.ceil(self.num_samples / self.batch_size)
        n = int(self.dataset.cardinality())
        return n if n >= 0 else None

    def _array_batches(self) -> Iterator[Any]:
        while True:
            order = epoch_order(self.num_samples) if self.shuffle else np.arange(self.num_samples)
            for start in range(0, self.num_samples, self.batch_size):
                index = order[start : start + self.batch_size]
                yield tuple(_take(a, index) for a in self.arrays)
            if self.steps_per_epoch is None:
                return

    def _dataset_batches(self) -> Iterator[Any]:
        for element in self.dataset.as_numpy_iterator():  # type: ignore[union-attr]
            x, y, sw = unpack_x_y_sample_weight(element)
            if self._class_weight is not None and y is not None:
                if sw is not None:
                    raise ValueError(
                        "You cannot `class_weight` and `sample_weight` at the same time."
                    )
                sw = class_weights_to_sample_weights(y, self._class_weight)
            yield x, y, sw

    def _source(self) -> Iterator[Any]:
        return self._array_batches() if self.dataset is None else self._dataset_batches()

    def enumerate_epoch(self) -> Iterator[tuple[int, Any]]:
        """(step, batch) pairs; with ``steps_per_epoch`` one iterator lasts across epochs,
        as Keras's does, and running out ends training with Keras's warning."""
        if self.steps_per_epoch is None:
            yield from enumerate(self._source())
            if self.dataset is not None and self.num_batches is not None:
                # Keras's epoch iterator, having read every batch, opens an iterator for
                # the next epoch, which then opens its own: the first is never read, but a
                # shuffle in it draws its seeds, so epoch k reads the dataset's (2k-1)th
                # iteration, as on TF.
                iter(self.dataset)
            return
        if self._iterator is None:
            self._iterator = self._source()  # type: ignore[assignment]
        for step in range(self.steps_per_epoch):
            batch = next(self._iterator, None)  # type: ignore[call-overload]
            if batch is None:
                self.exhausted = True
                warnings.warn(
                    "Your input ran out of data; interrupting training. Make sure that your "
                    "dataset or generator can generate at least `steps_per_epoch * epochs` "
                    "batches. You may need to use the `.repeat()` function when building your "
                    "dataset.",
                    UserWarning,
                    stacklevel=3,
                )
                return
            yield step, batch
