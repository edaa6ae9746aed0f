"""Indexing and slicing: Slice, Pad, StridedSlice, ``Tensor.__getitem__``, gathers, scatters.

Each pair of ops that are one another's gradient lives here together: Slice and Pad,
StridedSlice and StridedSliceGrad, GatherV2 and UnsortedSegmentSum, GatherNd and ScatterNd.
Gradients are dense; duplicate indices accumulate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as dt
from ..gradient_registry import RegisterGradient
from ..graph import Tensor
from ..op_registry import ShapeError, Spec, apply_op, constant_value, register_op
from ..shapes import TensorShape
from .array import (
    _INDEX,
    _int_tensor,
    _scalar_axis,
    cast,
    invert_permutation,
    ones_like,
    reshape,
    shape,
    transpose,
    unknown_dims,
    where,
    zeros_like,
)
from .core import check_dtype, convert_n, convert_to_tensor, same_dtype, static_ints
from .joining import concat, stack
from .math import add, greater_equal, maximum

_builtin_slice = slice


def _index_error(idx: np.ndarray, bad: np.ndarray, text: str) -> ValueError:
    """TF's message for the first bad index: ``indices[1] = 7 is not in [0, 5)``."""
    pos = tuple(np.argwhere(bad)[0])
    where_ = f"indices[{','.join(map(str, pos))}]" if pos else "indices"
    return ValueError(f"{where_} = {idx[pos]} {text}")


# --------------------------------------------------------------------------------------
# Slice and Pad: each is the other's gradient


def _slice_dims(x: Tensor, begin: list[int], size: list[int]) -> list[int | None]:
    out: list[int | None] = []
    for i, (d, b, s) in enumerate(zip(x.shape.dims, begin, size, strict=True)):  # type: ignore[arg-type]
        if b < 0 or (d is not None and b > d):
            raise ShapeError(f"Expected begin[{i}] in [0, {d}], but got {b} (input shape "
                             f"{x.shape})")
        n = (None if d is None else d - b) if s == -1 else s
        if n is not None and (n < 0 or (d is not None and b + n > d)):
            raise ShapeError(f"Expected size[{i}] in [0, {d - b if d is not None else '?'}], "
                             f"but got {s} (input shape {x.shape}, begin[{i}] = {b})")
        out.append(n)
    return out


def _slice_infer(inputs: Sequence[Tensor]) -> Spec:
    x, b, s = inputs
    check_dtype("Slice", b, _INDEX, "begin")
    check_dtype("Slice", s, _INDEX, "size")
    same_dtype([b, s], ("begin", "size"))
    begin, size = static_ints(b, "begin"), static_ints(s, "size")
    r = x.shape.rank if x.shape.rank is not None else b.shape[0] if b.shape.rank else None
    if r is None:
        return TensorShape(None), x.dtype
    for v, n in ((begin, "begin"), (size, "size")):
        if v is not None and len(v) != r:
            raise ShapeError(f"Expected {n} to be a vector of length {r} (the rank of input, "
                             f"shape {x.shape}), but got length {len(v)}")
    if size is None:
        return TensorShape([None] * r), x.dtype
    if begin is None or x.shape.dims is None:  # sizes other than -1 are still known
        return TensorShape([None if n == -1 else n for n in size]), x.dtype
    return TensorShape(_slice_dims(x, begin, size)), x.dtype


def _slice_kernel(x: np.ndarray, begin: np.ndarray, size: np.ndarray) -> np.ndarray:
    return x[tuple(_builtin_slice(int(b), None if s == -1 else int(b + s))
                   for b, s in zip(begin, size, strict=True))]


register_op("Slice", _slice_infer, _slice_kernel)


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:  # noqa: A001
    """``input_[begin[i] : begin[i] + size[i]]`` along every axis; size -1 means "to the end"."""
    b, s = convert_n([_int_tensor(begin, "begin"), size])
    return apply_op("Slice", [convert_to_tensor(input_), b, s], name=name)._output(0)


@RegisterGradient("Slice")
def _slice_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None]:
    """dx = pad(g, [[begin_i, dim_i - begin_i - size_i]]); begin and size get None."""
    x, begin, _ = op.inputs
    b, y = static_ints(begin, "begin"), op.outputs[0]
    if b is not None and x.shape.is_fully_defined() and y.shape.is_fully_defined():
        dims = zip(b, x.shape.as_list(), y.shape.as_list(), strict=True)
        pads: Any = np.array([[i, d - i - n] for i, d, n in dims], np.int32).reshape(-1, 2)
    else:
        after = shape(x, out_type=begin.dtype) - begin - shape(grad, out_type=begin.dtype)
        pads = stack([begin, after], axis=1)
    return pad(grad, pads), None, None


def _pad_infer(inputs: Sequence[Tensor]) -> Spec:
    x, p = inputs[:2]
    check_dtype("Pad", p, _INDEX, "paddings")
    if len(inputs) == 3:
        same_dtype([x, inputs[2]], ("input", "constant_values"))
        if inputs[2].shape.rank not in (0, None):
            raise ShapeError(f"constant_values must be a scalar, got shape {inputs[2].shape}")
    r = x.shape.rank
    pads = constant_value(p)
    if pads is not None and (r is None or pads.shape != (r, 2)):
        r = pads.shape[0] if r is None and pads.ndim == 2 and pads.shape[1] == 2 else r
        if pads.shape != (r, 2):
            raise ShapeError(f"paddings must have shape [{r}, 2] (a [before, after] pair for "
                             f"each dimension of input, shape {x.shape}), but got shape "
                             f"{list(pads.shape)}")
    if pads is None or x.shape.dims is None:
        return TensorShape(None if r is None else [None] * r), x.dtype
    if (pads < 0).any():
        raise ShapeError(f"paddings must be non-negative, got {pads.tolist()}")
    return TensorShape([None if d is None else d + int(a) + int(b)
                        for d, (a, b) in zip(x.shape.dims, pads, strict=True)]), x.dtype


def _pad_kernel(x: np.ndarray, p: np.ndarray, c: Any = 0) -> np.ndarray:
    return np.pad(x, p, constant_values=c) if x.ndim else x.copy()


register_op("Pad", _pad_infer, _pad_kernel)
register_op("PadV2", _pad_infer, _pad_kernel)


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: str | None = None) -> Tensor:
    """Pad with ``constant_values`` (op ``Pad`` for 0, else ``PadV2``); [[before, after], ...]."""
    if str(mode).upper() != "CONSTANT":
        if str(mode).upper() in ("REFLECT", "SYMMETRIC"):
            raise NotImplementedError(f"pad mode {mode!r} (MirrorPad) is not implemented")
        raise ValueError(f"Unknown padding mode: {mode}")
    x, p = convert_to_tensor(tensor), _int_tensor(paddings, "paddings")
    if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 \
            and constant_values == 0:
        return apply_op("Pad", [x, p], name=name)._output(0)
    c = convert_to_tensor(constant_values, None if isinstance(constant_values, Tensor) else x.dtype)
    return apply_op("PadV2", [x, p, c], name=name)._output(0)


@RegisterGradient("Pad")
@RegisterGradient("PadV2")
def _pad_grad(op: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
    """dx = slice(g, paddings[:, 0], shape(x)); paddings and constant_values get None (TF)."""
    x, p = op.inputs[:2]
    pads = constant_value(p)
    if pads is not None and x.shape.is_fully_defined():
        dx = slice(grad, pads[:, 0], x.shape.as_list())
    else:
        dx = slice(grad, reshape(slice(p, [0, 0], [-1, 1]), [-1]), shape(x, out_type=p.dtype))
    return (dx, None) if op.type == "Pad" else (dx, None, None)


# --------------------------------------------------------------------------------------
# StridedSlice: TF's sparse spec (masks) expanded to one range per input dimension

_NEW, _SHRINK = -1, -2
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
Dense = tuple[int, int, int, bool, bool, bool]  # begin, end, stride, begin/end masked, shrink


def _dense_spec(rank: int, begin: list[int], end: list[int], strides: list[int],
                m: dict[str, int]) -> tuple[list[Dense], list[int]]:
    """Per input dim (begin, end, stride, masked, shrink); the final shape's source dims."""
    el, na, n = m["ellipsis_mask"], m["new_axis_mask"], len(begin)
    if el & (el - 1):
        raise ShapeError("Multiple ellipses in slice spec not allowed")
    if not el:
        el, n = 1 << n, n + 1  # an implicit ellipsis at the end
    after = sum(1 for i in range(n) if na >> i & 1 and el < 1 << i)
    dense: list[Dense] = []
    final: list[int] = []
    for i in range(n):
        if el >> i & 1:
            stop = min(rank - (n - i) + 1 + after, rank)
            while len(dense) < stop:
                final.append(len(dense))
                dense.append((0, 0, 1, True, True, False))
        elif na >> i & 1:
            final.append(_NEW)
        else:
            if len(dense) == rank:
                raise ShapeError(f"Index out of range using input dim {rank}; input has only "
                                 f"{rank} dims")
            shrink = bool(m["shrink_axis_mask"] >> i & 1)
            final.append(_SHRINK if shrink else len(dense))
            dense.append((begin[i], end[i], strides[i], bool(m["begin_mask"] >> i & 1),
                          bool(m["end_mask"] >> i & 1), shrink))
    return dense, final


def _dim_range(i: int, dim: int | None, spec: Dense) -> tuple[int, int, int, int | None]:
    """Canonical (begin, end, stride, size) of one dim, as TF clamps and masks them."""
    b, e, s, bm, em, shrink = spec
    if s == 0:
        raise ShapeError(f"strides[{i}] must be non-zero")
    if shrink:
        if s <= 0:
            raise ShapeError("only stride 1 allowed on non-range indexing.")
        if dim is None:
            return b, b + 1, 1, 1
        x = b + dim if b < 0 else b
        if not 0 <= x < dim:
            raise ShapeError(f"slice index {b} of dimension {i} out of bounds.")
        return x, x + 1, 1, 1
    if dim is None:
        return b, e, s, None
    lo, hi = (0, dim) if s > 0 else (-1, dim - 1)

    def canon(v: int, masked: bool, c: int) -> int:
        if masked:
            return (lo, hi)[c] if s > 0 else (hi, lo)[c]
        v = v + dim if v < 0 else v  # type: ignore[operator]
        return min(max(v, lo), hi)

    b, e = canon(b, bm, 0), canon(e, em, 1)
    n = e - b
    size = 0 if n == 0 or (n < 0) != (s < 0) else (abs(n) + abs(s) - 1) // abs(s)
    return b, e, s, size


def _plan(dims: Sequence[int | None], begin: list[int], end: list[int], strides: list[int],
          masks: dict[str, int]) -> tuple[list[tuple[int, int, int, int | None, bool]],
                                          list[int | None]]:
    """The per-dim ranges (with shrink flags) and the output shape of a strided slice."""
    if not len(begin) == len(end) == len(strides):
        raise ShapeError(f"begin, end and strides must have the same length, got "
                         f"{len(begin)}, {len(end)} and {len(strides)}")
    dense, final = _dense_spec(len(dims), begin, end, strides, masks)
    pairs = enumerate(zip(dims, dense, strict=True))
    ranges = [(*_dim_range(i, d, spec), spec[5]) for i, (d, spec) in pairs]
    out = [1 if f == _NEW else ranges[f][3] for f in final if f != _SHRINK]
    return ranges, out  # type: ignore[return-value]


def _index(x_shape: Sequence[int], b: np.ndarray, e: np.ndarray, s: np.ndarray,
           masks: dict[str, int]) -> tuple[tuple[Any, ...], list[int]]:
    ranges, out = _plan(x_shape, b.tolist(), e.tolist(), s.tolist(), masks)
    index = tuple(lo if shrink else _builtin_slice(0, 0) if not n
                  else _builtin_slice(lo, hi if hi >= 0 else None, st)
                  for lo, hi, st, n, shrink in ranges)
    return index, out  # type: ignore[return-value]


def _strided_slice_infer(inputs: Sequence[Tensor], **masks: int) -> Spec:
    x, *bes = inputs
    for t, n in zip(bes, ("begin", "end", "strides"), strict=True):
        check_dtype("StridedSlice", t, _INDEX, n)
    same_dtype(bes, ("begin", "end", "strides"))
    values = [static_ints(t, n) for t, n in zip(bes, ("begin", "end", "strides"), strict=True)]
    if x.shape.dims is None or any(v is None for v in values):
        return TensorShape(None), x.dtype
    b, e, s = values
    return TensorShape(_plan(x.shape.dims, b, e, s, masks)[1]), x.dtype  # type: ignore[arg-type]


def _strided_slice_kernel(x: np.ndarray, b: np.ndarray, e: np.ndarray, s: np.ndarray,
                          **masks: int) -> np.ndarray:
    index, out = _index(x.shape, b, e, s, masks)
    return np.reshape(x[index], out)


register_op("StridedSlice", _strided_slice_infer, _strided_slice_kernel)


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0, var: Any = None, name: str | None = None) -> Tensor:
    """NumPy-style slicing with TF's bit masks (what ``tensor[...]`` builds)."""
    b, e = convert_n([_int_tensor(begin, "begin"), end])
    s = ones_like(b) if strides is None else convert_n([b, strides])[1]
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    return _strided_slice(input_, [b, e, s], dict(zip(_MASKS, masks, strict=True)), name)


def _strided_slice(x: Any, bes: list[Tensor], masks: dict[str, int], name: str | None) -> Tensor:
    attrs = {k: int(v) for k, v in masks.items()}
    return apply_op("StridedSlice", [convert_to_tensor(x), *bes], attrs, name)._output(0)


@RegisterGradient("StridedSlice")
def _strided_slice_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
    """dx = zeros of x's shape with g scattered into the slice (StridedSliceGrad)."""
    x, b, e, s = op.inputs
    dx = apply_op("StridedSliceGrad", [shape(x, out_type=b.dtype), b, e, s, grad], op.attrs)
    return dx._output(0), None, None, None


def _ssg_infer(inputs: Sequence[Tensor], **masks: int) -> Spec:
    s, *bes, dy = inputs
    check_dtype("StridedSliceGrad", s, _INDEX, "shape")
    dims = static_ints(s, "shape")
    if dims is None:
        return unknown_dims(s), dy.dtype
    values = [static_ints(t, "begin/end/strides") for t in bes]
    b, e, st = values
    if b is not None and e is not None and st is not None:
        out = _plan(dims, b, e, st, masks)[1]
        if not dy.shape.is_compatible_with(out):
            raise ShapeError(f"dy has shape {dy.shape} but the slice of a tensor of shape "
                             f"{dims} has shape {out}")
    return TensorShape(dims), dy.dtype


def _ssg_kernel(s: np.ndarray, b: np.ndarray, e: np.ndarray, st: np.ndarray, dy: np.ndarray,
                **masks: int) -> np.ndarray:
    out = np.zeros(tuple(s), dy.dtype)
    index, _ = _index(out.shape, b, e, st, masks)
    out[index] = np.reshape(dy, out[index].shape)
    return out


register_op("StridedSliceGrad", _ssg_infer, _ssg_kernel)


@RegisterGradient("StridedSliceGrad")
def _ssg_grad(op: Any, grad: Tensor) -> tuple[None, None, None, None, Tensor]:
    """ddy = strided_slice(g, begin, end, strides) with the same masks."""
    _, b, e, s, _ = op.inputs
    return None, None, None, None, _strided_slice(grad, [b, e, s], op.attrs, None)


# --------------------------------------------------------------------------------------
# Tensor.__getitem__


def _check_index(idx: Any) -> Any:
    if isinstance(idx, int | np.integer):
        return int(idx)
    t = idx if isinstance(idx, Tensor) else None
    if t is not None and t.dtype in _INDEX and t.shape.rank in (0, None):
        return t
    raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                    f"scalar tf.int32/tf.int64 tensors are valid indices, got {idx!r}")


def getitem(tensor: Any, key: Any) -> Tensor:
    """``tensor[key]`` as one StridedSlice, with the masks TF's ``_slice_helper`` builds."""
    spec = key if isinstance(key, tuple) else (key,)
    begin: list[Any] = []
    end: list[Any] = []
    strides: list[Any] = []
    masks = dict.fromkeys(_MASKS, 0)
    for i, s in enumerate(spec):
        if isinstance(s, _builtin_slice):
            for v, out, mask in ((s.start, begin, "begin_mask"), (s.stop, end, "end_mask")):
                out.append(0 if v is None else _check_index(v))
                masks[mask] |= (v is None) << i
            strides.append(1 if s.step is None else _check_index(s.step))
            continue
        kind = "ellipsis_mask" if s is Ellipsis else "new_axis_mask" if s is None else None
        if kind is not None:
            begin.append(0), end.append(0), strides.append(1)  # type: ignore[func-returns-value]
            masks[kind] |= 1 << i
            continue
        s = _check_index(s)
        begin.append(s), end.append(s + 1), strides.append(1)  # type: ignore[func-returns-value]
        masks["shrink_axis_mask"] |= 1 << i
    parts = begin + end + strides
    d = dt.int64 if any(isinstance(v, Tensor) and v.dtype is dt.int64 for v in parts) else dt.int32
    packed = [_pack(v, d) for v in (begin, end, strides)]
    return _strided_slice(tensor, packed, masks, "strided_slice")


def _pack(values: list[Any], d: dt.DType) -> Tensor:
    """One 1-D index tensor: a Const for plain ints, else a Pack (int32 widened to int64)."""
    if not any(isinstance(v, Tensor) for v in values):
        return convert_to_tensor(np.array(values, d.np).reshape(-1))
    return stack([cast(v, d) if isinstance(v, Tensor) else convert_to_tensor(v, d)
                  for v in values])


# --------------------------------------------------------------------------------------
# GatherV2 and UnsortedSegmentSum (its gradient; duplicates accumulate)


def _gather_infer(inputs: Sequence[Tensor], *, batch_dims: int = 0) -> Spec:
    p, idx, a = inputs
    check_dtype("GatherV2", idx, _INDEX, "indices")
    if p.shape.dims is None:
        return TensorShape(None), p.dtype
    if not p.shape.dims:
        raise ShapeError("params must be at least 1 dimensional, got a scalar")
    ax = _scalar_axis(a, len(p.shape.dims), "GatherV2")
    if ax is None or idx.shape.dims is None:
        return TensorShape(None), p.dtype
    dims = list(p.shape.dims)
    return TensorShape(dims[:ax] + list(idx.shape.dims) + dims[ax + 1:]), p.dtype


def _gather_kernel(p: np.ndarray, idx: np.ndarray, a: np.ndarray, *,
                   batch_dims: int = 0) -> np.ndarray:
    ax = int(a) % p.ndim
    bad = (idx < 0) | (idx >= p.shape[ax])
    if bad.any():
        raise _index_error(idx, bad, f"is not in [0, {p.shape[ax]})")
    return np.take(p, idx, axis=ax)


register_op("GatherV2", _gather_infer, _gather_kernel)


def gather(params: Any, indices: Any, validate_indices: Any = None, axis: Any = None,
           batch_dims: int = 0, name: str | None = None) -> Tensor:
    """``params`` at ``indices`` along ``axis`` (default 0); out of range is an error."""
    if batch_dims:
        raise NotImplementedError("gather with batch_dims != 0 is not implemented")
    ins = [convert_to_tensor(params), _int_tensor(indices, "indices"),
           _int_tensor(0 if axis is None else axis, "axis")]
    return apply_op("GatherV2", ins, {"batch_dims": 0}, name)._output(0)


@RegisterGradient("GatherV2")
def _gather_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None]:
    """dparams = unsorted_segment_sum of g at the gathered positions, moved to axis (dense)."""
    p, idx, a = op.inputs
    r, ax = p.shape.rank, static_ints(a, "axis")
    if r is None or ax is None:
        return _gather_grad_dynamic(p, idx, a, grad), None, None
    ax0 = ax[0] % r
    dims: Any = p.shape.as_list() if p.shape.is_fully_defined() else shape(p, out_type=idx.dtype)
    if isinstance(dims, list):
        g = reshape(grad, [*dims[:ax0], -1, *dims[ax0 + 1:]])
    else:
        g = reshape(grad, concat([dims[:ax0], [-1], dims[ax0 + 1:]], 0))
    perm = [ax0, *range(ax0), *range(ax0 + 1, r)]
    seg = unsorted_segment_sum(transpose(g, perm) if ax0 else g, reshape(idx, [-1]), dims[ax0])
    return (transpose(seg, np.argsort(perm).tolist()) if ax0 else seg), None, None


def _gather_grad_dynamic(p: Tensor, idx: Tensor, a: Tensor, grad: Tensor) -> Tensor:
    """The same rule built from shape ops, for an unknown params rank or axis."""
    from .array import range, size
    from .math import floormod

    dims = shape(p, out_type=a.dtype)
    ax = floormod(a, size(dims, out_type=a.dtype))
    at = reshape(ax, [1])
    outer, inner = slice(dims, [0], at), slice(dims, add(at, 1), [-1])
    g = reshape(grad, concat([outer, [-1], inner], 0))
    perm = concat([at, range(ax), range(add(ax, 1), size(dims, out_type=a.dtype))], 0)
    seg = unsorted_segment_sum(transpose(g, perm), reshape(idx, [-1]), gather(dims, ax))
    return transpose(seg, invert_permutation(perm))


def _uss_infer(inputs: Sequence[Tensor]) -> Spec:
    data, ids, n = inputs
    check_dtype("UnsortedSegmentSum", ids, _INDEX, "segment_ids")
    check_dtype("UnsortedSegmentSum", n, _INDEX, "num_segments")
    num = static_ints(n, "num_segments")
    if data.shape.dims is None or ids.shape.dims is None:
        return TensorShape(None), data.dtype
    k = len(ids.shape.dims)
    if not TensorShape(data.shape.dims[:k]).is_compatible_with(ids.shape):
        raise ShapeError(f"segment_ids.shape = {ids.shape} must be a prefix of data.shape = "
                         f"{data.shape}")
    return TensorShape([None if num is None else num[0], *data.shape.dims[k:]]), data.dtype


def _uss_kernel(data: np.ndarray, ids: np.ndarray, n: np.ndarray) -> np.ndarray:
    count = int(n)
    if (ids >= count).any():
        raise _index_error(ids, ids >= count, f"is out of range [0, {count}) (segment_ids)")
    rows = data.reshape((-1, *data.shape[ids.ndim:]))
    flat = ids.reshape(-1)
    out = np.zeros((count, *data.shape[ids.ndim:]), data.dtype)
    np.add.at(out, flat[flat >= 0], rows[flat >= 0])  # TF drops negative ids
    return out


register_op("UnsortedSegmentSum", _uss_infer, _uss_kernel)


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> Tensor:
    """``out[i] = sum of data[j] with segment_ids[j] == i``; negative ids are dropped."""
    ids = _int_tensor(segment_ids, "segment_ids")
    n = convert_to_tensor(num_segments, None if isinstance(num_segments, Tensor) else ids.dtype)
    return apply_op("UnsortedSegmentSum", [convert_to_tensor(data), ids, n], name=name)._output(0)


@RegisterGradient("UnsortedSegmentSum")
def _uss_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None]:
    """ddata = gather(g, segment_ids), zero where an id is negative."""
    data, ids, _ = op.inputs
    known = constant_value(ids)
    if known is not None and (known >= 0).all():
        return gather(grad, ids), None, None
    picked = gather(grad, maximum(ids, 0))
    if data.shape.rank is None or ids.shape.rank is None:
        raise NotImplementedError("UnsortedSegmentSum gradient needs static ranks")
    inner = data.shape.rank - ids.shape.rank
    keep = reshape(greater_equal(ids, 0), concat([shape(ids), [1] * inner], 0))
    return where(keep, picked, zeros_like(picked)), None, None


# --------------------------------------------------------------------------------------
# GatherNd and ScatterNd: each is the other's gradient


def _nd_depth(op_type: str, idx: Tensor, rank: int | None) -> int | None:
    check_dtype(op_type, idx, _INDEX, "indices")
    if idx.shape.rank == 0:
        raise ShapeError("indices must be at least 1-D (the last axis indexes into params)")
    k = None if idx.shape.rank is None else idx.shape[-1]
    if k is not None and rank is not None and k > rank:
        raise ShapeError(f"index innermost dimension length must be <= params rank; saw: "
                         f"{k} vs. {rank}")
    return k


def _check_nd(idx: np.ndarray, dims: Sequence[int]) -> None:
    bad = ((idx < 0) | (idx >= np.array(dims, np.int64))).any(axis=-1)
    if bad.any():
        pos = tuple(np.argwhere(bad)[0])
        raise ValueError(f"indices[{','.join(map(str, pos))}] = {idx[pos].tolist()} does not "
                         f"index into param shape {list(dims)}")


def _gather_nd_infer(inputs: Sequence[Tensor], *, batch_dims: int = 0) -> Spec:
    p, idx = inputs
    k = _nd_depth("GatherNd", idx, p.shape.rank)
    if k is None or p.shape.dims is None:
        return TensorShape(None), p.dtype
    return TensorShape([*idx.shape.dims[:-1], *p.shape.dims[k:]]), p.dtype  # type: ignore[index]


def _gather_nd_kernel(p: np.ndarray, idx: np.ndarray, *, batch_dims: int = 0) -> np.ndarray:
    k = idx.shape[-1]
    _check_nd(idx, p.shape[:k])
    if not k:
        return np.array(np.broadcast_to(p, idx.shape[:-1] + p.shape))
    return p[tuple(np.moveaxis(idx, -1, 0))]


register_op("GatherNd", _gather_nd_infer, _gather_nd_kernel)


def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: str | None = None) -> Tensor:
    """``out[i...] = params[indices[i..., :]]`` (the last axis of indices is a position)."""
    if batch_dims:
        raise NotImplementedError("gather_nd with batch_dims != 0 is not implemented")
    ins = [convert_to_tensor(params), _int_tensor(indices, "indices")]
    return apply_op("GatherNd", ins, {"batch_dims": 0}, name)._output(0)


@RegisterGradient("GatherNd")
def _gather_nd_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dparams = scatter_nd(indices, g, shape(params)) (duplicates add)."""
    p, idx = op.inputs
    dims = p.shape.as_list() if p.shape.is_fully_defined() else shape(p, out_type=idx.dtype)
    return scatter_nd(idx, grad, dims), None


def _scatter_nd_infer(inputs: Sequence[Tensor]) -> Spec:
    idx, u, s = inputs
    check_dtype("ScatterNd", s, _INDEX, "shape")
    same_dtype([idx, s], ("indices", "shape"))
    dims = static_ints(s, "shape")
    k = _nd_depth("ScatterNd", idx, None if dims is None else len(dims))
    if dims is None:
        return unknown_dims(s), u.dtype
    if k is not None and idx.shape.dims is not None:
        want = [*idx.shape.dims[:-1], *dims[k:]]
        if not u.shape.is_compatible_with(want):
            raise ShapeError(f"updates must have shape indices.shape[:-1] + shape[{k}:] = "
                             f"{want}, but got {u.shape}")
    return TensorShape(dims), u.dtype


def _scatter_nd_kernel(idx: np.ndarray, u: np.ndarray, s: np.ndarray) -> np.ndarray:
    out = np.zeros(tuple(s), u.dtype)
    k = idx.shape[-1]
    _check_nd(idx, out.shape[:k])
    np.add.at(out, tuple(np.moveaxis(idx, -1, 0)), u)
    return out


register_op("ScatterNd", _scatter_nd_infer, _scatter_nd_kernel)


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> Tensor:
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates add)."""
    idx = _int_tensor(indices, "indices")
    s = convert_to_tensor(shape, None if isinstance(shape, Tensor) else idx.dtype)
    return apply_op("ScatterNd", [idx, convert_to_tensor(updates), s], name=name)._output(0)


@RegisterGradient("ScatterNd")
def _scatter_nd_grad(op: Any, grad: Tensor) -> tuple[None, Tensor, None]:
    """dupdates = gather_nd(g, indices)."""
    return None, gather_nd(grad, op.inputs[0]), None

