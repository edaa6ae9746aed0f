"""The tf.image colour-space and measure programs whose TensorFlow results
tests/ops/test_image_space.py checks (HSV, hue, saturation, YIQ, YUV, total variation,
image gradients, Sobel edges, PSNR), in tests/ops/tf_image_calls.py's form: outputs and
the gradients of ``Σ_k Σ(float64(y_k) · weights(y_k))``, to the bit.

Record them again with TensorFlow's Python (writes tests/ops/tf_image_space_expected.py):

    PYTHONPATH=src:tests TF_CPP_MIN_LOG_LEVEL=3 <tf>/bin/python tests/ops/tf_image_space_calls.py
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ops.tf_image_calls import make, weights, write_expected

Input = tuple[tuple[int, ...], str]
F16, F32, F64, U8 = "float16", "float32", "float64", "uint8"


def _ties(tf: Any, x: Any) -> Any:
    """Quarters: channels tie, pixels are gray or black (the kernels' equal cases)."""
    if not x.dtype.is_floating:
        return (x // 64) * 64
    return tf.round(x * 4.0) / 4.0


def _hsv(tf: Any, x: Any) -> list[Any]:
    im = tf.image
    return [im.rgb_to_hsv(x), im.rgb_to_hsv(_ties(tf, x))]


def _hsv_back(tf: Any, x: Any) -> list[Any]:
    return [tf.image.hsv_to_rgb(x), tf.image.hsv_to_rgb(_ties(tf, x))]


def _hue(tf: Any, x: Any) -> list[Any]:
    im = tf.image
    out = [im.adjust_hue(x, d) for d in (-1.0, -0.45, 0.0, 0.2, 0.75, 1.0)]
    return [*out, im.adjust_hue(_ties(tf, x), 0.3)]


def _saturation(tf: Any, x: Any) -> list[Any]:
    im = tf.image
    out = [im.adjust_saturation(x, f) for f in (0.0, 0.4, 1.0, 2.5)]
    return [*out, im.adjust_saturation(_ties(tf, x), 1.7)]


def _random(tf: Any, x: Any) -> list[Any]:
    im = tf.image
    tf.random.set_seed(4)
    return [
        im.random_hue(x, 0.4, seed=2),
        im.random_saturation(x, 0.3, 1.8, seed=7),
        im.stateless_random_hue(x, 0.5, (1, 2)),
        im.stateless_random_saturation(x, 0.2, 2.0, (3, 4)),
    ]


def _spaces(tf: Any, x: Any) -> list[Any]:
    im = tf.image
    return [im.rgb_to_yiq(x), im.yiq_to_rgb(x), im.rgb_to_yuv(x), im.yuv_to_rgb(x)]


def _measures(tf: Any, x: Any, y: Any) -> list[Any]:
    im = tf.image
    dy, dx = im.image_gradients(x)
    return [
        im.total_variation(x),
        im.total_variation(x[0]),
        dy,
        dx,
        im.sobel_edges(x),
        im.psnr(x, y, 1.0),
    ]


CALLS: dict[str, tuple[Any, list[Input]]] = {
    "rgb_to_hsv_f32": (_hsv, [((2, 5, 4, 3), F32)]),
    "rgb_to_hsv_f64": (_hsv, [((2, 5, 4, 3), F64)]),
    "rgb_to_hsv_f16": (_hsv, [((3, 4, 3), F16)]),
    "hsv_to_rgb_f32": (_hsv_back, [((2, 5, 4, 3), F32)]),
    "hsv_to_rgb_f64": (_hsv_back, [((4, 3), F64)]),
    "hsv_to_rgb_f16": (_hsv_back, [((3, 4, 3), F16)]),
    "adjust_hue_f32": (_hue, [((2, 5, 4, 3), F32)]),
    "adjust_hue_uint8": (_hue, [((5, 4, 3), U8)]),
    "adjust_saturation_f32": (_saturation, [((2, 5, 4, 3), F32)]),
    "adjust_saturation_uint8": (_saturation, [((5, 4, 3), U8)]),
    "random_hue_saturation": (_random, [((2, 5, 4, 3), F32)]),
    "yiq_yuv_f32": (_spaces, [((2, 5, 4, 3), F32)]),
    "yiq_yuv_f64": (_spaces, [((5, 4, 3), F64)]),
    "yiq_yuv_f16": (_spaces, [((5, 4, 3), F16)]),
    "measures_f32": (_measures, [((2, 6, 5, 3), F32), ((2, 6, 5, 3), F32)]),
    "measures_f64": (_measures, [((2, 6, 5, 3), F64), ((2, 6, 5, 3), F64)]),
    "psnr_uint8": (lambda tf, x, y: [tf.image.psnr(x, y, 255)], [((2, 4, 4, 3), U8)] * 2),
}

# YIQ and YUV are a MatMul, whose products NumPy and Eigen sum in their own orders (and
# Eigen with fused multiply-adds): within 2 float32 (float64) epsilons, absolutely.
ULPS = {
    name: (0, 2 * float(np.finfo(name[-3:].replace("f", "float")).eps))
    for name in CALLS
    if "yiq" in name
}
ULPS["yiq_yuv_f16"] = ()
# Sums and means over several axes, which Eigen and NumPy add in their own orders; PSNR's
# log10, which each CPU's libm (and Eigen's) rounds in its own way.
ULPS |= {"measures_f32": (4, 0.0), "measures_f64": (4, 0.0), "psnr_uint8": (4, 0.0)}
# Gradients that sum several outputs' contributions, in an order other than TF's tape.
GRAD_ULPS = (16, 1e-6)
# TF registers no gradient for AdjustHue or AdjustSaturation: their values only.
NO_GRADIENT = {name for name in CALLS if "hue" in name or "saturation" in name}


def run(tf: Any, name: str) -> tuple[list[np.ndarray], list[np.ndarray | None]]:
    """The call's outputs and the gradients of their weighted sum, as NumPy arrays."""
    fn, specs = CALLS[name]
    xs = [tf.constant(make(shape, dtype, i)) for i, (shape, dtype) in enumerate(specs)]
    floats = [x for x in xs if x.dtype.is_floating and name not in NO_GRADIENT]
    with tf.GradientTape() as tape:
        tape.watch(floats)
        ys = fn(tf, *xs)
        terms = [
            tf.reduce_sum(tf.cast(y, tf.float64) * weights(tuple(y.shape)))
            for y in ys
            if y.dtype.is_floating
        ]
        loss = tf.add_n(terms) if terms else None
    grads = tape.gradient(loss, floats) if loss is not None and floats else []
    return [y.numpy() for y in ys], [None if g is None else g.numpy() for g in grads]


if __name__ == "__main__":
    write_expected(run, CALLS, __file__)
