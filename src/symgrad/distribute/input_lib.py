"""Distributed input: a dataset's global batches split over the replicas.

``experimental_distribute_dataset`` splits each element (a global batch) along its first
axis the way TF's rebatching does: ``ceil(size / replicas)`` rows to each replica in
turn, so a batch of 10 over 4 replicas gives 3, 3, 3, 1 rows and a last batch of 3 gives
1, 1, 1, 0.  ``distribute_datasets_from_function`` hands the function's elements (per-
replica batches) to the replicas in turn.  Each part is a tensor on its replica's device.
Any iterable of NumPy batches (a list of arrays or of tuples of them) is accepted as well
as a ``tf.data.Dataset`` (TF takes only the latter).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from symgrad.core import devices, nest
from symgrad.distribute.values import regroup


def _as_array(leaf: Any) -> np.ndarray:
    value = leaf.numpy() if hasattr(leaf, "numpy") else leaf
    arr = np.asarray(value)
    if arr.ndim == 0:
        raise ValueError(
            "a distributed dataset's elements must be batches (rank >= 1) to split over "
            f"the replicas; got a scalar {leaf!r}: batch the dataset first"
        )
    return arr


class DistributedIterator:
    """``tf.distribute.DistributedIterator``: PerReplica batches."""

    def __init__(self, strategy: Any, source: Iterator[Any], split: bool) -> None:
        self._strategy, self._source, self._split = strategy, source, split

    def __iter__(self) -> DistributedIterator:
        return self

    def __next__(self) -> Any:
        if self._split:
            return _split(self._strategy, next(self._source))
        return _gather(self._strategy, self._source)

    def get_next(self) -> Any:
        return next(self)


class DistributedDataset:
    """``tf.distribute.DistributedDataset``: iterate it for PerReplica batches."""

    def __init__(self, strategy: Any, source: Any, split: bool = True) -> None:
        if not hasattr(source, "__iter__"):
            raise TypeError(
                "experimental_distribute_dataset takes a tf.data.Dataset or an iterable of "
                f"NumPy batches, got {type(source).__name__}"
            )
        self._strategy, self._source, self._split = strategy, source, split

    def __iter__(self) -> DistributedIterator:
        return DistributedIterator(self._strategy, iter(self._source), self._split)


def _placed(strategy: Any, parts: list[Any]) -> Any:
    """One structure per local replica -> PerReplica leaves, each part a tensor on its
    replica's device."""
    from symgrad.ops.core import constant

    made = []
    for name, part in zip(strategy._devices(), parts):
        with devices.device(name):
            made.append(nest.map_structure(constant, part))
    return regroup(made)


def _split(strategy: Any, element: Any) -> Any:
    n = strategy.num_replicas_in_sync
    first = strategy.extended._replica_offset
    local = len(strategy._devices())
    flat = [_as_array(leaf) for leaf in nest.flatten(element)]
    parts = []
    for r in range(first, first + local):
        rows = [a[r * -(-len(a) // n) : (r + 1) * -(-len(a) // n)] for a in flat]
        parts.append(nest.pack_sequence_as(element, rows))
    return _placed(strategy, parts)


def _gather(strategy: Any, source: Iterator[Any]) -> Any:
    parts: list[Any] = []
    for element in source:
        parts.append(nest.map_structure(_as_array, element))
        if len(parts) == len(strategy._devices()):
            break
    if not parts:
        raise StopIteration
    empty = nest.map_structure(lambda a: a[:0], parts[0])
    parts += [empty] * (len(strategy._devices()) - len(parts))
    return _placed(strategy, parts)


def from_function(strategy: Any, dataset_fn: Callable[..., Any]) -> DistributedDataset:
    """``distribute_datasets_from_function``: one input pipeline per worker."""
    from symgrad.distribute.distribute_lib import InputContext

    workers = getattr(strategy, "_num_workers", 1)
    worker = getattr(strategy, "_worker_index", 0)
    ctx = InputContext(workers, worker, strategy.num_replicas_in_sync)
    return DistributedDataset(strategy, dataset_fn(ctx), split=False)
