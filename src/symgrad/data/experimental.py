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
]


def cardinality(dataset: Any) -> Any:
    """The number of elements of ``dataset`` as an int64 scalar (-1 infinite, -2 unknown)."""
    return dataset.cardinality()
