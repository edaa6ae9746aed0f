"""TensorFlow's random numbers on NumPy, bit for bit: Philox-4x32-10 and its distributions.

Every CPU random kernel of TensorFlow draws from one counter-based generator: block ``i``
of a stream is ``Philox(key, counter + i)``, four uint32 words, with a 64-bit key and a
128-bit counter.  A kernel's output is a pure function of (key, counter, size), so the
whole output is computed here at once, vectorised over blocks, and equals TF's.

What fixes each number, as TF's kernels do it:

* ``seed_key_counter``: a stateless op's seed pair is hashed into (key, counter) by one
  Philox block under a fixed key (TF's ``GenerateKey``);
* ``Stream``: a stateful op's generator starts at key ``seed``, counter ``seed2 << 64``
  and skips ``256 * n`` blocks per run of ``n`` outputs (``GuardedPhiloxRandom``);
* the fills: output group ``g`` of a fixed-size distribution reads block ``g`` (four
  float32, or two float64 from word pairs); truncated normal reads from block
  ``g * 256 * group / 4`` on, as many as its rejections need;
* the conversions: a uniform float is the mantissa trick (23 bits, 52 for float64, 10 for
  float16), a normal is Box-Muller on a pair of uniforms.

Box-Muller in float32 calls glibc's ``logf`` and ``sincosf``; NumPy's float32 ``log`` and
``sin`` round differently in about 1% of cases, so ``_logf`` and ``_sincosf`` redo glibc's
algorithms (its tables and polynomials, evaluated in double and rounded once, as glibc
does).  They agree with glibc on every one of the 2**23 inputs Box-Muller can produce
(checked exhaustively against libm); they are not general-purpose functions.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np

_U32 = 0xFFFFFFFF
_U64 = (1 << 64) - 1
_U128 = (1 << 128) - 1
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_LOW, _32 = np.uint64(_U32), np.uint64(32)

# -------------------------------------------------------------------------------------
# The generator


def blocks_at(key: int, counter: int, offsets: np.ndarray) -> np.ndarray:
    """Philox-4x32-10 at ``counter + offsets`` (128-bit sums): an ``[n, 4]`` uint32 array."""
    lo = np.uint64(counter & _U64) + offsets.astype(np.uint64)  # wraps, carry below
    hi = np.uint64((counter >> 64) & _U64) + (lo < np.uint64(counter & _U64)).astype(np.uint64)
    c0, c1, c2, c3 = lo & _LOW, lo >> _32, hi & _LOW, hi >> _32
    for k0, k1 in _round_keys(key):
        p0, p1 = _M0 * c0, _M1 * c2  # exact: both factors are below 2**32
        c0, c1, c2, c3 = (p1 >> _32) ^ c1 ^ k0, p1 & _LOW, (p0 >> _32) ^ c3 ^ k1, p0 & _LOW
    return np.stack([c0, c1, c2, c3], -1).astype(np.uint32)


@functools.lru_cache(maxsize=256)
def _round_keys(key: int) -> tuple[tuple[np.uint64, np.uint64], ...]:
    """The key of each of the ten rounds (raised by the Weyl constants each round)."""
    k0, k1 = key & _U32, key >> 32
    return tuple(
        (np.uint64((k0 + r * _W0) & _U32), np.uint64((k1 + r * _W1) & _U32)) for r in range(10)
    )


def blocks(key: int, counter: int, n: int) -> np.ndarray:
    return blocks_at(key, counter, np.arange(n, dtype=np.uint64))


def uint32s(key: int, counter: int, n: int) -> np.ndarray:
    """The stream's first ``n`` words, in the order TF's single-sample adapter reads them."""
    return blocks(key, counter, (n + 3) // 4).reshape(-1)[:n]


def seed_key_counter(seed: Sequence[int]) -> tuple[int, int]:
    """A stateless op's (key, counter) for ``seed`` (two int32/int64 values, sign-extended)."""
    s0, s1 = (int(s) & _U64 for s in seed)
    words = blocks(0x02461E29_3EC8F720, s0 | s1 << 64, 1)[0].tolist()
    return words[0] | words[1] << 32, (words[2] | words[3] << 32) << 64


class Stream:
    """A stateful op's generator: each run reserves the blocks it may use, from where the
    previous run stopped.  Seeds (0, 0) mean "not seeded": the key is drawn at random."""

    __slots__ = ("counter", "key")

    def __init__(self, seed: int, seed2: int) -> None:
        if seed == 0 and seed2 == 0:
            seed, seed2 = secrets.randbits(64), secrets.randbits(64)
        self.key = seed & _U64
        self.counter = (seed2 & _U64) << 64

    @classmethod
    def at(cls, key: int, counter: int) -> Stream:
        """A generator set to (key, counter), as a stateless op's kernel makes one."""
        stream = cls.__new__(cls)
        stream.key, stream.counter = key, counter
        return stream

    def reserve(self, n_blocks: int) -> int:
        """The counter to fill from now; the next run starts ``n_blocks`` further on."""
        start = self.counter
        self.counter = (start + n_blocks) & _U128
        return start


# -------------------------------------------------------------------------------------
# The fills: ``n`` outputs from the stream at (key, counter)


def uniform(key: int, counter: int, n: int, dtype: Any) -> np.ndarray:
    """Uniform floats in [0, 1): the words' low mantissa bits under exponent 0, minus 1."""
    d = np.dtype(dtype)
    if d == np.float64:
        w = blocks(key, counter, (n + 1) // 2).reshape(-1, 2)
        return _f64(w[:, 0], w[:, 1])[:n]
    w = blocks(key, counter, (n + 3) // 4).reshape(-1)[:n]
    if d == np.float16:
        half = (w & np.uint32(0x3FF)).astype(np.uint16) | np.uint16(15 << 10)
        return half.view(np.float16) - np.float16(1)  # type: ignore[no-any-return]
    return _f32(w)


def normal(key: int, counter: int, n: int, dtype: Any) -> np.ndarray:
    """Standard normals: Box-Muller on word pairs (two pairs of words per float64 pair)."""
    d = np.dtype(dtype)
    if d == np.float64:
        w = blocks(key, counter, (n + 1) // 2)
        z0, z1 = _box_muller_f64(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        return np.stack([z0, z1], -1).reshape(-1)[:n]
    w = blocks(key, counter, (n + 3) // 4).reshape(-1, 2)
    z0, z1 = _box_muller_f32(w[:, 0], w[:, 1])
    return np.stack([z0, z1], -1).reshape(-1)[:n].astype(d)


def truncated_normal(key: int, counter: int, n: int, dtype: Any) -> np.ndarray:
    """Normals with |z| < 2, redrawn by rejection; each output group owns its own stretch
    of the stream (256 blocks per four float32 outputs), so groups fill independently."""
    d = np.dtype(dtype)
    group = 2 if d == np.float64 else 4
    groups = (n + group - 1) // group
    base = np.arange(groups, dtype=np.uint64) * np.uint64(group * 64)
    out = np.zeros((groups, group), np.float64 if d == np.float64 else np.float32)
    filled = np.zeros(groups, np.int64)
    active = np.arange(groups)
    j = 0
    while active.size:
        w = blocks_at(key, counter, base[active] + np.uint64(j))
        if d == np.float64:
            cand = np.stack(_box_muller_f64(w[:, 0], w[:, 1], w[:, 2], w[:, 3]), -1)
        else:
            a, b = _box_muller_f32(w[:, [0, 2]].reshape(-1), w[:, [1, 3]].reshape(-1))
            cand = np.stack([a, b], -1).reshape(-1, 4)
        _place(out, filled, active, cand, np.abs(cand) < 2)
        active = active[filled[active] < group]
        j += 1
    return out.reshape(-1)[:n].astype(d)


def _place(
    out: np.ndarray, filled: np.ndarray, rows: np.ndarray, cand: np.ndarray, ok: np.ndarray
) -> None:
    """Append each row's accepted candidates, in order, to its group (until it is full)."""
    pos = filled[rows, None] + np.cumsum(ok, 1) - 1
    put = ok & (pos < out.shape[1])
    r, c = np.nonzero(put)
    out[rows[r], pos[r, c]] = cand[r, c]
    filled[rows] = np.minimum(filled[rows] + ok.sum(1), out.shape[1])


def uniform_int(key: int, counter: int, n: int, lo: int, hi: int, dtype: Any) -> np.ndarray:
    """Integers in [lo, hi): a word (two for 64-bit types) modulo the range, plus lo."""
    d = np.dtype(dtype)
    if d.itemsize == 8:
        w = blocks(key, counter, (n + 1) // 2).reshape(-1, 2).astype(np.uint64)
        bits = (w[:, 0] | w[:, 1] << _32)[:n]
        r = bits % np.uint64((hi - lo) & _U64)
        return (r + np.uint64(lo & _U64)).view(np.int64)
    w = blocks(key, counter, (n + 3) // 4).reshape(-1)[:n]
    r = (w % np.uint32((hi - lo) & _U32)).astype(np.int64)
    return (r + lo).astype(d)  # type: ignore[no-any-return]


def full_int(key: int, counter: int, n: int, dtype: Any) -> np.ndarray:
    """Integers over the whole range of ``dtype``: the raw words (pairs for 64 bits)."""
    d = np.dtype(dtype)
    if d.itemsize == 8:
        w = blocks(key, counter, (n + 1) // 2).reshape(-1, 2).astype(np.uint64)
        return (w[:, 0] | w[:, 1] << _32)[:n].view(d)
    return blocks(key, counter, (n + 3) // 4).reshape(-1)[:n].view(d)


def multinomial(
    key: int, counter: int, logits: np.ndarray, num_samples: int, dtype: Any
) -> np.ndarray:
    """TF's CPU sampler: per row, a float64 CDF of exp(logit - max) over the finite logits,
    and one uniform double (two words) per sample searched in it; rows read the stream
    one after another, as TF's kernel does when one thread runs them all."""
    rows, classes = logits.shape
    w = uint32s(key, counter, 2 * rows * num_samples).reshape(rows, num_samples, 2)
    u = _f64(w[..., 0], w[..., 1])
    out = np.zeros((rows, num_samples), dtype)
    for b in range(rows):  # one searchsorted per row: each row has its own CDF
        row = logits[b].astype(np.float64)
        finite = np.isfinite(row)
        top = row[finite].max() if finite.any() else np.finfo(np.float64).min
        cdf = np.cumsum(np.where(finite, np.exp(row - top), 0.0))
        total = cdf[-1] if classes else 0.0
        out[b] = np.searchsorted(cdf, u[b] * total, side="right")
    return out


def shuffle_order(key: int, counter: int, n: int) -> np.ndarray:
    """TF's Fisher-Yates order for ``n`` rows: swap row i with row i + word_i % (n - i)."""
    perm = np.arange(n)
    if n < 2:
        return perm
    words = uint32s(key, counter, n - 1).astype(np.int64)
    picks = (np.arange(n - 1) + words % np.arange(n, 1, -1)).tolist()
    order = perm.tolist()
    for i, j in enumerate(picks):  # each swap moves rows later swaps pick from: sequential
        order[i], order[j] = order[j], order[i]
    return np.array(order)


# -------------------------------------------------------------------------------------
# Conversions


def _f32(w: np.ndarray) -> np.ndarray:
    bits = (w & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)
    return bits.view(np.float32) - np.float32(1)  # type: ignore[no-any-return]


def _f64(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    bits = (hi.astype(np.uint64) & np.uint64(0xFFFFF)) << _32 | lo.astype(np.uint64)
    return (bits | np.uint64(1023 << 52)).view(np.float64) - 1.0  # type: ignore[no-any-return]


def _box_muller_f32(x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u1 = np.maximum(_f32(x0), np.float32(1e-7))  # keeps log away from 0, as TF does
    v1 = (2 * np.pi * _f32(x1).astype(np.float64)).astype(np.float32)  # 2*M_PI is a double
    u2 = np.sqrt(np.float32(-2) * _logf(u1))
    s, c = _sincosf(v1)
    return s * u2, c * u2


def _box_muller_f64(
    x0: np.ndarray, x1: np.ndarray, x2: np.ndarray, x3: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    u1 = np.maximum(_f64(x0, x1), 1e-7)
    v1 = 2 * np.pi * _f64(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


# glibc's logf: log(x) = log1p(z/c - 1) + log(c) + k*ln2 with x = 2^k z and c from a
# 16-entry table; its constants, as published in glibc's e_logf_data.c.
_LOGF_TABLE = np.array(
    [
        float.fromhex(h)
        for h in (
            "0x1.661ec79f8f3bep+0 -0x1.57bf7808caadep-2 0x1.571ed4aaf883dp+0 -0x1.2bef0a7c06ddbp-2 "
            "0x1.49539f0f010bp+0 -0x1.01eae7f513a67p-2 0x1.3c995b0b80385p+0 -0x1.b31d8a68224e9p-3 "
            "0x1.30d190c8864a5p+0 -0x1.6574f0ac07758p-3 0x1.25e227b0b8eap+0 -0x1.1aa2bc79c81p-3 "
            "0x1.1bb4a4a1a343fp+0 -0x1.a4e76ce8c0e5ep-4 0x1.12358f08ae5bap+0 -0x1.1973c5a611cccp-4 "
            "0x1.0953f419900a7p+0 -0x1.252f438e10c1ep-5 0x1p+0 0x0p+0 "
            "0x1.e608cfd9a47acp-1 0x1.aa5aa5df25984p-5 0x1.ca4b31f026aap-1 0x1.c5e53aa362eb4p-4 "
            "0x1.b2036576afce6p-1 0x1.526e57720db08p-3 0x1.9c2d163a1aa2dp-1 0x1.bc2860d22477p-3 "
            "0x1.886e6037841edp-1 0x1.1058bc8a07ee1p-2 0x1.767dcf5534862p-1 0x1.4043057b6ee09p-2"
        ).split()
    ]
).reshape(16, 2)
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_POLY = [
    float.fromhex(h)
    for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")
]


def _logf(x: np.ndarray) -> np.ndarray:
    """glibc's logf for positive normal float32 ``x``."""
    ix = x.view(np.uint32).astype(np.int64)
    tmp = (ix - 0x3F330000) & _U32
    i = (tmp >> 19) & 15
    k = ((tmp ^ 0x80000000) - 0x80000000) >> 23  # arithmetic shift of the int32
    z = (ix - (tmp & (0x1FF << 23))).astype(np.uint32).view(np.float32).astype(np.float64)
    r = z * _LOGF_TABLE[i, 0] - 1
    y0 = _LOGF_TABLE[i, 1] + k * _LN2
    a0, a1, a2 = _LOGF_POLY
    r2 = r * r
    y = (a0 * r2 + (a1 * r + a2)) * r2 + (y0 + r)
    return np.where(ix == 0x3F800000, 0.0, y).astype(np.float32)  # type: ignore[no-any-return]


# glibc's sincosf (s_sincosf_data.c): cosine and sine polynomials on [-pi/4, pi/4].
_C = [1.0] + [
    float.fromhex(h)
    for h in (
        "-0x1.ffffffd0c621cp-2",
        "0x1.55553e1068f19p-5",
        "-0x1.6c087e89a359dp-10",
        "0x1.99343027bf8c3p-16",
    )
]
_S = [
    float.fromhex(h)
    for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13")
]
_HPI_INV = float.fromhex("0x1.45F306DC9C883p+23")  # 2/pi, scaled by 2**24
_HPI = float.fromhex("0x1.921FB54442D18p0")


def _sincosf(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc's sincosf for float32 ``y`` in [0, 120) (one-step range reduction)."""
    x = y.astype(np.float64)
    top = (y.view(np.uint32) >> 20) & 0x7FF
    n = np.where(top < 0x3F4, 0, ((x * _HPI_INV).astype(np.int32) + 0x800000) >> 24)
    x = x - n * _HPI
    xs = x * np.array([1.0, -1.0, -1.0, 1.0])[n & 3]  # the sine's sign per quadrant
    x2 = x * x
    x3, x4 = x2 * xs, x2 * x2
    s = (xs + x3 * _S[0]) + (x3 * x2) * (_S[1] + x2 * _S[2])
    c = ((_C[0] + x2 * _C[1]) + x4 * _C[2]) + (x4 * x2) * (_C[3] + x2 * _C[4])
    c = np.where(n & 2, -c, c)  # quadrants 2 and 3 negate the cosine polynomial
    odd = (n & 1) == 1
    tiny = top < 0x398  # |y| < 2**-12: sin y = y, cos y = 1 in float32
    sin = np.where(tiny, x, np.where(odd, c, s)).astype(np.float32)
    cos = np.where(tiny, 1.0, np.where(odd, s, c)).astype(np.float32)
    return sin, cos
