"""``tf.data.experimental``: the names that have a ``Dataset`` method counterpart."""

from __future__ import annotations

from typing import Any

from symgrad.data.base import AUTOTUNE, INFINITE, UNKNOWN
from symgrad.data.options import (
    AutoShardPolicy,
    AutotuneOptions,
    DistributeOptions,
    OptimizationOptions,
    ThreadingOptions,
)

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "AutoShardPolicy",
    "AutotuneOptions",
    "DistributeOptions",
    "OptimizationOptions",
    "ThreadingOptions",
    "cardinality",
    "choose_from_datasets",
    "sample_from_datasets",
]


def cardinality(dataset: Any) -> Any:
    """The number of elements of ``dataset`` as an int64 scalar (-1 infinite, -2 unknown)."""
    return dataset.cardinality()


def sample_from_datasets(
    datasets: Any, weights: Any = None, seed: Any = None, stop_on_empty_dataset: bool = False
) -> Any:
    """``Dataset.sample_from_datasets`` (TF's experimental alias)."""
    from symgrad.data.dataset import Dataset

    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(
    datasets: Any, choice_dataset: Any, stop_on_empty_dataset: bool = False
) -> Any:
    """``Dataset.choose_from_datasets``, but not stopping at an empty input by default
    (TF's experimental alias)."""
    from symgrad.data.dataset import Dataset

    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)
