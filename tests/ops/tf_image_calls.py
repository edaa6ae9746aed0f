"""The tf.image programs whose TensorFlow results tests/ops/test_image_*.py check.

Each call is ``name: (fn, inputs)``: ``fn(tf, *xs)`` is the program, run with ``tf`` =
symgrad in the tests and = TensorFlow to record the numbers; ``inputs`` are
``(shape, dtype)`` pairs made by ``make``.  The recorded numbers are every output and the
gradients of ``Σ_k Σ(float64(y_k) · weights(y_k))`` with respect to each float input
(float outputs only; None where TF gives none), each with its dtype, to the bit.

Record them again with TensorFlow's Python (writes tests/ops/tf_image_expected.py):

    PYTHONPATH=src TF_CPP_MIN_LOG_LEVEL=3 <tf>/bin/python tests/ops/tf_image_calls.py
"""

from __future__ import annotations

from typing import Any

import numpy as np

Input = tuple[tuple[int, ...], str]
F32, F64, U8, I32 = "float32", "float64", "uint8", "int32"
ALL = "bilinear nearest bicubic area"


def make(shape: tuple[int, ...], dtype: str, salt: int = 0) -> np.ndarray:
    """Deterministic images: floats in (0, 1) without ties, integers over the type's range."""
    n = int(np.prod(shape))
    u = 0.5 + 0.49 * np.sin(np.arange(n) * 1.3 + 0.7 * salt + 0.1)
    if dtype == U8:
        return np.round(u * 255).astype(np.uint8).reshape(shape)
    if dtype == I32:
        return np.round(u * 1000).astype(np.int32).reshape(shape)
    return u.astype(dtype).reshape(shape)


def weights(shape: tuple[int, ...]) -> np.ndarray:
    return np.cos(np.arange(int(np.prod(shape))) * 0.37).reshape(shape)


def _methods(tf: Any, x: Any, size: list[int], methods: str = "bilinear nearest bicubic") -> Any:
    return [tf.image.resize(x, size, m) for m in methods.split()]


def _up_and_down(tf: Any, x: Any) -> list[Any]:
    return [*_methods(tf, x, [5, 7]), *_methods(tf, x, [2, 3])]


def _area(tf: Any, x: Any) -> list[Any]:
    v1 = tf.compat.v1.image
    return [
        *_methods(tf, x, [5, 7], "area"),
        *_methods(tf, x, [2, 3], "area"),
        *_methods(tf, x, [3, 4], "area"),
        v1.resize_area(x, [4, 6], align_corners=True),
        v1.resize_images(x, [5, 2], v1.ResizeMethod.AREA, align_corners=True),
    ]


def _contrast(tf: Any, x: Any) -> list[Any]:
    im = tf.image
    tf.random.set_seed(3)
    return [
        im.adjust_contrast(x, 1.7),
        im.adjust_contrast(x, 0.3),
        im.random_contrast(x, 0.5, 1.5, seed=2),
        im.stateless_random_contrast(x, 0.2, 1.8, (3, 4)),
    ]


def _v1(tf: Any, x: Any) -> list[Any]:
    out = []
    for align in (False, True):
        for method in range(3):
            out.append(tf.compat.v1.image.resize_images(x, [5, 3], method, align_corners=align))
    v1 = tf.compat.v1.image
    out += [
        v1.resize_bilinear(x, [2, 7], half_pixel_centers=True),
        v1.resize_nearest_neighbor(x, [7, 2], half_pixel_centers=True),
        v1.resize_bicubic(x, [4, 6], half_pixel_centers=True),
        v1.resize_bilinear(x, [4, 6], align_corners=True),
    ]
    return out


def _geometry(tf: Any, x: Any) -> list[Any]:
    im = tf.image
    return [
        im.flip_left_right(x),
        im.flip_up_down(x),
        im.flip_left_right(x[0]),
        *[im.rot90(x, k) for k in (-1, 0, 1, 2, 3, 5)],
        im.rot90(x[1], 3),
        im.transpose(x),
        im.central_crop(x, 0.6),
        im.central_crop(x[0], 0.34),
        im.crop_to_bounding_box(x, 1, 2, 3, 2),
        im.pad_to_bounding_box(x[0], 1, 0, 7, 6),
        im.resize_with_crop_or_pad(x, 3, 7),
        im.resize_with_crop_or_pad(x[0], 8, 2),
    ]


def _convert(tf: Any, x: Any) -> list[Any]:
    out = []
    for name in ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"):
        for saturate in (False, True):
            out.append(tf.image.convert_image_dtype(x, getattr(tf, name), saturate=saturate))
    return out


def _values(tf: Any, x: Any) -> list[Any]:
    im = tf.image
    return [
        im.adjust_brightness(x, 0.3),
        im.adjust_brightness(x, -0.6),
        im.rgb_to_grayscale(x),
        im.grayscale_to_rgb(x[..., :1]),
    ]


def _stateful(tf: Any, x: Any) -> list[Any]:
    tf.random.set_seed(11)
    im = tf.image
    return [
        im.random_flip_left_right(x, seed=5),
        im.random_flip_up_down(x),
        *[im.random_flip_left_right(x[0], seed=3) for _ in range(4)],
        *[im.random_flip_up_down(x[0], seed=9) for _ in range(4)],
        im.random_brightness(x, 0.2, seed=1),
        im.random_crop(x, [2, 2, 3, 3], seed=3),
        im.random_crop(x[0], [2, 3, 3]),
    ]


def _stateless(tf: Any, x: Any) -> list[Any]:
    im = tf.image
    return [
        *[im.stateless_random_flip_left_right(x, (s, 3)) for s in range(3)],
        *[im.stateless_random_flip_up_down(x[0], (s, 7)) for s in range(4)],
        im.stateless_random_brightness(x, 0.3, (1, 2)),
        im.stateless_random_crop(x, [2, 3, 2, 3], (5, 6)),
    ]


CALLS: dict[str, tuple[Any, list[Input]]] = {
    # resizing, values and gradients
    "resize_f32": (_up_and_down, [((2, 3, 4, 2), F32)]),
    "resize_f64": (_up_and_down, [((2, 3, 4, 2), F64)]),
    "resize_same_size": (lambda tf, x: _methods(tf, x, [3, 4]), [((2, 3, 4, 2), F32)]),
    "resize_3d": (lambda tf, x: _methods(tf, x, [4, 2]), [((3, 5, 1), F32)]),
    "resize_3_channels": (lambda tf, x: _methods(tf, x, [7, 20]), [((1, 16, 9, 3), F32)]),
    "resize_uint8": (lambda tf, x: _methods(tf, x, [5, 7], ALL), [((2, 3, 4, 2), U8)]),
    "resize_int32": (lambda tf, x: _methods(tf, x, [2, 6], ALL), [((1, 3, 4, 3), I32)]),
    "resize_area_f32": (_area, [((2, 3, 4, 2), F32)]),
    "resize_area_f64": (_area, [((1, 5, 3, 3), F64)]),
    "resize_area_one_pixel": (_area, [((1, 1, 1, 2), F32)]),
    "resize_aspect": (
        lambda tf, x: [tf.image.resize(x, [8, 3], preserve_aspect_ratio=True)],
        [((2, 3, 4, 2), F32)],
    ),
    "resize_v1": (_v1, [((2, 3, 4, 2), F32)]),
    "resize_v1_f64": (_v1, [((1, 4, 3, 2), F64)]),
    "resize_one_pixel": (_v1, [((1, 1, 1, 2), F32)]),
    "resize_with_pad": (
        lambda tf, x: [
            tf.image.resize_with_pad(x, 6, 9),
            tf.image.resize_with_pad(x, 9, 4, "nearest"),
            tf.image.resize_with_pad(x[0], 5, 5, "bicubic"),
            tf.compat.v1.image.resize_image_with_pad(x, 6, 9, align_corners=True),
        ],
        [((2, 3, 4, 2), F32)],
    ),
    # the other functions
    "geometry": (_geometry, [((2, 5, 4, 3), F32)]),
    "convert_f32": (_convert, [((2, 3, 1), F32)]),
    "convert_uint8": (_convert, [((2, 3, 1), U8)]),
    "convert_int32": (_convert, [((2, 3, 1), I32)]),
    "values_f32": (_values, [((2, 4, 3, 3), F32)]),
    "values_uint8": (_values, [((2, 4, 3, 3), U8)]),
    "contrast_f32": (_contrast, [((2, 4, 3, 3), F32)]),
    "contrast_uint8": (_contrast, [((4, 3, 3), U8)]),
    "contrast_int32": (_contrast, [((1, 2, 5, 2), I32)]),
    "standardization": (
        lambda tf, x: [tf.image.per_image_standardization(x), tf.image.adjust_gamma(x, 0.7, 1.3)],
        [((2, 4, 3, 3), F32)],
    ),
    "standardization_uint8": (
        lambda tf, x: [tf.image.per_image_standardization(x), tf.image.adjust_gamma(x, 1.6)],
        [((4, 3, 3), U8)],
    ),
    "extract_patches": (
        lambda tf, x: [
            tf.image.extract_patches(x, [1, 2, 3, 1], [1, 1, 2, 1], [1, 2, 1, 1], "VALID"),
            tf.image.extract_patches(x, [1, 3, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME"),
            tf.compat.v1.image.extract_image_patches(
                x, [1, 4, 4, 1], [1, 3, 3, 1], [1, 1, 1, 1], "SAME"
            ),
        ],
        [((2, 5, 7, 2), F32)],
    ),
    "extract_patches_grad": (
        lambda tf, x: [
            tf.image.extract_patches(x, [1, 3, 2, 1], [1, 1, 1, 1], [1, 1, 2, 1], "SAME")
        ],
        [((2, 5, 7, 2), F64)],
    ),
    "random_stateful": (_stateful, [((2, 5, 4, 3), F32)]),
    "random_stateless": (_stateless, [((2, 5, 4, 3), F32)]),
}


def _one(method: str, mode: str) -> Any:
    """One resize, so its gradient is the gradient op's output alone."""

    def fn(tf: Any, x: Any) -> list[Any]:
        if mode == "v2":
            return [tf.image.resize(x, [5, 7], method)]
        v1 = {"bilinear": 0, "nearest": 1, "bicubic": 2}[method]
        return [tf.compat.v1.image.resize_images(x, [5, 7], v1, align_corners=mode == "align")]

    return fn


for _m in ("bilinear", "nearest", "bicubic"):
    for _mode in ("v2", "legacy", "align"):
        for _d in (F32, F64):
            CALLS[f"grad_{_m}_{_mode}_{_d}"] = (_one(_m, _mode), [((1, 3, 4, 2), _d)])
    CALLS[f"grad_{_m}_one_pixel"] = (_one(_m, "align"), [((2, 1, 1, 3), F32)])
    CALLS[f"grad_{_m}_down"] = (
        lambda tf, x, m=_m: [tf.image.resize(x, [3, 2], m)],
        [((1, 7, 5, 3), F32)],
    )

# Values through sqrt/pow/means: (float32 ulps, absolute tolerance near 0 after cancellation).
ULPS = {"standardization": (4, 1e-6), "standardization_uint8": (4, 1e-6)}
# Gradients that sum several outputs' contributions, whose order of summation differs
# from TF's tape: within these ulps (the single-resize calls above are exact).
GRAD_ULPS = (16, 1e-6)
# TF registers no gradient for ResizeArea and AdjustContrastv2: their values only.
NO_GRADIENT = {"resize_area_f32", "resize_area_f64", "resize_area_one_pixel"}
NO_GRADIENT |= {"contrast_f32", "contrast_uint8", "contrast_int32"}


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


def _literal(a: np.ndarray | None) -> list[str]:
    if a is None:
        return ["        None,"]
    if a.dtype.kind == "f":
        values = [str(float(str(v))) for v in np.ravel(a)]  # the shortest round-trip text
    else:
        values = [str(int(v)) for v in np.ravel(a)]
    rows, row = [], ""
    for v in values:
        if len(row) + len(v) + 1 > 82:
            rows.append(row)
            row = ""
        row += v + ", "
    rows.append(row)
    body = ["            [", *(f"                {r.rstrip()}" for r in rows), "            ],"]
    return ["        (", f"            {a.dtype.name!r}, {tuple(a.shape)},", *body, "        ),"]


def write_expected(run: Any, names: Any, calls_file: str) -> None:
    """Run each of ``names`` on TensorFlow (``run(tf, name)``) and write the literals to
    the ``*_expected.py`` beside ``calls_file`` (a ``*_calls.py`` of this folder)."""
    import tensorflow as tf

    base = calls_file.rsplit("/", 1)[-1]
    lines = [
        f'"""TensorFlow 2.21\'s results for tests/ops/{base} (generated by it):',
        "(dtype, shape, values) of each output, then of each gradient.",
        '"""',
        "",
        "# fmt: off",
        "EXPECTED = {",
    ]
    for name in names:
        ys, gs = run(tf, name)
        lines.append(f"    {name!r}: (")
        for part in (ys, gs):
            lines.append("    [")
            lines += [line for a in part for line in _literal(a)]
            lines.append("    ],")
        lines.append("    ),")
    lines += ["}", "# fmt: on"]
    with open(calls_file.replace("_calls.py", "_expected.py"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_expected(run, CALLS, __file__)
