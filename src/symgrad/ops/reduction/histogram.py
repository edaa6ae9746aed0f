"""HistogramFixedWidth: ``tf.histogram_fixed_width``, and ``histogram_fixed_width_bins``.

The kernel is TF's: ``(max(v, lo) - lo)`` in the values' dtype, divided in double precision
by the bin width ``(hi - lo) / nbins``, truncated and capped at ``nbins - 1``; so values
below the range count in the first bin and values above it in the last.  ``_bins`` is TF's
composition (``floor(nbins * (v - lo) / (hi - lo))`` clipped to the bins).  Integer
outputs: no gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, fixed, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, constant_value, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import shape as shapes
from symgrad.ops.array import structure as array
from symgrad.ops.cast_select import cast
from symgrad.ops.core import check_dtype, convert_to_tensor, same_dtype
from symgrad.ops.math.elementwise import maximum, minimum, truediv
from symgrad.ops.math.rounding import floor

_VALUES = (dt.int32, dt.int64, dt.float32, dt.float64)


def _check_args(value_range: Any, nbins: Any) -> None:
    r = np.asarray(value_range)
    if r.shape != (2,):
        raise InvalidArgumentError("value_range should be a vector of 2 elements.")
    if not r[0] < r[1]:
        raise InvalidArgumentError(
            "value_range should satisfy value_range[0] < value_range[1], but got "
            f"'[{r[0]:g}, {r[1]:g}]'"
        )
    if int(nbins) <= 0:
        raise InvalidArgumentError(f"nbins should be a positive number, but got '{int(nbins)}'")


def _hist_infer(inputs: Sequence[Tensor], *, dtype: dt.DType = dt.int32) -> Spec:
    values, value_range, nbins = inputs
    check_dtype("HistogramFixedWidth", values, _VALUES, "values")
    same_dtype([values, value_range], ("values", "value_range"))
    check_dtype("HistogramFixedWidth", nbins, (dt.int32,), "nbins")
    if nbins.shape.rank not in (None, 0):
        raise ShapeError(f"nbins must be a scalar, got shape {nbins.shape}")
    r, n = constant_value(value_range), constant_value(nbins)
    if r is not None and n is not None:
        _check_args(r, n)
    return TensorShape([None if n is None else int(n)]), dtype


def _hist_kernel(
    values: np.ndarray, value_range: np.ndarray, nbins: np.ndarray, *, dtype: dt.DType = dt.int32
) -> np.ndarray:
    _check_args(value_range, nbins)
    n = int(nbins)
    lo, hi = value_range[0], value_range[1]
    step = (float(hi) - float(lo)) / n
    shifted = (np.maximum(values, lo) - lo).astype(np.float64)
    bins = np.minimum(shifted / step, n - 1).astype(np.int64).ravel()
    return np.bincount(bins, minlength=n).astype(dtype.np)


def _hist_ref(v: np.ndarray, r: np.ndarray, n: np.ndarray) -> np.ndarray:
    edges = np.linspace(r[0], r[1], int(n) + 1)
    return np.histogram(np.clip(v, r[0], r[1]), edges)[0].astype(np.int32)


HISTOGRAM = register_op(
    "HistogramFixedWidth",
    _hist_infer,
    _hist_kernel,
    batch="its counts mix every entry of its input: there is no batched form",
    cases=[
        Case(
            [randn(4, 5), lambda rng, d: np.array([-1.0, 1.5], d), fixed(6, np.int32)],
            _hist_ref,
            attrs={"dtype": dt.int32},
            order=0,
            note="integer output: not differentiable",
        )
    ],
)
HISTOGRAM.no_gradient()  # integer output: nothing flows back


def histogram_fixed_width(
    values: Any, value_range: Any, nbins: Any = 100, dtype: Any = dt.int32, name: str | None = None
) -> Tensor:
    """How many of ``values`` fall in each of ``nbins`` equal bins over ``value_range``
    (the outer bins also count what lies beyond; op type ``HistogramFixedWidth``)."""
    with name_scope(name, "histogram_fixed_width") as scope:
        v = convert_to_tensor(values)
        r = convert_to_tensor(value_range, dtype_hint=v.dtype)
        n = convert_to_tensor(nbins, dtype_hint=dt.int32)
        return apply_op1("HistogramFixedWidth", [v, r, n], {"dtype": dt.as_dtype(dtype)}, scope)


def histogram_fixed_width_bins(
    values: Any, value_range: Any, nbins: Any = 100, dtype: Any = dt.int32, name: str | None = None
) -> Tensor:
    """The bin of each of ``values`` among ``nbins`` equal bins over ``value_range``
    (values beyond the range go to the outer bins; TF's composition)."""
    with name_scope(name, "histogram_fixed_width_bins"):
        v = convert_to_tensor(values)
        shape = shapes.shape(v)
        v = shapes.reshape(v, [-1])
        r = convert_to_tensor(value_range)  # TF's: no hint, so [0., 1.] is float32
        n = convert_to_tensor(nbins, dt.int32)
        known = constant_value(n)
        if known is not None and int(known) <= 0:
            raise InvalidArgumentError(f"assertion failed: [nbins {n} must > 0]")
        n_float = cast(n, v.dtype)
        scaled = truediv(v - r[0], r[1] - r[0], name="scaled_values")
        indices = floor(n_float * scaled, name="indices")
        indices = cast(maximum(minimum(indices, n_float - 1), array.zeros([], v.dtype)), dt.int32)
        return shapes.reshape(indices, shape)
