"""tf.image's colour spaces and measures against TensorFlow 2.21: the programs of
tests/ops/tf_image_space_calls.py (RGB to HSV and back in half, float and double, hue and
saturation adjustments with their seeded and stateless random forms, YIQ and YUV, total
variation, image gradients, Sobel edges, PSNR) and their gradients, against TF's recorded
literals (to the bit, but for YIQ and YUV's MatMul within 2 epsilons, and the measures
and PSNR, which sum and take logs, within 4 ulps); RGBToHSV's gradient against finite
differences in float64; and TF's errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from ops.tf_image_space_calls import CALLS, GRAD_ULPS, ULPS, make, run
from ops.tf_image_space_expected import EXPECTED
from ulp import assert_recorded

import symgrad as tf
from symgrad.core.errors import FailedPreconditionError, InvalidArgumentError


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


def test_rgb_to_hsv_gradient_matches_finite_differences() -> None:
    """Away from ties and zeros TF's piecewise formula is the derivative."""
    x = make((2, 4, 3), "float64") * 0.9 + 0.05
    theoretical, numerical = tf.test.compute_gradient(tf.image.rgb_to_hsv, [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-4, atol=1e-6)


def test_hsv_to_rgb_is_not_differentiable_as_in_tf() -> None:
    x = tf.constant(make((2, 3), "float32"))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.image.hsv_to_rgb(x)
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize("fn", [tf.image.adjust_hue, tf.image.adjust_saturation])
def test_tf_registers_no_gradient_for_hue_and_saturation(fn) -> None:
    x = tf.constant(make((2, 2, 3), "float32"))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x, 0.3)
    with pytest.raises(LookupError):
        tape.gradient(y, x)


def test_a_graph_gives_the_eager_numbers() -> None:
    x = make((2, 5, 4, 3), "float32")
    eager = [f(x).numpy() for f in (tf.image.rgb_to_hsv, tf.image.hsv_to_rgb)]
    with tf.Graph().as_default():
        p = tf.compat.v1.placeholder(tf.float32, [None, 5, 4, 3])
        ys = [tf.image.rgb_to_hsv(p), tf.image.hsv_to_rgb(p)]
        ys += [tf.image.adjust_hue(p, 0.2), tf.image.adjust_saturation(p, 1.5)]
        with tf.compat.v1.Session() as sess:
            got = sess.run(ys, {p: x})
    np.testing.assert_array_equal(got[0], eager[0])
    np.testing.assert_array_equal(got[1], eager[1])
    np.testing.assert_array_equal(got[2], tf.image.adjust_hue(x, 0.2).numpy())
    np.testing.assert_array_equal(got[3], tf.image.adjust_saturation(x, 1.5).numpy())


def test_errors_are_tensorflows() -> None:
    with pytest.raises(FailedPreconditionError, match="input must have 3 channels but input only"):
        tf.image.rgb_to_hsv([1.0, 2.0])
    with pytest.raises(TypeError, match="Value for attr 'T' of int32 is not in the list"):
        tf.image.rgb_to_hsv(tf.constant([1, 2, 3]))
    with pytest.raises(InvalidArgumentError, match="at least rank 3"):
        tf.image.adjust_hue([[0.2, 0.5, 0.1]], 0.1)
    with pytest.raises(InvalidArgumentError, match="input must have 3 channels but instead"):
        tf.image.adjust_saturation(tf.zeros([2, 2, 2]), 2.0)
    with pytest.raises(ValueError, match=r"delta must be in the interval \[-1, 1\]"):
        tf.image.adjust_hue(tf.zeros([1, 1, 3]), 1.5)
    with pytest.raises(ValueError, match="max_delta must be <= 0.5."):
        tf.image.random_hue(tf.zeros([1, 1, 3]), 0.6)
    with pytest.raises(ValueError, match="max_delta must be non-negative."):
        tf.image.stateless_random_hue(tf.zeros([1, 1, 3]), -0.1, (1, 2))
    with pytest.raises(ValueError, match="upper must be > lower."):
        tf.image.random_saturation(tf.zeros([1, 1, 3]), 1.0, 1.0)
    with pytest.raises(ValueError, match="lower must be non-negative."):
        tf.image.stateless_random_saturation(tf.zeros([1, 1, 3]), -1.0, 1.0, (1, 2))
    with pytest.raises(ValueError, match="'images' must be either 3 or 4-dimensional."):
        tf.image.total_variation(tf.zeros([2, 3]))
    with pytest.raises(ValueError, match="image_gradients expects a 4D tensor"):
        tf.image.image_gradients(tf.zeros([2, 3, 3]))
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tf.image.psnr(tf.zeros([4, 4, 3]), tf.zeros([4, 5, 3]), 1.0)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
        tf.image.hsv_to_rgb(tf.zeros([4, 2]))
