"""Keras 3's long names, functional merge helpers, ThresholdedReLU and the 3-D layers' errors:
TF 2.21's tf.keras answers from the same programs (the layers' numbers and gradients are in
the layer table, test_keras_layer_table.py; their configs in test_keras_configs.py)."""

from __future__ import annotations

import numpy as np
import pytest
from ulp import assert_ulp

import symgrad as tf

L = tf.keras.layers


def test_long_names_are_keras_classes() -> None:
    assert L.Convolution1D is L.Conv1D and L.Convolution2D is L.Conv2D
    assert L.Convolution3D is L.Conv3D
    assert L.Convolution1DTranspose is L.Conv1DTranspose
    assert L.Convolution2DTranspose is L.Conv2DTranspose
    assert L.Convolution3DTranspose is L.Conv3DTranspose
    assert L.SeparableConvolution1D is L.SeparableConv1D
    assert L.SeparableConvolution2D is L.SeparableConv2D
    assert L.GlobalAvgPool3D is L.GlobalAveragePooling3D
    assert L.GlobalMaxPool3D is L.GlobalMaxPooling3D


def _xyz():
    x = tf.constant(np.arange(6, dtype="float32").reshape(2, 3))
    return x, x * 0.5 - 1.0, 2.0 - x


# TF 2.21: keras.layers.<f>([x, y, z]) (subtract: [x, y])
MERGED = {
    "add": [[1.0, 1.5, 2.0], [2.5, 3.0, 3.5]],
    "subtract": [[1.0, 1.5, 2.0], [2.5, 3.0, 3.5]],
    "multiply": [[-0.0, -0.5, 0.0], [-1.5, -8.0, -22.5]],
    "maximum": [[2.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
    "minimum": [[-1.0, -0.5, 0.0], [-1.0, -2.0, -3.0]],
    "concatenate": [
        [0.0, 1.0, 2.0, -1.0, -0.5, 0.0, 2.0, 1.0, 0.0],
        [3.0, 4.0, 5.0, 0.5, 1.0, 1.5, -1.0, -2.0, -3.0],
    ],
}


@pytest.mark.parametrize("name", list(MERGED))
def test_functional_merge_helpers_match_keras(name: str) -> None:
    x, y, z = _xyz()
    got = getattr(L, name)([x, y] if name == "subtract" else [x, y, z])
    np.testing.assert_array_equal(got.numpy(), np.float32(MERGED[name]))  # exact: + - * max


def test_average_concatenate_axis_and_dot_match_keras() -> None:
    x, y, z = _xyz()
    assert_ulp(
        L.average([x, y, z]).numpy(),
        [
            [0.3333333432674408, 0.5, 0.6666666865348816],
            [0.8333333134651184, 1.0, 1.1666666269302368],
        ],
        1,
    )
    np.testing.assert_array_equal(
        L.concatenate([x, y], axis=0).numpy(),
        np.float32([[0, 1, 2], [3, 4, 5], [-1, -0.5, 0], [0.5, 1, 1.5]]),
    )
    np.testing.assert_array_equal(L.dot([x, y], axes=1).numpy(), np.float32([[-0.5], [13.0]]))
    assert_ulp(
        L.dot([x, y], axes=-1, normalize=True).numpy(),
        [[-0.19999998807907104], [0.982707679271698]],
        4,
    )


def test_functional_helpers_build_model_layers() -> None:
    a, b = tf.keras.Input((3,)), tf.keras.Input((3,))
    out = L.dot([L.multiply([a, b]), L.maximum([a, b], name="mx")], axes=1)
    model = tf.keras.Model([a, b], out)
    assert [type(q).__name__ for q in model.layers] == [
        "InputLayer",
        "InputLayer",
        "Multiply",
        "Maximum",
        "Dot",
    ]
    assert model.layers[3].name == "mx"
    x, y, _ = _xyz()
    np.testing.assert_array_equal(model([x, y]).numpy(), np.float32([[-0.5], [58.0]]))


ERRORS = [
    (lambda: L.ZeroPadding3D((1, 2)), "`padding` should have 3 elements. Received: (1, 2)."),
    (
        lambda: L.ZeroPadding3D(((1, 2), 1, (1, 2, 3))),
        "The `3rd entry of padding` argument must be a tuple of 2 integers. "
        "Received 3rd entry of padding=(1, 2, 3)",
    ),
    (lambda: L.Cropping3D(-1), "`cropping` cannot be negative. Received: cropping=-1."),
    (
        lambda: L.Cropping3D(1.5),
        "`cropping` should be either an int, a tuple of 3 ints (symmetric_dim1_crop, "
        "symmetric_dim2_crop, symmetric_dim3_crop), or a tuple of 3 tuples of 2 ints "
        "((left_dim1_crop, right_dim1_crop), (left_dim2_crop, right_dim2_crop), "
        "(left_dim3_crop, right_dim2_crop)). Received: 1.5.",
    ),
    (
        lambda: L.Cropping3D(((1, -1), 1, 1)),
        "The `1st entry of cropping` argument must be a tuple of 2 integers. Received 1st "
        "entry of cropping=(1, -1), including values {-1} that do not satisfy `value >= 0`",
    ),
    (
        lambda: L.Cropping3D(((2, 1), 0, 0))(tf.zeros([1, 3, 2, 2, 1])),
        "Values in `cropping` argument should be smaller than the corresponding spatial "
        "dimension of the input. Received: inputs.shape=(1, 3, 2, 2, 1), "
        "cropping=((2, 1), (0, 0), (0, 0))",
    ),
    (
        lambda: L.UpSampling3D((2, 2)),
        "The `size` argument must be a tuple of 3 integers. Received size=(2, 2)",
    ),
    (
        lambda: L.UpSampling3D(0),
        "The `size` argument must be a tuple of 3 integers. Received size=0, including "
        "values {0} that do not satisfy `value > 0`",
    ),
    (
        lambda: L.subtract([tf.ones([2, 3])] * 3),
        "A `Subtract` layer should be called on exactly 2 inputs. "
        "Received: input_shape=[(2, 3), (2, 3), (2, 3)]",
    ),
    (
        lambda: L.SpatialDropout3D(0.5)(tf.ones([2, 3])),
        "expected ndim=5, found ndim=2. Full shape received: (2, 3)",
    ),
    (
        lambda: L.ZeroPadding3D()(tf.ones([2, 3, 3, 3])),
        "expected ndim=5, found ndim=4. Full shape received: (2, 3, 3, 3)",
    ),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_are_keras_errors(case: int) -> None:
    make, text = ERRORS[case]
    with pytest.raises(ValueError) as info:
        make()
    assert text in str(info.value)


# TF 2.21: ThresholdedReLU(theta, dtype=d) on x, its config's theta and the tape gradient
THRESHOLDED = [
    ("float32", 0.3, 0.30000001192092896, [-0.0, 0.0, 0.0, 0.0, 0.5, 2.0], [0, 0, 0, 0, 1, 1]),
    ("float64", 0.3, 0.3, [-0.0, 0.0, 0.0, 0.30000001, 0.5, 2.0], [0, 0, 0, 1, 1, 1]),
    ("float32", 0.0, 0.0, [-0.0, 0.0, 0.3, 0.3, 0.5, 2.0], [0, 0, 1, 1, 1, 1]),
]


@pytest.mark.parametrize("case", THRESHOLDED, ids=["f32", "f64", "zero"])
def test_thresholded_relu_matches_keras(case) -> None:
    dtype, theta, config_theta, want, grad = case
    x = tf.constant([[-1.0, 0.0, 0.3, 0.30000001, 0.5, 2.0]], dtype=dtype)
    layer = L.ThresholdedReLU(theta, dtype=dtype)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
    np.testing.assert_array_equal(y.numpy(), np.asarray([want], dtype))  # exact: x * 0 or 1
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.asarray([grad], dtype))
    config = layer.get_config()
    assert config["theta"] == config_theta
    assert L.ThresholdedReLU.from_config(config).get_config() == config


def test_thresholded_relu_errors_are_kerases() -> None:
    with pytest.raises(ValueError, match="should be >=0. Received: -1"):
        L.ThresholdedReLU(-1)
    with pytest.raises(ValueError, match="cannot be None, expecting a float. Received: None"):
        L.ThresholdedReLU(None)
