"""More keras.ops NumPy-style functions against TF 2.21's (ops_numpy_program.py): values,
result dtypes and tape gradients; and Keras's errors."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from keras.ops_numpy_program import run
from ulp import assert_ulp

import symgrad as tf

K = tf.keras.ops
RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "ops_numpy_tf.json").read_text())
# acos/atan/expm1/log/exp/pow go through NumPy's and Eigen's own implementations, each
# within about an ulp, their gradients a product or quotient of such: 4 ulps. The rest
# (ceil, cumprod, diff, moveaxis, full, identity, isnan...) are exact.
ULPS = 4


@pytest.fixture(scope="module")
def got() -> dict:
    return run(tf)


@pytest.mark.parametrize("key", [k for k in RECORDED["cases"] if k != "ndim"])
def test_keras_op_matches_tf(got: dict, key: str) -> None:
    want = RECORDED["cases"][key]
    mine = got[key]
    assert mine[-1] == want[-1]  # the result dtype
    for a, b in zip(mine[:-1], want[:-1]):
        if b is None:  # no gradient (ceil), as TF
            assert a is None
            continue
        b = np.asarray(b, dtype=bool if want[-1] == "bool" else want[-1])
        a = np.asarray(a, dtype=b.dtype)
        assert a.shape == b.shape
        if b.dtype.kind == "f":
            assert_ulp(a, b, ULPS)
        else:
            np.testing.assert_array_equal(a, b)


def test_ndim_is_a_python_int(got: dict) -> None:
    assert got["ndim"] == RECORDED["cases"]["ndim"] == [3, 0]


def test_errors_are_kerases() -> None:
    with pytest.raises(ValueError, match=r"Order `n` must be non-negative\. Received n=-1"):
        K.diff([1, 2, 3], -1)
    with pytest.raises(ValueError, match="`diff` requires input that is at least one dim"):
        K.diff(3.0)
    with pytest.raises(
        ValueError,
        match=r"Inconsistent number of `source` and `destination`\. "
        r"Received: source=\[0, 1\], destination=\[2\]",
    ):
        K.moveaxis(tf.zeros([2, 3, 4]), [0, 1], [2])
