"""Diagonals: MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3, and the composites TF
builds from them (eye, trace).

Diagonal d of a matrix is the entries with col - row = d.  ``k`` picks one diagonal or a
band ``(k0, k1)``; a kernel gathers with index arrays built once per matrix shape, so one
NumPy call serves the whole batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call, NotVectorizable
from symgrad.core.cases import COMPLEX, Case, complex_randn, fixed, ints, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.core import check_dtype, convert_to_tensor, same_dtype, static_ints
from symgrad.ops.linalg.base import matrix_batch, matrix_dims
from symgrad.ops.reduction import reduce as reduction

# --------------------------------------------------------------------------------------
# MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3: the diagonals k0..k1 of a matrix
#
# Diagonal d = col - row.  The diagonals k1, k1-1, ..., k0 are stacked as rows of a
# [..., k1-k0+1, max_len] tensor (just [..., max_len] when k0 == k1); shorter diagonals are
# padded, on the left or the right as ``align`` ("SUPER_SUB") says for super- and
# sub-diagonals.

ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def k_range(k: Sequence[int]) -> tuple[int, int]:
    if len(k) not in (1, 2):
        raise ShapeError(
            f"diag_index must be a scalar or a vector with 1 or 2 elements, got {len(k)} elements"
        )
    if k[0] > k[-1]:
        raise ShapeError(
            f"lower_diag_index must not be larger than upper_diag_index: {k[0]} > {k[-1]}"
        )
    return k[0], k[-1]


def _check_k(k0: int, k1: int, m: int | None, n: int | None) -> None:
    if m is None or n is None:
        return
    for v, what in ((k0, "lower_diag_index"), (k1, "upper_diag_index")):
        if v != 0 and not -m < v < n:
            raise ShapeError(f"{what} is out of bound: {v}. It must be between {-m} and {n}")


def _max_len(m: int, n: int, k0: int, k1: int) -> int:
    return min(m + min(k1, 0), n - max(k0, 0))


def _offsets(align: str, d: np.ndarray, lens: np.ndarray, max_len: int) -> np.ndarray:
    sup, sub = align.split("_")
    left = ((d >= 0) & (sup == "LEFT")) | ((d <= 0) & (sub == "LEFT"))
    return np.where(left, 0, max_len - lens)


def _lens(m: int, n: int, d: np.ndarray) -> np.ndarray:
    return np.minimum(m + np.minimum(0, d), n - np.maximum(0, d))


def _part_index(m: int, n: int, k0: int, k1: int, align: str) -> tuple[np.ndarray, ...]:
    """Row and column of entry (r, p) of the stacked diagonals, and whether it exists."""
    max_len = _max_len(m, n, k0, k1)
    d = np.arange(k1, k0 - 1, -1)[:, None]
    lens = _lens(m, n, d)
    i = np.arange(max_len)[None, :] - _offsets(align, d, lens, max_len)
    on = (i >= 0) & (i < lens)
    i = np.where(on, i, 0)
    return i + np.maximum(0, -d), i + np.maximum(0, d), on


def _matrix_index(m: int, n: int, k0: int, k1: int, align: str) -> tuple[np.ndarray, ...]:
    """For each entry (i, j) of an m×n matrix: its (r, p) among the stacked diagonals,
    and whether it lies in the band k0..k1."""
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    d = j - i
    band = (d >= k0) & (d <= k1)
    p = np.minimum(i, j) + _offsets(align, d, _lens(m, n, d), _max_len(m, n, k0, k1))
    return np.where(band, k1 - d, 0), np.where(band, p, 0), band


def _k_of(k: np.ndarray) -> tuple[int, int]:
    return k_range([int(v) for v in np.ravel(k)])


def _diag_part_kernel(
    x: np.ndarray, k: np.ndarray, pad: np.ndarray, *, align: str = "RIGHT_LEFT"
) -> np.ndarray:
    k0, k1 = _k_of(k)
    m, n = x.shape[-2:]
    _check_k(k0, k1, m, n)
    rows, cols, on = _part_index(m, n, k0, k1, align)
    out = np.where(on, x[..., rows, cols], pad.astype(x.dtype))
    return out[..., 0, :] if k0 == k1 else out


def _stacked(diag: np.ndarray, k0: int, k1: int) -> np.ndarray:
    if k0 == k1:
        return diag[..., None, :]
    if diag.ndim < 2 or diag.shape[-2] != k1 - k0 + 1:
        raise ValueError(
            "The number of diagonals provided in the input does not match the "
            "lower_diag_index and upper_diag_index range."
        )
    return diag


def diag_out_dims(k0: int, k1: int, max_len: int, rows: int, cols: int) -> tuple[int, int]:
    """TF's rule for MatrixDiagV3's matrix size when num_rows/num_cols are -1."""
    min_rows, min_cols = max_len - min(k1, 0), max_len + max(k0, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows < min_rows or cols < min_cols or (rows != min_rows and cols != min_cols):
        raise ShapeError(
            f"num_rows ({rows}) and num_cols ({cols}) are not consistent with "
            f"lower_diag_index ({k0}), upper_diag_index ({k1}) and the length "
            f"of the given diagonals ({max_len})"
        )
    return rows, cols


def _diag_kernel(
    diag: np.ndarray,
    k: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    pad: np.ndarray,
    *,
    align: str = "RIGHT_LEFT",
) -> np.ndarray:
    k0, k1 = _k_of(k)
    stacked = _stacked(diag, k0, k1)
    m, n = diag_out_dims(k0, k1, stacked.shape[-1], int(rows), int(cols))
    r, p, band = _matrix_index(m, n, k0, k1, align)
    return np.where(band, stacked[..., r, p], pad.astype(diag.dtype))


def _set_diag_kernel(
    x: np.ndarray, diag: np.ndarray, k: np.ndarray, *, align: str = "RIGHT_LEFT"
) -> np.ndarray:
    k0, k1 = _k_of(k)
    m, n = x.shape[-2:]
    _check_k(k0, k1, m, n)
    stacked = _stacked(diag, k0, k1)
    if stacked.shape[:-2] != x.shape[:-2] or stacked.shape[-1] != _max_len(m, n, k0, k1):
        raise ValueError(
            f"diagonal of shape {diag.shape} does not fit diagonals {k0}..{k1} "
            f"of input of shape {x.shape}"
        )
    r, p, band = _matrix_index(m, n, k0, k1, align)
    return np.where(band, stacked[..., r, p], x)


def _check_align(align: str) -> None:
    if align not in ALIGNS:
        raise ShapeError(f"align must be one of {', '.join(ALIGNS)}, got {align!r}")


def _static_k(k: Tensor) -> tuple[int, int] | None:
    check_dtype("MatrixDiag", k, (dt.int32,), "k")
    v = static_ints(k, "k")
    return None if v is None else k_range(v)


def _diag_part_infer(inputs: Sequence[Tensor], *, align: str = "RIGHT_LEFT") -> Spec:
    x, k, pad = inputs
    _check_align(align)
    same_dtype([x, pad], ("input", "padding_value"))
    dims, kk = matrix_dims(x, "input"), _static_k(k)
    if dims is None or kk is None:
        return TensorShape(None), x.dtype
    (k0, k1), (m, n) = kk, dims[-2:]
    _check_k(k0, k1, m, n)
    length = None if m is None or n is None else _max_len(m, n, k0, k1)
    return TensorShape(dims[:-2] + ([] if k0 == k1 else [k1 - k0 + 1]) + [length]), x.dtype


def _diag_infer(inputs: Sequence[Tensor], *, align: str = "RIGHT_LEFT") -> Spec:
    d, k, rows, cols, pad = inputs
    _check_align(align)
    same_dtype([d, pad], ("diagonal", "padding_value"))
    kk, dims = _static_k(k), d.shape.dims
    if kk is None or dims is None:
        return TensorShape(None), d.dtype
    k0, k1 = kk
    need = 1 if k0 == k1 else 2
    if len(dims) < need:
        raise ShapeError(
            f"Shape must be at least rank {need} but is rank {len(dims)} for input 'diagonal'"
        )
    if k0 != k1 and dims[-2] not in (None, k1 - k0 + 1):
        raise ShapeError(
            "The number of diagonals provided in the input does not match the "
            "lower_diag_index and upper_diag_index range."
        )
    r, c = static_ints(rows, "num_rows"), static_ints(cols, "num_cols")
    if dims[-1] is None or r is None or c is None:
        return TensorShape(list(dims[:-need]) + [None, None]), d.dtype
    m, n = diag_out_dims(k0, k1, dims[-1], r[0], c[0])
    return TensorShape(list(dims[:-need]) + [m, n]), d.dtype


def _set_diag_infer(inputs: Sequence[Tensor], *, align: str = "RIGHT_LEFT") -> Spec:
    x, d, k = inputs
    _check_align(align)
    same_dtype([x, d], ("input", "diagonal"))
    dims, kk = matrix_dims(x, "input"), _static_k(k)
    if dims is None or kk is None or d.shape.dims is None:
        return x.shape, x.dtype
    (k0, k1), (m, n) = kk, dims[-2:]
    _check_k(k0, k1, m, n)
    want = TensorShape(
        dims[:-2]
        + ([] if k0 == k1 else [k1 - k0 + 1])
        + [None if m is None or n is None else _max_len(m, n, k0, k1)]
    )
    if not d.shape.is_compatible_with(want):
        raise ShapeError(
            f"diagonal must have shape {want} for the diagonals {k0}..{k1} of "
            f"an input of shape {x.shape}, got {d.shape}"
        )
    return x.shape, x.dtype


def set_diag_batch(c: Call) -> list[Tensor]:
    """Input and diagonal must have equal batch shapes: an unbatched one is broadcast."""
    if c.batched[-1]:
        raise NotVectorizable(c.op, "a batched diagonal index")
    return c.apply([c.full(0), c.full(1), c.xs[2]])


DIAG_PART = register_op("MatrixDiagPartV3", _diag_part_infer, _diag_part_kernel, batch=matrix_batch)
DIAG = register_op("MatrixDiagV3", _diag_infer, _diag_kernel, batch=matrix_batch)
SET_DIAG = register_op("MatrixSetDiagV3", _set_diag_infer, _set_diag_kernel, batch=set_diag_batch)


def _k_tensor(k: Any) -> Tensor:
    return k if isinstance(k, Tensor) else array.int_tensor(k, "k")


def diag_part(
    input: Any,
    name: str = "diag_part",
    k: Any = 0,
    padding_value: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Tensor:
    """The diagonal ``k`` (or the band of diagonals ``k = (k0, k1)``) of each matrix."""
    x = convert_to_tensor(input)
    pad = convert_to_tensor(padding_value, x.dtype)
    return apply_op1("MatrixDiagPartV3", [x, _k_tensor(k), pad], {"align": align}, name)


def diag(
    diagonal: Any,
    name: str = "diag",
    k: Any = 0,
    num_rows: Any = -1,
    num_cols: Any = -1,
    padding_value: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Tensor:
    """Matrices with the given diagonal(s) ``k`` and ``padding_value`` elsewhere."""
    d = convert_to_tensor(diagonal)
    ins = [
        d,
        _k_tensor(k),
        array.int_tensor(num_rows, "num_rows"),
        array.int_tensor(num_cols, "num_cols"),
        convert_to_tensor(padding_value, d.dtype),
    ]
    return apply_op1("MatrixDiagV3", ins, {"align": align}, name)


def set_diag(
    input: Any, diagonal: Any, name: str = "set_diag", k: Any = 0, align: str = "RIGHT_LEFT"
) -> Tensor:
    """``input`` with its diagonal(s) ``k`` replaced by ``diagonal``."""
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, None if isinstance(diagonal, Tensor) else x.dtype)
    return apply_op1("MatrixSetDiagV3", [x, d, _k_tensor(k)], {"align": align}, name)


@DIAG_PART.gradient
def _diag_part_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None]:
    """dx = the matrix with diagonals g (zeros elsewhere); padding gets no gradient."""
    x, k, align = op.inputs[0], op.inputs[1], op.get_attr("align")
    dims = x.shape.dims
    if dims is not None and None not in dims[-2:]:
        return diag(grad, k=k, num_rows=dims[-2], num_cols=dims[-1], align=align), None, None
    return set_diag(array.zeros_like(x), grad, k=k, align=align), None, None


@DIAG.gradient
def _diag_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
    """ddiagonal = diag_part(g, k); padding_value gets no gradient (as in TF)."""
    return diag_part(grad, k=op.inputs[1], align=op.get_attr("align")), None, None, None, None


@SET_DIAG.gradient
def _set_diag_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
    """dx = g with diagonals k zeroed; ddiagonal = diag_part(g, k)."""
    k, align = op.inputs[2], op.get_attr("align")
    return (
        set_diag(grad, array.zeros_like(op.inputs[1]), k=k, align=align),
        diag_part(grad, k=k, align=align),
        None,
    )


def eye(
    num_rows: int,
    num_columns: int | None = None,
    batch_shape: Any = None,
    dtype: Any = dt.float32,
    name: str | None = None,
) -> Tensor:
    """Identity matrices ``batch_shape + [num_rows, num_columns]`` (a MatrixDiagV3 of ones)."""
    cols = num_rows if num_columns is None else num_columns
    ones = array.ones(list(batch_shape or []) + [min(num_rows, cols)], dtype)
    return diag(ones, name=name or "eye", num_rows=num_rows, num_cols=cols)


def trace(x: Any, name: str | None = None) -> Tensor:
    """The sum of each matrix's main diagonal (TF: reduce_sum of diag_part)."""
    return reduction.reduce_sum(diag_part(convert_to_tensor(x)), [-1], name=name)


def identity_like(x: Tensor) -> Tensor:
    """Identity matrices of ``x``'s (square) shape: an eye when static, as TF's rules."""
    if x.shape.is_fully_defined():
        dims = [int(d) for d in x.shape.as_list()]  # type: ignore[arg-type]
        return eye(dims[-1], batch_shape=dims[:-2], dtype=x.dtype)
    return set_diag(array.zeros_like(x), array.ones_like(diag_part(x)))


# -- references for the cases: each diagonal walked in a loop


def _entries(m: int, n: int, k0: int, k1: int, align: str) -> tuple[list[Any], int]:
    max_len = _max_len(m, n, k0, k1)
    sup, sub = align.split("_")
    out = []
    for r, d in enumerate(range(k1, k0 - 1, -1)):
        cells = [(i, i + d) for i in range(m) if 0 <= i + d < n]
        left = (d >= 0 and sup == "LEFT") or (d <= 0 and sub == "LEFT")
        off = 0 if left else max_len - len(cells)
        out += [(r, off + q, i, j) for q, (i, j) in enumerate(cells)]
    return out, max_len


def _part_ref(k0: int, k1: int, align: str = "RIGHT_LEFT", pad: float = 0) -> Any:
    def ref(x: np.ndarray, *_: Any) -> np.ndarray:
        m, n = x.shape[-2:]
        cells, max_len = _entries(m, n, k0, k1, align)
        out = np.full(x.shape[:-2] + (k1 - k0 + 1, max_len), pad, x.dtype)
        for r, p, i, j in cells:
            out[..., r, p] = x[..., i, j]
        return out[..., 0, :] if k0 == k1 else out

    return ref


def _diag_ref(k0: int, k1: int, m: int, n: int, align: str = "RIGHT_LEFT", pad: float = 0) -> Any:
    def ref(d: np.ndarray, *_: Any) -> np.ndarray:
        s = d[..., None, :] if k0 == k1 else d
        out = np.full(s.shape[:-2] + (m, n), pad, d.dtype)
        for r, p, i, j in _entries(m, n, k0, k1, align)[0]:
            out[..., i, j] = s[..., r, p]
        return out

    return ref


def _set_ref(k0: int, k1: int, align: str = "RIGHT_LEFT") -> Any:
    def ref(x: np.ndarray, d: np.ndarray, *_: Any) -> np.ndarray:
        s, out, (m, n) = (d[..., None, :] if k0 == k1 else d), x.copy(), x.shape[-2:]
        for r, p, i, j in _entries(m, n, k0, k1, align)[0]:
            out[..., i, j] = s[..., r, p]
        return out

    return ref


def _zero(rng: np.random.Generator, d: Any) -> np.ndarray:
    """A padding value of the row's dtype."""
    return np.zeros((), d)


DIAG_PART.add_cases(
    Case(
        [randn(2, 3, 4), ints(0), _zero],
        _part_ref(0, 0),
        attrs={"align": "RIGHT_LEFT"},
        diff=(0,),
        name="main",
    ),
    Case([randn(4, 3)], _part_ref(-1, 1), fn=lambda x: diag_part(x, k=(-1, 1)), name="band"),
    Case(
        [randn(2, 3, 5)],
        _part_ref(-2, 1, "LEFT_RIGHT", 9),
        fn=lambda x: diag_part(x, k=(-2, 1), padding_value=9, align="LEFT_RIGHT"),
        name="left_right_pad",
    ),
    Case([randn(4, 3)], _part_ref(1, 1), fn=lambda x: diag_part(x, k=1), name="super"),
    Case(
        [complex_randn(2, 3, 4)],
        _part_ref(-1, 0),
        fn=lambda x: diag_part(x, k=(-1, 0)),
        dtypes=COMPLEX,
        name="complex",
    ),
    Case([randn(2, 3, 3)], lambda x: np.trace(x, axis1=-2, axis2=-1), fn=trace, name="trace"),
    Case(
        [ints([[1, 2, 3], [4, 5, 6]]), ints(0), fixed(0, np.int32)],
        _part_ref(0, 0),
        dtypes=(np.int32,),
        order=0,
        name="int",
        note="integer values",
    ),
)
DIAG.add_cases(
    Case(
        [randn(2, 3), ints(0), ints(-1), ints(-1), _zero],
        _diag_ref(0, 0, 3, 3),
        attrs={"align": "RIGHT_LEFT"},
        diff=(0,),
        name="main",
    ),
    Case(
        [randn(2, 4)], _diag_ref(-1, -1, 5, 4), fn=lambda d: diag(d, k=-1, num_cols=4), name="sub"
    ),
    Case(
        [randn(2, 3)],
        _diag_ref(0, 0, 4, 3),
        fn=lambda d: diag(d, num_rows=4, num_cols=3),
        name="rows",
    ),
    Case(
        [randn(2, 3, 3)],
        _diag_ref(-1, 1, 3, 4, "LEFT_RIGHT", 5),
        name="band",
        fn=lambda d: diag(d, k=(-1, 1), num_cols=4, padding_value=5, align="LEFT_RIGHT"),
    ),
    Case(
        [complex_randn(2, 3)],
        _diag_ref(1, 1, 3, 4),
        dtypes=COMPLEX,
        name="complex",
        fn=lambda d: diag(d, k=1, num_cols=4),
    ),
)
SET_DIAG.add_cases(
    Case(
        [randn(2, 3, 4), randn(2, 3), ints(0)],
        _set_ref(0, 0),
        attrs={"align": "RIGHT_LEFT"},
        name="main",
    ),
    Case(
        [randn(2, 3, 4), randn(2, 3, 3)],
        _set_ref(-1, 1),
        fn=lambda x, d: set_diag(x, d, k=(-1, 1)),
        name="band",
    ),
    Case(
        [randn(4, 3), randn(2, 3)],
        _set_ref(-2, -1, "LEFT_LEFT"),
        fn=lambda x, d: set_diag(x, d, k=(-2, -1), align="LEFT_LEFT"),
        name="left_left",
    ),
    Case(
        [complex_randn(3, 4), complex_randn(2)],
        _set_ref(2, 2),
        dtypes=COMPLEX,
        fn=lambda x, d: set_diag(x, d, k=2),
        name="complex",
    ),
)
