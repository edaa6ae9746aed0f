"""The image ops' gradients against float64 finite differences, their batching rules and
JAX lowerings against the NumPy path, and TF's texts for bad arguments.

The resizes are linear in the image and return float32 whatever its dtype, so float64
central differences with a small step cannot resolve them: a step of 1 is exact for a
linear map up to the float32 rounding of its outputs.  TF's numbers themselves (values
and gradients, to the bit) are in test_image_tf_numbers.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError

RNG = np.random.default_rng(0)
MODES = {
    "half_pixel": {"half_pixel_centers": True},
    "legacy": {},
    "align": {"align_corners": True},
}
V1 = tf.compat.v1.image


def _resize(method: str, mode: str) -> Any:
    raw = {
        "bilinear": V1.resize_bilinear,
        "nearest": V1.resize_nearest_neighbor,
        "bicubic": V1.resize_bicubic,
        "area": V1.resize_area,
    }[method]
    kwargs = MODES[mode] if method != "area" else {"align_corners": mode == "align"}
    return lambda x, size: raw(x, size, **kwargs)


def _linear_check(f: Any, x: np.ndarray, rtol: float = 2e-6) -> None:
    """⟨VJP(u), v⟩ = ⟨u, (f(x + v) - f(x - v)) / 2⟩ for a map linear in x."""
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = f(xt)
    u = RNG.standard_normal(y.shape).astype(np.float64)
    g = tape.gradient(y, xt, output_gradients=tf.constant(u.astype(y.dtype.np)))
    v = RNG.standard_normal(x.shape)
    step = (f(tf.constant(x + v)).numpy() - f(tf.constant(x - v)).numpy()) / 2
    analytic, numeric = float(np.sum(g.numpy() * v)), float(np.sum(u * step))
    assert abs(analytic - numeric) <= rtol * max(1.0, abs(numeric)), (analytic, numeric)


@pytest.mark.parametrize(
    ("method", "mode"),
    [
        (m, mode)
        for m in ("bilinear", "nearest", "bicubic", "area")
        for mode in MODES
        if (m, mode) != ("area", "half_pixel")  # ResizeArea has no half_pixel_centers
    ],
)
@pytest.mark.parametrize("size", [(5, 7), (2, 3), (3, 4), (1, 1)])
def test_gradient_matches_finite_differences_in_float64(method: str, mode: str, size: Any) -> None:
    x = RNG.standard_normal((2, 3, 4, 3))
    _linear_check(lambda t: _resize(method, mode)(t, size), x)


def test_gradients_of_the_other_image_ops_match_finite_differences() -> None:
    x = RNG.standard_normal((2, 5, 4, 3)).astype(np.float32)
    im = tf.image
    for f in [
        lambda t: im.adjust_contrast(t, 1.7),
        lambda t: im.rot90(t, 3),
        lambda t: im.resize_with_pad(t, 7, 9),
        lambda t: im.crop_to_bounding_box(t, 1, 1, 3, 2),
        lambda t: im.stateless_random_flip_left_right(t, (1, 2)),
    ]:
        _linear_check(f, x, rtol=2e-5)
    factor = tf.constant(np.float32(0.6))
    with tf.GradientTape() as tape:
        tape.watch(factor)
        y = im.adjust_contrast(x, factor)
    u = RNG.standard_normal(y.shape).astype(np.float32)
    g = float(tape.gradient(y, factor, output_gradients=u))
    hi = float(np.sum(u * im.adjust_contrast(x, 1.1).numpy()))
    lo = float(np.sum(u * im.adjust_contrast(x, 0.1).numpy()))
    assert abs(g - (hi - lo)) < 1e-4 * abs(g)  # linear in the factor too


@pytest.mark.parametrize("method", ["nearest", "bicubic"])
def test_gradient_ops_are_differentiated_by_their_adjoint(method: str) -> None:
    """TF registers no gradient for ResizeNearestNeighborGrad / ResizeBicubicGrad; symgrad's
    is the forward resize, the adjoint of the gradient op (second order works)."""
    x = tf.constant(RNG.standard_normal((1, 3, 4, 2)).astype(np.float32))
    u = RNG.standard_normal((1, 5, 7, 2)).astype(np.float32)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.image.resize(x, [5, 7], method)
            loss = tf.reduce_sum(y * y * u)
        g = inner.gradient(loss, x)
        w = RNG.standard_normal(g.shape).astype(np.float32)
        second = tf.reduce_sum(g * w)
    h = outer.gradient(second, x).numpy()
    # loss = Σ u (A x)²: the Hessian is 2 Aᵀ diag(u) A
    a = tf.image.resize(tf.constant(w), [5, 7], method).numpy()
    want = 2 * _adjoint(method, u * a)
    np.testing.assert_allclose(h, want, rtol=2e-5, atol=2e-5)


def _adjoint(method: str, v: np.ndarray) -> np.ndarray:
    z = tf.zeros([1, 3, 4, 2])
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = tf.image.resize(z, [5, 7], method)
    return tape.gradient(y, z, output_gradients=tf.constant(v)).numpy()


def test_bilinear_gradient_is_not_differentiable_as_in_tensorflow() -> None:
    x = tf.constant(RNG.standard_normal((1, 3, 4, 2)).astype(np.float32))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            loss = tf.reduce_sum(tf.image.resize(x, [5, 7]) ** 2)
        g = inner.gradient(loss, x)
    assert outer.gradient(g, x) is None  # TF: NotDifferentiable("ResizeBilinearGrad")


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area", "contrast"])
def test_jacobian_by_batching_rules_equals_the_loop(method: str) -> None:
    x = tf.constant(RNG.standard_normal((2, 3, 2, 2)).astype(np.float32))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if method == "contrast":
            y = tf.image.adjust_contrast(x, 1.5) * 2.0
        else:
            y = tf.image.resize(x, [4, 3], method) * 2.0
    fast = tape.jacobian(y, x).numpy()
    slow = tape.jacobian(y, x, experimental_use_pfor=False).numpy()
    np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area"])
def test_xla_compiled_resizes_and_gradients_agree_with_the_numpy_path(method: str) -> None:
    pytest.importorskip("jax")
    x = tf.constant(RNG.standard_normal((2, 3, 4, 3)).astype(np.float32))

    def f(x: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.image.resize(x, [5, 7], method)
            loss = tf.reduce_sum(y * y)
        return y, tape.gradient(loss, x), tf.image.adjust_contrast(x, 0.3)

    want = f(x)
    got = tf.function(f, jit_compile=True)(x)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=2e-6, atol=2e-6)


def test_projective_transform_gradient_is_tensorflows_inverse_transform() -> None:
    """TF's rule (image_ops.py): the incoming gradient mapped by the inverse matrices."""
    from symgrad.ops.image.transform import image_projective_transform_v3 as transform

    x = tf.constant(RNG.standard_normal((2, 5, 4, 3)).astype(np.float32))
    t = np.float32([[1.1, 0.2, -0.5, -0.1, 0.9, 0.3, 0.01, 0.0], [0.8, 0, 0.6, 0, 1.2, -0.4, 0, 0]])
    u = RNG.standard_normal((2, 5, 4, 3)).astype(np.float32)
    for mode in ("REFLECT", "WRAP", "CONSTANT", "NEAREST"):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = transform(x, t, [5, 4], 0.0, "BILINEAR", mode)
        g = tape.gradient(y, x, output_gradients=u).numpy()
        m = np.linalg.inv(np.concatenate([t, np.ones((2, 1), np.float32)], 1).reshape(2, 3, 3))
        flat = m.reshape(2, 9)
        inverse = (flat / flat[:, 8:9])[:, :8].astype(np.float32)
        want = transform(u, inverse, [5, 4], 0.0, "BILINEAR", mode).numpy()
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5, err_msg=mode)


def test_xla_compiled_projective_transform_agrees_with_the_numpy_path() -> None:
    pytest.importorskip("jax")
    x = tf.constant(RNG.uniform(0, 1, (2, 9, 7, 3)).astype(np.float32))
    for mode in ("reflect", "wrap", "constant", "nearest"):
        for interpolation in ("nearest", "bilinear"):

            def f(x: Any, mode: str = mode, interpolation: str = interpolation) -> Any:
                layer = tf.keras.layers.RandomRotation(0.3, mode, interpolation, seed=1)
                return layer(x)

            want = f(x).numpy()
            got = tf.function(f, jit_compile=True)(x).numpy()
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6, err_msg=mode + interpolation)


# TF 2.21's texts, recorded with its Python (eagerly).
ERRORS = [
    (lambda: tf.image.resize(np.ones((4, 5), np.float32), [3, 3]), ValueError,
     "'images' must have either 3 or 4 dimensions."),
    (lambda: tf.image.resize(np.ones((4, 5, 3)), [3, 3, 3]), ValueError,
     "'size' must be a 1-D Tensor of 2 elements: new_height, new_width"),
    (lambda: tf.image.resize(np.ones((4, 5, 3)), [3.5, 3]), ValueError,
     "'size' must be a 1-D int32 Tensor"),
    (lambda: tf.image.resize(np.ones((4, 5, 3)), [3, 3], method="foo"), ValueError,
     "Resize method is not implemented: foo"),
    (lambda: tf.image.resize(np.ones((4, 5, 3)), [0, 3]), InvalidArgumentError,
     "output dimensions must be positive"),
    (lambda: V1.resize_images(np.ones((4, 5, 3)), [3, 3], method=7), ValueError,
     "Resize method is not implemented: 7"),
    (lambda: V1.resize_bilinear(np.ones((1, 4, 5, 3)), [3, 3], True, half_pixel_centers=True),
     InvalidArgumentError, "If half_pixel_centers is True, align_corners must be False."),
    (lambda: tf.image.flip_left_right(np.ones((4, 5))), ValueError,
     "'image' (shape (4, 5)) must be at least three-dimensional."),
    (lambda: tf.image.flip_up_down(np.ones((1, 2, 4, 5, 3))), ValueError,
     "'image' (shape (1, 2, 4, 5, 3))must have either 3 or 4 dimensions."),
    (lambda: tf.image.rot90(np.ones((1, 2, 4, 5, 3))), ValueError,
     "'image' (shape (1, 2, 4, 5, 3)) must have either 3 or 4 dimensions."),
    (lambda: tf.image.central_crop(np.ones((4, 5, 3)), 0.0), ValueError,
     "central_fraction must be within (0, 1]"),
    (lambda: tf.image.central_crop(np.ones((1, 2, 4, 5, 3)), 0.5), ValueError,
     "`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = 5."),
    (lambda: tf.image.crop_to_bounding_box(np.ones((4, 5, 3)), -1, 0, 2, 2), ValueError,
     "offset_height must be >= 0."),
    (lambda: tf.image.crop_to_bounding_box(np.ones((4, 5, 3)), 0, 0, 0, 2), ValueError,
     "target_height must be > 0."),
    (lambda: tf.image.crop_to_bounding_box(np.ones((4, 5, 3)), 0, 2, 3, 4), ValueError,
     "width must be >= target + offset."),
    (lambda: tf.image.pad_to_bounding_box(np.ones((4, 5, 3)), 1, 0, 4, 6), ValueError,
     "height must be <= target - offset"),
    (lambda: tf.image.resize_with_crop_or_pad(np.ones((4, 5, 3)), 0, 3), ValueError,
     "target_height must be > 0."),
    (lambda: tf.image.random_brightness(np.ones((4, 5, 3)), -0.1), ValueError,
     "max_delta must be non-negative."),
    (lambda: tf.image.random_contrast(np.ones((4, 5, 3)), 0.5, 0.5), ValueError,
     "upper must be > lower."),
    (lambda: tf.image.random_contrast(np.ones((4, 5, 3)), -0.5, 0.5), ValueError,
     "lower must be non-negative."),
    (lambda: tf.image.convert_image_dtype(np.ones((4, 5, 3)), tf.bool), AttributeError,
     "dtype must be either floating point or integer"),
    (lambda: tf.image.grayscale_to_rgb(tf.ones((4, 5, 3))), ValueError,
     "Last dimension of a grayscale image should be size 1."),
    (lambda: tf.image.random_crop(np.ones((4, 5, 3)), [5, 5, 3]), InvalidArgumentError,
     "Need value.shape >= size, got "),
    (lambda: tf.image.resize(np.ones((4, 5, 3)), [3, 3], antialias=True), NotImplementedError,
     "ScaleAndTranslate"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "kind", "text"), ERRORS)
def test_bad_arguments_raise_tensorflows_errors(call: Any, kind: type, text: str) -> None:
    with pytest.raises(kind) as info:
        call()
    assert text in str(info.value)
