"""Comparing floats in units in the last place (ulps) of their dtype.

A value that went through exp, log, sin, tanh, pow, erf... (or a sum whose order a BLAS or
a SIMD loop picks) is not bit-identical across CPUs and NumPy versions: NumPy dispatches
those functions to SIMD code chosen at run time (AVX-512, AVX2, SSE), each accurate to
about an ulp but not correctly rounded, and TF's Eigen kernels are another such
implementation.  Such values are compared with TF's literals within a stated number of
ulps; exact comparison stays for exact computations (integer ops, Philox bits, uniform
floats from bits, + - * of representable values, sqrt).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def ulp_distance(actual: Any, expected: Any) -> np.ndarray:
    """How many representable values of ``actual``'s float dtype lie between ``actual``
    and ``expected`` (elementwise, as int64; 0 for equal values, +0 and -0, and NaN
    against NaN; a huge number for NaN against a number)."""
    a = np.asarray(actual)
    e = np.broadcast_to(np.asarray(expected, dtype=a.dtype), a.shape).reshape(-1)
    d = _distance(_ordered(a.reshape(-1)), _ordered(e))
    nan_a, nan_e = np.isnan(a.reshape(-1)), np.isnan(e)
    d[nan_a & nan_e] = 0
    d[nan_a ^ nan_e] = np.iinfo(np.int64).max
    return d.reshape(a.shape)


def _ordered(x: np.ndarray) -> np.ndarray:
    """The float bits as integers that sort as the floats do (-0 and +0 both 0)."""
    bits = x.view(_INT[x.dtype.itemsize]).astype(np.int64)
    low = np.int64(np.iinfo(_INT[x.dtype.itemsize]).min)
    return np.where(bits < 0, low - bits, bits)


def _distance(ia: np.ndarray, ie: np.ndarray) -> np.ndarray:
    """|ia - ie| without int64 overflow (saturated), for ordered float bits."""
    mag = np.abs(ia).astype(np.uint64), np.abs(ie).astype(np.uint64)
    same = (ia < 0) == (ie < 0)
    d = np.where(same, np.maximum(*mag) - np.minimum(*mag), mag[0] + mag[1])
    return np.minimum(d, np.uint64(np.iinfo(np.int64).max)).astype(np.int64)


def assert_ulp(
    actual: Any, expected: Any, ulps: int = 4, atol: float = 0.0, err_msg: str = ""
) -> None:
    """``actual`` equals ``expected`` (TF's literals, converted to ``actual``'s dtype)
    within ``ulps`` units in the last place elementwise, or within ``atol`` absolutely
    (for results near zero after cancellation, where an ulp is meaningless).  Shapes must
    match; complex values are compared part by part; NaN matches NaN, inf only inf."""
    a = np.asarray(actual.numpy() if hasattr(actual, "numpy") else actual)
    if a.dtype.kind not in "fc":
        raise TypeError(f"assert_ulp compares floats; got dtype {a.dtype} ({err_msg})")
    e = np.asarray(expected, dtype=a.dtype)
    where = f"{err_msg}: " if err_msg else ""
    assert a.shape == e.shape, f"{where}shape {a.shape}, expected {e.shape}"
    if a.dtype.kind == "c":
        assert_ulp(a.real, e.real, ulps, atol, f"{err_msg} (real part)")
        assert_ulp(a.imag, e.imag, ulps, atol, f"{err_msg} (imaginary part)")
        return
    d = ulp_distance(a, e)
    bad = d > ulps
    if atol:
        with np.errstate(invalid="ignore"):
            bad &= ~(np.abs(a.astype(np.float64) - e.astype(np.float64)) <= atol)
    if not bad.any():
        return
    i = np.unravel_index(int(np.argmax(np.where(bad, d, -1))), a.shape) if a.ndim else ()
    raise AssertionError(
        f"{where}{int(bad.sum())} of {a.size} {a.dtype} values differ by more than {ulps} "
        f"ulps{f' and {atol:g}' if atol else ''}; worst at index {tuple(map(int, i))}: "
        f"{a[i]!r} vs expected {e[i]!r} ({int(d[i])} ulps apart)"
    )


def assert_recorded(got: np.ndarray | None, want: tuple | None, tol: tuple, what: str) -> None:
    """``got`` against a value TF recorded as ``(dtype, shape, values)`` (None: TF gives
    no gradient): dtype and shape exactly, floats within ``tol`` = ``(ulps, atol)`` where
    given (else to the bit), anything else exactly."""
    if want is None:
        assert got is None, f"{what}: TF gives no gradient"
        return
    assert got is not None, f"{what}: symgrad gives no gradient"
    dtype, shape, values = want
    assert (got.dtype.name, got.shape) == (dtype, shape), what
    expected = np.asarray(values, dtype=dtype).reshape(shape)
    if tol and got.dtype.kind == "f":
        assert_ulp(got, expected, tol[0], atol=tol[1], err_msg=what)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=what)
