"""JAX lowerings of shape, array, slicing, gather/scatter, reduction, matmul and nn ops.

Inputs that TF's XLA bridge requires to be compile-time constants (shapes, axes,
permutations, paddings, sizes) are read with ``static``; a run-time value there is TF's
error.  Shapes themselves are static under ``jit``, so ``Shape``/``Size``/``Rank``
lower to constants.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from symgrad.ops.array.slicing import _index
from symgrad.runtime.xla.engine import is_const
from symgrad.runtime.xla.host import static

Table = dict[str, Callable[..., Any]]


def _axes(op: Any, a: Any, ndim: int) -> tuple[int, ...]:
    return tuple(int(i) % max(ndim, 1) for i in static(op, a, "axis").reshape(-1))


def _reduce(f: Callable[..., Any]) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, x: Any, a: Any) -> Any:
        return f(x, axis=_axes(op, a, x.ndim), keepdims=op.get_attr("keep_dims"))

    return lower


def _mean(x: Any, axis: tuple[int, ...], keepdims: bool) -> Any:
    if jnp.issubdtype(x.dtype, jnp.integer):
        n = int(np.prod([x.shape[a] for a in axis]))
        s = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
        return jax.lax.div(s, jnp.asarray(max(n, 1), x.dtype))  # truncates, as TF
    return jnp.sum(x, axis=axis, keepdims=keepdims) / jnp.asarray(
        np.prod([x.shape[a] for a in axis]), x.dtype
    )


def _euclid(x: Any, axis: tuple[int, ...], keepdims: bool) -> Any:
    return jnp.sqrt(jnp.sum(x * jnp.conj(x), axis=axis, keepdims=keepdims))


def _arg(f: Callable[..., Any]) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, x: Any, a: Any) -> Any:
        ax = int(static(op, a, "dimension")) % x.ndim
        return f(x, axis=ax).astype(op.get_attr("output_type").np)

    return lower


def _scan(kind: str) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, x: Any, a: Any) -> Any:
        ax = int(static(op, a, "axis")) % x.ndim
        rev, exclusive = op.get_attr("reverse"), op.get_attr("exclusive")
        y = jnp.flip(x, ax) if rev else x
        if exclusive:
            unit = jnp.zeros_like if kind == "sum" else jnp.ones_like
            first = unit(jax.lax.slice_in_dim(y, 0, 1, axis=ax))
            y = jnp.concatenate([first, jax.lax.slice_in_dim(y, 0, y.shape[ax] - 1, axis=ax)], ax)
        y = jnp.cumsum(y, ax) if kind == "sum" else jnp.cumprod(y, ax)
        return jnp.flip(y, ax) if rev else y

    return lower


def _strided_slice(ctx: Any, op: Any, x: Any, b: Any, e: Any, s: Any) -> Any:
    masks = op.attrs
    if is_const(b) and is_const(e):
        where, out = _index(x.shape, np.asarray(b), np.asarray(e), static(op, s, "strides"), masks)
        return jnp.reshape(x[where], out)
    # x[i] with a run-time i (a loop's step): only shrunk or whole axes
    full = masks.get("begin_mask", 0) & masks.get("end_mask", 0)
    shrink = masks.get("shrink_axis_mask", 0)
    if masks.get("ellipsis_mask", 0) or masks.get("new_axis_mask", 0):
        static(op, b, "begin")
    index: list[Any] = []
    for i in range(len(np.asarray(static(op, s, "strides")))):
        if shrink >> i & 1:
            index.append(b[i] % x.shape[i] if x.shape[i] else b[i])
        elif full >> i & 1:
            index.append(slice(None))
        else:
            static(op, b, "begin")
    return x[tuple(index)]


def _ss_grad(ctx: Any, op: Any, s: Any, b: Any, e: Any, st: Any, dy: Any) -> Any:
    shape = tuple(int(v) for v in static(op, s, "shape"))
    index, _ = _index(shape, static(op, b, "begin"), static(op, e, "end"), st, op.attrs)
    out = jnp.zeros(shape, dy.dtype)
    return out.at[index].set(jnp.reshape(dy, out[index].shape))


def _ss_add(ctx: Any, op: Any, total: Any, b: Any, e: Any, st: Any, dy: Any) -> Any:
    index, _ = _index(total.shape, static(op, b, "begin"), static(op, e, "end"), st, op.attrs)
    return total.at[index].add(jnp.reshape(dy, total[index].shape))


def _slice(ctx: Any, op: Any, x: Any, begin: Any, size: Any) -> Any:
    sz = [int(v) for v in static(op, size, "size")]
    if is_const(begin):
        b = [int(v) for v in begin]
        return x[tuple(slice(i, None if n == -1 else i + n) for i, n in zip(b, sz, strict=True))]
    sizes = [x.shape[i] if n == -1 else n for i, n in enumerate(sz)]
    return jax.lax.dynamic_slice(x, [begin[i] for i in range(len(sz))], sizes)


def _pad(ctx: Any, op: Any, x: Any, p: Any, c: Any = 0) -> Any:
    pads = [tuple(int(v) for v in row) for row in static(op, p, "paddings")]
    return jnp.pad(x, pads, constant_values=c) if x.ndim else x


def _mirror_pad(ctx: Any, op: Any, x: Any, p: Any) -> Any:
    pads = [tuple(int(v) for v in row) for row in static(op, p, "paddings")]
    mode = "reflect" if op.get_attr("mode").upper() == "REFLECT" else "symmetric"
    return jnp.pad(x, pads, mode=mode)


def _cast(ctx: Any, op: Any, x: Any) -> Any:
    d = op.get_attr("DstT").np
    if jnp.iscomplexobj(x) and not np.issubdtype(d, np.complexfloating):
        x = jnp.real(x)
    if d == np.bool_:
        return x != 0
    return x.astype(d)


def _concat(ctx: Any, op: Any, *xs: Any) -> Any:
    *values, a = xs
    return jnp.concatenate(values, int(static(op, a, "axis")) % max(values[0].ndim, 1))


def _split(ctx: Any, op: Any, a: Any, x: Any) -> Any:
    ax = int(static(op, a, "axis")) % x.ndim
    return tuple(jnp.split(x, op.get_attr("num_split"), ax))


def _split_v(ctx: Any, op: Any, x: Any, s: Any, a: Any) -> Any:
    ax = int(static(op, a, "axis")) % x.ndim
    sizes = [int(v) for v in static(op, s, "size_splits")]
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[ax] - (sum(sizes) + 1)
    return tuple(jnp.split(x, np.cumsum(sizes)[:-1].tolist(), ax))


def _unpack(ctx: Any, op: Any, x: Any) -> Any:
    ax = op.get_attr("axis") % x.ndim
    return tuple(jnp.moveaxis(x, ax, 0)[i] for i in range(op.get_attr("num")))


def _gather(ctx: Any, op: Any, p: Any, idx: Any, a: Any) -> Any:
    ax, bd = int(static(op, a, "axis")) % p.ndim, op.attrs.get("batch_dims", 0)
    if bd == 0:
        return jnp.take(p, idx, axis=ax, mode="clip")
    f = lambda pp, ii: jnp.take(pp, ii, axis=ax - bd, mode="clip")  # noqa: E731
    for _ in range(bd):
        f = jax.vmap(f)
    return f(p, idx)


def _gather_nd(ctx: Any, op: Any, p: Any, idx: Any) -> Any:
    if op.attrs.get("batch_dims", 0):
        from symgrad.runtime.xla.host import host

        return host(ctx, op, p, idx)
    return p[tuple(jnp.moveaxis(idx, -1, 0))]


def _scatter_nd(ctx: Any, op: Any, idx: Any, u: Any, s: Any) -> Any:
    out = jnp.zeros(tuple(int(v) for v in static(op, s, "shape")), u.dtype)
    return out.at[tuple(jnp.moveaxis(idx, -1, 0))].add(u)


def _tensor_scatter(kind: str) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, t: Any, idx: Any, u: Any) -> Any:
        at = t.at[tuple(jnp.moveaxis(idx, -1, 0))]
        return at.add(-u) if kind == "sub" else getattr(at, kind)(u)

    return lower


def _segment(kind: str) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, data: Any, ids: Any, n: Any) -> Any:
        num = int(static(op, n, "num_segments"))
        f = getattr(jax.ops, f"segment_{kind}")
        flat = data.reshape((-1, *data.shape[ids.ndim :]))
        out = f(flat, ids.reshape(-1), num_segments=num)
        if kind in ("max", "min") and jnp.issubdtype(out.dtype, jnp.floating):
            info = jnp.finfo(out.dtype)  # an empty segment: TF's lowest()/highest(), not inf
            count = jax.ops.segment_sum(jnp.ones(ids.size, jnp.int32), ids.reshape(-1), num)
            fill = info.min if kind == "max" else info.max
            empty = (count == 0).reshape((-1,) + (1,) * (out.ndim - 1))
            out = jnp.where(empty, jnp.asarray(fill, out.dtype), out)
        return out

    return lower


def _one_hot(ctx: Any, op: Any, idx: Any, depth: Any, on: Any, off: Any) -> Any:
    hot = idx[..., None] == jnp.arange(int(static(op, depth, "depth")))
    out = jnp.where(hot, on, off)
    axis = op.get_attr("axis")
    return out if axis == -1 else jnp.moveaxis(out, -1, axis)


def _matmul(ctx: Any, op: Any, a: Any, b: Any) -> Any:
    a = a.T if op.attrs.get("transpose_a") else a
    b = b.T if op.attrs.get("transpose_b") else b
    return jnp.matmul(a, b)


def _batch_matmul(ctx: Any, op: Any, x: Any, y: Any) -> Any:
    if op.attrs.get("adj_x"):
        x = jnp.conj(jnp.swapaxes(x, -1, -2))
    if op.attrs.get("adj_y"):
        y = jnp.conj(jnp.swapaxes(y, -1, -2))
    return jnp.matmul(x, y)


def _xent(ctx: Any, op: Any, logits: Any, labels: Any) -> Any:
    s = logits - jnp.max(logits, -1, keepdims=True)
    e = jnp.exp(s)
    total = jnp.sum(e, -1, keepdims=True)
    return jnp.sum((jnp.log(total) - s) * labels, -1), e / total - labels


def _sparse_xent(ctx: Any, op: Any, logits: Any, labels: Any) -> Any:
    s = logits - jnp.max(logits, -1, keepdims=True)
    lse = jnp.log(jnp.sum(jnp.exp(s), -1))
    backprop = jnp.exp(s - lse[:, None])
    hot = labels[:, None] == jnp.arange(logits.shape[-1])
    picked = jnp.sum(jnp.where(hot, s, 0), -1)
    return lse - picked, backprop - hot.astype(logits.dtype)


def _softmax(ctx: Any, op: Any, x: Any) -> Any:
    e = jnp.exp(x - jnp.max(x, -1, keepdims=True))
    return e / jnp.sum(e, -1, keepdims=True)


def _log_softmax(ctx: Any, op: Any, x: Any) -> Any:
    s = x - jnp.max(x, -1, keepdims=True)
    return s - jnp.log(jnp.sum(jnp.exp(s), -1, keepdims=True))


def _bias_add(ctx: Any, op: Any, x: Any, b: Any) -> Any:
    if op.attrs.get("data_format", "NHWC").startswith("NC") and x.ndim > 2:
        return x + b.reshape((-1,) + (1,) * (x.ndim - 2))
    return x + b


def _bias_add_grad(ctx: Any, op: Any, g: Any) -> Any:
    first = op.attrs.get("data_format", "NHWC").startswith("NC") and g.ndim > 2
    keep = 1 if first else g.ndim - 1
    return jnp.sum(g, axis=tuple(i for i in range(g.ndim) if i != keep))


def _top_k(ctx: Any, op: Any, x: Any, k: Any) -> Any:
    values, idx = jax.lax.top_k(x, int(static(op, k, "k")))
    return values, idx.astype(op.attrs.get("index_type").np)


def _in_top_k(ctx: Any, op: Any, p: Any, t: Any, k: Any) -> Any:
    n, classes = p.shape
    inside = (t >= 0) & (t < classes)
    own = p[jnp.arange(n), jnp.where(inside, t, 0)]
    higher = jnp.sum(p > own[:, None], axis=1)
    return inside & jnp.all(jnp.isfinite(p), axis=1) & (higher < k)


def _einsum(ctx: Any, op: Any, *xs: Any) -> Any:
    eq = op.get_attr("equation")
    out = eq.split("->")[1] if "->" in eq else ""
    if len(set(out.replace(".", ""))) < len(out.replace(".", "")):
        from symgrad.runtime.xla.host import host

        return host(ctx, op, *xs)  # a repeated output index (a diagonal): jnp has none
    return jnp.einsum(eq, *xs)


def _const(ctx: Any, op: Any) -> Any:
    return np.asarray(op.get_attr("value"))


def _shape_of(f: Callable[[Any], Any]) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, x: Any) -> Any:
        return np.asarray(f(x), op.outputs[0].dtype.np)

    return lower


def _identity_n(ctx: Any, op: Any, *xs: Any) -> Any:
    return xs if len(xs) != 1 else xs[0]


def table() -> Table:
    ident = lambda ctx, op, x, *rest: x  # noqa: E731
    return {
        "Const": _const,
        "Identity": ident,
        "StopGradient": ident,
        "PreventGradient": ident,
        "PlaceholderWithDefault": ident,
        "CheckNumerics": ident,
        "IdentityN": _identity_n,
        "NoOp": lambda ctx, op, *xs: (),
        "VarHandleOp": lambda ctx, op: (),  # no outputs: ``v.op`` run in a compiled call
        "Assert": lambda ctx, op, *xs: (),
        "CustomGradient": lambda ctx, op, *xs: (
            xs[0] if op.get_attr("n_out") == 1 else tuple(xs[: op.get_attr("n_out")])
        ),
        "Shape": _shape_of(lambda x: x.shape),
        "Size": _shape_of(lambda x: x.size),
        "Rank": _shape_of(lambda x: x.ndim),
        "Reshape": lambda ctx, op, x, s: jnp.reshape(
            x, tuple(int(v) for v in static(op, s, "shape"))
        ),
        "ExpandDims": lambda ctx, op, x, a: jnp.expand_dims(
            x, int(static(op, a, "axis")) % (x.ndim + 1)
        ),
        "Squeeze": lambda ctx, op, x: jnp.squeeze(x, tuple(op.get_attr("squeeze_dims")) or None),
        "Transpose": lambda ctx, op, x, p: jnp.transpose(x, static(op, p, "perm").tolist()),
        "ConjugateTranspose": lambda ctx, op, x, p: jnp.conj(
            jnp.transpose(x, static(op, p, "perm").tolist())
        ),
        "BroadcastTo": lambda ctx, op, x, s: jnp.broadcast_to(
            x, tuple(int(v) for v in static(op, s, "shape"))
        ),
        "Fill": lambda ctx, op, d, v: jnp.full(tuple(int(i) for i in static(op, d, "dims")), v),
        "Tile": lambda ctx, op, x, m: jnp.tile(x, static(op, m, "multiples").tolist()),
        "Cast": _cast,
        "SelectV2": lambda ctx, op, c, x, y: jnp.where(c, x, y),
        "OneHot": _one_hot,
        "ConcatV2": _concat,
        "Pack": lambda ctx, op, *xs: jnp.stack(xs, op.get_attr("axis") % (xs[0].ndim + 1)),
        "Unpack": _unpack,
        "Split": _split,
        "SplitV": _split_v,
        "ReverseV2": lambda ctx, op, x, a: jnp.flip(x, _axes(op, a, x.ndim)),
        "Slice": _slice,
        "StridedSlice": _strided_slice,
        "StridedSliceGrad": _ss_grad,
        "StridedSliceAdd": _ss_add,
        "Pad": _pad,
        "PadV2": _pad,
        "MirrorPad": _mirror_pad,
        "GatherV2": _gather,
        "GatherNd": _gather_nd,
        "ScatterNd": _scatter_nd,
        "TensorScatterUpdate": _tensor_scatter("set"),
        "TensorScatterAdd": _tensor_scatter("add"),
        "TensorScatterSub": _tensor_scatter("sub"),
        "TensorScatterMax": _tensor_scatter("max"),
        "TensorScatterMin": _tensor_scatter("min"),
        "UnsortedSegmentSum": _segment("sum"),
        "UnsortedSegmentMax": _segment("max"),
        "UnsortedSegmentMin": _segment("min"),
        "UnsortedSegmentProd": _segment("prod"),
        "Sum": _reduce(jnp.sum),
        "Prod": _reduce(jnp.prod),
        "Max": _reduce(jnp.max),
        "Min": _reduce(jnp.min),
        "All": _reduce(jnp.all),
        "Any": _reduce(jnp.any),
        "Mean": _reduce(_mean),
        "EuclideanNorm": _reduce(_euclid),
        "ArgMax": _arg(jnp.argmax),
        "ArgMin": _arg(jnp.argmin),
        "Cumsum": _scan("sum"),
        "Cumprod": _scan("prod"),
        "TopKV2": _top_k,
        "InTopKV2": _in_top_k,
        "MatMul": _matmul,
        "BatchMatMulV2": _batch_matmul,
        "AddN": lambda ctx, op, *xs: sum(xs[1:], xs[0]),
        "Einsum": _einsum,
        "BiasAdd": _bias_add,
        "BiasAddGrad": _bias_add_grad,
        "Softmax": _softmax,
        "LogSoftmax": _log_softmax,
        "SoftmaxCrossEntropyWithLogits": _xent,
        "SparseSoftmaxCrossEntropyWithLogits": _sparse_xent,
        "L2Loss": lambda ctx, op, x: jnp.sum(x * x) / 2,
        "Diag": lambda ctx, op, x: jnp.diag(x.reshape(-1)).reshape(x.shape + x.shape),
        "DiagPart": lambda ctx, op, x: jnp.diagonal(
            x.reshape(int(np.prod(x.shape[: x.ndim // 2])), -1)
        ).reshape(x.shape[: x.ndim // 2]),
    }
