"""Norms: the reduction EuclideanNorm (``reduce_euclidean_norm``) and ``norm``.

``norm`` builds TF's graph: Euclidean and Frobenius norms are ``sqrt(sum(x · conj(x)))``
(complex stays complex, as TF), ``ord=1`` / ``inf`` are sums and maxima of ``|x|`` (for a
matrix: the largest column / row sum), other positive ``ord`` are p-norms, and the matrix
2-norm is the largest singular value, from TF's ``Svd`` op.
EuclideanNorm's gradient is TF's ``x / (y / g)``: nan where the norm is 0, as in TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, ints, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import apply_op1
from symgrad.ops.array import joining
from symgrad.ops.array import structure as array
from symgrad.ops.core import NUMERIC, convert_to_tensor
from symgrad.ops.math import elementwise as math_ops
from symgrad.ops.math.complex import conj
from symgrad.ops.math.elementwise import abs as _abs
from symgrad.ops.math.elementwise import pow as _pow
from symgrad.ops.math.elementwise import sqrt
from symgrad.ops.reduction import reduce as reduction


def _euclidean(x: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
    sq = x * np.conj(x) if x.dtype.kind == "c" else x * x
    total = np.add.reduce(sq, axis=axis, dtype=x.dtype, keepdims=keepdims)  # type: ignore[call-overload]
    if x.dtype.kind in "iu":  # TF: the integer square root, truncated
        return np.floor(np.sqrt(total.astype(np.float64))).astype(x.dtype)  # type: ignore[no-any-return]
    return np.sqrt(total)  # type: ignore[no-any-return]


def _norm_ref(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    return np.sqrt(np.sum(np.abs(x) ** 2, axis=axis, keepdims=keepdims))  # type: ignore[no-any-return]


EUCLIDEAN_NORM = reduction.register_reduction("EuclideanNorm", _euclidean, NUMERIC)
EUCLIDEAN_NORM.add_cases(
    Case(
        [randn(2, 3, 4)], lambda x: _norm_ref(x, 1), fn=lambda x: reduce_euclidean_norm(x, axis=1)
    ),
    Case(
        [randn(3, 4), ints([0, 1])],
        lambda x, a: _norm_ref(x, (0, 1), True),
        attrs={"keep_dims": True},
        name="by_type_keepdims",
    ),
    Case(
        [lambda rng, d: np.array([[3, 4], [5, 12]], d)],
        lambda x: np.array([5, 13], x.dtype),
        fn=lambda x: reduce_euclidean_norm(x, axis=-1),
        dtypes=(np.int32,),
        order=0,
        name="int",
        note="integer: not differentiable",
    ),
)


def reduce_euclidean_norm(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """sqrt(sum(|x|²)) over ``axis`` (op type EuclideanNorm)."""
    return reduction.reduce("EuclideanNorm", input_tensor, axis, keepdims, name)


@EUCLIDEAN_NORM.gradient
def _euclidean_norm_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = x / (y / g), with y and g reshaped to the kept-dims shape."""
    x, axis = op.inputs
    y = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept = reduction.kept_dims_shape(x, axis)
        y, grad = array.reshape(y, kept), array.reshape(grad, kept)
    return x / (y / grad), None


# --------------------------------------------------------------------------------------
# norm

_MATRIX_ORDS = ["euclidean", "fro", 1, 2, np.inf]
_VECTOR_ORDS = ["euclidean", 1, 2, np.inf]


def _check_args(ord: Any, axis: Any) -> tuple[bool, tuple[int, ...] | None]:
    """TF's argument checks; returns (is a matrix norm, axes)."""
    if isinstance(axis, tuple | list) and len(axis) == 2:
        if not all(isinstance(a, int) for a in axis) or axis[0] == axis[1]:
            raise ValueError(
                "'axis' must be None, an integer, or a tuple of 2 unique "
                f"integers, got {tuple(axis)}"
            )
        if ord not in _MATRIX_ORDS:
            raise ValueError(f"'ord' must be a supported matrix norm in {_MATRIX_ORDS}, got {ord}")
        return True, tuple(axis)
    if not (isinstance(axis, int) or axis is None):
        raise ValueError(
            f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
        )
    if ord not in _VECTOR_ORDS and (isinstance(ord, str) or not np.isreal(ord) or ord <= 0):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    return False, None if axis is None else (axis,)


def norm(
    tensor: Any,
    ord: Any = "euclidean",
    axis: Any = None,
    keepdims: bool | None = None,
    name: str | None = None,
) -> Tensor:
    """The vector or matrix norm of ``tensor`` over ``axis`` (all axes by default)."""
    matrix, axes = _check_args(ord, axis)
    x = convert_to_tensor(tensor)
    if ord in ("fro", "euclidean", 2, 2.0) and matrix and ord in (2, 2.0):
        result = _matrix_two_norm(x, axes)  # type: ignore[arg-type]
    elif ord in ("fro", "euclidean", 2, 2.0):
        result = sqrt(reduction.reduce_sum(x * conj(x), axes, keepdims=True))
    else:
        result = _abs(x)
        if ord == 1:
            result = reduction.reduce_sum(result, None if axes is None else axes[0], True)
            if matrix:
                result = reduction.reduce_max(result, axes[-1], True)  # type: ignore[index]
        elif ord == np.inf:
            if matrix:
                result = reduction.reduce_sum(result, axes[1], True)  # type: ignore[index]
            result = reduction.reduce_max(result, None if axes is None else axes[0], True)
        else:
            p = np.asarray(ord, result.dtype.np)
            total = reduction.reduce_sum(_pow(result, p), axes, True)
            result = _pow(total, np.asarray(1.0 / ord, result.dtype.np))
    if not keepdims:
        result = array.squeeze(result, None if axes is None else list(axes))
    return result


def _matrix_two_norm(x: Tensor, axes: tuple[int, int]) -> Tensor:
    """The largest singular value over ``axes``, kept as size-1 axes (TF's construction)."""
    before = _axes_last(x, axes)
    s = apply_op1(
        "Svd", [array.transpose(x, before)], {"compute_uv": False, "full_matrices": False}
    )
    top = array.expand_dims(reduction.reduce_max(_abs(s), -1, keepdims=True), -1)
    after: Any = (
        np.argsort(before).tolist()
        if isinstance(before, list)
        else array.invert_permutation(before)
    )
    return array.transpose(top, after)


def _axes_last(x: Tensor, axes: tuple[int, int]) -> list[int] | Tensor:
    """The permutation moving ``axes`` to the end, the other axes kept in order.

    With the rank unknown (TF maps over the axes with map_fn) the j-th kept axis is
    j + [j >= lo] + [j >= hi - 1], lo < hi the two axes made positive.
    """
    rank = x.shape.rank
    if rank is not None:
        pos = [a % rank for a in axes]
        return [i for i in range(rank) if i not in pos] + pos
    r = array.rank(x)
    ends: list[Any] = [a if a >= 0 else a + r for a in axes]
    lo, hi = math_ops.minimum(ends[0], ends[1]), math_ops.maximum(ends[0], ends[1])
    j = array.range(r - 2)
    kept = j + array.cast(j >= lo, dt.int32) + array.cast(j >= hi - 1, dt.int32)
    return joining.concat([kept, joining.stack(ends)], 0)
