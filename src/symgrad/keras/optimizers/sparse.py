"""Keras 3's arithmetic on ``IndexedSlices`` (its TF backend's ``sparse.py`` decorators),
for the optimizers' update steps.

Keras keeps a gradient sparse through the operations that keep zeros zero and only
densifies where it must, which decides the rounding of each update:

* ``mul`` (an intersection): slices times a scalar, or times a dense tensor gathered at
  the slices' rows, stay slices;
* ``add`` / ``sub`` (a union): slices with a dense operand are densified first
  (UnsortedSegmentSum, so duplicate rows add up only there);
* ``div``: slices over a scalar or a dense divisor (gathered) stay slices;
* ``square``, ``sqrt``, ``negative``, ``cast``: applied to the values;
* ``mean`` over all axes: the values' sum over the dense shape's size (dense);
* ``assign*``: slices become ``scatter_update`` / ``scatter_add`` / ``scatter_sub`` of
  the touched rows (a duplicate index is applied once per occurrence).

With no IndexedSlices around, each is the plain dense operation.
"""

from __future__ import annotations

from typing import Any

from symgrad.core.eager import EagerTensor
from symgrad.core.graph import Tensor
from symgrad.ops.array import structure as array
from symgrad.ops.array.gather import gather
from symgrad.ops.math import elementwise as math
from symgrad.ops.reduction import reduce as reduction
from symgrad.ops.sparse.indexed_slices import IndexedSlices, dense
from symgrad.ops.state.variables import Variable


def _scalar(x: Any) -> bool:
    shape = getattr(x, "shape", None)
    return shape is None or shape.rank == 0


def _at_rows(x: Any, rows: IndexedSlices) -> Any:
    return x if _scalar(x) else gather(x, rows.indices)


def _slices(values: Any, like: IndexedSlices) -> IndexedSlices:
    return IndexedSlices(values, like.indices, like.dense_shape)


def mul(x1: Any, x2: Any) -> Any:
    if isinstance(x1, IndexedSlices) and isinstance(x2, IndexedSlices):
        if x1.indices is x2.indices:
            return _slices(x1.values * x2.values, x1)
        return dense(x1) * dense(x2)
    if isinstance(x1, IndexedSlices):
        return _slices(x1.values * _at_rows(x2, x1), x1)
    if isinstance(x2, IndexedSlices):
        return _slices(_at_rows(x1, x2) * x2.values, x2)
    return x1 * x2


def add(x1: Any, x2: Any) -> Any:
    if _same_rows(x1, x2):
        return _slices(x1.values + x2.values, x1)
    return dense(x1) + dense(x2)


def sub(x1: Any, x2: Any) -> Any:
    if _same_rows(x1, x2):
        return _slices(x1.values - x2.values, x1)
    return dense(x1) - dense(x2)


def _same_rows(x1: Any, x2: Any) -> bool:
    return (
        isinstance(x1, IndexedSlices) and isinstance(x2, IndexedSlices) and x1.indices is x2.indices
    )


def div(x1: Any, x2: Any) -> Any:
    """Slices over a dense divisor keep their rows (Keras also adds the rows where the
    divisor is zero or NaN; an optimizer's divisor, a root plus ε, never is)."""
    if isinstance(x1, IndexedSlices) and not isinstance(x2, IndexedSlices):
        return _slices(x1.values / _at_rows(x2, x1), x1)
    return dense(x1) / dense(x2)


def square(x: Any) -> Any:
    return _slices(math.square(x.values), x) if isinstance(x, IndexedSlices) else math.square(x)


def sqrt(x: Any) -> Any:
    return _slices(math.sqrt(x.values), x) if isinstance(x, IndexedSlices) else math.sqrt(x)


def negative(x: Any) -> Any:
    return _slices(math.negative(x.values), x) if isinstance(x, IndexedSlices) else -x


def mean(x: Any) -> Any:
    """The mean of all elements: an untouched row counts as zeros."""
    if isinstance(x, IndexedSlices):
        total = reduction.reduce_sum(x.values)
        return total / array.cast(reduction.reduce_prod(x.dense_shape), total.dtype)
    return reduction.reduce_mean(x)


def cast(x: Any, dtype: Any) -> Any:
    """``array.cast``, slices' values cast.  (A tensor of ``dtype`` is itself and a
    variable of it read, ``value()``, as ``array.cast`` gives them, in fewer calls: every
    update step casts its gradient and learning rate.)"""
    kind = type(x)
    if kind is EagerTensor or kind is Tensor:
        if x.dtype is dtype:
            return x
    elif kind is Variable and x._dtype is dtype:
        return x.value()
    if isinstance(x, IndexedSlices):
        return _slices(array.cast(x.values, dtype), x)
    return array.cast(x, dtype)


def assign(variable: Variable, value: Any) -> Any:
    if isinstance(value, IndexedSlices):
        return variable.scatter_update(cast(value, variable.dtype))
    return variable.assign(value)


def assign_add(variable: Variable, value: Any) -> Any:
    if isinstance(value, IndexedSlices):
        return variable.scatter_add(cast(value, variable.dtype))
    return variable.assign_add(value)


def assign_sub(variable: Variable, value: Any) -> Any:
    if isinstance(value, IndexedSlices):
        return variable.scatter_sub(cast(value, variable.dtype))
    return variable.assign_sub(value)
