"""tf.image against TensorFlow 2.21's numbers, to the bit: the programs of
tests/ops/tf_image_calls.py (resizes by every method, TF1's resizers with align_corners
and half-pixel centres, one-pixel images, flips, rotations, crops, pads, dtype conversion,
brightness, contrast, grayscale, seeded and stateless random adjustments) and the
gradients of a weighted sum of their outputs, against the literals TF recorded in
tf_image_expected.py.  Only standardization and gamma (sqrt, pow) are compared in ulps.
"""

from __future__ import annotations

import numpy as np
import pytest
from ops.tf_image_calls import CALLS, GRAD_ULPS, ULPS, make, run
from ops.tf_image_expected import EXPECTED
from ulp import assert_recorded

import symgrad as tf


@pytest.mark.parametrize("name", list(CALLS))
def test_values_and_gradients_are_tensorflows(name: str) -> None:
    ys, gs = run(tf, name)
    want_ys, want_gs = EXPECTED[name]
    assert len(ys) == len(want_ys) and len(gs) == len(want_gs)
    for k, (y, want) in enumerate(zip(ys, want_ys, strict=True)):
        assert_recorded(y, want, ULPS.get(name, ()), f"{name}: output {k}")
    grad_tol = GRAD_ULPS if len(ys) > 1 else ULPS.get(name, ())
    for k, (g, want) in enumerate(zip(gs, want_gs, strict=True)):
        assert_recorded(g, want, grad_tol, f"{name}: gradient {k}")


@pytest.mark.parametrize("name", ["resize_f32", "resize_v1", "geometry", "values_f32"])
def test_a_graph_run_by_a_session_gives_the_eager_numbers(name: str) -> None:
    eager, _ = run(tf, name)
    fn, specs = CALLS[name]
    with tf.Graph().as_default():
        xs = [tf.placeholder(dtype, shape) for shape, dtype in specs]
        ys = fn(tf, *xs)
        with tf.compat.v1.Session() as sess:
            feeds = {
                x: make(shape, dtype, i) for i, (x, (shape, dtype)) in enumerate(zip(xs, specs))
            }
            got = sess.run(ys, feed_dict=feeds)
    for k, (g, e) in enumerate(zip(got, eager, strict=True)):
        np.testing.assert_array_equal(g, e, err_msg=f"{name}: output {k}")
