"""JAX lowerings of convolutions and pooling, with TF's padding (``Window.geometry``).

The forward ops are ``lax.conv_general_dilated`` and ``lax.reduce_window``; each backprop
op is the VJP of its forward op (for max pooling XLA's ``select_and_scatter`` takes the
first maximum of a window, as TF's kernel does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from symgrad.ops.nn.windows import Window, window
from symgrad.runtime.xla.host import static

Table = dict[str, Callable[..., Any]]
_SPATIAL = {2: "HW", 3: "DHW"}


def _layout(win: Window) -> tuple[str, str, str]:
    s = _SPATIAL[win.n]
    data = f"NC{s}" if win.channels_first else f"N{s}C"
    return data, f"{s}IO", data


def _conv(n: int, depthwise: bool) -> Callable[..., Any]:
    def conv(x: Any, w: Any, attrs: dict[str, Any]) -> Any:
        win = window(n, **attrs)
        size = win.spatial(x.shape)
        geo = win.geometry(size, w.shape[:n])
        c = win.channels(x.shape)
        if depthwise:
            w = w.reshape((*w.shape[:n], 1, w.shape[-2] * w.shape[-1]))
            groups = c
        else:
            groups = c // w.shape[-2] if w.shape[-2] else 1
        return jax.lax.conv_general_dilated(
            x,
            w,
            win.strides,
            list(geo.pads),
            rhs_dilation=win.dilations,
            dimension_numbers=_layout(win),
            feature_group_count=groups,
        )

    return conv


def _forward(f: Callable[..., Any]) -> Callable[..., Any]:
    return lambda ctx, op, x, w: f(x, w, op.attrs)


def _sizes(op: Any, s: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in static(op, s, "sizes"))


def _backprop_input(f: Callable[..., Any]) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, sizes: Any, w: Any, g: Any) -> Any:
        x0 = jnp.zeros(_sizes(op, sizes), g.dtype)
        _, vjp = jax.vjp(lambda x: f(x, w, op.attrs), x0)
        return vjp(g)[0]

    return lower


def _backprop_filter(f: Callable[..., Any]) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, x: Any, sizes: Any, g: Any) -> Any:
        w0 = jnp.zeros(_sizes(op, sizes), g.dtype)
        _, vjp = jax.vjp(lambda w: f(x, w, op.attrs), w0)
        return vjp(g)[0]

    return lower


def _pool_geometry(n: int, x: Any, attrs: dict[str, Any]) -> tuple[Window, Any, Any, Any]:
    win = window(n, **attrs)
    geo = win.geometry(win.spatial(x.shape), win.ksize)
    ones = (1,)
    if win.channels_first:
        dims, strides = (1, 1, *win.ksize), (1, 1, *win.strides)
        pads = [(0, 0), (0, 0), *geo.pads]
    else:
        dims, strides = ones + win.ksize + ones, ones + win.strides + ones
        pads = [(0, 0), *geo.pads, (0, 0)]
    return win, dims, strides, pads


def _max_pool(n: int) -> Callable[..., Any]:
    def pool(x: Any, attrs: dict[str, Any]) -> Any:
        _, dims, strides, pads = _pool_geometry(n, x, attrs)
        if jnp.issubdtype(x.dtype, jnp.floating):
            init = np.asarray(-np.inf, x.dtype)  # a constant: XLA's max monoid, differentiable
        else:
            init = np.asarray(np.iinfo(x.dtype).min, x.dtype)
        return jax.lax.reduce_window(x, init, jax.lax.max, dims, strides, pads)

    return pool


def _avg_pool(n: int) -> Callable[..., Any]:
    def pool(x: Any, attrs: dict[str, Any]) -> Any:
        _, dims, strides, pads = _pool_geometry(n, x, attrs)
        zero = np.asarray(0, x.dtype)
        total = jax.lax.reduce_window(x, zero, jax.lax.add, dims, strides, pads)
        ones = np.ones(x.shape, np.float64)
        counts = jax.lax.reduce_window(ones, 0.0, jax.lax.add, dims, strides, pads)
        return total / counts.astype(x.dtype)

    return pool


def _max_grad(pool: Callable[..., Any]) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, x: Any, y: Any, g: Any) -> Any:
        _, vjp = jax.vjp(lambda v: pool(v, op.attrs), x)
        return vjp(g)[0]

    return lower


def _avg_grad(pool: Callable[..., Any]) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, sizes: Any, g: Any) -> Any:
        x0 = jnp.zeros(_sizes(op, sizes), g.dtype)
        _, vjp = jax.vjp(lambda v: pool(v, op.attrs), x0)
        return vjp(g)[0]

    return lower


def table() -> Table:
    t: Table = {}
    for fwd, inp, flt, n, dw in (
        ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", 2, False),
        ("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", 3, False),
        (
            "DepthwiseConv2dNative",
            "DepthwiseConv2dNativeBackpropInput",
            "DepthwiseConv2dNativeBackpropFilter",
            2,
            True,
        ),
    ):
        f = _conv(n, dw)
        t[fwd], t[inp], t[flt] = _forward(f), _backprop_input(f), _backprop_filter(f)
    for suffix, n in (("", 2), ("3D", 3)):
        mx, avg = _max_pool(n), _avg_pool(n)
        t["MaxPool" + suffix] = (lambda p: lambda ctx, op, x: p(x, op.attrs))(mx)
        t["AvgPool" + suffix] = (lambda p: lambda ctx, op, x: p(x, op.attrs))(avg)
        t[f"MaxPool{suffix}Grad"] = _max_grad(mx)
        t[f"AvgPool{suffix}Grad"] = _avg_grad(avg)
    return t
