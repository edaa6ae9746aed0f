"""Slicing: Slice, Pad, PadV2, StridedSlice, StridedSliceGrad and ``Tensor.__getitem__``.

Each pair of ops that are one another's gradient lives here together: Slice and Pad,
StridedSlice and StridedSliceGrad.  Each op is one record (shape rule, kernel, batching
rule, op-table cases) with its gradient rule beside it.  Gathers and scatters are in
``ops.gather``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call, const
from symgrad.core.cases import Case, ints, randn
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import (
    OPS,
    ShapeError,
    Spec,
    apply_op,
    apply_op1,
    constant_value,
    register_op,
)
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import joining, mirror_pad
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import kernel
from symgrad.ops.core import check_dtype, convert_n, convert_to_tensor, same_dtype, static_ints

_builtin_slice = slice


# --------------------------------------------------------------------------------------
# Slice and Pad: each is the other's gradient


def _slice_dims(x: Tensor, begin: list[int], size: list[int]) -> list[int | None]:
    out: list[int | None] = []
    for i, (d, b, s) in enumerate(zip(x.shape.dims, begin, size, strict=True)):  # type: ignore[arg-type]
        if b < 0 or (d is not None and b > d):
            raise ShapeError(
                f"Expected begin[{i}] in [0, {d}], but got {b} (input shape {x.shape})"
            )
        n = (None if d is None else d - b) if s == -1 else s
        if n is not None and (n < 0 or (d is not None and b + n > d)):
            raise ShapeError(
                f"Expected size[{i}] in [0, {d - b if d is not None else '?'}], "
                f"but got {s} (input shape {x.shape}, begin[{i}] = {b})"
            )
        out.append(n)
    return out


def _slice_infer(inputs: Sequence[Tensor]) -> Spec:
    x, b, s = inputs
    check_dtype("Slice", b, array.INDEX, "begin")
    check_dtype("Slice", s, array.INDEX, "size")
    same_dtype([b, s], ("begin", "size"))
    begin, size = static_ints(b, "begin"), static_ints(s, "size")
    r = x.shape.rank if x.shape.rank is not None else b.shape[0] if b.shape.rank else None
    if r is None:
        return TensorShape(None), x.dtype
    for v, n in ((begin, "begin"), (size, "size")):
        if v is not None and len(v) != r:
            raise ShapeError(
                f"Expected {n} to be a vector of length {r} (the rank of input, "
                f"shape {x.shape}), but got length {len(v)}"
            )
    if size is None:
        return TensorShape([None] * r), x.dtype
    if begin is None or x.shape.dims is None:  # sizes other than -1 are still known
        return TensorShape([None if n == -1 else n for n in size]), x.dtype
    return TensorShape(_slice_dims(x, begin, size)), x.dtype


def _slice_kernel(x: np.ndarray, begin: np.ndarray, size: np.ndarray) -> np.ndarray:
    return x[
        tuple(
            _builtin_slice(int(b), None if s == -1 else int(b + s))
            for b, s in zip(begin, size, strict=True)
        )
    ]


SLICE = register_op(
    "Slice",
    _slice_infer,
    _slice_kernel,
    cases=[
        Case([randn(3, 4, 5), ints([1, 0, 2]), ints([2, -1, 2])], lambda x, b, s: x[1:3, :, 2:4])
    ],
)


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:
    """``input_[begin[i] : begin[i] + size[i]]`` along every axis; size -1 means "to the end"."""
    b, s = convert_n([array.int_tensor(begin, "begin"), size])
    return apply_op1("Slice", [convert_to_tensor(input_), b, s], name=name)


@SLICE.gradient
def _slice_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None]:
    """dx = pad(g, [[begin_i, dim_i - begin_i - size_i]]); begin and size get None."""
    x, begin, _ = op.inputs
    b, y = static_ints(begin, "begin"), op.outputs[0]
    if b is not None and x.shape.is_fully_defined() and y.shape.is_fully_defined():
        dims = zip(b, x.shape.as_list(), y.shape.as_list(), strict=True)
        pads: Any = np.array([[i, d - i - n] for i, d, n in dims], np.int32).reshape(-1, 2)
    else:
        d = begin.dtype
        after = array.shape(x, out_type=d) - begin - array.shape(grad, out_type=d)
        pads = joining.stack([begin, after], axis=1)
    return pad(grad, pads), None, None


@array_rule("Slice")
def _slice_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    x, begin = xs[0], [int(i) for i in np.ravel(xs[1])]
    dims = zip(begin, x.shape, ys[0].shape, strict=True)
    pads = np.array([[i, d - i - n] for i, d, n in dims], np.int32).reshape(-1, 2)
    return [_PAD(grads[0], pads), None, None]


_PAD = kernel("Pad")


@SLICE.batching
def _slice_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    return c.apply([c.xs[0], const([0] + c.ints(1), c.xs[1]), const([-1] + c.ints(2), c.xs[2])])


def _pad_infer(inputs: Sequence[Tensor]) -> Spec:
    x, p = inputs[:2]
    check_dtype("Pad", p, array.INDEX, "paddings")
    if len(inputs) == 3:
        same_dtype([x, inputs[2]], ("input", "constant_values"))
        if inputs[2].shape.rank not in (0, None):
            raise ShapeError(f"constant_values must be a scalar, got shape {inputs[2].shape}")
    r = x.shape.rank
    pads = constant_value(p)
    if pads is not None and (r is None or pads.shape != (r, 2)):
        r = pads.shape[0] if r is None and pads.ndim == 2 and pads.shape[1] == 2 else r
        if pads.shape != (r, 2):
            raise ShapeError(
                f"paddings must have shape [{r}, 2] (a [before, after] pair for "
                f"each dimension of input, shape {x.shape}), but got shape "
                f"{list(pads.shape)}"
            )
    if pads is None or x.shape.dims is None:
        return TensorShape(None if r is None else [None] * r), x.dtype
    if (pads < 0).any():
        raise ShapeError(f"paddings must be non-negative, got {pads.tolist()}")
    return TensorShape(
        [
            None if d is None else d + int(a) + int(b)
            for d, (a, b) in zip(x.shape.dims, pads, strict=True)
        ]
    ), x.dtype


def _pad_kernel(x: np.ndarray, p: np.ndarray, c: Any = 0) -> np.ndarray:
    return np.pad(x, p, constant_values=c) if x.ndim else x.copy()


PAD = register_op(
    "Pad",
    _pad_infer,
    _pad_kernel,
    cases=[Case([randn(2, 3), ints([[1, 0], [2, 3]])], lambda x, p: np.pad(x, p))],
)
PAD_V2 = register_op(
    "PadV2",
    _pad_infer,
    _pad_kernel,
    cases=[
        Case(
            [randn(2, 3), ints([[1, 2], [0, 1]]), randn()],
            lambda x, p, c: np.pad(x, p, constant_values=c),
            diff=[0],
        )
    ],
)


def pad(
    tensor: Any,
    paddings: Any,
    mode: str = "CONSTANT",
    constant_values: Any = 0,
    name: str | None = None,
) -> Tensor:
    """Pad with ``constant_values`` (op ``Pad`` for 0, else ``PadV2``), or mirror the edges
    (mode REFLECT / SYMMETRIC: op ``MirrorPad``); paddings are [[before, after], ...]."""
    mode = str(mode).upper()
    if mode in mirror_pad.MODES:
        return mirror_pad.mirror_pad(tensor, paddings, mode, name)
    if mode != "CONSTANT":
        raise ValueError(
            'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", '
            f'or "SYMMETRIC". Received `mode` = {mode}'
        )
    x, p = convert_to_tensor(tensor), array.int_tensor(paddings, "paddings")
    if (
        not isinstance(constant_values, Tensor)
        and np.ndim(constant_values) == 0
        and constant_values == 0
    ):
        return apply_op1("Pad", [x, p], name=name)
    c = convert_to_tensor(constant_values, None if isinstance(constant_values, Tensor) else x.dtype)
    return apply_op1("PadV2", [x, p, c], name=name)


@PAD.gradient
@PAD_V2.gradient
def _pad_grad(op: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
    """dx = slice(g, paddings[:, 0], shape(x)); paddings and constant_values get None (TF)."""
    x, p = op.inputs[:2]
    pads = constant_value(p)
    if pads is not None and x.shape.is_fully_defined():
        dx = slice(grad, pads[:, 0], x.shape.as_list())
    else:
        dx = slice(
            grad, array.reshape(slice(p, [0, 0], [-1, 1]), [-1]), array.shape(x, out_type=p.dtype)
        )
    return (dx, None) if op.type == "Pad" else (dx, None, None)


@PAD.batching
@PAD_V2.batching
def _pad_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    pads = [0, 0] + c.ints(1)
    return c.apply([c.xs[0], const(np.reshape(pads, (-1, 2)), c.xs[1]), *c.xs[2:]])


PAD.add_cases(
    Case(
        [randn(3, 2)],
        lambda x: np.pad(x * x, [[0, 2], [1, 1]]),
        fn=lambda x: pad(x * x, [[0, 2], [1, 1]]),
        name="squared",
    )
)


# --------------------------------------------------------------------------------------
# StridedSlice: TF's sparse spec (masks) expanded to one range per input dimension

_NEW, _SHRINK = -1, -2
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
Dense = tuple[int, int, int, bool, bool, bool]  # begin, end, stride, begin/end masked, shrink


def _dense_spec(
    rank: int, begin: list[int], end: list[int], strides: list[int], m: dict[str, int]
) -> tuple[list[Dense], list[int]]:
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
                raise ShapeError(
                    f"Index out of range using input dim {rank}; input has only {rank} dims"
                )
            shrink = bool(m["shrink_axis_mask"] >> i & 1)
            final.append(_SHRINK if shrink else len(dense))
            dense.append(
                (
                    begin[i],
                    end[i],
                    strides[i],
                    bool(m["begin_mask"] >> i & 1),
                    bool(m["end_mask"] >> i & 1),
                    shrink,
                )
            )
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


def _plan(
    dims: Sequence[int | None],
    begin: list[int],
    end: list[int],
    strides: list[int],
    masks: dict[str, int],
) -> tuple[list[tuple[int, int, int, int | None, bool]], list[int | None]]:
    """The per-dim ranges (with shrink flags) and the output shape of a strided slice."""
    if not len(begin) == len(end) == len(strides):
        raise ShapeError(
            f"begin, end and strides must have the same length, got "
            f"{len(begin)}, {len(end)} and {len(strides)}"
        )
    dense, final = _dense_spec(len(dims), begin, end, strides, masks)
    pairs = enumerate(zip(dims, dense, strict=True))
    ranges = [(*_dim_range(i, d, spec), spec[5]) for i, (d, spec) in pairs]
    out = [1 if f == _NEW else ranges[f][3] for f in final if f != _SHRINK]
    return ranges, out  # type: ignore[return-value]


def _index(
    x_shape: Sequence[int], b: np.ndarray, e: np.ndarray, s: np.ndarray, masks: dict[str, int]
) -> tuple[tuple[Any, ...], list[int]]:
    ranges, out = _plan(x_shape, b.tolist(), e.tolist(), s.tolist(), masks)
    index = tuple(
        lo
        if shrink
        else _builtin_slice(0, 0)
        if not n
        else _builtin_slice(lo, hi if hi >= 0 else None, st)
        for lo, hi, st, n, shrink in ranges
    )
    return index, out  # type: ignore[return-value]


def _strided_slice_infer(inputs: Sequence[Tensor], **masks: int) -> Spec:
    x, *bes = inputs
    for t, n in zip(bes, ("begin", "end", "strides"), strict=True):
        check_dtype("StridedSlice", t, array.INDEX, n)
    same_dtype(bes, ("begin", "end", "strides"))
    values = [static_ints(t, n) for t, n in zip(bes, ("begin", "end", "strides"), strict=True)]
    if x.shape.dims is None or values[2] is None:
        return TensorShape(None), x.dtype
    b, e, s = values
    if b is None or e is None:
        return TensorShape(_partial_shape(x.shape.dims, b, e, values[2], masks)), x.dtype
    return TensorShape(_plan(x.shape.dims, b, e, s, masks)[1]), x.dtype  # type: ignore[arg-type]


def _partial_shape(
    dims: Sequence[int | None],
    begin: list[int] | None,
    end: list[int] | None,
    strides: list[int],
    masks: dict[str, int],
) -> list[int | None] | None:
    """The output shape when begin or end is known only at run time (``xs[t]``, ``x[:n]``).

    The masks and strides still fix the rank, the dims an index removes and the ones a
    ``:`` keeps whole.  The plan is made for an empty, a whole and a one-element range
    for each unknown bound: a dim whose size differs between them is unknown.
    """
    n = len(strides)
    empty = [0] * n
    whole = [2**31 - 1 if st > 0 else -(2**31) for st in strides]
    first = [0 if st > 0 else -1 for st in strides]
    last = [-1 if st > 0 else 0 for st in strides]
    sizes = []
    try:
        for b, e in ((first, empty), (first, whole), (last, whole)):
            sizes.append(_plan(dims, begin or b, end or e, strides, masks)[1])
    except ShapeError:  # e.g. an index into a dimension of size 0: left to the kernel
        return None
    return [p if p == q == r else None for p, q, r in zip(*sizes, strict=True)]


def _strided_slice_kernel(
    x: np.ndarray, b: np.ndarray, e: np.ndarray, s: np.ndarray, **masks: int
) -> np.ndarray:
    index, out = _index(x.shape, b, e, s, masks)
    return np.reshape(x[index], out)


_SS = {
    "begin_mask": 1,
    "end_mask": 5,
    "ellipsis_mask": 8,
    "new_axis_mask": 2,
    "shrink_axis_mask": 16,
}  # the masks of x[::-2, None, 1:, ..., 0]
STRIDED_SLICE = register_op(
    "StridedSlice",
    _strided_slice_infer,
    _strided_slice_kernel,
    cases=[
        Case(
            [
                randn(5, 3, 2, 4),
                ints([0, 0, 1, 0, 0]),
                ints([0, 0, 0, 0, 1]),
                ints([-2, 1, 1, 1, 1]),
            ],
            lambda x, *bes: x[::-2, None, 1:, ..., 0],
            attrs=_SS,
            name="getitem_masks",
        )
    ],
)


def strided_slice(
    input_: Any,
    begin: Any,
    end: Any,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: str | None = None,
) -> Tensor:
    """NumPy-style slicing with TF's bit masks (what ``tensor[...]`` builds)."""
    b, e = convert_n([array.int_tensor(begin, "begin"), end])
    s = array.ones_like(b) if strides is None else convert_n([b, strides])[1]
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    return _strided_slice(input_, [b, e, s], dict(zip(_MASKS, masks, strict=True)), name)


def _strided_slice(x: Any, bes: list[Tensor], masks: dict[str, int], name: str | None) -> Tensor:
    attrs = {k: int(v) for k, v in masks.items()}
    return apply_op1("StridedSlice", [convert_to_tensor(x), *bes], attrs, name)


@STRIDED_SLICE.gradient
def _strided_slice_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
    """dx = zeros of x's shape with g scattered into the slice (StridedSliceGrad)."""
    x, b, e, s = op.inputs
    dx = apply_op("StridedSliceGrad", [array.shape(x, out_type=b.dtype), b, e, s, grad], op.attrs)
    return dx.output(0), None, None, None


@array_rule("StridedSlice")
def _strided_slice_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    x, b, e, s = xs
    shape = OPS["Shape"].kernel(x, out_type=dt.as_dtype(b.dtype))  # an array of b's dtype
    return [_STRIDED_SLICE_GRAD(shape, b, e, s, grads[0], **attrs), None, None, None]


_STRIDED_SLICE_GRAD = kernel("StridedSliceGrad", 4)


# Batched: a leading full slice for the batch axis, every mask shifted by one bit.
def _prefixed_spec(c: Call, first: int) -> tuple[list[Tensor], dict[str, int]]:
    b, e, s = (c.ints(first + i) for i in range(3))
    spec = [
        const([0] + b, c.xs[first]),
        const([0] + e, c.xs[first + 1]),
        const([1] + s, c.xs[first + 2]),
    ]
    masks = {m: int(c.op.get_attr(m)) << 1 for m in _MASKS}
    masks["begin_mask"] |= 1
    masks["end_mask"] |= 1
    return spec, masks


@STRIDED_SLICE.batching
def _strided_slice_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    spec, masks = _prefixed_spec(c, 1)
    return c.apply([c.xs[0], *spec], **masks)


def _sliced(begin: list[int], end: list[int], strides: list[int], **masks: Any) -> Any:
    return lambda x: strided_slice(x, begin, end, strides, **masks)


STRIDED_SLICE.add_cases(
    Case(
        [randn(4, 5)],
        lambda x: x[1:3, -1:0:-1],
        fn=_sliced([1, -1], [3, 0], [1, -1]),
        name="negative_stride",
    ),
    Case(
        [randn(4, 5)],
        lambda x: x[:, 1::2],
        fn=_sliced([0, 1], [0, 0], [1, 2], begin_mask=1, end_mask=3),
        name="masks",
    ),
    Case(
        [randn(2, 3, 4)],
        lambda x: x[..., 1],
        fn=_sliced([0, 1], [0, 2], [1, 1], ellipsis_mask=1, shrink_axis_mask=2),
        name="ellipsis_shrink",
    ),
    Case(
        [randn(3, 4)],
        lambda x: x[-1, None, :],
        fn=_sliced(
            [-1, 0, 0], [0, 0, 0], [1, 1, 1], shrink_axis_mask=1, new_axis_mask=2, end_mask=4
        ),
        name="newaxis_shrink_negative",
    ),
    Case(
        [randn(3, 4)], lambda x: (x * x)[1:, ::-1], fn=lambda x: (x * x)[1:, ::-1], name="squared"
    ),
)


def _ssg_infer(inputs: Sequence[Tensor], **masks: int) -> Spec:
    s, *bes, dy = inputs
    check_dtype("StridedSliceGrad", s, array.INDEX, "shape")
    dims = static_ints(s, "shape")
    if dims is None:
        return array.unknown_dims(s), dy.dtype
    values = [static_ints(t, "begin/end/strides") for t in bes]
    b, e, st = values
    if b is not None and e is not None and st is not None:
        out = _plan(dims, b, e, st, masks)[1]
        if not dy.shape.is_compatible_with(out):
            raise ShapeError(
                f"dy has shape {dy.shape} but the slice of a tensor of shape {dims} has shape {out}"
            )
    return TensorShape(dims), dy.dtype


def _ssg_kernel(
    s: np.ndarray, b: np.ndarray, e: np.ndarray, st: np.ndarray, dy: np.ndarray, **masks: int
) -> np.ndarray:
    out = np.zeros(tuple(s), dy.dtype)
    index, _ = _index(out.shape, b, e, st, masks)
    out[index] = np.reshape(dy, out[index].shape)
    return out


def _ssg_ref(
    s: np.ndarray, b: np.ndarray, e: np.ndarray, st: np.ndarray, dy: np.ndarray
) -> np.ndarray:
    out = np.zeros((4, 5), dy.dtype)
    out[1:, ::-2] = dy
    return out


# The case is the gradient of x[1:, ::-2] for x of shape (4, 5): dy scattered into zeros.
STRIDED_SLICE_GRAD = register_op(
    "StridedSliceGrad",
    _ssg_infer,
    _ssg_kernel,
    cases=[
        Case(
            [ints([4, 5]), ints([1, 0]), ints([0, 0]), ints([1, -2]), randn(3, 3)],
            _ssg_ref,
            attrs={
                "begin_mask": 2,
                "end_mask": 3,
                "ellipsis_mask": 0,
                "new_axis_mask": 0,
                "shrink_axis_mask": 0,
            },
        )
    ],
)


@STRIDED_SLICE_GRAD.gradient
def _ssg_grad(op: Any, grad: Tensor) -> tuple[None, None, None, None, Tensor]:
    """ddy = strided_slice(g, begin, end, strides) with the same masks."""
    _, b, e, s, _ = op.inputs
    return None, None, None, None, _strided_slice(grad, [b, e, s], op.attrs, None)


@STRIDED_SLICE_GRAD.batching
def _ssg_batch(c: Call) -> list[Tensor]:
    c.only_batched(4)
    spec, masks = _prefixed_spec(c, 1)
    return c.apply([const([c.k] + c.ints(0), c.xs[0]), *spec, c.xs[4]], **masks)


# --------------------------------------------------------------------------------------
# Tensor.__getitem__


def _check_index(idx: Any) -> Any:
    if isinstance(idx, int | np.integer):
        return int(idx)
    t = idx if isinstance(idx, Tensor) else None
    if t is not None and t.dtype in array.INDEX and t.shape.rank in (0, None):
        return t
    raise TypeError(
        "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
        f"scalar tf.int32/tf.int64 tensors are valid indices, got {idx!r}"
    )


def getitem(tensor: Any, key: Any) -> Tensor:
    """``tensor[key]`` as one StridedSlice, with the masks TF's ``_slice_helper`` builds."""
    packed, masks = slice_spec(key)
    return _strided_slice(tensor, packed, masks, "strided_slice")


def slice_spec(key: Any) -> tuple[list[Tensor], dict[str, int]]:
    """``key``'s StridedSlice inputs (begin, end, strides) and masks, as TF's
    ``_slice_helper`` builds them."""
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
    return [_pack(v, d) for v in (begin, end, strides)], masks


def _pack(values: list[Any], d: dt.DType) -> Tensor:
    """One 1-D index tensor: a Const for plain ints, else a Pack (int32 widened to int64)."""
    if not any(isinstance(v, Tensor) for v in values):
        return convert_to_tensor(np.array(values, d.np).reshape(-1))
    return joining.stack(
        [array.cast(v, d) if isinstance(v, Tensor) else convert_to_tensor(v, d) for v in values]
    )
