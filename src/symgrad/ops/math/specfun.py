"""Special functions on NumPy arrays, in float64, without SciPy: the kernels of ``ops.special``.

NumPy is symgrad's only runtime dependency, so the error function, its inverse, the log
gamma function, digamma, polygamma and the Hurwitz zeta function are computed here, each
vectorised over whole arrays (loops run over a fixed number of refinement steps or series
terms, never over elements).  Every function takes and returns float64 arrays; the op
kernels cast to the input's dtype.

* ``erf`` / ``erfc``: W. J. Cody's rational Chebyshev approximations (Math. Comp. 23,
  1969), about 1e-16 relative, with ``exp(-x²)`` split in two as Cody does so that large
  arguments keep their accuracy;
* ``erfinv``: Giles' single-precision approximation refined by Halley steps on ``erf``
  (or on ``erfc`` near ±1, where ``1 - y`` is exact);
* ``lgamma``: the Taylor series of lgamma(1 + e) on [0.5, 2.5], where lgamma crosses zero
  at 1 and 2 and Lanczos keeps only absolute accuracy; Lanczos (g = 7, 9 terms) above, and
  reflection below 0.5;
* ``digamma``: reflection, recurrence up to 10 and the asymptotic series;
* ``zeta`` (Hurwitz) and ``polygamma``: the Euler-Maclaurin sum Cephes uses, with the
  domain rules of TensorFlow's kernels (Eigen): ``zeta(1, q) = inf``, ``zeta(s < 1, q)``
  and non-integer ``s`` at ``q < 0`` are nan; at a pole ``q = 0, -1, ...`` the result is
  inf for even integer ``s`` and nan otherwise.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

# --------------------------------------------------------------------------------------
# erf, erfc (W. J. Cody, 1969)

_A = (
    3.16112374387056560e00,
    1.13864154151050156e02,
    3.77485237685302021e02,
    3.20937758913846947e03,
    1.85777706184603153e-1,
)
_B = (
    2.36012909523441209e01,
    2.44024637934444173e02,
    1.28261652607737228e03,
    2.84423683343917062e03,
)
_C = (
    5.64188496988670089e-1,
    8.88314979438837594e00,
    6.61191906371416295e01,
    2.98635138197400131e02,
    8.81952221241769090e02,
    1.71204761263407058e03,
    2.05107837782607147e03,
    1.23033935479799725e03,
    2.15311535474403846e-8,
)
_D = (
    1.57449261107098347e01,
    1.17693950891312499e02,
    5.37181101862009858e02,
    1.62138957456669019e03,
    3.29079923573345963e03,
    4.36261909014324716e03,
    3.43936767414372164e03,
    1.23033935480374942e03,
)
_P = (
    3.05326634961232344e-1,
    3.60344899949804439e-1,
    1.25781726111229246e-1,
    1.60837851487422766e-2,
    6.58749161529837803e-4,
    1.63153871373020978e-2,
)
_Q = (
    2.56852019228982242e00,
    1.87295284992346047e00,
    5.27905102951428412e-1,
    6.05183413124413191e-2,
    2.33520497626869185e-3,
)
F = TypeVar("F", bound=Callable[..., Any])
_SQRPI = 5.6418958354775628695e-1  # 1 / sqrt(pi)
_XBIG = 26.543  # erfc underflows beyond


def _f64(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _quiet(fn: F) -> F:
    """``fn`` on flat float64 arrays (its arguments broadcast), with NumPy's floating-point
    warnings off (inf and nan are values here); the result takes the broadcast shape."""

    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        arrays = np.broadcast_arrays(*(_f64(a) for a in args))
        with np.errstate(all="ignore"):
            out = fn(*(np.ravel(a) for a in arrays))
        return np.reshape(out, arrays[0].shape)

    return wrapper  # type: ignore[return-value]


def _erf_small(y: np.ndarray) -> np.ndarray:
    """erf(y) / y for |y| <= 0.46875."""
    z = y * y
    num, den = _A[4] * z, z
    for i in range(3):
        num, den = (num + _A[i]) * z, (den + _B[i]) * z
    return (num + _A[3]) / (den + _B[3])  # type: ignore[no-any-return]


def _exp_neg_square(y: np.ndarray) -> np.ndarray:
    """exp(-y²) as Cody computes it: y² split so that its rounding error is not magnified."""
    ysq = np.trunc(16.0 * y) / 16.0
    return np.exp(-ysq * ysq) * np.exp(-(y - ysq) * (y + ysq))  # type: ignore[no-any-return]


def _erfc_pos(y: np.ndarray) -> np.ndarray:
    """erfc(y) for y > 0.46875 (0 beyond the underflow point, nan stays nan)."""
    out = np.zeros_like(y)
    mid = y <= 4.0
    ym = y[mid]
    num, den = _C[8] * ym, ym
    for i in range(7):
        num, den = (num + _C[i]) * ym, (den + _D[i]) * ym
    out[mid] = (num + _C[7]) / (den + _D[7]) * _exp_neg_square(ym)
    big = (y > 4.0) & (y < _XBIG)
    yb = y[big]
    z = 1.0 / (yb * yb)
    num, den = _P[5] * z, z
    for i in range(4):
        num, den = (num + _P[i]) * z, (den + _Q[i]) * z
    r = z * (num + _P[4]) / (den + _Q[4])
    out[big] = (_SQRPI - r) / yb * _exp_neg_square(yb)
    out[np.isnan(y)] = np.nan
    return out


@_quiet
def erf(x: Any) -> np.ndarray:
    x = _f64(x)
    y = np.abs(x)
    small = y <= 0.46875
    out = np.empty_like(x)
    out[small] = x[small] * _erf_small(y[small])
    rest = ~small
    out[rest] = np.copysign(1.0 - _erfc_pos(y[rest]), x[rest])
    return out


@_quiet
def erfc(x: Any) -> np.ndarray:
    x = _f64(x)
    y = np.abs(x)
    small = y <= 0.46875
    out = np.empty_like(x)
    out[small] = 1.0 - x[small] * _erf_small(y[small])
    rest = ~small
    tail = _erfc_pos(y[rest])
    out[rest] = np.where(x[rest] < 0, 2.0 - tail, tail)
    return out


# --------------------------------------------------------------------------------------
# erfinv: a single-precision start, then Halley steps

_GILES_CENTRAL = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_GILES_TAIL = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)


def _horner(coefs: tuple[float, ...], w: np.ndarray) -> np.ndarray:
    p = np.full_like(w, coefs[0])
    for c in coefs[1:]:
        p = c + p * w
    return p


@_quiet
def erfinv(y: Any) -> np.ndarray:
    """The inverse of erf on (-1, 1); ±inf at ±1, nan outside."""
    y = _f64(y)
    a = np.abs(y)
    inside = a < 1.0
    ai = a[inside]
    w = -np.log((1.0 - ai) * (1.0 + ai))
    x = (
        np.where(
            w < 5.0,
            _horner(_GILES_CENTRAL, w - 2.5),
            _horner(_GILES_TAIL, np.sqrt(np.maximum(w, 5.0)) - 3.0),
        )
        * ai
    )
    near_one = ai > 0.5
    for _ in range(3):  # Halley: x -= f / (f' + x f), with f' = 2/sqrt(pi) exp(-x²)
        f = np.where(near_one, (1.0 - ai) - erfc(x), erf(x) - ai)
        d = 2.0 * _SQRPI * np.exp(-x * x)
        x = np.where(f == 0, x, x - f / (d + x * f))
    out = np.full_like(y, np.nan)
    out[inside] = np.copysign(x, y[inside])
    out[a == 1.0] = np.copysign(np.inf, y[a == 1.0])
    return out


# --------------------------------------------------------------------------------------
# lgamma

_LANCZOS_G = 7.0
_LANCZOS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_EULER = 0.57721566490153286061
_SERIES_TERMS = 64  # ζ(k)/k ε^k with |ε| <= 0.5: below 1e-20 by the last term


def _lanczos_lgamma(z: np.ndarray) -> np.ndarray:
    """lgamma(z) for z >= 0.5."""
    zm = z - 1.0
    acc = np.full_like(z, _LANCZOS[0])
    for i in range(1, len(_LANCZOS)):
        acc += _LANCZOS[i] / (zm + i)
    t = zm + _LANCZOS_G + 0.5
    return _HALF_LOG_2PI + (zm + 0.5) * np.log(t) - t + np.log(acc)  # type: ignore[no-any-return]


def _lgamma1p_series(e: np.ndarray) -> np.ndarray:
    """lgamma(1 + e) for |e| <= 0.5: -γe + Σ_k (-1)^k ζ(k)/k e^k, summed from the top."""
    acc = np.zeros_like(e)
    for k in range(_SERIES_TERMS + 1, 1, -1):
        acc = (acc + (-1) ** k * _ZETA_INT[k] / k) * e
    return (acc - _EULER) * e + 0.0  # type: ignore[no-any-return]  # (+0.0: no -0.0)


def _abs_sinpi(x: np.ndarray) -> np.ndarray:
    """|sin(pi x)|, exactly 0 at integers and accurate for large |x|."""
    return np.abs(np.sin(np.pi * (x - np.round(x))))  # type: ignore[no-any-return]


@_quiet
def lgamma(x: Any) -> np.ndarray:
    """log|Γ(x)|: inf at 0, -1, -2, ... and at ±inf, as TF."""
    x = _f64(x)
    refl = x < 0.5
    z = np.where(refl, 1.0 - x, x)
    out = _lanczos_lgamma(z)
    out[z == np.inf] = np.inf
    near1 = np.abs(z - 1.0) <= 0.5
    near2 = ~near1 & (np.abs(z - 2.0) <= 0.5)
    out[near1] = _lgamma1p_series(z[near1] - 1.0)
    e2 = z[near2] - 2.0
    out[near2] = _lgamma1p_series(e2) + np.log1p(e2)
    reflected = np.log(np.pi / _abs_sinpi(x[refl])) - out[refl]
    out[refl] = np.where(np.isinf(x[refl]), np.inf, reflected)
    return out


# --------------------------------------------------------------------------------------
# Bernoulli numbers, ζ at integers, digamma

_BERNOULLI = [
    Fraction(1, 6),
    Fraction(-1, 30),
    Fraction(1, 42),
    Fraction(-1, 30),
    Fraction(5, 66),
    Fraction(-691, 2730),
    Fraction(7, 6),
    Fraction(-3617, 510),
    Fraction(43867, 798),
    Fraction(-174611, 330),
    Fraction(854513, 138),
    Fraction(-236364091, 2730),
]  # B_2, B_4, ..., B_24
_EM = [float(math.factorial(2 * j) / b) for j, b in enumerate(_BERNOULLI, 1)]  # (2j)!/B_2j
_DIGAMMA_SERIES = [float(b / (2 * j)) for j, b in enumerate(_BERNOULLI[:8], 1)]


def _psi_asymptotic(z: np.ndarray) -> np.ndarray:
    """digamma(z) for z >= 10: log z - 1/(2z) - Σ B_2k / (2k z^2k)."""
    w = 1.0 / (z * z)
    acc = np.zeros_like(z)
    for c in reversed(_DIGAMMA_SERIES):
        acc = (acc + c) * w
    return np.log(z) - 0.5 / z - acc  # type: ignore[no-any-return]


@_quiet
def digamma(x: Any) -> np.ndarray:
    """ψ(x) = Γ'(x)/Γ(x): nan at 0, -1, -2, ... and at -inf, as TF."""
    x = _f64(x)
    refl = x < 0.5
    z = np.where(refl, 1.0 - x, x)
    shift = np.zeros_like(z)
    for _ in range(10):  # recurrence ψ(z) = ψ(z + 1) - 1/z up to z >= 10
        low = z < 10.0
        shift -= np.where(low, 1.0 / np.where(low, z, 1.0), 0.0)
        z = np.where(low, z + 1.0, z)
    out = _psi_asymptotic(z) + shift
    xr = x[refl]
    r = xr - np.round(xr)
    cot = np.pi / np.tan(np.pi * r)
    out[refl] = np.where((r == 0) | np.isinf(xr), np.nan, out[refl] - cot)
    return out


# --------------------------------------------------------------------------------------
# Hurwitz zeta and polygamma

_MACHEP = 1.11022302462515654042e-16
_MAX_SHIFT = 1000


@_quiet
def zeta(s: Any, q: Any) -> np.ndarray:
    """Hurwitz ζ(s, q) = Σ_k (q + k)^-s for s > 1 (Cephes' Euler-Maclaurin sum)."""
    out = np.full(s.shape, np.nan)
    pole = (q <= 0) & (q == np.floor(q))
    ok = (s > 1) & ~pole & ((q > 0) | (s == np.floor(s))) & (q < np.inf)
    out[ok] = _zeta_sum(s[ok], q[ok])
    out[(s > 1) & (q == np.inf)] = 0.0
    out[pole & (s > 1) & (s == np.floor(s)) & (np.mod(s, 2) == 0)] = np.inf
    out[s == 1] = np.inf
    return out


def _zeta_sum(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    total = np.power(q, -s)
    a, b = q.copy(), np.zeros_like(q)
    for _ in range(9):
        a, b = a + 1.0, np.power(a + 1.0, -s)
        total += b
    for _ in range(_MAX_SHIFT):  # q < 0: keep shifting until the tail starts past 9
        more = a <= 9.0
        if not more.any():
            break
        a = np.where(more, a + 1.0, a)
        b = np.where(more, np.power(a, -s), b)
        total += np.where(more, b, 0.0)
    total[a <= 9.0] = np.nan  # q below -_MAX_SHIFT: out of reach
    w = a
    total += b * w / (s - 1.0) - 0.5 * b
    fac, k = np.ones_like(s), 0.0
    live = np.ones(s.shape, bool)
    for em in _EM:  # Euler-Maclaurin terms, each element stopping once they are negligible
        fac = fac * (s + k)
        b = b / w
        t = fac * b / em
        total = np.where(live, total + t, total)
        live &= ~(np.abs(t / total) < _MACHEP)
        fac = fac * (s + k + 1.0)
        b = b / w
        k += 2.0
    return total


@_quiet
def polygamma(n: Any, x: Any) -> np.ndarray:
    """ψ⁽ⁿ⁾(x) = (-1)^(n+1) n! ζ(n + 1, x) for integer n >= 1, digamma for n = 0; nan for
    other n, as TF."""
    out = np.full(n.shape, np.nan)
    whole = (n >= 0) & (n == np.floor(n))
    zero = whole & (n == 0)
    out[zero] = digamma(x[zero])
    pos = whole & (n > 0)
    m = n[pos]
    sign = np.where(np.mod(m, 2) == 1, 1.0, -1.0)
    out[pos] = sign * np.exp(lgamma(m + 1.0)) * zeta(m + 1.0, x[pos])
    return out


_ZETA_INT = [np.nan, np.inf] + [
    float(v) for v in zeta(np.arange(2.0, _SERIES_TERMS + 2.0), np.ones(_SERIES_TERMS))
]
