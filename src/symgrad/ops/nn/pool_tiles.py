"""Max pooling over windows that do not overlap (stride = window, no dilation), the
common 2×2/2 case: once padded (SAME) or cut at the end (a VALID remainder) the input is
tiled by the windows, which are then a reshape of it, not a strided view, so the maxima
take one ``maximum`` per tap and the gradient one product.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
    """MaxPool on non-overlapping windows, [N, *out, C]."""
    best = tile_max(_fit(xl, geo, split, fill), split)
    return best.reshape(xl.shape[0], *geo.out, xl.shape[-1])


def tile_max(x6: np.ndarray, split: list[int]) -> np.ndarray:
    """The windows' maxima, keeping size-1 tap axes: one ``maximum`` per tap (a reduction
    over the strided tap axes measured 3× slower on [64, 8, 8, 32] float32)."""
    it = np.ndindex(*split[1::2])
    best = x6[_tap_index(next(it))].copy()
    for tap in it:
        np.maximum(best, x6[_tap_index(tap)], out=best)
    return best


def _first_only(hit: np.ndarray, split: list[int]) -> None:
    """Keeps, in each window, only its first hit in row-major tap order (TF's tie rule):
    a tap's hits lose to any earlier tap's; in place, bool ops on tap-sized views."""
    taps = np.ndindex(*split[1::2])
    taken = hit[_tap_index(next(taps))].copy()
    for tap in taps:
        h = hit[_tap_index(tap)]
        np.greater(h, taken, out=h)  # h & ~taken
        np.logical_or(taken, h, out=taken)


def tiled_max_grad(
    xl: np.ndarray, gl: np.ndarray, geo: Geometry, split: list[int], fill: Any
) -> np.ndarray:
    """MaxPoolGrad on non-overlapping windows: each input entry is in one window, so the
    gradient is one mask times g.  The maxima and g are first repeated along the last tap
    axis, so every full-size op runs over whole rows (the ``[..., o_n, k_n, C]`` block is
    contiguous) instead of C-long pieces: 2.5× faster on [32, 26, 26, 32] float32."""
    x6 = _fit(xl, geo, split, fill)
    best = tile_max(x6, split)
    n = len(geo.k)
    hit = x6 == np.repeat(best, split[-1], axis=-2)
    g6 = np.repeat(np.expand_dims(gl, tuple(range(2, 2 * n + 1, 2))), split[-1], axis=-2)
    # Every window has a hit unless its max is nan; so with no nan, as many hits as
    # windows means one per window: no ties.  (ReLU zeros make ties common.)
    if np.count_nonzero(hit) != gl.size or np.isnan(best).any():
        _first_only(hit, split)
    if np.isfinite(gl).all():
        # A float product is 4× faster than ``where``; + 0 turns the -0.0 of a negative
        # g times 0 into 0 (the general path's sum from 0 does the same).
        dx = hit.astype(gl.dtype)
        np.multiply(dx, g6, out=dx)
        dx += gl.dtype.type(0)
    else:  # inf or nan times 0 would be nan
        dx = np.where(hit, g6, gl.dtype.type(0)) + gl.dtype.type(0)
    return _unfit(dx, geo, xl.shape)
