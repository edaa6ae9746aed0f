"""The op library in families (math/, array/, ...); importing it registers every op and rule.

``core.py`` (constants, conversion, declaration helpers), ``cast_select.py``, ``control.py``
and ``feeds.py`` sit below the families; docs/design.md gives their order.

This module also gives Tensor and Variable their Python operators, as TF's math_ops does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core.graph import Tensor
from symgrad.ops import control, core
from symgrad.ops.array import joining, reverse, slicing
from symgrad.ops.array import structure as array
from symgrad.ops.array.boolean_mask import boolean_mask
from symgrad.ops.debug import assertion, printing, script_ops
from symgrad.ops.image import area, bicubic, color, patches, resize, transform
from symgrad.ops.linalg import base as linalg
from symgrad.ops.linalg import decomp as linalg_decomp
from symgrad.ops.linalg import diag as linalg_diag
from symgrad.ops.linalg import expm as linalg_expm
from symgrad.ops.linalg import lstsq as linalg_lstsq
from symgrad.ops.linalg import solve as linalg_solve
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.math import complex, rounding
from symgrad.ops.math import elementwise as math
from symgrad.ops.nn import (
    activations,
    bias,
    conv,
    ctc,
    dropout,
    losses,
    lrn,
    normalization,
    pooling,
)
from symgrad.ops.nn import basic as nn
from symgrad.ops.random import candidates
from symgrad.ops.reduction import reduce as reduction
from symgrad.ops.signal import fft as _fft
from symgrad.ops.state import variable_scatter, variable_slices, variables
from symgrad.ops.state.variables import Variable


def _binary(fn: Any, swapped: bool = False) -> Any:
    fn = getattr(fn, "operator", fn)  # ``x * y`` is "mul" where ``tf.multiply`` is "Mul"
    if swapped:  # a fast binary wrapper's ``reflected`` takes (self, other) itself
        reflected = getattr(fn, "reflected", None)
        return reflected or (lambda self, other: fn(other, self))
    return fn  # a plain function: as a method, ``x * y`` calls fn(x, y) with no extra frame


def _getitem(self: Any, key: Any) -> Any:
    """``x[key]``: a strided slice, or, for a boolean key (``x[x > 0]``, a bool array, a
    bool), ``boolean_mask``, as TF's ``_slice_helper``."""
    if isinstance(key, bool) or (
        isinstance(key, (Tensor, np.ndarray)) and getattr(key.dtype, "name", None) == "bool"
    ):
        return boolean_mask(self, key)
    return slicing.getitem(self, key)


def _eq(self: Any, other: Any) -> Any:
    # TF2's rule: elementwise for values and inside a function being traced (a `function`,
    # a tf.data map or filter), where TF's tensors compare so too; identity for tensors of
    # an explicit TF1 graph, so that graph-building code (and dicts keyed by tensors) works.
    if isinstance(self, Tensor) and (
        self.graph.building_function
        or (self.has_value() and (not isinstance(other, Tensor) or other.has_value()))
    ):
        try:
            return math.equal(self, other)
        except (TypeError, ValueError):
            return False
    return self is other


def _ne(self: Any, other: Any) -> Any:
    result = _eq(self, other)
    return math.logical_not(result) if isinstance(result, Tensor) else not result


def _and(x: Any, y: Any) -> Any:
    return math.logical_and(x, y)


def _or(x: Any, y: Any) -> Any:
    return math.logical_or(x, y)


_OPERATORS = {
    "__add__": _binary(math.add),
    "__radd__": _binary(math.add, True),
    "__sub__": _binary(math.subtract),
    "__rsub__": _binary(math.subtract, True),
    "__mul__": _binary(math.multiply),
    "__rmul__": _binary(math.multiply, True),
    "__truediv__": _binary(math.divide),
    "__rtruediv__": _binary(math.divide, True),
    "__floordiv__": _binary(math.floordiv),
    "__rfloordiv__": _binary(math.floordiv, True),
    "__mod__": _binary(math.floormod),
    "__rmod__": _binary(math.floormod, True),
    "__pow__": _binary(math.pow),
    "__rpow__": _binary(math.pow, True),
    "__matmul__": _binary(matmul),
    "__rmatmul__": _binary(matmul, True),
    "__lt__": _binary(math.less),
    "__le__": _binary(math.less_equal),
    "__gt__": _binary(math.greater),
    "__ge__": _binary(math.greater_equal),
    "__and__": _binary(_and),
    "__rand__": _binary(_and, True),
    "__or__": _binary(_or),
    "__ror__": _binary(_or, True),
    "__invert__": lambda self: math.logical_not(self),
    "__neg__": lambda self: math.negative(self),
    "__abs__": lambda self: math.abs(self),
    "__pos__": lambda self: self,
    "__getitem__": _getitem,
    "__eq__": _eq,
    "__ne__": _ne,
}

for _cls in (Tensor, Variable):
    for _name, _fn in _OPERATORS.items():
        setattr(_cls, _name, _fn)
    _cls.__hash__ = lambda self: id(self)  # type: ignore[method-assign]
# ``v[key]``: the slice's value, with ``assign`` (TF's sliced variable assignment).
setattr(Variable, "__getitem__", variable_slices.getitem)  # noqa: B010
