"""Max pooling over windows that do not overlap (stride = window, no dilation), the
common 2×2/2 case: once padded (SAME) or cut at the end (a VALID remainder) the input is
tiled by the windows, which are then a reshape of it, not a strided view, so the maxima
take one ``maximum`` per tap and the gradient one product.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import recycle
from symgrad.ops.nn.windows import Geometry, Window, pad


def tiles(win: Window, geo: Geometry) -> list[int] | None:
    """[o1, k1, o2, k2, ...] when the windows do not overlap (stride = window, no
    dilation) and there is at least one: the split of the fitted input's spatial axes."""
    if tuple(win.strides) != tuple(geo.k) or any(d != 1 for d in win.dilations):
        return None
    if not all(geo.out):
        return None
    return [d for o, k in zip(geo.out, geo.k) for d in (o, k)]


def _fit(xl: np.ndarray, geo: Geometry, split: list[int], fill: Any) -> np.ndarray:
    """The input as [N, o1, k1, o2, k2, ..., C]: padded with ``fill`` as the general path
    pads it, less any end no window reaches (VALID's remainder: a view, no copy)."""
    xp = pad(xl, geo, fill)
    xp = xp[(slice(None), *(slice(0, o * k) for o, k in zip(geo.out, geo.k)))]
    return xp.reshape(xl.shape[0], *split, xl.shape[-1])


def _unfit(dx: np.ndarray, geo: Geometry, shape: tuple[int, ...]) -> np.ndarray:
    """The gradient on the fitted input back on the input: padding cut, the end that no
    window reaches zero."""
    dx = dx.reshape(shape[0], *(o * k for o, k in zip(geo.out, geo.k)), shape[-1])
    if dx.shape == shape and not any(b for b, _ in geo.pads):
        return dx
    out = np.zeros(shape, dx.dtype)
    reach = [o * k - b for o, k, (b, _) in zip(geo.out, geo.k, geo.pads)]
    ends = [max(0, min(s, r)) for s, r in zip(shape[1:-1], reach)]
    src = (slice(None), *(slice(b, b + e) for (b, _), e in zip(geo.pads, ends)))
    out[(slice(None), *(slice(0, e) for e in ends))] = dx[src]
    return out


def _tap_index(tap: tuple[int, ...]) -> tuple[slice, ...]:
    """The [N, o1, k1, o2, k2, ..., C] index of one tap, keeping the k axes (size 1)."""
    return (slice(None),) + tuple(s for t in tap for s in (slice(None), slice(t, t + 1)))


def tiled_max(xl: np.ndarray, geo: Geometry, split: list[int], fill: Any) -> np.ndarray:
    """MaxPool on non-overlapping windows, [N, *out, C]: one ``maximum`` per tap, in
    row-major tap order (the general path's order, so a tie of 0 and -0.0 keeps its
    sign; a reduction over the strided tap axes measured 3× slower on [64, 8, 8, 32]
    float32)."""
    x6 = _fit(xl, geo, split, fill)
    out = recycle.empty((xl.shape[0], *geo.out, xl.shape[-1]), xl.dtype)
    best = out.reshape(x6.shape[0], *(d for o in geo.out for d in (o, 1)), x6.shape[-1])
    it = np.ndindex(*split[1::2])
    np.copyto(best, x6[_tap_index(next(it))])
    for tap in it:
        np.maximum(best, x6[_tap_index(tap)], out=best)
    return out


def _blocks(a: np.ndarray) -> np.ndarray:
    """``a`` [..., C] as one opaque element per C-long block (``a`` has the last axis
    contiguous), so that copies between layouts move whole blocks."""
    v = a.view(np.dtype((np.void, a.shape[-1] * a.itemsize)))
    return v.reshape(v.shape[:-1])


def _taps_order(n: int) -> tuple[int, ...]:
    """The axes of [N, o1, k1, ..., on, kn] in the order [k1, ..., kn, N, o1, ..., on]."""
    return (*range(2, 2 * n + 1, 2), 0, *range(1, 2 * n, 2))


def first_only(hit: np.ndarray) -> None:
    """Keeps, in each window, only its first hit in row-major tap order (TF's tie rule):
    a tap's hits (``hit[t]``) lose to any earlier tap's; in place."""
    taken = hit[0].copy()
    for h in hit[1:]:
        np.greater(h, taken, out=h)  # h & ~taken
        np.logical_or(taken, h, out=taken)


def tiled_hits(
    xl: np.ndarray, geo: Geometry, split: list[int], fill: Any, out: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The windows' maxima ([N, *out, C], into ``out`` if given) and where each tap is its
    window's first maximum ([T, N, *out, C] bool; TF's tie rule).  The taps are gathered
    into [T, N, *out, C] with one copy of C-long blocks, so the maxima, the hits and the
    ties run over long rows: on [32, 26, 26, 32] float32 the C-long pieces of the tap
    axes set NumPy's inner loops (the gradient took 3.3 ms that way, 1.3 ms this way).
    The maxima are taken in row-major tap order, as ``tiled_max`` takes them."""
    if xl.strides[-1] != xl.itemsize:  # channels-first moved last: a copy with C rows
        xl = xl.copy()
    x6 = _fit(xl, geo, split, fill)
    n, k = len(geo.k), split[1::2]
    cols = recycle.scratch((int(np.prod(k)), x6.shape[0], *split[0::2], x6.shape[-1]), xl.dtype)
    np.copyto(_blocks(cols).reshape(*k, -1, *split[0::2]), _blocks(x6).transpose(_taps_order(n)))
    if out is None:
        out = recycle.scratch((xl.shape[0], *geo.out, xl.shape[-1]), xl.dtype)
    best = out.reshape(cols.shape[1:])
    np.copyto(best, cols[0])
    for c in cols[1:]:
        np.maximum(best, c, out=best)
    hit = recycle.scratch(cols.shape, np.dtype(bool))
    np.equal(cols, best, out=hit)
    # Always: on tap-major rows it costs what finding out whether there are ties costs
    # (a count and a nan check), and ReLU zeros make ties common.
    first_only(hit)
    recycle.done(cols)
    return out, hit


def grad_from_hits(
    xl: np.ndarray,
    gl: np.ndarray,
    best: np.ndarray,
    hit: np.ndarray,
    geo: Geometry,
    split: list[int],
    relu: bool = False,
) -> np.ndarray:
    """MaxPoolGrad from ``tiled_hits``' maxima and hits (``hit`` is used up): each input
    entry is in one window, so the gradient is g (+ 0, which makes a -0.0 into 0 as the
    general path's sum from 0 does) at each window's first maximum and 0 elsewhere.
    ``relu``: ReluGrad of that gradient with the pooled input as its features, as one op
    (the features are > 0 at a window's maximum iff its maximum is > 0)."""
    g = recycle.scratch(hit.shape[1:], gl.dtype)
    np.add(gl.reshape(g.shape), gl.dtype.type(0), out=g)
    if relu:
        np.multiply(g, best.reshape(g.shape) > 0, out=g)  # ReluGrad's: inf * 0 is nan
    # g where hit, else 0, as bits: the hit's bytes as int8 (0 or -1) widened to g's
    # width are the mask, so inf and nan pass untouched, as the general path's copy
    # (``np.copyto(..., where=hit)`` took 25× longer)
    bits, mask = np.dtype(f"i{gl.dtype.itemsize}"), hit.view(np.int8)
    np.negative(mask, out=mask)
    cols = recycle.scratch(hit.shape, gl.dtype)
    np.bitwise_and(mask, g.view(bits), out=cols.view(bits))
    dx6, whole = _out6(xl, geo, split)
    k, n = split[1::2], len(geo.k)
    np.copyto(_blocks(dx6).transpose(_taps_order(n)), _blocks(cols).reshape(*k, -1, *split[0::2]))
    recycle.done(cols, g, hit)
    return whole if whole is not None else _unfit(dx6, geo, xl.shape)


def tiled_max_grad(
    xl: np.ndarray,
    gl: np.ndarray,
    geo: Geometry,
    split: list[int],
    fill: Any,
    relu: bool = False,
) -> np.ndarray:
    """MaxPoolGrad on non-overlapping windows (``relu``: ReluGrad of it, in one)."""
    best, hit = tiled_hits(xl, geo, split, fill)
    dx = grad_from_hits(xl, gl, best, hit, geo, split, relu)
    recycle.done(best)
    return dx


def _out6(xl: np.ndarray, geo: Geometry, split: list[int]) -> tuple[np.ndarray, np.ndarray | None]:
    """Where the gradient is written: [N, o1, k1, ..., C], and the input-shaped array it
    is a view of when the windows tile the input exactly (else None: ``_unfit`` it)."""
    shape6 = (xl.shape[0], *split, xl.shape[-1])
    if tuple(o * k for o, k in zip(geo.out, geo.k)) == xl.shape[1:-1] and not any(
        b for b, _ in geo.pads
    ):
        whole = recycle.empty(xl.shape, xl.dtype)
        return whole.reshape(shape6), whole
    return np.empty(shape6, xl.dtype), None
