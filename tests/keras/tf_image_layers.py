"""Keras 3's image preprocessing layers (Resizing, CenterCrop, RandomFlip, RandomCrop):
the programs whose Keras-on-TF 2.21 results tests/keras/test_image_preprocessing.py checks.

Each program takes the ``tf`` module (TensorFlow to record, symgrad in the test) and
returns a list of arrays: every layer output of the program, to the bit.

Record them again with TensorFlow's Python (writes tests/keras/tf_image_layers_expected.py):

    PYTHONPATH=src TF_CPP_MIN_LOG_LEVEL=3 <tf>/bin/python tests/keras/tf_image_layers.py
"""

from __future__ import annotations

from typing import Any

import numpy as np


def images(shape: tuple[int, ...], dtype: str = "float32") -> np.ndarray:
    n = int(np.prod(shape))
    u = 127.5 + 127 * np.sin(np.arange(n) * 1.3 + 0.1)
    return u.astype(dtype).reshape(shape)


X = images((2, 7, 5, 3))


def resizing(tf: Any) -> list[Any]:
    L = tf.keras.layers
    out = []
    for interpolation in ("bilinear", "nearest", "bicubic", "area"):
        out.append(L.Resizing(4, 6, interpolation=interpolation)(X))
    out += [
        L.Resizing(3, 3, crop_to_aspect_ratio=True)(X),
        L.Resizing(9, 3, crop_to_aspect_ratio=True, interpolation="nearest")(X),
        L.Resizing(3, 8, pad_to_aspect_ratio=True)(X),
        L.Resizing(9, 3, pad_to_aspect_ratio=True, fill_value=0.5)(X),
        L.Resizing(5, 4)(X[0]),
        L.Resizing(5, 4)(images((2, 7, 5, 3), "uint8")),
        L.Resizing(5, 4, data_format="channels_first")(np.transpose(X, (0, 3, 1, 2))),
    ]
    return out


def center_crop(tf: Any) -> list[Any]:
    L = tf.keras.layers
    return [
        L.CenterCrop(3, 4)(X),
        L.CenterCrop(6, 2)(X[0]),
        L.CenterCrop(9, 4)(X),
        L.CenterCrop(4, 8)(X),
        L.CenterCrop(2, 3, data_format="channels_first")(np.transpose(X, (0, 3, 1, 2))),
        L.CenterCrop(3, 3)(images((2, 7, 5, 3), "uint8")),
    ]


def random_flip(tf: Any) -> list[Any]:
    L = tf.keras.layers
    out = []
    for mode in ("horizontal", "vertical", "horizontal_and_vertical"):
        layer = L.RandomFlip(mode, seed=11)
        out += [layer(X) for _ in range(3)]
        out.append(layer(X, training=False))
    single = L.RandomFlip(seed=2)
    out += [single(X[0]) for _ in range(4)]
    out.append(L.RandomFlip(seed=5)(images((2, 7, 5, 3), "uint8")))
    return out


def random_crop(tf: Any) -> list[Any]:
    L = tf.keras.layers
    layer = L.RandomCrop(4, 3, seed=7)
    out = [layer(X) for _ in range(3)]
    out.append(layer(X, training=False))
    out.append(L.RandomCrop(3, 2, seed=1)(X[0]))
    out.append(L.RandomCrop(7, 3, seed=1)(X))  # height not larger: the centre crop
    out.append(L.RandomCrop(9, 4, seed=1)(X))  # larger: crop to the aspect ratio, resize
    out.append(
        L.RandomCrop(3, 3, seed=4, data_format="channels_first")(np.transpose(X, (0, 3, 1, 2)))
    )
    return out


def random_zoom(tf: Any) -> list[Any]:
    L = tf.keras.layers
    out = []
    for fill_mode in ("reflect", "wrap", "constant", "nearest"):
        for interpolation in ("bilinear", "nearest"):
            layer = L.RandomZoom(0.4, fill_mode=fill_mode, interpolation=interpolation, seed=3)
            out += [layer(X), layer(X[1])]
    layer = L.RandomZoom((-0.5, 0.2), (0.1, 0.6), fill_value=7.5, fill_mode="constant", seed=8)
    out += [layer(X), layer(X), layer(X, training=False)]
    out.append(L.RandomZoom(0.3, seed=2)(images((2, 7, 5, 3), "uint8")))
    out.append(
        L.RandomZoom(0.3, seed=2, data_format="channels_first")(np.transpose(X, (0, 3, 1, 2)))
    )
    return out


def zoom_gradient(tf: Any) -> list[Any]:
    """TF's gradient of ImageProjectiveTransformV3 inverts the 3x3 matrices (LAPACK's and
    Eigen's inverses may differ by an ulp)."""
    x = tf.constant(X / 255.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.keras.layers.RandomZoom(0.3, seed=4)(x)
        loss = tf.reduce_sum(y * y)
    return [y, tape.gradient(loss, x)]


def random_rotation(tf: Any) -> list[Any]:
    L = tf.keras.layers
    out = []
    for fill_mode in ("reflect", "wrap", "constant", "nearest"):
        for interpolation in ("bilinear", "nearest"):
            layer = L.RandomRotation(0.3, fill_mode, interpolation, seed=3)
            out += [layer(X), layer(X[1])]
    layer = L.RandomRotation((-0.1, 0.4), seed=1, data_format="channels_first")
    out += [layer(np.transpose(X, (0, 3, 1, 2))), layer(X, training=False)]
    return out


def random_translation(tf: Any) -> list[Any]:
    L = tf.keras.layers
    out = []
    for fill_mode in ("reflect", "wrap", "constant", "nearest"):
        for interpolation in ("bilinear", "nearest"):
            layer = L.RandomTranslation(
                0.5, (-0.2, 0.4), fill_mode, interpolation, seed=3, fill_value=2.5
            )
            out += [layer(X), layer(X[1])]
    layer = L.RandomTranslation((-0.3, 0.1), 0.3, seed=1, data_format="channels_first")
    out += [layer(np.transpose(X, (0, 3, 1, 2))), layer(X, training=False)]
    out.append(L.RandomTranslation(0.2, 0.2, seed=2)(images((2, 7, 5, 3), "uint8")))
    return out


def translation_gradient(tf: Any) -> list[Any]:
    x = tf.constant(X / 255.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.keras.layers.RandomTranslation(0.3, 0.2, seed=4)(x)
        loss = tf.reduce_sum(y * y)
    return [y, tape.gradient(loss, x)]


def random_brightness(tf: Any) -> list[Any]:
    L = tf.keras.layers
    layer = L.RandomBrightness(0.3, seed=4)
    out = [layer(X), layer(X), layer(X[0]), layer(X, training=False)]
    layer = L.RandomBrightness((-0.5, 0.2), value_range=(1, 0), seed=1, dtype="float64")
    out += [layer(X / 255.0), layer(X / 255.0)]
    return out


def random_contrast(tf: Any) -> list[Any]:
    L = tf.keras.layers
    layer = L.RandomContrast(0.5, seed=2)
    out = [layer(X), layer(X), layer(X[0]), layer(X, training=False)]
    layer = L.RandomContrast(
        (0.2, 0.6), value_range=(-10, 300), seed=5, data_format="channels_first"
    )
    out.append(layer(np.transpose(X, (0, 3, 1, 2))))
    out.append(L.RandomContrast(0.4, value_range=(0, 1), seed=3, dtype="float64")(X / 255.0))
    return out


def color_gradient(tf: Any) -> list[Any]:
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.keras.layers.RandomContrast(0.7, seed=6)(x)
        y = tf.keras.layers.RandomBrightness(0.2, seed=7)(y)
        loss = tf.reduce_sum(y * y)
    return [y, tape.gradient(loss, x)]


def random_height_width(tf: Any) -> list[Any]:
    L = tf.keras.layers
    out = []
    for interpolation in ("bilinear", "nearest", "bicubic", "area"):
        height = L.RandomHeight(0.4, interpolation=interpolation, seed=3)
        width = L.RandomWidth((-0.3, 0.5), interpolation=interpolation, seed=1)
        out += [height(X), height(X[0]), width(X), width(X[1])]
    out += [height(X, training=False), width(X, training=False)]
    out.append(L.RandomHeight((0.1, 0.2), seed=2, dtype="float64")(X / 255.0))
    return out


def model(tf: Any) -> list[Any]:
    K = tf.keras
    inp = K.Input((7, 5, 3))
    y = K.layers.RandomFlip(seed=4)(inp)
    y = K.layers.RandomCrop(6, 4, seed=5)(y)
    y = K.layers.Resizing(8, 8)(y)
    y = K.layers.CenterCrop(5, 5)(y)
    m = K.Model(inp, y)
    x = tf.constant(X / 255.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = m(x, training=True)
        loss = tf.reduce_sum(out * out)
    return [out, tape.gradient(loss, x), m(x, training=False), m.predict(X, verbose=0)]


PROGRAMS = [resizing, center_crop, random_flip, random_crop, random_zoom, zoom_gradient]
PROGRAMS += [random_rotation, model]
PROGRAMS += [random_translation, translation_gradient, random_brightness, random_contrast]
PROGRAMS += [color_gradient, random_height_width]
# The rotation matrix goes through sin and cos, whose float32 results may differ from TF's
# by an ulp: those outputs (pixel values up to 255) within this absolute tolerance.
ATOL = {"random_rotation": 1e-3, "zoom_gradient": 1e-6, "translation_gradient": 1e-6}
# A mean over the image (RandomContrast) is a float sum whose order NumPy and Eigen choose:
# within this many ulps of TF's (the clip to value_range exact).
ULPS = {"random_contrast": 4, "color_gradient": 8}


def run(tf: Any, program: Any) -> list[np.ndarray]:
    return [np.asarray(y) for y in program(tf)]


def _literal(a: np.ndarray) -> list[str]:
    kind = a.dtype.kind
    values = [str(float(str(v))) if kind == "f" else str(int(v)) for v in np.ravel(a)]
    rows, row = [], ""
    for v in values:
        if len(row) + len(v) + 1 > 82:
            rows.append(row)
            row = ""
        row += v + ", "
    rows.append(row)
    body = ["            [", *(f"                {r.rstrip()}" for r in rows), "            ],"]
    return ["        (", f"            {a.dtype.name!r}, {tuple(a.shape)},", *body, "        ),"]


def main() -> None:
    import tensorflow as tf

    lines = [
        '"""Keras-on-TF 2.21\'s results for tests/keras/tf_image_layers.py (generated by it):',
        "(dtype, shape, values) of each output.",
        '"""',
        "",
        "# fmt: off",
        "EXPECTED = {",
    ]
    for program in PROGRAMS:
        lines.append(f"    {program.__name__!r}: [")
        lines += [line for a in run(tf, program) for line in _literal(a)]
        lines.append("    ],")
    lines += ["}", "# fmt: on"]
    path = __file__.replace("tf_image_layers.py", "tf_image_layers_expected.py")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
