"""NumPy references for the window ops' op-table rows: direct loops over output positions.

They share only the attrs' geometry (``windows.window``) with the kernels, which the tests
with TensorFlow's recorded numbers check; the arithmetic is written out per output
position, independently of the kernels' im2col and col2im.  Depthwise is 2-D only, as in TF.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.ops.nn.windows import Window, window

Ref = Callable[..., np.ndarray]


def _slices(o: Sequence[int], win: Window, k: Sequence[int]) -> tuple[Any, ...]:
    return (
        slice(None),
        *(
            slice(i * s, i * s + (kk - 1) * d + 1, d)
            for i, s, kk, d in zip(o, win.strides, k, win.dilations)
        ),
    )


def _padded(x: np.ndarray, win: Window, k: Sequence[int], value: Any = 0) -> Any:
    xl = win.to_last(x)
    geo = win.geometry(xl.shape[1:-1], k)
    return xl, geo, np.pad(xl, ((0, 0), *geo.pads, (0, 0)), constant_values=value)


def conv(n: int, depthwise: bool, attrs: dict[str, Any]) -> Ref:
    win = window(n, **attrs)

    def ref(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        k = w.shape[:n]
        xl, geo, xp = _padded(x, win, k)
        cout = w.shape[-1] * (w.shape[-2] if depthwise else 1)
        y = np.zeros((xl.shape[0], *geo.out, cout), x.dtype)
        for o in np.ndindex(*geo.out):
            patch = xp[_slices(o, win, k)]  # [N, *k, C]
            y[(slice(None), *o)] = (
                np.einsum("nijc,ijcm->ncm", patch, w).reshape(len(patch), -1)
                if depthwise
                else np.tensordot(patch, w, axes=(list(range(1, n + 2)), list(range(n + 1))))
            )
        return win.from_last(y)

    return ref


def conv_input(n: int, depthwise: bool, attrs: dict[str, Any]) -> Ref:
    win = window(n, **attrs)

    def ref(sizes: np.ndarray, w: np.ndarray, g: np.ndarray) -> np.ndarray:
        k = w.shape[:n]
        xl, geo, xp = _padded(np.zeros(tuple(sizes), w.dtype), win, k)
        gl = win.to_last(g)
        for o in np.ndindex(*geo.out):
            go = gl[(slice(None), *o)]
            xp[_slices(o, win, k)] += (
                np.einsum("ncm,ijcm->nijc", go.reshape(len(go), w.shape[-2], -1), w)
                if depthwise
                else np.tensordot(go, w, axes=([1], [-1]))
            )
        return win.from_last(_crop(xp, geo.pads, xl.shape[1:-1]))

    return ref


def conv_filter(n: int, depthwise: bool, attrs: dict[str, Any]) -> Ref:
    win = window(n, **attrs)

    def ref(x: np.ndarray, sizes: np.ndarray, g: np.ndarray) -> np.ndarray:
        k = tuple(sizes[:n])
        _, geo, xp = _padded(x, win, k)
        gl = win.to_last(g)
        dw = np.zeros(tuple(sizes), x.dtype)
        for o in np.ndindex(*geo.out):
            patch, go = xp[_slices(o, win, k)], gl[(slice(None), *o)]
            dw += (
                np.einsum("nijc,ncm->ijcm", patch, go.reshape(len(go), sizes[-2], -1))
                if depthwise
                else np.tensordot(patch, go, axes=([0], [0]))
            )
        return dw

    return ref


def _crop(xp: np.ndarray, pads: Sequence[tuple[int, int]], size: Sequence[int]) -> np.ndarray:
    return xp[(slice(None), *(slice(b, b + s) for (b, _), s in zip(pads, size)))]


# --------------------------------------------------------------------------------------
# Pooling


def _pool_setup(n: int, attrs: dict[str, Any], x: np.ndarray, value: Any) -> Any:
    win = window(n, **attrs)
    xl, geo, xp = _padded(x, win, win.ksize, value)
    return win, xl, geo, xp


def max_pool(n: int, attrs: dict[str, Any]) -> Ref:
    def ref(x: np.ndarray) -> np.ndarray:
        win, xl, geo, xp = _pool_setup(n, attrs, x, -np.inf)
        y = np.zeros((xl.shape[0], *geo.out, xl.shape[-1]), x.dtype)
        for o in np.ndindex(*geo.out):
            y[(slice(None), *o)] = xp[_slices(o, win, win.ksize)].max(tuple(range(1, n + 1)))
        return win.from_last(y)

    return ref


def avg_pool(n: int, attrs: dict[str, Any]) -> Ref:
    """Padding entries are NaN and left out of each window's mean."""

    def ref(x: np.ndarray) -> np.ndarray:
        win, xl, geo, xp = _pool_setup(n, attrs, x, np.nan)
        y = np.zeros((xl.shape[0], *geo.out, xl.shape[-1]), x.dtype)
        for o in np.ndindex(*geo.out):
            y[(slice(None), *o)] = np.nanmean(
                xp[_slices(o, win, win.ksize)], tuple(range(1, n + 1))
            )
        return win.from_last(y)

    return ref


def _argmax_mask(patch: np.ndarray) -> np.ndarray:
    """[N, *k, C] -> the same shape, True at each (n, c)'s first maximum."""
    flat = patch.reshape(len(patch), -1, patch.shape[-1])
    mask = np.zeros(flat.shape, bool)
    np.put_along_axis(mask, flat.argmax(1)[:, None], True, 1)
    return mask.reshape(patch.shape)


def max_pool_grad(n: int, attrs: dict[str, Any]) -> Ref:
    def ref(x: np.ndarray, y: np.ndarray, g: np.ndarray) -> np.ndarray:
        win, xl, geo, xp = _pool_setup(n, attrs, x, -np.inf)
        gl, dxp = win.to_last(g), np.zeros(xp.shape, g.dtype)
        for o in np.ndindex(*geo.out):
            at = _slices(o, win, win.ksize)
            go = gl[(slice(None), *o)][:, *([None] * n), :]
            dxp[at] += np.where(_argmax_mask(xp[at]), go, 0)
        return win.from_last(_crop(dxp, geo.pads, xl.shape[1:-1]))

    return ref


def max_pool_grad_grad(n: int, attrs: dict[str, Any]) -> Ref:
    def ref(x: np.ndarray, y: np.ndarray, gg: np.ndarray) -> np.ndarray:
        win, xl, geo, xp = _pool_setup(n, attrs, x, -np.inf)
        _, _, ggp = _pool_setup(n, attrs, gg, 0)[1:]
        out = np.zeros((xl.shape[0], *geo.out, xl.shape[-1]), gg.dtype)
        for o in np.ndindex(*geo.out):
            at = _slices(o, win, win.ksize)
            out[(slice(None), *o)] = np.where(_argmax_mask(xp[at]), ggp[at], 0).sum(
                tuple(range(1, n + 1))
            )
        return win.from_last(out)

    return ref


def avg_pool_grad(n: int, attrs: dict[str, Any]) -> Ref:
    def ref(sizes: np.ndarray, g: np.ndarray) -> np.ndarray:
        win, xl, geo, inside = _pool_setup(n, attrs, np.ones(tuple(sizes)), 0)
        gl, dxp = win.to_last(g), np.zeros(inside.shape, g.dtype)
        for o in np.ndindex(*geo.out):
            at = _slices(o, win, win.ksize)
            count = inside[at].sum(tuple(range(1, n + 1)))[:, *([None] * n), :]
            dxp[at] += inside[at] * (gl[(slice(None), *o)][:, *([None] * n), :] / count)
        return win.from_last(_crop(dxp, geo.pads, xl.shape[1:-1]))

    return ref
