"""Comparing a program's results with the literals TensorFlow gave (see record_tf.py).

Programs return tuples (or dicts) of results; a list in a literal is one array's values.
Floats are compared within ``ulps`` units in the last place (``ulp.py``): a training step
goes through exp, log, pow and sums whose last bit depends on the CPU's SIMD code, the BLAS
and the NumPy version, and an optimizer magnifies it: Adam divides by ``1 - beta_2**t``
(0.001 at t=1), so a one-ulp difference in ``pow`` moves the step by hundreds of ulps and
the variable by tens.  Measured: 1 ulp (float32, NumPy 2.4 with AVX-512 against TF), 19
ulps (``adam_float64``, NumPy 1.24's float64 ``pow`` against 2.4's); the bound is 32.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ulp import assert_ulp


def assert_matches(
    actual: Any,
    expected: Any,
    rtol: float = 0.0,
    atol: float = 0.0,
    where: str = "result",
    ulps: int = 32,
) -> None:
    """``actual`` has ``expected``'s structure and values: floats within ``ulps`` units in
    the last place by default (literals parse back to the exact float32), else within
    ``rtol``/``atol``; NaNs match; other dtypes exactly."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and actual.keys() == expected.keys(), where
        for k in expected:
            assert_matches(actual[k], expected[k], rtol, atol, f"{where}[{k!r}]", ulps)
        return
    if isinstance(expected, tuple):
        assert isinstance(actual, list | tuple) and len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_matches(a, e, rtol, atol, f"{where}[{i}]", ulps)
        return
    if isinstance(expected, bool | str | bytes) or expected is None:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"
        return
    got = np.asarray(actual.numpy() if hasattr(actual, "numpy") else actual)
    want = np.asarray(expected, dtype=got.dtype if got.dtype.kind in "fc" else None)
    assert got.shape == want.shape, f"{where}: shape {got.shape} != {want.shape}"
    if got.dtype.kind in "fc" and not (rtol or atol):
        assert_ulp(got, want, ulps, err_msg=where)
    elif got.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)
