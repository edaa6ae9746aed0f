"""``for x in dataset`` inside a ``function``, as TF's AutoGraph runs it: a graph loop over
a fresh iterator of the dataset, made each time the function runs.

TF converts the loop into a dataset reduction (``ds.reduce`` over the loop variables); the
body is traced once, and every call of the function iterates the dataset again (so a
reshuffling pipeline gives a new order each call, and a Python side effect in the body
happens once, at tracing).  symgrad builds the same thing from three stateful ops: one
makes an iterator of the dataset when the function runs, the loop's condition asks it for
a next element, the body takes that element; the dataset itself runs in Python, as every
pipeline here does (:mod:`.base`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core import nest
from symgrad.core.context import executing_eagerly
from symgrad.core.op_registry import apply_op, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.data import structure
from symgrad.data.base import scoped

_DATASETS: dict[int, Any] = {}  # a traced loop's dataset, kept while its graph lives
_ITERATORS: dict[int, _Iterator] = {}
_HANDLES = itertools.count(1)


class _Iterator:
    """One run's pass over a dataset, with the element the condition peeked at."""

    def __init__(self, dataset: Any) -> None:
        self.it: Iterator[Any] = scoped(dataset._iterate())
        self.buffered: Any = None

    def has_next(self) -> bool:
        if self.buffered is None:
            self.buffered = next(self.it, None)
        return self.buffered is not None

    def take(self) -> Any:
        if not self.has_next():
            raise RuntimeError("the dataset loop's body ran past the end of its dataset")
        item, self.buffered = self.buffered, None
        return item


def _make_kernel(*, key: int) -> np.ndarray:
    handle = next(_HANDLES)
    _ITERATORS[handle] = _Iterator(_DATASETS[key])
    return np.array(handle, np.int64)


def _has_next_kernel(handle: np.ndarray, *, key: int) -> np.ndarray:
    it = _ITERATORS[int(handle)]
    more = it.has_next()
    if not more:
        _ITERATORS.pop(int(handle), None)  # the pass is over: free it
    return np.array(more)


def _get_next_kernel(handle: np.ndarray, *, key: int) -> Any:
    flat = _ITERATORS[int(handle)].take()
    out = tuple(np.asarray(a) for a in flat)
    return out if len(out) != 1 else out[0]


def _specs(key: int) -> list[tuple[TensorShape, Any]]:
    spec = _DATASETS[key].element_spec
    return [(TensorShape(s.shape), s.dtype) for s in structure.flatten(spec)]


_NO_CASES = "it runs a dataset: tests/data/test_dataset_loop.py covers it"
for _type, _infer, _kernel in (
    ("DatasetLoopIterator", lambda inputs, *, key: (TensorShape([]), dt.int64), _make_kernel),
    ("DatasetLoopHasNext", lambda inputs, *, key: (TensorShape([]), dt.bool_), _has_next_kernel),
    ("DatasetLoopGetNext", lambda inputs, *, key: _specs(key), _get_next_kernel),
):
    register_op(
        _type, _infer, _kernel, stateful=True, pure=False, no_cases=_NO_CASES,
        batch="it steps a dataset iterator, one element at a time",
    ).no_gradient()  # fmt: skip


def dataset_for_stmt(
    dataset: Any,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: Callable[[], Any],
    set_state: Callable[[Any], None],
    names: Any,
    where: str,
    opts: Any = None,
) -> None:
    """AutoGraph's ``for x in dataset: body(x)`` (while ``extra_test()``, for break and
    return): a ``while_loop`` over the loop variables when tracing, Python's loop eagerly."""
    from symgrad.autograph.operators import _py_for, _tf_loop

    if executing_eagerly():
        _py_for(dataset, extra_test, body, where)
        return
    key = id(dataset)
    _DATASETS[key] = dataset
    spec = dataset.element_spec
    handle = apply_op1("DatasetLoopIterator", [], {"key": key})

    def test(h: Any) -> Any:
        more = apply_op1("DatasetLoopHasNext", [h], {"key": key})
        if extra_test is None:
            return more
        from symgrad.ops.math import elementwise as m

        return m.logical_and(more, extra_test())

    def step(h: Any) -> Any:
        op = apply_op("DatasetLoopGetNext", [h], {"key": key})
        body(nest.pack_sequence_as(spec, list(op.outputs)))
        return h

    _tf_loop(test, step, handle, get_state, set_state, names, where, opts)
