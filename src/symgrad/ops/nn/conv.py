"""Convolutions: Conv2D, Conv3D and DepthwiseConv2dNative with their backprop ops.

Each convolution is a family of three op types, as in TF: the forward op, the gradient
with respect to the input (``...BackpropInput``, also the transposed convolution) and the
one with respect to the filter (``...BackpropFilter``).  Each family's three gradient
rules are TF's (nn_grad.py): every rule is built from the other two ops of the family, so
derivatives of any order stay inside it.

Kernels are im2col (``windows.patches``, a strided view) contracted with the filter in
one BLAS call; the input gradient contracts first and then sums the patches back with one
strided add per filter tap (``windows.col2im``).  Depthwise kernels contract per channel
with a batched ``matmul``.  For the input gradient, the tap loop measured within 25% of
the im2col of the padded gradient (which only stride 1 allows) either way, on 8×8 to
28×28 images with 1 to 32 channels, so the general loop stays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core import recycle
from symgrad.core.batching import Call, NotVectorizable, const
from symgrad.core.cases import Case, ints, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import kernel as array_kernel
from symgrad.ops.array_vjp import shape_of
from symgrad.ops.core import FLOATS, check_dtype, same_dtype, wanted
from symgrad.ops.nn import conv_im2col, window_refs
from symgrad.ops.nn.windows import (
    Geometry,
    col2im,
    crop,
    dims_of,
    pad,
    padded_shape,
    patches,
    static_sizes,
    window,
)


@dataclass(frozen=True)
class Family:
    """The three op types of one convolution and what sets them apart."""

    forward: str
    input: str
    filter: str
    n: int  # spatial rank
    depthwise: bool
    dtypes: tuple[dt.DType, ...]


CONV2D = Family(
    "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", 2, False, FLOATS + (dt.int32,)
)
CONV3D = Family("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", 3, False, FLOATS)
DEPTHWISE = Family(
    "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropInput",
    "DepthwiseConv2dNativeBackpropFilter",
    2,
    True,
    FLOATS,
)


# --------------------------------------------------------------------------------------
# Kernels (channels-last inside; ``Window`` moves channels-first data there and back)


def _groups(channels: int, filter_depth: int) -> int:
    """How many groups a convolution has: input depth / the filter's input depth."""
    return channels // filter_depth if filter_depth else 1


def _contract(cols: np.ndarray, w: np.ndarray, fam: Family) -> np.ndarray:
    """[N, *out, *k, C] patches · filter -> [N, *out, C_out]."""
    n = fam.n
    if not fam.depthwise:
        groups = _groups(cols.shape[-1], w.shape[-2])
        if groups > 1:
            return _grouped_contract(cols, w, groups, n)
        return np.tensordot(cols, w, axes=(list(range(n + 1, 2 * n + 2)), list(range(n + 1))))
    lead, c, m = cols.shape[: n + 1], w.shape[-2], w.shape[-1]
    a = cols.reshape(-1, int(np.prod(w.shape[:n])), c).transpose(2, 0, 1)  # [C, P, K]
    y = np.matmul(a, w.reshape(-1, c, m).transpose(1, 0, 2))  # [C, P, M]
    return y.transpose(1, 0, 2).reshape(*lead, c * m)


def _grouped_contract(cols: np.ndarray, w: np.ndarray, groups: int, n: int) -> np.ndarray:
    """A grouped convolution: group i's input channels meet only group i's filters, so
    one batched matmul over the groups: [G, P, K·Cg] · [G, K·Cg, Mg]."""
    lead, kk, cg = cols.shape[: n + 1], int(np.prod(w.shape[:n])), w.shape[-2]
    mg = w.shape[-1] // groups
    a = cols.reshape(-1, kk, groups, cg).transpose(2, 0, 1, 3).reshape(groups, -1, kk * cg)
    b = w.reshape(kk * cg, groups, mg).transpose(1, 0, 2)
    return np.matmul(a, b).transpose(1, 0, 2).reshape(*lead, groups * mg)


def _grouped_expand(g: np.ndarray, w: np.ndarray, groups: int, n: int) -> np.ndarray:
    """out_backprop [N, *out, G·Mg] -> patch gradients [N, *out, *k, G·Cg], group by group."""
    k, cg, mg = w.shape[:n], w.shape[-2], w.shape[-1] // groups
    a = g.reshape(-1, groups, mg).transpose(1, 0, 2)  # [G, P, Mg]
    b = w.reshape(-1, cg, groups, mg).transpose(2, 3, 0, 1).reshape(groups, mg, -1)
    cols = np.matmul(a, b).reshape(groups, -1, int(np.prod(k)), cg)  # [G, P, K, Cg]
    return cols.transpose(1, 2, 0, 3).reshape(*g.shape[:-1], *k, groups * cg)


def _grouped_filter_sum(
    cols: np.ndarray, g: np.ndarray, groups: int, k: Sequence[int]
) -> np.ndarray:
    """patches [N, *out, *k, G·Cg], out_backprop [N, *out, G·Mg] -> filter [*k, Cg, G·Mg]."""
    kk, cg, mg = int(np.prod(k)), cols.shape[-1] // groups, g.shape[-1] // groups
    a = cols.reshape(-1, kk, groups, cg).transpose(2, 1, 3, 0).reshape(groups, kk * cg, -1)
    b = g.reshape(-1, groups, mg).transpose(1, 0, 2)  # [G, P, Mg]
    dw = np.matmul(a, b).reshape(groups, kk, cg, mg)
    return dw.transpose(1, 2, 0, 3).reshape(*k, cg, groups * mg)


def _expand(g: np.ndarray, w: np.ndarray, fam: Family, groups: int = 1) -> np.ndarray:
    """out_backprop [N, *out, C_out] · filter -> patch gradients [N, *out, *k, C]."""
    n = fam.n
    if not fam.depthwise:
        if groups > 1:
            return _grouped_expand(g, w, groups, n)
        return np.tensordot(g, w, axes=([-1], [-1]))
    k, c, m = w.shape[:n], w.shape[-2], w.shape[-1]
    a = g.reshape(-1, c, m).transpose(1, 0, 2)  # [C, P, M]
    cols = np.matmul(a, w.reshape(-1, c, m).transpose(1, 2, 0))  # [C, P, K]
    return cols.transpose(1, 2, 0).reshape(*g.shape[:-1], *k, c)


def _filter_sum(
    cols: np.ndarray, g: np.ndarray, fam: Family, k: Sequence[int], filter_depth: int
) -> np.ndarray:
    """patches [N, *out, *k, C] and out_backprop [N, *out, C_out] -> the filter's gradient."""
    n = fam.n
    if not fam.depthwise:
        groups = _groups(cols.shape[-1], int(filter_depth))
        if groups > 1:
            return _grouped_filter_sum(cols, g, groups, k)
        return np.tensordot(cols, g, axes=(list(range(n + 1)), list(range(n + 1))))
    c = cols.shape[-1]
    a = cols.reshape(-1, int(np.prod(k)), c).transpose(2, 1, 0)  # [C, K, P]
    b = g.reshape(-1, c, g.shape[-1] // c).transpose(1, 0, 2)  # [C, P, M]
    return np.matmul(a, b).transpose(1, 0, 2).reshape(*k, c, -1)


def _check_out(op_type: str, g: np.ndarray, geo: Geometry, size: Sequence[int]) -> None:
    for i, (a, b) in enumerate(zip(g.shape[1:-1], geo.out)):
        if a != b:
            raise InvalidArgumentError(
                f"{op_type}: Size of out_backprop doesn't match computed: actual = {a}, "
                f"computed = {b} spatial_dim: {i + 1} input: {size[i]} "
                f"filter: {geo.k[i]} output: {a}"
            )


def _forward_kernel(fam: Family) -> Callable[..., np.ndarray]:
    def kernel(
        x: np.ndarray, w: np.ndarray, bias: Any = None, relu: bool = False, **attrs: Any
    ) -> np.ndarray:
        """``bias``, ``relu``: the conv, then ``+ bias`` (channels-last), then ``max(·,
        0)``, in one (a plan's fusion of the ops after it; runtime.fuse)."""
        win = window(fam.n, **attrs)
        xl = win.to_last(x)
        geo = win.geometry(xl.shape[1:-1], w.shape[: fam.n])
        fast = not fam.depthwise and conv_im2col.applies(xl, w, w.shape[-2])
        if fast and (bias is None or (not win.channels_first and bias.dtype == x.dtype)):
            return win.from_last(conv_im2col.forward(pad(xl, geo), w, geo, win, bias, relu))
        y = win.from_last(_contract(patches(pad(xl, geo), geo, win), w, fam))
        if bias is not None:
            y = np.add(y, bias)
        return np.maximum(y, y.dtype.type(0)) if relu else y

    return kernel


def _input_kernel(fam: Family) -> Callable[..., np.ndarray]:
    def kernel(sizes: np.ndarray, w: np.ndarray, g: np.ndarray, **attrs: Any) -> np.ndarray:
        win = window(fam.n, **attrs)
        full = [int(s) for s in sizes]
        size, gl = win.spatial(full), win.to_last(g)
        geo = win.geometry(size, w.shape[: fam.n])
        _check_out(fam.input, gl, geo, size)
        shape = padded_shape(full[0], size, win.channels(full), geo)
        groups = 1 if fam.depthwise else _groups(win.channels(full), w.shape[-2])
        dx = crop(col2im(_expand(gl, w, fam, groups), shape, geo, win), geo, size)
        return np.ascontiguousarray(win.from_last(dx))

    return kernel


def _filter_kernel(fam: Family) -> Callable[..., np.ndarray]:
    def kernel(x: np.ndarray, sizes: np.ndarray, g: np.ndarray, **attrs: Any) -> np.ndarray:
        win = window(fam.n, **attrs)
        k = [int(s) for s in sizes[: fam.n]]
        xl, gl = win.to_last(x), win.to_last(g)
        geo = win.geometry(xl.shape[1:-1], k)
        _check_out(fam.filter, gl, geo, xl.shape[1:-1])
        if not fam.depthwise and conv_im2col.applies(xl, gl, int(sizes[fam.n])):
            return conv_im2col.filter_grad(pad(xl, geo), gl, geo, win)
        return _filter_sum(patches(pad(xl, geo), geo, win), gl, fam, k, int(sizes[fam.n]))

    return kernel


# --------------------------------------------------------------------------------------
# Shape rules


def _rank(t: Tensor, rank: int, what: str) -> list[Any]:
    if t.shape.rank not in (None, rank):
        raise ShapeError(f"{what} must be {rank}-dimensional: {t.shape}")
    return dims_of(t.shape, rank)


def _channels_out(fam: Family, wd: list[Any]) -> Any:
    if not fam.depthwise:
        return wd[-1]
    return None if wd[-2] is None or wd[-1] is None else wd[-2] * wd[-1]


def _forward_infer(fam: Family) -> Callable[..., Spec]:
    def infer(inputs: Sequence[Tensor], **attrs: Any) -> Spec:
        x, w = inputs
        d = same_dtype(inputs, ("input", "filter"))
        check_dtype(fam.forward, x, fam.dtypes, "input")
        win = window(fam.n, **attrs)
        xd, wd = _rank(x, fam.n + 2, "input"), _rank(w, fam.n + 2, "filter")
        _check_depth(fam, win.channels(xd), wd[fam.n], wd[fam.n + 1])
        out = win.out_dims(win.spatial(xd), wd[: fam.n])
        return TensorShape(win.full(xd[0], out, _channels_out(fam, wd))), d

    return infer


def _check_depth(fam: Family, c: Any, fc: Any, out: Any) -> None:
    """Input depth against the filter's: equal, or (Conv2D) a multiple, which makes a
    grouped convolution whose output depth the groups must divide (TF's checks)."""
    if c is None or fc is None or c == fc:
        return
    if fam.depthwise:
        raise ShapeError(f"input and filter must have the same depth: {c} vs {fc}")
    if fam.n != 2:
        raise ShapeError(
            f"Number of channels in filter ({fc}) must match last dimension of input ({c})"
        )
    if c % fc:
        raise ShapeError(f"Depth of input ({c}) is not a multiple of input depth of filter ({fc})")
    if out is not None and out % (c // fc):
        raise ShapeError(
            f"Depth of output ({out}) is not a multiple of the number of groups ({c // fc})"
        )


def _sizes_infer(t: Tensor, rank: int, what: str) -> list[Any] | None:
    check_dtype("", t, (dt.int32, dt.int64), what)
    v = static_sizes(t)
    if v is not None and len(v) != rank:
        raise ShapeError(f"{what} must have {rank} elements, got {v}")
    return v


def _shape_of_input(sizes: Tensor, rank: int) -> list[Any] | None:
    """The known part of ``sizes`` when it is ``Shape(t)`` of a partly known ``t`` (TF's
    ``constant_value_as_shape`` does the same for these ops' shape functions)."""
    if sizes.op.type != "Shape" or sizes.op.inputs[0].shape.rank != rank:
        return None
    return dims_of(sizes.op.inputs[0].shape, rank)


def _input_infer(fam: Family) -> Callable[..., Spec]:
    def infer(inputs: Sequence[Tensor], **attrs: Any) -> Spec:
        sizes, w, g = inputs
        d = same_dtype([w, g], ("filter", "out_backprop"))
        check_dtype(fam.input, w, FLOATS, "filter")
        win = window(fam.n, **attrs)
        wd, gd = _rank(w, fam.n + 2, "filter"), _rank(g, fam.n + 2, "out_backprop")
        v = _sizes_infer(sizes, fam.n + 2, "input_sizes")
        if v is None:
            v = _shape_of_input(sizes, fam.n + 2)
        # Sizes unknown: the filter's depth, as TF's shape function says (for a grouped
        # gradient the sizes are Shape(x), read above).
        full = v if v is not None else win.full(gd[0], [None] * fam.n, wd[fam.n])
        return TensorShape(full), d

    return infer


def _filter_infer(fam: Family) -> Callable[..., Spec]:
    def infer(inputs: Sequence[Tensor], **attrs: Any) -> Spec:
        x, sizes, g = inputs
        d = same_dtype([x, g], ("input", "out_backprop"))
        check_dtype(fam.filter, x, FLOATS, "input")
        win = window(fam.n, **attrs)
        xd, gd = _rank(x, fam.n + 2, "input"), _rank(g, fam.n + 2, "out_backprop")
        v = _sizes_infer(sizes, fam.n + 2, "filter_sizes")
        last = None if fam.depthwise else win.channels(gd)
        return TensorShape(v if v is not None else [None] * fam.n + [win.channels(xd), last]), d

    return infer


# --------------------------------------------------------------------------------------
# Applying the ops, and TF's gradient rules (nn_grad.py)


def apply_forward(
    fam: Family, x: Tensor, w: Tensor, attrs: dict[str, Any], name: str | None = None
) -> Tensor:
    return apply_op(fam.forward, [x, w], attrs, name).output(0)


def apply_input(
    fam: Family, sizes: Any, w: Tensor, g: Tensor, attrs: dict[str, Any], name: str | None = None
) -> Tensor:
    sizes = sizes if isinstance(sizes, Tensor) else const(sizes, dt.int32)
    return apply_op(fam.input, [sizes, w, g], attrs, name).output(0)


def apply_filter(
    fam: Family, x: Tensor, sizes: Any, g: Tensor, attrs: dict[str, Any], name: str | None = None
) -> Tensor:
    sizes = sizes if isinstance(sizes, Tensor) else const(sizes, dt.int32)
    return apply_op(fam.filter, [x, sizes, g], attrs, name).output(0)


def _register_gradients(fam: Family) -> None:
    fwd, inp, fil = (OPDEFS[t] for t in (fam.forward, fam.input, fam.filter))

    @fwd.gradient
    def _forward_grad(op: Any, grad: Tensor) -> tuple[Any, ...]:
        """dx = BackpropInput(shape(x), w, g); dw = BackpropFilter(x, shape(w), g)."""
        x, w = op.inputs
        return wanted(
            op,
            lambda: apply_input(fam, array.shape(x), w, grad, op.attrs),
            lambda: apply_filter(fam, x, array.shape(w), grad, op.attrs),
        )

    backprop_input, backprop_filter = array_kernel(fam.input, 2), array_kernel(fam.filter, 0)

    @array_rule(fam.forward)
    def _forward_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
        (x, w), g = xs, grads[0]
        return [
            backprop_input(shape_of(x), w, g, **attrs) if needs[0] else None,
            backprop_filter(x, shape_of(w), g, **attrs) if needs[1] else None,
        ]

    @inp.gradient
    def _input_grad(op: Any, grad: Tensor) -> tuple[Any, ...]:
        """d filter = BackpropFilter(grad, shape(w), g); d g = forward(grad, w)."""
        _, w, g = op.inputs
        return wanted(
            op,
            lambda: None,
            lambda: apply_filter(fam, grad, array.shape(w), g, op.attrs),
            lambda: apply_forward(fam, grad, w, op.attrs),
        )

    @fil.gradient
    def _filter_grad(op: Any, grad: Tensor) -> tuple[Any, ...]:
        """d x = BackpropInput(shape(x), grad, g); d g = forward(x, grad)."""
        x, _, g = op.inputs
        return wanted(
            op,
            lambda: apply_input(fam, array.shape(x), grad, g, op.attrs),
            lambda: None,
            lambda: apply_forward(fam, x, grad, op.attrs),
        )


# --------------------------------------------------------------------------------------
# Batching rules: the K examples are folded into the batch axis (data batched) or into a
# channel axis (filter batched), so one op computes all of them; other mixes decline.


def fold(t: Tensor, dims: list[int], axis: int, k: int) -> Tensor:
    """[K, *dims] -> dims with dims[axis] * K (K the major part of that axis)."""
    perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, len(dims) + 1))
    moved = array.transpose(t, perm) if axis else t
    return array.reshape(moved, dims[:axis] + [k * dims[axis]] + dims[axis + 1 :])


def unfold(t: Tensor, dims: list[int], axis: int, k: int) -> Tensor:
    """dims with dims[axis] = K·C -> [K, *dims with C] (the inverse of ``_fold``)."""
    split = array.reshape(t, dims[:axis] + [k, dims[axis] // k] + dims[axis + 1 :])
    perm = [axis] + [i for i in range(len(dims) + 1) if i != axis]
    return array.transpose(split, perm) if axis else split


def _scaled(sizes: Tensor, axis: int, k: int, rank: int) -> Tensor:
    factor = [1] * rank
    factor[axis] = k
    return sizes * const(factor, sizes.dtype)


def _tiled(t: Tensor, axis: int, k: int, rank: int) -> Tensor:
    multiples = [1] * rank
    multiples[axis] = k
    return array.tile(t, multiples)


def _batch_rule(fam: Family, kind: str) -> Callable[[Call], list[Tensor]]:
    def rule(c: Call) -> list[Tensor]:
        rank = fam.n + 2
        ch = rank - 1 if not window(fam.n, **c.op.attrs).channels_first else 1
        (i,) = [j for j, b in enumerate(c.batched) if b] if sum(c.batched) == 1 else (None,)
        if i is None or (kind != "forward" and i == {"input": 0, "filter": 1}[kind]):
            raise NotVectorizable(c.op, "no rule for this combination of batched inputs")
        out = c.out_dims(0)
        if i != {"forward": 0, "input": 2, "filter": 2}[kind] and _grouped(fam, c, kind, out):
            raise NotVectorizable(c.op, "folding examples into a grouped convolution's channels")
        if kind == "forward":
            return [_batch_forward(fam, c, i, ch, out)]
        if kind == "input":
            return [_batch_input(fam, c, i, ch, out)]
        return [_batch_filter(fam, c, i, ch, out)]

    return rule


def _grouped(fam: Family, c: Call, kind: str, out: list[int]) -> bool:
    """Whether a Conv2D-family op is grouped (input depth != the filter's), when folding
    the examples into channels would mix its groups."""
    if fam.depthwise:
        return False
    ch = -1 if not window(fam.n, **c.op.attrs).channels_first else 1
    n = fam.n
    if kind == "forward":
        return bool(c.dims(0)[ch] != c.dims(1)[n])
    if kind == "input":
        return bool(out[ch] != c.dims(1)[n])
    return bool(c.dims(0)[ch] != out[n])


def _batch_n(c: Call, i: int) -> list[int]:
    dims = c.dims(i)
    return [c.k * dims[0]] + dims[1:]


def _batch_forward(fam: Family, c: Call, i: int, ch: int, out: list[int]) -> Tensor:
    x, w = c.xs
    if i == 0:  # data: the examples are more images
        y = c.apply([array.reshape(x, _batch_n(c, 0)), w])[0]
        return array.reshape(y, [c.k] + out)
    wd, n = c.dims(1), fam.n  # filter: the examples are more output channels
    wf = fold(w, wd, n + 1, c.k)
    y = c.apply([x, wf])[0]
    if not fam.depthwise:
        return unfold(y, out[:ch] + [c.k * out[ch]] + out[ch + 1 :], ch, c.k)
    cin, m = wd[n], wd[n + 1]  # channels come out as (c, k, m): move k to the front
    split = array.reshape(y, out[:ch] + [cin, c.k, m] + out[ch + 1 :])
    perm = [ch + 1] + [a for a in range(len(out) + 2) if a != ch + 1]
    return array.reshape(array.transpose(split, perm), [c.k] + out)


def _batch_input(fam: Family, c: Call, i: int, ch: int, out: list[int]) -> Tensor:
    sizes, w, g = c.xs
    rank = fam.n + 2
    if i == 2:  # out_backprop: more images
        dx = c.apply([_scaled(sizes, 0, c.k, rank), w, array.reshape(g, _batch_n(c, 2))])[0]
        return array.reshape(dx, [c.k] + out)
    wd = c.dims(1)  # filter: more input channels (depthwise: each sees its copy of g)
    wf = fold(w, wd, fam.n, c.k)
    if fam.depthwise:
        g = _tiled(g, ch, c.k, rank)
    dx = c.apply([_scaled(sizes, ch, c.k, rank), wf, g])[0]
    return unfold(dx, out[:ch] + [c.k * out[ch]] + out[ch + 1 :], ch, c.k)


def _batch_filter(fam: Family, c: Call, i: int, ch: int, out: list[int]) -> Tensor:
    x, sizes, g = c.xs
    rank, n = fam.n + 2, fam.n
    if i == 0:  # input: more input channels (depthwise: each sees its copy of g)
        xf = fold(x, c.dims(0), ch, c.k)
        if fam.depthwise:
            g = _tiled(g, ch, c.k, rank)
        dw = c.apply([xf, _scaled(sizes, n, c.k, rank), g])[0]
        return unfold(dw, out[:n] + [c.k * out[n]] + out[n + 1 :], n, c.k)
    gd = c.dims(2)  # out_backprop: more output channels
    if _grouped(fam, c, "filter", out):
        return _batch_grouped_filter(c, ch, n, out)
    if fam.depthwise:  # channels (c, m) -> (c, k, m)
        cin, m = out[n], out[n + 1]
        split = array.reshape(g, [c.k] + gd[:ch] + [cin, m] + gd[ch + 1 :])
        perm = list(range(1, ch + 2)) + [0] + list(range(ch + 2, rank + 2))
        gf = array.reshape(array.transpose(split, perm), gd[:ch] + [cin * c.k * m] + gd[ch + 1 :])
    else:
        gf = fold(g, gd, ch, c.k)
    dw = c.apply([x, _scaled(sizes, n + 1, c.k, rank), gf])[0]
    return unfold(dw, out[: n + 1] + [c.k * out[n + 1]], n + 1, c.k)


def _batch_grouped_filter(c: Call, ch: int, n: int, out: list[int]) -> Tensor:
    """Conv2DBackpropFilter of a grouped convolution with out_backprop batched (a
    jacobian's rows): the K examples become more output channels inside every group,
    channels (G, Mg) -> (G, K, Mg), so each still meets its group's inputs."""
    x, sizes, g = c.xs
    gd, k = c.dims(2), c.k
    groups = c.dims(0)[ch] // out[n]
    mg = gd[ch] // groups
    split = array.reshape(g, [k] + gd[:ch] + [groups, mg] + gd[ch + 1 :])
    perm = list(range(1, ch + 2)) + [0] + list(range(ch + 2, len(gd) + 2))
    gf = array.reshape(array.transpose(split, perm), gd[:ch] + [groups * k * mg] + gd[ch + 1 :])
    dw = c.apply([x, _scaled(sizes, n + 1, k, n + 2), gf])[0]
    dw = array.reshape(dw, out[: n + 1] + [groups, k, mg])
    back = [n + 2] + list(range(n + 2)) + [n + 3]
    return array.reshape(array.transpose(dw, back), [k] + out)


# --------------------------------------------------------------------------------------
# The records


OPDEFS: dict[str, Any] = {}


def _register(fam: Family, cases: dict[str, list[Case]]) -> None:
    for kind, op_type, infer, kernel in (
        ("forward", fam.forward, _forward_infer(fam), _forward_kernel(fam)),
        ("input", fam.input, _input_infer(fam), _input_kernel(fam)),
        ("filter", fam.filter, _filter_infer(fam), _filter_kernel(fam)),
    ):
        OPDEFS[op_type] = register_op(
            op_type, infer, kernel, batch=_batch_rule(fam, kind), cases=cases[kind]
        )
    if not fam.depthwise:
        recycle.taker(fam.forward)  # its output comes from conv_im2col.forward
    _register_gradients(fam)


def _attrs(
    n: int,
    fmt: str,
    strides: Sequence[int] = (),
    padding: str = "SAME",
    dilations: Sequence[int] = (),
    explicit: Sequence[int] = (),
) -> dict[str, Any]:
    first = fmt.startswith("NC")

    def full(sp: Sequence[int]) -> list[int]:
        sp = list(sp) or [1] * n
        return [1, 1, *sp] if first else [1, *sp, 1]

    attrs: dict[str, Any] = {
        "strides": full(strides),
        "padding": padding,
        "data_format": fmt,
        "dilations": full(dilations),
    }
    if n == 2:
        attrs["explicit_paddings"] = list(explicit)
    return attrs


def _applied(op_type: str, attrs: dict[str, Any]) -> Callable[..., list[Tensor]]:
    return lambda *ts: apply_op(op_type, list(ts), attrs).outputs


def _cases(
    fam: Family,
    x: tuple[int, ...],
    w: tuple[int, ...],
    attrs: dict[str, Any],
    name: str,
    checked: bool = False,
) -> dict[str, list[Case]]:
    """A forward, an input-gradient and a filter-gradient row for one configuration.

    ``check-gradients`` (full finite-difference jacobians) runs the rows that apply the op
    by type: one small row per op (``checked``); the others apply it through ``fn``, so the
    op table alone runs them.
    """
    ref = window_refs.conv(fam.n, fam.depthwise, attrs)
    y = ref(np.zeros(x), np.zeros(w)).shape

    def row(op_type: str, inputs: list[Any], ref: Any) -> list[Case]:
        fn = None if checked else _applied(op_type, attrs)
        return [Case(inputs, ref, fn, attrs=attrs, name=name)]

    return {
        "forward": row(fam.forward, [randn(*x), randn(*w)], ref),
        "input": row(
            fam.input,
            [ints(list(x)), randn(*w), randn(*y)],
            window_refs.conv_input(fam.n, fam.depthwise, attrs),
        ),
        "filter": row(
            fam.filter,
            [randn(*x), ints(list(w)), randn(*y)],
            window_refs.conv_filter(fam.n, fam.depthwise, attrs),
        ),
    }


def _grouped_case(x: tuple[int, ...], w: tuple[int, ...], groups: int) -> dict[str, list[Case]]:
    """A grouped Conv2D row (NHWC, SAME): its reference is one convolution per group.  Its
    gradient rows are the ungrouped rows' ops, reached here through the forward row's
    first- and second-order checks."""
    attrs = _attrs(2, "NHWC")
    ref = window_refs.conv(2, False, attrs)
    cg, mg = w[2], w[3] // groups

    def grouped_ref(xv: np.ndarray, wv: np.ndarray) -> np.ndarray:
        parts = [
            ref(xv[..., i * cg : (i + 1) * cg], wv[..., i * mg : (i + 1) * mg])
            for i in range(groups)
        ]
        return np.concatenate(parts, axis=-1)

    fn = _applied("Conv2D", attrs)
    case = Case([randn(*x), randn(*w)], grouped_ref, fn, attrs=attrs, name="grouped")
    return {"forward": [case], "input": [], "filter": []}


def _merge(*rows: dict[str, list[Case]]) -> dict[str, list[Case]]:
    return {k: [c for r in rows for c in r[k]] for k in ("forward", "input", "filter")}


_register(
    CONV2D,
    _merge(
        _cases(CONV2D, (1, 3, 2, 2), (2, 2, 2, 2), _attrs(2, "NHWC"), "same", checked=True),
        _cases(CONV2D, (2, 5, 4, 3), (3, 2, 3, 4), _attrs(2, "NHWC"), "same_wider"),
        _cases(
            CONV2D, (2, 7, 6, 2), (2, 3, 2, 3), _attrs(2, "NHWC", (2, 3), "VALID"), "valid_strided"
        ),
        _cases(
            CONV2D, (1, 7, 6, 2), (3, 2, 2, 3), _attrs(2, "NHWC", (1, 2), "SAME", (2, 1)), "dilated"
        ),
        _cases(CONV2D, (2, 3, 5, 4), (2, 3, 3, 2), _attrs(2, "NCHW", (2, 1)), "nchw_strided"),
        _cases(
            CONV2D,
            (1, 4, 5, 2),
            (3, 2, 2, 3),
            _attrs(2, "NHWC", (2, 1), "EXPLICIT", explicit=(0, 0, 1, 2, 0, 1, 0, 0)),
            "explicit",
        ),
        _grouped_case((2, 4, 5, 6), (2, 3, 2, 6), groups=3),
    ),
)
_register(
    CONV3D,
    _merge(
        _cases(CONV3D, (1, 2, 2, 3, 1), (2, 2, 2, 1, 1), _attrs(3, "NDHWC"), "same", checked=True),
        _cases(CONV3D, (1, 4, 3, 5, 2), (2, 3, 2, 2, 3), _attrs(3, "NDHWC"), "same_wider"),
        _cases(
            CONV3D,
            (2, 2, 5, 4, 3),
            (1, 2, 3, 2, 3),
            _attrs(3, "NCDHW", (1, 2, 1), "VALID"),
            "ncdhw_valid",
        ),
    ),
)
_register(
    DEPTHWISE,
    _merge(
        _cases(DEPTHWISE, (1, 3, 2, 2), (2, 2, 2, 1), _attrs(2, "NHWC"), "same", checked=True),
        _cases(DEPTHWISE, (2, 5, 4, 3), (3, 2, 3, 2), _attrs(2, "NHWC"), "same_wider"),
        _cases(
            DEPTHWISE,
            (1, 6, 7, 2),
            (2, 3, 2, 3),
            _attrs(2, "NHWC", (2, 2), "VALID"),
            "valid_strided",
        ),
        _cases(
            DEPTHWISE,
            (1, 2, 6, 5),
            (2, 2, 2, 2),
            _attrs(2, "NCHW", (), "SAME", (2, 2)),
            "nchw_dilated",
        ),
    ),
)
