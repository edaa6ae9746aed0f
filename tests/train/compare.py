"""Comparing a program's results with the literals TensorFlow gave (see record_tf.py).

Programs return tuples (or dicts) of results; a list in a literal is one array's values.
Floats are compared within a few ulps by default: a training step goes through exp, log,
pow and sums whose last bit depends on the CPU's SIMD code and on the BLAS (``ulp.py``).
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
    ulps: int = 4,
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
