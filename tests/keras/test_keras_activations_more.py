"""Keras 3's newer activations against TF 2.21's (activations_program.py's outputs and
gradients), within stated ulp bounds, and their names, serialization and errors."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from keras.activations_program import run
from ulp import assert_ulp

import symgrad as tf

A = tf.keras.activations
RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "activations_tf.json").read_text())
# Ops whose results are exact (where, clip, abs, +/- of representable values) compare to the
# bit; sigmoid, sqrt-with-division and pow go through functions accurate to about an ulp
# (4 ulps: a product or quotient of two such); tanh_shrink's x - tanh(x) cancels, so an ulp
# of tanh(x) is up to 2**6 ulps of the small result.
ULPS = {"glu": 4, "glu_axis0": 4, "sparse_plus": 2, "squareplus": 4, "squareplus_b": 4}
ULPS |= {"tanh_shrink": 64, "hard_swish": 2, "by_name_hard_swish": 2, "sparsemax": 2}
ULPS |= {"sparsemax_axis0": 2}


@pytest.fixture(scope="module")
def got() -> dict:
    return run(tf)


@pytest.mark.parametrize("key", list(RECORDED["cases"]))
def test_activation_matches_tf(got: dict, key: str) -> None:
    name, dtype = key.split("/")
    for mine, want in zip(got[key], RECORDED["cases"][key]):
        want = np.asarray(want, dtype)
        assert np.asarray(mine).shape == want.shape
        assert_ulp(np.asarray(mine, dtype), want, ULPS.get(name, 0))


def test_new_activations_by_name_and_serialized() -> None:
    names = "glu hard_shrink hard_tanh soft_shrink sparse_plus sparse_sigmoid sparsemax"
    for name in (*names.split(), "squareplus", "tanh_shrink", "threshold"):
        f = A.get(name)
        assert f is getattr(A, name)
        assert A.serialize(f) == name
    assert A.hard_swish is A.hard_silu and A.get("hard_swish") is A.hard_silu
    layer = tf.keras.layers.Dense(2, activation="sparse_plus")
    assert layer.get_config()["activation"] == "sparse_plus"


def test_glu_odd_axis_is_kerases_error() -> None:
    with pytest.raises(ValueError, match=r"axis size must be divisible by 2\. Received: "
                       r"x\.shape=\(2, 3\) with axis=-1"):  # fmt: skip
        A.glu(tf.ones([2, 3]))


def test_new_activations_grad_matches_finite_differences() -> None:
    x0 = np.array([-2.3, -0.8, -0.3, 0.2, 0.7, 1.4, 2.6], "float64")
    for f in (A.glu, A.squareplus, A.sparse_plus, A.tanh_shrink, A.soft_shrink,
              lambda x: A.sparsemax(tf.reshape(x[:6], [2, 3]))):  # fmt: skip
        x = tf.constant(x0[:6] if f is A.glu else x0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(f(x) * f(x))
        g = tape.gradient(y, x).numpy()
        eps = 1e-6
        fd = []
        for i in range(x.shape[0]):
            d = np.zeros(x.shape[0])
            d[i] = eps
            up = tf.reduce_sum(f(tf.constant(x.numpy() + d)) ** 2).numpy()
            down = tf.reduce_sum(f(tf.constant(x.numpy() - d)) ** 2).numpy()
            fd.append((up - down) / (2 * eps))
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
