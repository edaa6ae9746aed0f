"""Long rows for NumPy loops over an array whose innermost block is short.

NumPy runs a broadcast or a reduction along the leading axes of ``[..., C]`` as one inner
loop per C-long row; with C = 32 (a CNN's channels) the loop overhead outweighs the
arithmetic.  Laying f rows side by side (a reshape to ``[-1, f·C]``, and the short operand
tiled f times) gives the same elementwise results with f times fewer, longer loops.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

ROW = 4096  # elements per long row: a few pages, well inside the L1/L2 caches


@functools.lru_cache(maxsize=256)
def fold(rows: int, inner: int) -> int | None:
    """The largest f dividing ``rows`` with f · ``inner`` <= ROW, when there are enough
    rows to gain (None: leave the loop as it is)."""
    if rows < 512 or not 0 < inner <= ROW // 16:
        return None
    f = next(f for f in range(ROW // inner, 0, -1) if rows % f == 0)
    return f if f > 1 else None


def tile(a: Any, f: int) -> np.ndarray:
    """``a``'s elements repeated f times end to end (``np.tile`` of the flat ``a``, without
    its Python-level cost: this runs on every call of a plan's step)."""
    flat = np.ravel(a)
    return np.broadcast_to(flat, (f, flat.size)).reshape(-1)
