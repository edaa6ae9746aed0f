"""``tf.data.Dataset``'s core: an element spec, a cardinality, and a way to iterate.

A dataset here is a recipe that produces a fresh Python iterator of flat elements (tuples of
NumPy arrays, see ``structure``) each time it is iterated, as each ``iter()`` of a TF dataset
makes a new iterator.  Work runs eagerly (under ``init_scope``) even while a ``function`` is
being traced; only the elements handed to the user become tensors of the current graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.context import init_scope
from symgrad.core.errors import InvalidArgumentError, OutOfRangeError
from symgrad.data import structure
from symgrad.ops.core import constant

INFINITE = -1
UNKNOWN = -2
AUTOTUNE = -1

Produce = Callable[[], Iterator[structure.Flat]]


class DatasetBase:
    """The parts every dataset has; the transformations live in ``Dataset``."""

    # "shuffle" when the last transformation, no-ops aside, is a shuffle: TF then fuses a
    # repeat above it into ShuffleAndRepeat, which opens no spare iterator (see repeat).
    _top: str | None = None
    _feeds: tuple[Any, ...] = ()  # a TF1 graph's tensors it was made from (v1_iterators)

    def __init__(self, spec: Any, cardinality: int, produce: Produce) -> None:
        self._spec = spec
        self._card = int(cardinality)
        self._produce = produce

    @property
    def element_spec(self) -> Any:
        """The structure of ``TensorSpec`` of an element, as TF's ``element_spec``."""
        return self._spec

    def _iterate(self) -> Iterator[structure.Flat]:
        """The pipeline's own iterator: callers that hand elements to users step it
        under ``init_scope`` (``scoped``), once per element for the whole pipeline."""
        return self._produce()

    def cardinality(self) -> Any:
        """The number of elements as an int64 scalar: -1 infinite, -2 unknown (TF's)."""
        return constant(np.int64(self._card), dt.int64)

    def __iter__(self) -> OwnedIterator:
        return OwnedIterator(self)

    def __len__(self) -> int:
        if self._card == INFINITE:
            raise TypeError("The dataset is infinite.")
        if self._card == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return self._card

    def __bool__(self) -> bool:
        return True  # TF: a dataset is truthy even when empty (no __len__ fallback)

    def as_numpy_iterator(self) -> Iterator[Any]:
        """The elements as NumPy values (scalars as NumPy scalars), structure kept."""
        for flat in scoped(self._iterate()):
            yield structure.to_numpy(self._spec, flat)

    def get_single_element(self, name: str | None = None) -> Any:
        it = scoped(self._iterate())
        first = next(it, None)
        if first is None:
            raise InvalidArgumentError("Dataset was empty.")
        if next(it, None) is not None:
            raise InvalidArgumentError("Dataset had more than one element.")
        return structure.to_tensors(self._spec, first)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} element_spec={self._spec}>"


def passthrough(ds: DatasetBase, spec: Any = None) -> Any:
    """What TF's no-op elimination leaves of ``take(-1)``, ``skip(0)``, ``repeat(1)``,
    ``shard(1, 0)``, ``prefetch(0)`` and an identity ``map``: the input itself."""
    out = type(ds)(ds.element_spec if spec is None else spec, ds._card, ds._produce)
    out._top = ds._top
    return out


def primed(generator: Produce) -> Produce:
    """A generator function's iterator, made as TF makes one: at once, with its inputs
    (TF's ``MakeIterator`` initializes the whole chain, and a shuffle draws its seeds
    then). The generator makes its inputs, yields ``()``, then yields elements."""

    def produce() -> Iterator[structure.Flat]:
        it = generator()
        next(it)
        return it

    return produce


def scoped(it: Iterator[structure.Flat]) -> Iterator[structure.Flat]:
    """``it`` stepped eagerly and unrecorded by tapes, even inside a ``function`` trace
    (TF runs a pipeline in its own runtime, never in the caller's graph or tape)."""
    while True:
        with init_scope():
            item = next(it, None)
        if item is None:
            return
        yield item


class OwnedIterator:
    """What ``iter(dataset)`` returns: ``next()`` gives tensors; the end is StopIteration."""

    def __init__(self, dataset: DatasetBase) -> None:
        self._dataset = dataset
        self._it = scoped(dataset._iterate())

    @property
    def element_spec(self) -> Any:
        return self._dataset.element_spec

    def __iter__(self) -> OwnedIterator:
        return self

    def __next__(self) -> Any:
        flat = next(self._it, None)
        if flat is None:
            raise StopIteration
        return structure.to_tensors(self._dataset.element_spec, flat)

    def get_next(self) -> Any:
        """The next element; past the end TF raises ``OutOfRangeError``."""
        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None
