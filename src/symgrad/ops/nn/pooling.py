"""Pooling: MaxPool and AvgPool in 2-D and 3-D, their gradients, and tf.nn's pool functions.

As in TF, the max's gradient is an op of its own (``MaxPoolGrad``), and so is that
gradient's (``MaxPoolGradGrad``); TF's CPU kernels recompute the argmax from the original
input rather than reading the original output, sending each window's gradient to the
first maximum in row-major window order, and so do these (ties go to the first).  The
average counts only the entries inside the input (SAME padding adds nothing to the sum
and nothing to the count).  Kernels reduce strided views of the padded input; gradients
add one strided slice per window tap.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core import recycle
from symgrad.core.batching import Call, NotVectorizable, const
from symgrad.core.cases import Case, distinct, ints, randn
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import ShapeError, Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import kernel as array_kernel
from symgrad.ops.array_vjp import shape_of
from symgrad.ops.core import FLOATS, REAL, check_dtype, convert_to_tensor, same_dtype
from symgrad.ops.nn import window_refs
from symgrad.ops.nn.conv_api import _padding, _sequence
from symgrad.ops.nn.pool_tiles import grad_from_hits, tiled_hits, tiled_max, tiled_max_grad, tiles
from symgrad.ops.nn.windows import (
    Geometry,
    Window,
    crop,
    dims_of,
    pad,
    padded_shape,
    patches,
    static_sizes,
    taps,
    window,
)


@dataclass(frozen=True)
class Pool:
    """The op types of one spatial rank."""

    n: int
    max: str
    max_grad: str
    max_grad_grad: str
    avg: str
    avg_grad: str


POOL2D = Pool(2, "MaxPool", "MaxPoolGrad", "MaxPoolGradGrad", "AvgPool", "AvgPoolGrad")
POOL3D = Pool(3, "MaxPool3D", "MaxPool3DGrad", "MaxPool3DGradGrad", "AvgPool3D", "AvgPool3DGrad")


# --------------------------------------------------------------------------------------
# Kernels (channels-last inside)


def _lowest(d: np.dtype) -> Any:
    return -np.inf if d.kind == "f" else np.iinfo(d).min


def _setup(n: int, x: np.ndarray, attrs: dict[str, Any]) -> tuple[Window, Geometry, np.ndarray]:
    win = window(n, **attrs)
    xl = win.to_last(x)
    return win, win.geometry(xl.shape[1:-1], win.ksize), xl


def _first_max(
    cols: np.ndarray, n: int, geo: Geometry, win: Window
) -> Iterator[tuple[tuple[int, ...], Any, np.ndarray]]:
    """Yields (tap, its slice of the padded input, mask of windows whose first max it is)."""
    best = cols.max(axis=tuple(range(n + 1, 2 * n + 1)))
    taken = np.zeros(best.shape, bool)
    lead = (slice(None),) * (n + 1)
    for tap, where in taps(geo, win):
        hit = cols[lead + tap] == best
        hit &= ~taken
        taken |= hit
        yield tap, where, hit


def _tiled(x: np.ndarray) -> bool:
    """Whether the tiled kernels (``pool_tiles``) take a max pool's gradient, where the
    windows tile the input."""
    return x.dtype.kind == "f" and x.dtype.itemsize <= 8 and x.size > 0


def _max_kernel(n: int) -> Callable[..., Any]:
    def kernel(x: np.ndarray, hits: bool = False, **attrs: Any) -> Any:
        """``hits``: also where each tap is its window's first maximum (for the
        gradient, as TF's MaxPoolWithArgmax; a plan's fusion), None where the tiled
        kernels do not apply."""
        win, geo, xl = _setup(n, x, attrs)
        split = tiles(win, geo)
        if hits and split is not None and _tiled(x):
            out = recycle.empty((xl.shape[0], *geo.out, xl.shape[-1]), x.dtype)
            best, hit = tiled_hits(xl, geo, split, _lowest(x.dtype), out)
            return np.ascontiguousarray(win.from_last(best)), hit
        if split is not None and xl.size:
            best = tiled_max(xl, geo, split, _lowest(x.dtype))
            y = np.ascontiguousarray(win.from_last(best))
        else:
            cols = patches(pad(xl, geo, _lowest(x.dtype)), geo, win)
            y = win.from_last(cols.max(axis=tuple(range(n + 1, 2 * n + 1))))
        return (y, None) if hits else y

    return kernel


def _max_grad_kernel(n: int) -> Callable[..., np.ndarray]:
    def kernel(
        x: np.ndarray,
        y: np.ndarray,
        g: np.ndarray,
        hit: Any = None,
        relu: bool = False,
        **attrs: Any,
    ) -> np.ndarray:
        """``relu``: ReluGrad(MaxPoolGrad(x, y, g), x) in one; ``hit``: the forward's
        hits for this x, with y its output (``_max_kernel``'s ``hits``) (plan fusions)."""
        win, geo, xl = _setup(n, x, attrs)
        split = tiles(win, geo)
        if split is not None and _tiled(x):
            gl, fill = win.to_last(g), _lowest(x.dtype)
            if hit is not None:
                dx = grad_from_hits(xl, gl, win.to_last(y), hit, geo, split, relu)
            else:
                dx = tiled_max_grad(xl, gl, geo, split, fill, relu)
            return np.ascontiguousarray(win.from_last(dx))
        if relu:
            return np.multiply(kernel(x, y, g, **attrs), x > 0)  # ReluGrad's kernel
        xp = pad(xl, geo, _lowest(x.dtype))
        gl, dxp = win.to_last(g), np.zeros(xp.shape, g.dtype)
        for _, where, hit in _first_max(patches(xp, geo, win), n, geo, win):
            dxp[where] += np.where(hit, gl, g.dtype.type(0))
        return np.ascontiguousarray(win.from_last(crop(dxp, geo, xl.shape[1:-1])))

    return kernel


def _max_grad_grad_kernel(n: int) -> Callable[..., np.ndarray]:
    def kernel(x: np.ndarray, y: np.ndarray, gg: np.ndarray, **attrs: Any) -> np.ndarray:
        win, geo, xl = _setup(n, x, attrs)
        gcols = patches(pad(win.to_last(gg), geo), geo, win)
        out = np.zeros((xl.shape[0], *geo.out, xl.shape[-1]), gg.dtype)
        lead = (slice(None),) * (n + 1)
        cols = patches(pad(xl, geo, _lowest(x.dtype)), geo, win)
        for tap, _, hit in _first_max(cols, n, geo, win):
            np.copyto(out, gcols[lead + tap], where=hit)
        return win.from_last(out)

    return kernel


@functools.lru_cache(maxsize=128)
def _counts(size: tuple[int, ...], geo: Geometry, win: Window) -> Any:
    """How many input entries each window covers: ``[1, *out, 1]`` (a number if all)."""
    if not any(b or a for b, a in geo.pads):
        return int(np.prod(geo.k))
    ones = pad(np.ones((1, *size, 1)), geo)
    counts = patches(ones, geo, win).sum(axis=tuple(range(win.n + 1, 2 * win.n + 1)))
    counts.flags.writeable = False
    return counts


def _avg_kernel(n: int) -> Callable[..., np.ndarray]:
    def kernel(x: np.ndarray, **attrs: Any) -> np.ndarray:
        win, geo, xl = _setup(n, x, attrs)
        total = patches(pad(xl, geo), geo, win).sum(axis=tuple(range(n + 1, 2 * n + 1)))
        return win.from_last(total / np.asarray(_counts(xl.shape[1:-1], geo, win), x.dtype))

    return kernel


def _avg_grad_kernel(n: int) -> Callable[..., np.ndarray]:
    def kernel(sizes: np.ndarray, g: np.ndarray, **attrs: Any) -> np.ndarray:
        win = window(n, **attrs)
        full = [int(s) for s in sizes]
        size = tuple(win.spatial(full))
        geo = win.geometry(size, win.ksize)
        share = win.to_last(g) / np.asarray(_counts(size, geo, win), g.dtype)
        dxp = np.zeros(padded_shape(full[0], size, win.channels(full), geo), g.dtype)
        if 0 not in geo.out:
            for _, where in taps(geo, win):
                dxp[where] += share
        return np.ascontiguousarray(win.from_last(crop(dxp, geo, size)))

    return kernel


# --------------------------------------------------------------------------------------
# Shape rules


def _input_dims(op_type: str, x: Tensor, n: int, allowed: Sequence[dt.DType]) -> list[Any]:
    check_dtype(op_type, x, allowed, "input")
    if x.shape.rank not in (None, n + 2):
        raise ShapeError(f"input must be {n + 2}-dimensional, got shape {x.shape}")
    return dims_of(x.shape, n + 2)


def _pool_infer(pool: Pool, op_type: str, allowed: Sequence[dt.DType]) -> Callable[..., Spec]:
    def infer(inputs: Sequence[Tensor], **attrs: Any) -> Spec:
        x = inputs[0]
        xd = _input_dims(op_type, x, pool.n, allowed)
        win = window(pool.n, **attrs)
        out = win.out_dims(win.spatial(xd), win.ksize)
        return TensorShape(win.full(xd[0], out, win.channels(xd))), x.dtype

    return infer


def _max_grad_infer(pool: Pool, op_type: str) -> Callable[..., Spec]:
    def infer(inputs: Sequence[Tensor], **attrs: Any) -> Spec:
        x = inputs[0]
        same_dtype(inputs, ("orig_input", "orig_output", "grad"))
        xd = _input_dims(op_type, x, pool.n, REAL)
        window(pool.n, **attrs)
        if op_type == pool.max_grad_grad:
            return _pool_infer(pool, op_type, REAL)(inputs, **attrs)
        return TensorShape(xd), x.dtype

    return infer


def _avg_grad_infer(pool: Pool) -> Callable[..., Spec]:
    def infer(inputs: Sequence[Tensor], **attrs: Any) -> Spec:
        sizes, g = inputs
        check_dtype(pool.avg_grad, sizes, (dt.int32,), "orig_input_shape")
        gd = _input_dims(pool.avg_grad, g, pool.n, FLOATS)
        win = window(pool.n, **attrs)
        v = static_sizes(sizes)
        if v is not None and len(v) != pool.n + 2:
            raise ShapeError(f"orig_input_shape must have {pool.n + 2} elements, got {v}")
        full = v if v is not None else win.full(gd[0], [None] * pool.n, win.channels(gd))
        return TensorShape(full), g.dtype

    return infer


# --------------------------------------------------------------------------------------
# Gradient rules (TF's nn_grad.py) and batching rules


def _register_gradients(pool: Pool) -> None:
    mx, mg, mgg, avg, ag = (
        OPDEFS[t] for t in (pool.max, pool.max_grad, pool.max_grad_grad, pool.avg, pool.avg_grad)
    )

    @mx.gradient
    def _max_grad(op: Any, grad: Tensor) -> Tensor:
        """dx = MaxPoolGrad(x, y, g): g at each window's first maximum."""
        return apply_op(pool.max_grad, [op.inputs[0], op.outputs[0], grad], op.attrs).output(0)

    max_grad, avg_grad = array_kernel(pool.max_grad), array_kernel(pool.avg_grad, 1)

    @array_rule(pool.max)
    def _max_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
        return [max_grad(xs[0], ys[0], grads[0], **attrs)]

    @mg.gradient
    def _max_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """d x = d y = 0 (piecewise constant); d g = MaxPoolGradGrad(x, y, grad)."""
        x, y, _ = op.inputs
        return (
            array.zeros_like(x),
            array.zeros_like(y),
            apply_op(pool.max_grad_grad, [x, y, grad], op.attrs).output(0),
        )

    @mgg.gradient
    def _max_grad_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """d x = d y = 0; d gg = MaxPoolGrad(x, y, grad)."""
        x, y, _ = op.inputs
        return (
            array.zeros_like(x),
            array.zeros_like(y),
            apply_op(pool.max_grad, [x, y, grad], op.attrs).output(0),
        )

    @avg.gradient
    def _avg_grad(op: Any, grad: Tensor) -> Tensor:
        """dx = AvgPoolGrad(shape(x), g): each window's g shared among its entries."""
        return apply_op(pool.avg_grad, [array.shape(op.inputs[0]), grad], op.attrs).output(0)

    @array_rule(pool.avg)
    def _avg_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
        return [avg_grad(shape_of(xs[0]), grads[0], **attrs)]

    @ag.gradient
    def _avg_grad_grad(op: Any, grad: Tensor) -> tuple[None, Tensor]:
        """d g = AvgPool(grad).  (TF returns stop_gradient(shape) for the int shape input,
        which its engine drops; None here.)"""
        return None, apply_op(pool.avg, [grad], op.attrs).output(0)


def _fold_batch(c: Call) -> list[Tensor]:
    """The K examples as K times the batch: every data input (broadcast over K if needed)
    reshaped to [K·N, ...]; a shape input's N is scaled by K."""
    if not any(c.batched):
        raise NotVectorizable(c.op, "no batched input")
    xs = []
    for i, t in enumerate(c.xs):
        if c.op.inputs[i].dtype.is_integer:
            if c.batched[i]:
                raise NotVectorizable(c.op, "a batched shape input")
            xs.append(t * const([c.k] + [1] * (len(c.out_dims(0)) - 1), t.dtype))
            continue
        dims = c.dims(i)
        xs.append(array.reshape(c.full(i), [c.k * dims[0]] + dims[1:]))
    out = c.out_dims(0)
    return [array.reshape(c.apply(xs)[0], [c.k] + out)]


OPDEFS: dict[str, Any] = {}


def _attrs(
    n: int,
    fmt: str,
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: str = "SAME",
    explicit: Sequence[int] = (),
) -> dict[str, Any]:
    first = fmt.startswith("NC")

    def full(sp: Sequence[int]) -> list[int]:
        return [1, 1, *sp] if first else [1, *sp, 1]

    attrs: dict[str, Any] = {
        "ksize": full(ksize),
        "strides": full(strides),
        "padding": padding,
        "data_format": fmt,
    }
    if explicit:
        attrs["explicit_paddings"] = list(explicit)
    return attrs


def _cases(
    pool: Pool, x: tuple[int, ...], attrs: dict[str, Any], name: str, checked: bool = False
) -> dict[str, list[Case]]:
    """Rows of all five op types for one configuration (as ``conv._cases``: only the
    ``checked`` configuration applies the ops by type, which check-gradients runs)."""
    n, explicit = pool.n, "explicit_paddings" in attrs
    y = window_refs.max_pool(n, attrs)(np.zeros(x)).shape
    xs, ys = distinct(*x), distinct(*y)

    def row(op_type: str, inputs: list[Any], ref: Any, note: str = "") -> list[Case]:
        fn = None if checked else lambda *ts: apply_op(op_type, list(ts), attrs).outputs
        return [Case(inputs, ref, fn, attrs=attrs, name=name, note=note)]

    return {
        pool.max: row(pool.max, [xs], window_refs.max_pool(n, attrs)),
        pool.max_grad: row(
            pool.max_grad,
            [xs, ys, randn(*y)],
            window_refs.max_pool_grad(n, attrs),
            "orig_output is not read (TF's CPU kernel recomputes it)",
        ),
        pool.max_grad_grad: row(
            pool.max_grad_grad, [xs, ys, randn(*x)], window_refs.max_pool_grad_grad(n, attrs)
        ),
        pool.avg: [] if explicit else row(pool.avg, [randn(*x)], window_refs.avg_pool(n, attrs)),
        pool.avg_grad: []
        if explicit
        else row(pool.avg_grad, [ints(list(x)), randn(*y)], window_refs.avg_pool_grad(n, attrs)),
    }


def _register(pool: Pool, rows: list[dict[str, list[Case]]]) -> None:
    n = pool.n
    for op_type, infer, kernel in (
        (pool.max, _pool_infer(pool, pool.max, REAL), _max_kernel(n)),
        (pool.max_grad, _max_grad_infer(pool, pool.max_grad), _max_grad_kernel(n)),
        (pool.max_grad_grad, _max_grad_infer(pool, pool.max_grad_grad), _max_grad_grad_kernel(n)),
        (pool.avg, _pool_infer(pool, pool.avg, FLOATS), _avg_kernel(n)),
        (pool.avg_grad, _avg_grad_infer(pool), _avg_grad_kernel(n)),
    ):
        OPDEFS[op_type] = register_op(
            op_type, infer, kernel, batch=_fold_batch, cases=[c for r in rows for c in r[op_type]]
        )
    recycle.taker(pool.max, pool.max_grad)  # the tiled kernels' outputs: recycle.empty
    _register_gradients(pool)


_register(
    POOL2D,
    [
        _cases(POOL2D, (1, 4, 3, 2), _attrs(2, "NHWC", (2, 2), (2, 2)), "same", checked=True),
        _cases(POOL2D, (2, 5, 4, 3), _attrs(2, "NHWC", (2, 2), (2, 2)), "same_odd"),
        _cases(
            POOL2D, (1, 5, 6, 2), _attrs(2, "NHWC", (3, 2), (1, 2), "VALID"), "valid_overlapping"
        ),
        _cases(POOL2D, (2, 3, 4, 5), _attrs(2, "NCHW", (2, 3), (2, 1)), "nchw"),
        _cases(
            POOL2D,
            (1, 4, 5, 2),
            _attrs(2, "NHWC", (2, 2), (2, 2), "EXPLICIT", (0, 0, 1, 1, 0, 1, 0, 0)),
            "explicit",
        ),
    ],
)
_register(
    POOL3D,
    [
        _cases(
            POOL3D, (1, 2, 3, 3, 1), _attrs(3, "NDHWC", (2, 2, 2), (1, 2, 2)), "same", checked=True
        ),
        _cases(POOL3D, (1, 3, 4, 5, 2), _attrs(3, "NDHWC", (2, 2, 3), (1, 2, 2)), "same_wider"),
        _cases(POOL3D, (2, 2, 4, 3, 3), _attrs(3, "NCDHW", (1, 2, 2), (1, 1, 2), "VALID"), "ncdhw"),
    ],
)


# --------------------------------------------------------------------------------------
# tf.nn's pooling functions


def _pool(
    op_type: str,
    n: int,
    x: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None,
    name: str | None,
) -> Tensor:
    t = convert_to_tensor(x)
    fmt = data_format or {2: "NHWC", 3: "NDHWC"}[n]
    ch = 1 if fmt.startswith("NC") else n + 1
    ks = _sequence(ksize, n, ch, "ksize")
    if any(k == 0 for k in ks):
        raise ValueError(f"`ksize` cannot be zero. Received: ksize={ksize}")
    pad_, explicit = _padding(padding, n + 2)
    attrs: dict[str, Any] = {
        "ksize": ks,
        "strides": _sequence(strides, n, ch, "strides"),
        "padding": pad_,
        "data_format": fmt,
    }
    if op_type == "MaxPool":
        attrs["explicit_paddings"] = explicit
    elif explicit:
        raise ValueError(f"{op_type} does not take explicit padding, got padding={padding}")
    return apply_op(op_type, [t], attrs, name).output(0)


def _pool1d(
    op_type: str,
    x: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None,
    name: str | None,
) -> Tensor:
    """TF's 1-D pooling: ExpandDims, the 2-D op over a height of 1, Squeeze."""
    fmt = data_format or "NWC"
    if fmt not in ("NWC", "NCW"):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={fmt}")
    ch = 1 if fmt == "NCW" else 2
    with name_scope(name, op_type):
        ks = [1] + _sequence(ksize, 1, ch, "ksize")
        st = [1] + _sequence(strides, 1, ch, "strides")
        if isinstance(padding, list | tuple):
            padding = [[0, 0], *padding]
        axis = 1 if fmt == "NWC" else 2
        y = _pool(
            op_type,
            2,
            array.expand_dims(convert_to_tensor(x), axis),
            ks,
            st,
            padding,
            "NHWC" if fmt == "NWC" else "NCHW",
            None,
        )
        return array.squeeze(y, [axis])


def _spatial_rank(x: Tensor, data_format: str | None) -> int:
    rank = x.shape.rank
    if rank is None:
        if data_format is None:
            raise ValueError(
                "`input` must have a static shape or a data format must be "
                f"given. Received: input.shape={x.shape} and "
                f"data_format={data_format}"
            )
        rank = len(data_format)
    if not 3 <= rank <= 5:
        raise ValueError(
            f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={x.shape} of rank {rank}."
        )
    return rank - 2


def max_pool(
    input: Any = None,
    ksize: Any = None,
    strides: Any = None,
    padding: Any = None,
    data_format: str | None = None,
    name: str | None = None,
    value: Any = None,
) -> Tensor:
    """Max pooling over 1, 2 or 3 spatial axes, by the rank of ``input``."""
    x = convert_to_tensor(value if input is None else input)
    n = _spatial_rank(x, data_format)
    if n == 1:
        return _pool1d("MaxPool", x, ksize, strides, padding, data_format, name)
    return _pool(
        "MaxPool" if n == 2 else "MaxPool3D", n, x, ksize, strides, padding, data_format, name
    )


def avg_pool(
    input: Any = None,
    ksize: Any = None,
    strides: Any = None,
    padding: Any = None,
    data_format: str | None = None,
    name: str | None = None,
    value: Any = None,
) -> Tensor:
    """Average pooling over 1, 2 or 3 spatial axes, by the rank of ``input``."""
    x = convert_to_tensor(value if input is None else input)
    n = _spatial_rank(x, data_format)
    if n == 1:
        return _pool1d("AvgPool", x, ksize, strides, padding, data_format, name)
    return _pool(
        "AvgPool" if n == 2 else "AvgPool3D", n, x, ksize, strides, padding, data_format, name
    )


def max_pool1d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NWC",
    name: str | None = None,
) -> Tensor:
    return _pool1d("MaxPool", input, ksize, strides, padding, data_format, name)


def max_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    return _pool("MaxPool", 2, input, ksize, strides, padding, data_format, name)


def max_pool3d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    return _pool("MaxPool3D", 3, input, ksize, strides, padding, data_format, name)


def avg_pool1d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NWC",
    name: str | None = None,
) -> Tensor:
    return _pool1d("AvgPool", input, ksize, strides, padding, data_format, name)


def avg_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    return _pool("AvgPool", 2, input, ksize, strides, padding, data_format, name)


def avg_pool3d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    return _pool("AvgPool3D", 3, input, ksize, strides, padding, data_format, name)
