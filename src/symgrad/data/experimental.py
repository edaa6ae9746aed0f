"""``tf.data.experimental``: the names that have a ``Dataset`` method counterpart."""

from __future__ import annotations

from typing import Any

from symgrad.core.errors import FailedPreconditionError
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
    "assert_cardinality",
    "cardinality",
    "choose_from_datasets",
    "sample_from_datasets",
]


def cardinality(dataset: Any) -> Any:
    """The number of elements of ``dataset`` as an int64 scalar (-1 infinite, -2 unknown)."""
    return dataset.cardinality()


def assert_cardinality(expected_cardinality: Any) -> Any:
    """``dataset.apply(assert_cardinality(n))``: the dataset, its cardinality ``n`` (or
    infinite, ``INFINITE_CARDINALITY``), and iterating it raises TF's
    ``FailedPreconditionError`` once it has more or fewer elements."""
    n = int(expected_cardinality)

    def apply(dataset: Any) -> Any:
        def produce() -> Any:
            count = 0
            for element in dataset._iterate():
                count += 1
                if n != INFINITE and count > n:
                    raise FailedPreconditionError(
                        f"Input dataset was expected to contain {_elements(n)} but "
                        f"contained at least {_elements(count)}."
                    )
                yield element
            if count != n:
                want = "an infinite number of elements" if n == INFINITE else _elements(n)
                raise FailedPreconditionError(
                    f"Input dataset was expected to contain {want} but contained only "
                    f"{_elements(count)}."
                )

        return type(dataset)(dataset.element_spec, n, produce)

    return apply


def _elements(n: int) -> str:
    return "1 element" if n == 1 else f"{n} elements"


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
