"""Conv (+ bias, + ReLU) followed by a max pool whose windows tile the conv's output, as
one kernel (a plan's fusion, runtime.fuse), and its gradient into the filter and bias.

The im2col rows are ordered tap-major for the pool ([pool tap, N, *pooled] instead of
[N, *out]): the product then writes each pool tap's outputs as one contiguous block, so
the windows' maxima, TF's first-maximum hits and their gradient run over long rows, and
the conv's output is never gathered into the pool's layout and back (two copies of the
largest array of a small CNN's step).  The bias rides in the product as a column of
ones in the windows (one more term of the sum, added last), and the ReLU is taken after
the max (``max(relu(a), relu(b)) = relu(max(a, b))``), on a quarter of the values for
2×2 windows.  The filter's gradient is the same product transposed, over the same rows,
so the pool's gradient is never scattered back either; the column of ones gives the
bias's gradient in it.

Exact rewrites but for float rounding: the bias is added inside the BLAS sum, and the
gradients' sums run in another row order (as any blocking of a sum does).  ``layout``
says where the kernels apply; elsewhere the fusion runs the ops' own kernels.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgrad.core import recycle
from symgrad.ops.nn.conv_im2col import BLAS
from symgrad.ops.nn.pool_tiles import first_only, tiles
from symgrad.ops.nn.windows import Geometry, Window, pad, window

BLOCK = 1 << 17  # conv outputs (all pool taps) per block: 512 KiB of float32, in cache


@dataclass(frozen=True)
class Layout:
    """One fused Conv2D and 2-D max pool.  The windows are read from the input split by
    phase (rows and columns modulo ``ks``, the pool's window times the conv's stride),
    in which each window tap's pooled rows are one contiguous run per image when a row
    is ``wq`` wide: so the rows carry ``wq - pw`` junk columns, which the product
    computes and the pooled result and the gradient leave out."""

    win: Window
    geo: Geometry
    pk: tuple[int, int]  # pool window
    pout: tuple[int, int]  # pooled [ph, pw]
    ks: tuple[int, int]  # phases along each axis
    hq: int  # phase image height and width (each with room for the runs)
    wq: int

    @property
    def t(self) -> int:
        return self.pk[0] * self.pk[1]

    def offsets(self) -> list[tuple[int, int, int, int]]:
        """(window tap, pool tap, phase index, run start) for each pair of taps."""
        (sh, sw), (dh, dw), (ksh, ksw) = self.win.strides, self.win.dilations, self.ks
        out = []
        for i, (ti, tj) in enumerate(np.ndindex(*self.geo.k)):
            for t, (a, b) in enumerate(np.ndindex(*self.pk)):
                eh, ew = a * sh + ti * dh, b * sw + tj * dw
                out.append((i, t, (eh % ksh) * ksw + ew % ksw, eh // ksh * self.wq + ew // ksw))
        return out


@dataclass
class Windows:
    """The conv's windows with a row of ones, [K+1, T, N, ph, wq] (``a``: as [rows,
    K+1]), kept from the forward step for the gradient, which gives ``buf`` back to
    the plan's pool (None: not kept, as when they are larger than the conv's output);
    ``finite``: the input had no inf or nan (so 0 times a junk column's entry is 0)."""

    buf: Any
    a: Any
    finite: bool
    lay: Layout


def layout(x: np.ndarray, w: np.ndarray, conv: dict[str, Any], pool: dict[str, Any]) -> Any:
    """The layout of Conv2D(x, w) then MaxPool, or None where the kernels do not apply:
    channels-last, ungrouped, few input channels (the first layer of an image model:
    its windows' copy dominates), a BLAS dtype, pool windows that tile the conv's output
    without padding (a VALID remainder is dropped: no window reads it)."""
    if x.ndim != 4 or w.ndim != 4 or x.dtype not in BLAS or w.dtype != x.dtype:
        return None
    if x.size == 0 or w.size == 0 or x.shape[-1] != w.shape[-2] or x.shape[-1] >= 8:
        return None
    win, pwin = window(2, **conv), window(2, **pool)
    if win.channels_first or pwin.channels_first:
        return None
    geo = win.geometry(x.shape[1:-1], w.shape[:2])
    if 0 in geo.out:
        return None
    pgeo = pwin.geometry(geo.out, pwin.ksize)
    if tiles(pwin, pgeo) is None or any(b or a for b, a in pgeo.pads):
        return None
    (ph, pw), (kh, kw) = pgeo.out, pgeo.k
    ks = (kh * win.strides[0], kw * win.strides[1])
    # the largest run start, in phase rows and columns: a run reads ph rows of wq from
    # there, one row more where it starts past a row's first column
    last = [
        (a * win.strides[i] + (geo.k[i] - 1) * win.dilations[i]) // ks[i]
        for i, a in ((0, kh - 1), (1, kw - 1))
    ]
    return Layout(win, geo, (kh, kw), (ph, pw), ks, last[0] + ph + 1, last[1] + pw)


def windows(x: np.ndarray, lay: Layout) -> Windows:
    """The conv's windows, rows pool-tap-major: one copy of each phase of the input,
    then one of each (window tap, pool tap)'s runs, [N, ph * wq] (C channels apart)."""
    xp, c, n = pad(x, lay.geo), x.shape[-1], x.shape[0]
    (ksh, ksw), (ph, _) = lay.ks, lay.pout
    q = recycle.scratch((ksh * ksw, n, lay.hq, lay.wq, c), x.dtype)
    q.fill(0)
    for e in range(ksh):
        for f in range(ksw):
            part = xp[:, e::ksh, f::ksw][:, : lay.hq, : lay.wq]
            q[e * ksw + f, :, : part.shape[1], : part.shape[2]] = part
    k = lay.geo.k[0] * lay.geo.k[1] * c
    run = ph * lay.wq
    flat = q.reshape(ksh * ksw, n, -1, c)
    buf = recycle.scratch((k + 1, lay.t, n, run), x.dtype)
    for i, t, phase, start in _offsets(lay):
        buf[i * c : (i + 1) * c, t] = flat[phase, :, start : start + run].transpose(2, 0, 1)
    buf[k] = 1
    finite = bool(np.isfinite(np.add.reduce(xp, axis=None)))  # a sum that overflows: False
    recycle.done(q)
    return Windows(buf, buf.reshape(k + 1, -1).T, finite, lay)


_offsets = functools.lru_cache(maxsize=64)(Layout.offsets)


def forward(
    x: np.ndarray, w: np.ndarray, b: Any, lay: Layout, relu: bool
) -> tuple[np.ndarray, np.ndarray, Windows]:
    """max_pool(relu(conv(x, w) + b)) ([N, ph, pw, M]); where each tap is its window's
    first maximum ([T, N, ph, wq, M] bool: ``pool_tiles.tiled_hits``' rule, junk
    columns included); the windows, for the gradient.  ``b`` None: no bias."""
    cols = windows(x, lay)
    m = w.shape[-1]
    wb = np.empty((cols.a.shape[1], m), x.dtype)
    wb[:-1] = w.reshape(-1, m)
    wb[-1] = 0 if b is None else b.reshape(m)
    p = cols.a.shape[0] // lay.t
    wide = recycle.scratch((x.shape[0], lay.pout[0], lay.wq, m), x.dtype)
    hit = recycle.scratch((lay.t, *wide.shape), np.dtype(bool))
    step = max(1, BLOCK // (lay.t * m))
    y = recycle.scratch((lay.t, min(step, p), m), x.dtype)
    best, hits = wide.reshape(p, m), hit.reshape(lay.t, p, m)
    for i in range(0, p, step):
        j = min(i + step, p)
        yb = y[:, : j - i]
        for t in range(lay.t):
            np.matmul(cols.a[t * p + i : t * p + j], wb, out=yb[t])
        _pool_block(yb, best[i:j], hits[:, i:j], relu)
    pooled = recycle.empty((x.shape[0], *lay.pout, m), x.dtype)
    np.copyto(pooled, wide[:, :, : lay.pout[1]])
    recycle.done(y, wide)
    if cols.a.shape[1] > m:  # kept, the windows would outweigh the conv's output
        recycle.done(cols.buf)
        cols = Windows(None, None, cols.finite, lay)
    return pooled, hit, cols


def _pool_block(y: np.ndarray, best: np.ndarray, hit: Any, relu: bool) -> None:
    """The maxima of one block's taps ``y`` [T, rows, M] into ``best``, in tap order (as
    ``tiled_hits``), and the first hits; then the ReLU, after the max."""
    if len(y) == 1:
        np.copyto(best, y[0])
    else:  # best = max(max(y0, y1), y2) ...: the same order, one pass fewer
        np.maximum(y[0], y[1], out=best)
        for c in y[2:]:
            np.maximum(best, c, out=best)
    if hit is not None:
        np.equal(y, best, out=hit)
        first_only(hit)
        if relu:
            # A window whose maximum is <= 0 is all 0 after the ReLU: all its taps tie and
            # the first one has the maximum (a nan maximum, not <= 0, keeps no hit).
            low = best <= 0
            np.logical_or(hit[0], low, out=hit[0])
            for h in hit[1:]:
                np.greater(h, low, out=h)  # h & ~low
    if relu:
        np.maximum(best, best.dtype.type(0), out=best)


def _masked_grad(
    g: np.ndarray, pooled: np.ndarray, hit: np.ndarray, lay: Layout, relu: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(g's bits on the wide rows [rows, M], junk 0; the hits as a mask of those bits,
    [T, rows, M]; g's wide array, to give back): g + 0 (as MaxPoolGrad's sum from 0
    makes -0.0 into 0), times ReluGrad's (max > 0) if ``relu``; ``hit`` is used up."""
    m, pw = g.shape[-1], lay.pout[1]
    gw = recycle.scratch((g.shape[0], lay.pout[0], lay.wq, m), g.dtype)
    gw[:, :, pw:] = 0
    valid = gw[:, :, :pw]
    np.add(g, g.dtype.type(0), out=valid)
    if relu:  # ReluGrad's product: inf * 0 is nan
        positive = recycle.scratch(pooled.shape, np.dtype(bool))
        np.multiply(valid, np.greater(pooled, 0, out=positive), out=valid)
        recycle.done(positive)
    # g where hit, else 0, as bits (``pool_tiles.grad_from_hits``): inf and nan untouched
    bits = np.dtype(f"i{g.dtype.itemsize}")
    mask = hit.view(np.int8).reshape(lay.t, -1, m)
    np.negative(mask, out=mask)
    return gw.reshape(-1, m).view(bits), mask, gw


def backward(
    x: np.ndarray, g: np.ndarray, pooled: np.ndarray, hit: np.ndarray, cols: Windows, relu: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The filter's [*k, C, M] and the bias's [M] gradients from the pool's incoming
    gradient ``g`` (``forward``'s outputs; ``hit`` and ``cols`` are used up): the conv
    output's gradient is g at each window's first maximum (ReLU'd), 0 elsewhere; for an
    input with no inf or nan (``cols.finite``: else 0 times the input at the junk and
    the dropped remainder would be nan in TF's sum, see ``conv_output_grad``)."""
    lay, m = cols.lay, g.shape[-1]
    if cols.buf is None:  # not kept: copied again
        cols = windows(x, lay)
    gm, mask, gw = _masked_grad(g, pooled, hit, lay, relu)
    p = gm.shape[0]
    step = max(1, BLOCK // (lay.t * m))
    dy = recycle.scratch((lay.t, min(step, p), m), g.dtype)
    out = np.zeros((cols.a.shape[1], m), g.dtype)
    part = np.empty_like(out)
    for i in range(0, p, step):
        j = min(i + step, p)
        db = dy[:, : j - i]
        np.bitwise_and(mask[:, i:j], gm[i:j], out=db.view(gm.dtype))
        for t in range(lay.t):
            np.matmul(cols.a[t * p + i : t * p + j].T, db[t], out=part)
            np.add(out, part, out=out)
    recycle.done(dy, gw, hit, cols.buf)
    return out[:-1].reshape(*lay.geo.k, -1, m), out[-1]


def conv_output_grad(
    g: np.ndarray, pooled: np.ndarray, hit: np.ndarray, cols: Windows, relu: bool
) -> np.ndarray:
    """The conv output's gradient [N, *out, M] as MaxPoolGrad (+ ReluGrad) make it, the
    same bits, for the ops' own filter and bias gradient kernels (``hit`` and ``cols``
    are used up)."""
    lay = cols.lay
    gm, mask, gw = _masked_grad(g, pooled, hit, lay, relu)
    wide = np.bitwise_and(mask, gm).view(g.dtype)
    wide = wide.reshape(lay.t, g.shape[0], lay.pout[0], lay.wq, g.shape[-1])
    dy = np.zeros((g.shape[0], *lay.geo.out, g.shape[-1]), g.dtype)
    (ph, pw), (kh, kw) = lay.pout, lay.pk
    for t, (a, b) in enumerate(np.ndindex(kh, kw)):
        dy[:, a : ph * kh : kh, b : pw * kw : kw] = wide[t, :, :, :pw]
    recycle.done(gw, hit, *(() if cols.buf is None else (cols.buf,)))
    return dy
