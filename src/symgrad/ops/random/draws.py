"""TensorFlow's gamma and Poisson samplers on the Philox stream, draw for draw.

TF's CPU kernels (``random_gamma_op.cc``, ``random_poisson_op.cc``,
``stateless_random_gamma_op.cc``) give output ``i`` (counted parameter-major: all the
samples of the first alpha or rate, then the next) its own generator, the op's stream
skipped by ``256 * i`` blocks, and run a rejection loop on it in float64:

* a uniform call takes one block and yields two doubles, a normal call one block and
  yields two Box-Muller normals; each sampler hands out the last of the pair first and
  refills only when both are used;
* gamma is Marsaglia and Tsang's method (``d = alpha - 1/3``, ``c = 1 / 3 / sqrt(d)``),
  with ``alpha < 1`` boosted to ``alpha + 1`` and scaled by ``u ** (1 / alpha)``, and
  ``alpha == 1`` an exponential ``-log1p(-u)`` of one uniform;
* Poisson is Knuth's product of uniforms below rate 10 and Hormann's transformed
  rejection from rate 10.

Output ``i`` lands at ``sample * num_params + param``.  The loops here run every output
at once, each advancing in lock step through its own blocks, so the values are TF's.
The float64 functions (log, log1p, pow, sin, cos) are NumPy's, which agree with glibc's
on these inputs; ``lgamma`` in Hormann's test is CPython's, which can differ from
glibc's in the last bit, changing a draw only if that bit decides the comparison.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from symgrad.ops.random import philox

_RESERVED = 256  # blocks each output may use (kReservedSamplesPerOutput)


class _Pairs:
    """Per-output buffers of a two-value sampler over each output's own blocks."""

    def __init__(self, n: int) -> None:
        self.buf = np.zeros((n, 2))
        self.left = np.zeros(n, np.int64)

    def take(self, rows: np.ndarray, fill: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        empty = rows[self.left[rows] == 0]
        if empty.size:
            self.buf[empty] = fill(empty)
            self.left[empty] = 2
        self.left[rows] -= 1
        return self.buf[rows, self.left[rows]]  # type: ignore[no-any-return]


class _Fill:
    """Reads each output's next block (its position in its own stretch of the stream)."""

    def __init__(self, key: int, counter: int, n: int) -> None:
        self.key, self.counter = key, counter
        self.base = np.arange(n, dtype=np.uint64) * np.uint64(_RESERVED)
        self.next = np.zeros(n, np.uint64)

    def block(self, rows: np.ndarray) -> np.ndarray:
        w = philox.blocks_at(self.key, self.counter, self.base[rows] + self.next[rows])
        self.next[rows] += np.uint64(1)
        return w

    def uniform(self, rows: np.ndarray) -> np.ndarray:
        w = self.block(rows)
        return np.stack([philox._f64(w[:, 0], w[:, 1]), philox._f64(w[:, 2], w[:, 3])], -1)

    def normal(self, rows: np.ndarray) -> np.ndarray:
        w = self.block(rows)
        return np.stack(philox._box_muller_f64(w[:, 0], w[:, 1], w[:, 2], w[:, 3]), -1)


def _layout(values: np.ndarray, per_param: int) -> np.ndarray:
    """Parameter-major results (output i) in TF's output order (sample-major)."""
    return values.reshape(-1, per_param).T.reshape(-1)


@np.errstate(divide="ignore", invalid="ignore", over="ignore")
def gamma(key: int, counter: int, alpha: np.ndarray, per_alpha: int) -> np.ndarray:
    """Gamma(alpha, 1) draws in float64: ``[per_alpha * alpha.size]``, sample-major."""
    a = np.repeat(alpha.astype(np.float64).reshape(-1), per_alpha)
    n = a.size
    out = np.zeros(n)
    fill = _Fill(key, counter, n)
    one = np.nonzero(a == 1.0)[0]
    if one.size:
        out[one] = -np.log1p(-fill.uniform(one)[:, 1])
    small = a < 1
    d = a + np.where(small, 2.0 / 3, -1.0 / 3)
    c = 1.0 / 3 / np.sqrt(d)
    normals, uniforms = _Pairs(n), _Pairs(n)
    active = np.nonzero(a != 1.0)[0]
    while active.size:
        x = normals.take(active, fill.normal)
        v = 1 + c[active] * x
        ok = ~(v <= 0)  # TF redraws only when v <= 0: a NaN v goes on (to a NaN draw)
        rows, x, v = active[ok], x[ok], v[ok]
        v = v * v * v
        u = uniforms.take(rows, fill.uniform)
        dr = d[rows]
        accept = (u < 1 - 0.0331 * (x * x) * (x * x)) | (
            np.log(u) < 0.5 * x * x + dr * (1 - v + np.log(v))
        )
        done = rows[accept]
        res = dr[accept] * v[accept]
        boost = small[done]
        if boost.any():
            b = uniforms.take(done[boost], fill.uniform)
            res[boost] *= np.power(b, 1 / a[done[boost]])
        out[done] = res
        finished = np.zeros(n, bool)
        finished[done] = True
        active = active[~finished[active]]
    return _layout(out, per_alpha)


@np.errstate(divide="ignore", invalid="ignore", over="ignore")
def poisson(key: int, counter: int, rate: np.ndarray, per_rate: int, highest: float) -> np.ndarray:
    """Poisson(rate) draws as float64 counts: ``[per_rate * rate.size]``, sample-major.
    ``highest`` is the output type's largest value (draws above it are redrawn)."""
    r = np.repeat(rate.astype(np.float64).reshape(-1), per_rate)
    n = r.size
    out = np.zeros(n)
    fill = _Fill(key, counter, n)
    uniforms = _Pairs(n)
    # Knuth: count uniforms until their product falls to exp(-rate).
    active = np.nonzero(r < 10)[0]  # NaN rates go to Hormann's loop, as in TF
    prod, x = np.ones(n), np.zeros(n)
    limit = np.exp(-r)
    while active.size:
        prod[active] = prod[active] * uniforms.take(active, fill.uniform)
        stop = (prod[active] <= limit[active]) & (x[active] <= highest)
        out[active[stop]] = x[active[stop]]
        x[active[~stop]] += 1
        active = active[~stop]
    # Hormann's transformed rejection.
    log_rate = np.log(r)
    b = 0.931 + 2.53 * np.sqrt(r)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    active = np.nonzero(~(r < 10))[0]
    while active.size:
        u = uniforms.take(active, fill.uniform) - 0.5
        v = uniforms.take(active, fill.uniform)
        us = 0.5 - np.abs(u)
        ra, rb = a[active], b[active]
        k = np.floor((2 * ra / us + rb) * u + r[active] + 0.43)
        fits = ~(k > highest)
        quick = fits & (us >= 0.07) & (v <= v_r[active])
        test = fits & ~quick & ~((k < 0) | ((us < 0.013) & (v > us)))
        accept = quick.copy()
        if test.any():
            t_rows = active[test]
            s = np.log(v[test] * inv_alpha[t_rows] / (ra[test] / (us[test] * us[test]) + rb[test]))
            kt = k[test]
            lg = np.array([math.lgamma(z) if math.isfinite(z) else math.inf for z in kt + 1])
            t = -r[t_rows] + kt * log_rate[t_rows] - lg
            accept[test] = s <= t
        out[active[accept]] = k[accept]
        active = active[~accept]
    return _layout(out, per_rate)


def to_dtype(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A float64 result cast as C++'s ``static_cast`` does (half rounds through float)."""
    if dtype == np.float16:
        return values.astype(np.float32).astype(np.float16)
    return values.astype(dtype)


# -------------------------------------------------------------------------------------
# RandomGammaGrad: d sample / d alpha, Eigen's gamma_sample_der_alpha


_CEPHES = {  # machep, big, biginv, iterations (Eigen's cephes_helper, SAMPLE_DERIVATIVE)
    np.dtype(np.float32): (2.0**-24, 2.0**24, 2.0**-24, 200),
    np.dtype(np.float64): (2.0**-53, 2.0**52, 2.0**-52, 500),
}


@np.errstate(all="ignore")
def gamma_sample_der_alpha(alpha: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """The implicit derivative -(dF/dalpha) / (dF/dx) of the Gamma(alpha, 1) CDF F at the
    sample, as Eigen computes it: forward-mode derivatives of Cephes' series (x <= 1 or
    x <= alpha) or continued fraction, in the inputs' dtype, with Eigen's iteration limits
    and stopping rules."""
    from symgrad.ops.math import specfun

    a, x = np.broadcast_arrays(alpha, sample)
    t = a.dtype.type
    a, x = a.reshape(-1).copy(), x.reshape(-1).copy()
    machep, big, biginv, iters = (t(v) for v in _CEPHES[a.dtype])
    out = np.full(a.shape, np.nan, a.dtype)
    out[x == 0] = 0
    ok = (x > 0) & (a > 0)
    cf = ok & (x > 1) & (x > a)
    series = ok & ~cf
    one = t(1)

    def digamma(z: np.ndarray) -> np.ndarray:
        return specfun.digamma(z).astype(a.dtype)  # type: ignore[no-any-return]

    if series.any():
        aa, xx = a[series], x[series]
        r, c, ans = aa.copy(), np.ones_like(aa), np.ones_like(aa)
        dc, dans = np.zeros_like(aa), np.zeros_like(aa)
        live = np.ones(aa.shape, bool)
        for _ in range(int(iters)):
            if not live.any():
                break
            r = np.where(live, r + one, r)
            term = xx / r
            dterm = -xx / (r * r)
            dc = np.where(live, term * dc + dterm * c, dc)
            dans = np.where(live, dans + dc, dans)
            c = np.where(live, c * term, c)
            ans = np.where(live, ans + c, ans)
            live &= ~(np.abs(dc) <= machep * np.abs(dans))
        dlogax = np.log(xx) - digamma(aa + one)
        out[series] = -(dans + ans * dlogax) * xx / aa
    if cf.any():
        aa, xx = a[cf], x[cf]
        y = one - aa
        z = xx + y + one
        c = np.zeros_like(aa)
        pkm2, qkm2, pkm1, qkm1 = np.ones_like(aa), xx.copy(), xx + one, z * xx
        ans = pkm1 / qkm1
        dpkm2, dqkm2, dpkm1, dqkm1 = (np.zeros_like(aa), np.zeros_like(aa), np.zeros_like(aa), -xx)
        dans = (dpkm1 - ans * dqkm1) / qkm1
        live = np.ones(aa.shape, bool)
        for _ in range(int(iters)):
            if not live.any():
                break
            c, y, z = c + one, y + one, z + t(2)
            yc = y * c
            pk = pkm1 * z - pkm2 * yc
            qk = qkm1 * z - qkm2 * yc
            dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
            dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
            upd = live & (qk != 0)
            ans_new = np.where(upd, pk / qk, ans)
            dans_new = np.where(upd, (dpk - ans_new * dqk) / qk, dans)
            stop = upd & (np.abs(dans_new - dans) <= machep)
            ans, dans = ans_new, dans_new
            go = live & ~stop
            big_now = go & (np.abs(pk) > big)
            s = np.where(big_now, biginv, one)
            pkm2, pkm1 = np.where(go, pkm1, pkm2) * s, np.where(go, pk, pkm1) * s
            qkm2, qkm1 = np.where(go, qkm1, qkm2) * s, np.where(go, qk, qkm1) * s
            dpkm2, dpkm1 = np.where(go, dpkm1, dpkm2) * s, np.where(go, dpk, dpkm1) * s
            dqkm2, dqkm1 = np.where(go, dqkm1, dqkm2) * s, np.where(go, dqk, dqkm1) * s
            live = go
        dlogax = np.log(xx) - digamma(aa)
        res = -(dans + ans * dlogax) * xx
        out[cf] = np.where(np.isinf(xx), t(0), -res)
    return out.reshape(np.broadcast(alpha, sample).shape)
