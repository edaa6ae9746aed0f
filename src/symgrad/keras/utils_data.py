"""``tf.keras.utils.PyDataset`` (and its old name ``Sequence``): batches by index for
``fit``/``evaluate``/``predict`` (see :mod:`.trainers.py_data` for how they are read).

symgrad reads the batches in the calling thread: ``workers``, ``use_multiprocessing`` and
``max_queue_size`` are kept as Keras keeps them and change nothing (Keras's own values
only change how many threads prefetch, not which batches a step gets)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any


class PyDataset:
    """Base class: implement ``__getitem__(index)`` and ``__len__`` (or ``num_batches``;
    ``None`` for an infinite dataset), optionally ``on_epoch_begin``/``on_epoch_end``."""

    def __init__(
        self, workers: int = 1, use_multiprocessing: bool = False, max_queue_size: int = 10
    ) -> None:
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    @property
    def workers(self) -> int:
        return getattr(self, "_workers", 1)

    @workers.setter
    def workers(self, value: int) -> None:
        self._workers = value

    @property
    def use_multiprocessing(self) -> bool:
        return getattr(self, "_use_multiprocessing", False)

    @use_multiprocessing.setter
    def use_multiprocessing(self, value: bool) -> None:
        self._use_multiprocessing = value

    @property
    def max_queue_size(self) -> int:
        return getattr(self, "_max_queue_size", 10)

    @max_queue_size.setter
    def max_queue_size(self, value: int) -> None:
        self._max_queue_size = value

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Any]:
        try:
            count = self.num_batches
        except NotImplementedError:
            count = None
        for index in range(count) if count is not None else itertools.count():
            yield self[index]

    @property
    def num_batches(self) -> Any:
        """The number of batches, or ``None`` for an infinite dataset (``len`` if defined)."""
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError(
            "You need to implement the `num_batches` property:\n\n"
            "@property\ndef num_batches(self):\n  return ..."
        )

    def on_epoch_begin(self) -> None:
        """Called at the beginning of every epoch."""

    def on_epoch_end(self) -> None:
        """Called at the end of every epoch."""


Sequence = PyDataset
