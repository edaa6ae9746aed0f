"""im2col convolution kernels that copy the windows once and make one BLAS call each.

For an ungrouped Conv2D/Conv3D in float32/float64, the windows of the padded input are
copied into one contiguous buffer, one slice assignment per filter tap (a copy of the
strided ``patches`` view runs inner loops over the C channels: with C = 1, over single
elements, 4× slower on the Keras CNN's [32, 28, 28, 1] input), and contracted with the
filter in one ``matmul`` written straight into the output (the filter's gradient, a
product with a long inner axis, in blocks of it).  Buffers come from the running
plan's pool (``runtime.recycle``), so a training step reuses them instead of faulting in
fresh pages each run.  The forward products are the ones ``tensordot`` made before (the
same contiguous operands in the same BLAS call), so its numbers are unchanged; the
filter's gradient sums its blocks in another order (a float rounding apart).
"""

from __future__ import annotations

import numpy as np

from symgrad.core import recycle
from symgrad.ops.nn.windows import Geometry, Window, taps
from symgrad.ops.reduction.row_blocks import ROW
from symgrad.ops.reduction.row_blocks import tile as _tile

BLAS = (np.dtype(np.float32), np.dtype(np.float64))
BLOCK = 1 << 16  # output elements per block of a fused bias and ReLU (256 KiB of float32)


def applies(x: np.ndarray, other: np.ndarray, depth: int) -> bool:
    """Whether these kernels take a convolution of ``x`` with a filter (or out_backprop)
    ``other`` of input depth ``depth``: ungrouped, a BLAS dtype, nothing empty."""
    return (
        x.dtype in BLAS
        and other.dtype == x.dtype
        and x.shape[-1] == depth
        and x.size > 0
        and other.size > 0
    )


def _windows(xp: np.ndarray, geo: Geometry, win: Window, taps_first: bool) -> np.ndarray:
    """The windows of the padded input, contiguous: [N, *out, *k, C] (``taps_first``:
    [*k, C, N, *out])."""
    n, c = len(geo.k), xp.shape[-1]
    if taps_first:
        buf = recycle.scratch((*geo.k, c, xp.shape[0], *geo.out), xp.dtype)
        last_first = (n + 1, *range(n + 1))
        for tap, where in taps(geo, win):
            buf[tap] = xp[where].transpose(last_first)
        return buf
    buf = recycle.scratch((xp.shape[0], *geo.out, *geo.k, c), xp.dtype)
    lead = (slice(None),) * (n + 1)
    for tap, where in taps(geo, win):
        buf[lead + tap] = xp[where]
    return buf


def forward(
    xp: np.ndarray,
    w: np.ndarray,
    geo: Geometry,
    win: Window,
    bias: np.ndarray | None = None,
    relu: bool = False,
) -> np.ndarray:
    """Conv on the padded channels-last input: [N, *out, C_out]; then ``+ bias`` and
    ``max(·, 0)`` if given (a plan's fusion of the BiasAdd/AddV2 and Relu after it),
    block by block of rows, each while it is still in cache."""
    # few channels: the copy is faster tap-major (rows of one channel's pixels, not C
    # long) and the product reads it transposed (the same numbers)
    few = xp.shape[-1] < 8
    cols = _windows(xp, geo, win, taps_first=few)
    m = w.shape[-1]
    out = recycle.empty((xp.shape[0], *geo.out, m), xp.dtype)
    rows = out.size // m if m else 0
    a = cols.reshape(-1, rows).T if few else cols.reshape(rows, -1)
    _blocks_then(a, w.reshape(-1, m), out.reshape(rows, m), bias, relu)
    recycle.done(cols)
    return out


def _blocks_then(
    a: np.ndarray, b: np.ndarray, y: np.ndarray, bias: np.ndarray | None, relu: bool
) -> None:
    """y = a @ b block by block of rows (faster than one product: 0.27 -> 0.16 ms for
    [21632, 9] @ [9, 32] float32), each followed by ``+ bias`` (over long rows: the bias
    tiled r times) and ``max(·, 0)`` while it is in cache."""
    m = max(y.shape[1], 1)
    r = max(1, ROW // m)  # rows side by side for the bias
    step = r * max(1, BLOCK // (r * m))
    tiled = None if bias is None else _tile(bias, r)
    for i in range(0, y.shape[0], step):
        block = y[i : i + step]
        np.matmul(a[i : i + step], b, out=block)
        if tiled is not None:
            if block.shape[0] % r == 0:
                long = block.reshape(-1, r * m)
                np.add(long, tiled, out=long)
            else:  # the last block's rows
                np.add(block, tiled[:m], out=block)
        if relu:
            np.maximum(block, block.dtype.type(0), out=block)


def filter_grad(xp: np.ndarray, g: np.ndarray, geo: Geometry, win: Window) -> np.ndarray:
    """The filter's gradient [*k, C, C_out] from the padded input and out_backprop."""
    cols = _windows(xp, geo, win, taps_first=True)
    m = g.shape[-1]
    k = cols.shape[: len(geo.k) + 1]
    dw = _skinny_product(cols.reshape(int(np.prod(k)), -1), g.reshape(-1, m))
    recycle.done(cols)
    return dw.reshape(*k, m)


def _skinny_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a [K, P] @ b [P, M] for small K·M and long P: summed over blocks of P whose operands
    stay in cache (OpenBLAS's own blocking of such a product ran 1.5× slower: 0.37 ->
    0.24 ms for [9, 21632] @ [21632, 32] float32).  Each block's sum is added in order."""
    rows = max(256, (1 << 16) // max(b.shape[1], 1))
    if a.shape[0] * b.shape[1] > 1 << 14 or a.shape[1] <= 2 * rows:
        return np.matmul(a, b)
    out = np.matmul(a[:, :rows], b[:rows])
    part = np.empty_like(out)
    for i in range(rows, a.shape[1], rows):
        np.matmul(a[:, i : i + rows], b[i : i + rows], out=part)
        np.add(out, part, out=out)
    return out
