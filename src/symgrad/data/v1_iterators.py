"""TF1's dataset iterators: ``tf.compat.v1.data.make_one_shot_iterator``,
``make_initializable_iterator`` and ``Iterator.from_structure``, run by a ``Session``.

In a TF1 graph an iterator is state that ops step: its ``initializer`` (TF's
``MakeIterator``) starts a pass over a dataset, and each run of ``get_next()``'s op
(``IteratorGetNext``) takes the next element, raising ``OutOfRangeError`` past the end.
A dataset in a graph may be made from the graph's tensors (``from_tensor_slices(x)`` with
``x`` a placeholder, TF1's way of feeding arrays to a pipeline): those tensors are the
initializer's inputs, so the run that initialises the iterator computes (or is fed) them,
and the pass reads their values (``Feeds``).  The pipeline itself runs in Python, as every
dataset here does (:mod:`.base`).

Unlike TF, an iterator's position is the iterator's, not the Session's: a second Session
running the same ``get_next`` continues the first one's pass.
"""

from __future__ import annotations

from collections.abc import Iterator as PyIterator
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.context import executing_eagerly
from symgrad.core.errors import FailedPreconditionError, OutOfRangeError
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.core.op_registry import apply_op, register_op
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.data import structure
from symgrad.data.base import DatasetBase, scoped
from symgrad.data.batching import shape_leaves
from symgrad.runtime.function import TensorSpec


class Feeds:
    """The graph tensors a dataset source was made from; their values, once an iterator
    initializer (or a one-shot iterator's first ``get_next``) has run, as arrays."""

    def __init__(self, tensors: list[Tensor]) -> None:
        self.tensors = tensors
        self._values: list[np.ndarray] | None = None

    def bind(self, values: list[np.ndarray]) -> None:
        self._values = values

    def arrays(self, flat: list[Tensor]) -> tuple[np.ndarray, ...]:
        """The arrays of ``flat`` (the source's tensors, eager or fed) for this pass."""
        if self._values is None:
            raise FailedPreconditionError(
                "a dataset made from graph tensors is read by a TF1 iterator: run its "
                "initializer (tf.compat.v1.data.make_initializable_iterator) first"
            )
        fed = {id(t): v for t, v in zip(self.tensors, self._values, strict=True)}
        return tuple(fed[id(t)] if id(t) in fed else np.asarray(t.numpy()) for t in flat)


def feeds_of(dataset: Any) -> tuple[Feeds, ...]:
    return getattr(dataset, "_feeds", ())


def _bind(feeds: tuple[Feeds, ...], values: tuple[np.ndarray, ...]) -> None:
    at = 0
    for f in feeds:
        n = len(f.tensors)
        f.bind([np.asarray(v) for v in values[at : at + n]])
        at += n


def _inputs(feeds: tuple[Feeds, ...]) -> list[Tensor]:
    return [t for f in feeds for t in f.tensors]


# -- the ops: the iterator object rides in the attrs, as a variable rides in a read's


def _make_kernel(*values: np.ndarray, iterator: Any, dataset: Any) -> tuple[()]:
    _bind(feeds_of(dataset), values)
    iterator._start(dataset)
    return ()


def _get_next_kernel(*values: np.ndarray, iterator: Any) -> Any:
    if iterator._pass is None and iterator._one_shot is not None:  # its first run
        _bind(feeds_of(iterator._one_shot), values)
        iterator._start(iterator._one_shot)
    flat = iterator._next()
    return flat if len(flat) != 1 else flat[0]


def _get_next_infer(inputs: Any, *, iterator: Any) -> list[tuple[TensorShape, Any]]:
    return [(as_shape(s.shape), s.dtype) for s in structure.flatten(iterator.element_spec)]


_NO_CASES = "it steps a TF1 dataset iterator: tests/data/test_v1_iterators.py covers it"
register_op(
    "MakeIterator", lambda inputs, **attrs: [], _make_kernel, stateful=True, pure=False,
    no_cases=_NO_CASES, batch="it starts a dataset iterator",
).no_gradient()  # fmt: skip
register_op(
    "IteratorGetNext", _get_next_infer, _get_next_kernel, stateful=True, pure=False,
    no_cases=_NO_CASES, batch="it steps a dataset iterator, one element at a time",
).no_gradient()  # fmt: skip


class Iterator:
    """A TF1 iterator of a graph: ``initializer`` (or ``make_initializer(dataset)``)
    starts a pass, ``get_next()`` is an op whose runs step it."""

    def __init__(self, element_spec: Any, one_shot: Any = None) -> None:
        self._spec = element_spec
        self._one_shot = one_shot  # the dataset a one-shot iterator reads, on first use
        self._pass: PyIterator[structure.Flat] | None = None
        self._initializer: Operation | None = None
        self._graph = get_default_graph()

    @staticmethod
    def from_structure(
        output_types: Any,
        output_shapes: Any = None,
        shared_name: Any = None,
        output_classes: Any = None,
    ) -> Iterator:
        """An iterator of elements of this structure, for ``make_initializer`` to point at
        one dataset, then another (TF's reinitializable iterator)."""
        if executing_eagerly():
            raise RuntimeError(
                "Iterator.from_structure() is not supported when eager execution is enabled."
            )
        types = structure.flatten(output_types)
        shapes = (
            [TensorShape(None)] * len(types)
            if output_shapes is None
            else [as_shape(s) for s in shape_leaves(output_types, output_shapes)]
        )
        specs = [TensorSpec(s, dt.as_dtype(t)) for s, t in zip(shapes, types, strict=True)]
        return Iterator(structure.pack(output_types, specs))

    # -- what TF1 code reads
    @property
    def element_spec(self) -> Any:
        return self._spec

    @property
    def output_types(self) -> Any:
        return _map(self._spec, lambda s: s.dtype)

    @property
    def output_shapes(self) -> Any:
        return _map(self._spec, lambda s: as_shape(s.shape))

    @property
    def output_classes(self) -> Any:
        return _map(self._spec, lambda s: Tensor)

    @property
    def initializer(self) -> Operation:
        if self._initializer is None:
            raise ValueError(
                "Iterator does not have an initializer: make it with "
                "make_initializable_iterator, or use make_initializer(dataset)"
            )
        return self._initializer

    def make_initializer(self, dataset: Any, name: str | None = None) -> Operation:
        """An op that starts a pass of this iterator over ``dataset`` when run."""
        mine, theirs = structure.flatten(self._spec), structure.flatten(dataset.element_spec)
        if len(mine) == len(theirs) and any(a.dtype is not b.dtype for a, b in zip(mine, theirs)):
            raise TypeError(
                f"Expected output types {self.output_types!r} but got dataset with output "
                f"types {get_output_types(dataset)!r}."
            )
        structure.check_matches("dataset", self._spec, dataset.element_spec)  # the nesting
        if not all(as_shape(b.shape).is_compatible_with(a.shape) for a, b in zip(mine, theirs)):
            raise TypeError(
                f"Expected output shapes compatible with {self.output_shapes!r} but got "
                f"dataset with output shapes {get_output_shapes(dataset)!r}."
            )
        attrs = {"iterator": self, "dataset": dataset}
        with self._graph.as_default():
            return apply_op("MakeIterator", _inputs(feeds_of(dataset)), attrs, name)

    def get_next(self, name: str | None = None) -> Any:
        """The next element, as tensors whose run steps the iterator (``OutOfRangeError``
        past the end)."""
        feeds = feeds_of(self._one_shot) if self._one_shot is not None else ()
        with self._graph.as_default():
            op = apply_op("IteratorGetNext", _inputs(feeds), {"iterator": self}, name)
        return structure.pack(self._spec, list(op.outputs))

    # -- what the kernels do
    def _start(self, dataset: Any) -> None:
        self._pass = scoped(dataset._iterate())

    def _next(self) -> tuple[np.ndarray, ...]:
        if self._pass is None:
            raise FailedPreconditionError(
                "GetNext() failed because the iterator has not been initialized. Ensure "
                "that you have run the initializer operation for this iterator before "
                "getting the next element."
            )
        flat = next(self._pass, None)
        if flat is None:
            raise OutOfRangeError("End of sequence")
        return tuple(np.asarray(a) for a in flat)


def _map(spec: Any, fn: Any) -> Any:
    return structure.pack(spec, [fn(s) for s in structure.flatten(spec)])


def make_one_shot_iterator(dataset: DatasetBase) -> Any:
    """TF1's iterator that starts its one pass on its first ``get_next`` run; eagerly,
    ``iter(dataset)`` (as TF's)."""
    if executing_eagerly():
        return iter(dataset)
    return Iterator(dataset.element_spec, one_shot=dataset)


def make_initializable_iterator(dataset: DatasetBase, shared_name: Any = None) -> Iterator:
    """TF1's iterator whose ``initializer`` starts a pass (again each time it runs)."""
    if executing_eagerly():
        raise RuntimeError(
            "`make_initializable_iterator()` is not supported in eager mode. Use "
            "Python-style iteration instead."
        )
    it = Iterator(dataset.element_spec)
    it._initializer = it.make_initializer(dataset)
    return it


def get_output_types(dataset_or_iterator: Any) -> Any:
    return _map(dataset_or_iterator.element_spec, lambda s: s.dtype)


def get_output_shapes(dataset_or_iterator: Any) -> Any:
    return _map(dataset_or_iterator.element_spec, lambda s: as_shape(s.shape))


def get_output_classes(dataset_or_iterator: Any) -> Any:
    return _map(dataset_or_iterator.element_spec, lambda s: Tensor)
