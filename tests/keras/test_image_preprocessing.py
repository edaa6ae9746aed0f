"""Keras 3's Resizing, CenterCrop, RandomFlip, RandomCrop, RandomZoom, RandomRotation,
RandomTranslation, RandomBrightness, RandomContrast, RandomHeight and RandomWidth against
Keras-on-TF 2.21's outputs (tf_image_layers.py's programs: every interpolation and fill
mode, crop and pad to the aspect ratio, integer images, channels_first, seeded draws
repeated, inference, a model with its gradient), to the bit but where sin/cos (rotation),
a 3x3 inverse (the transform's gradient) or an image mean (contrast, within stated ulps)
enter; and their configs and texts."""

from __future__ import annotations

import numpy as np
import pytest
from keras.tf_image_layers import ATOL, PROGRAMS, ULPS, X, run
from keras.tf_image_layers_expected import EXPECTED
from ulp import assert_ulp

import symgrad as tf

L = tf.keras.layers


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_outputs_are_keras_on_tensorflows(program) -> None:
    got = run(tf, program)
    want = EXPECTED[program.__name__]
    assert len(got) == len(want)
    atol = ATOL.get(program.__name__, 0.0)
    for k, (g, (dtype, shape, values)) in enumerate(zip(got, want, strict=True)):
        assert (g.dtype.name, g.shape) == (dtype, shape), f"output {k}"
        expected = np.asarray(values, dtype).reshape(shape)
        if program.__name__ in ULPS:
            assert_ulp(g, expected, ULPS[program.__name__])
        elif atol:
            np.testing.assert_allclose(g, expected, rtol=0, atol=atol, err_msg=f"output {k}")
        else:
            np.testing.assert_array_equal(g, expected, f"output {k}")


def _policy() -> dict:
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
            "registered_name": None}  # fmt: skip


def test_configs_are_kerases() -> None:
    base = {"trainable": True, "dtype": _policy(), "data_format": "channels_last"}
    configs = {
        L.Resizing(4, 5): {**base, "height": 4, "width": 5, "interpolation": "bilinear",
                           "crop_to_aspect_ratio": False, "pad_to_aspect_ratio": False,
                           "fill_mode": "constant", "fill_value": 0.0, "antialias": False},
        L.RandomFlip(seed=3): {**base, "seed": 3, "mode": "horizontal_and_vertical"},
        L.CenterCrop(3, 4): {**base, "height": 3, "width": 4},
        L.RandomCrop(3, 4, seed=2): {**base, "height": 3, "width": 4, "seed": 2},
        L.RandomRotation(0.2, seed=1): {**base, "factor": (-0.2, 0.2), "fill_mode": "reflect",
                                        "fill_value": 0.0, "interpolation": "bilinear", "seed": 1},
        L.RandomZoom(0.3, seed=2): {**base, "height_factor": 0.3, "width_factor": None,
                                    "fill_mode": "reflect", "interpolation": "bilinear",
                                    "seed": 2, "fill_value": 0.0},
        L.RandomZoom((-0.2, 0.4), (0.1, 0.2)): {**base, "height_factor": (-0.2, 0.4),
                                                "width_factor": (0.1, 0.2),
                                                "fill_mode": "reflect",
                                                "interpolation": "bilinear", "seed": None,
                                                "fill_value": 0.0},
        L.RandomTranslation(0.2, 0.1): {**base, "height_factor": 0.2, "width_factor": 0.1,
                                         "fill_mode": "reflect", "interpolation": "bilinear",
                                         "seed": None, "fill_value": 0.0},
        L.RandomBrightness(0.2, seed=1): {**base, "factor": (-0.2, 0.2), "value_range": [0, 255],
                                          "seed": 1},
        L.RandomContrast(0.2): {**base, "factor": (0, 0.2), "value_range": (0, 255),
                                "seed": None},
        L.RandomHeight(0.2, seed=1): {"trainable": True, "dtype": _policy(), "factor": 0.2,
                                      "interpolation": "bilinear", "seed": 1},
        L.RandomWidth((0.1, 0.2)): {"trainable": True, "dtype": _policy(), "factor": (0.1, 0.2),
                                    "interpolation": "bilinear", "seed": None},
    }  # fmt: skip
    for layer, want in configs.items():
        got = layer.get_config()
        snake = {"Resizing": "resizing", "RandomFlip": "random_flip"}
        snake |= {"CenterCrop": "center_crop", "RandomCrop": "random_crop"}
        snake |= {"RandomRotation": "random_rotation", "RandomZoom": "random_zoom"}
        snake |= {"RandomTranslation": "random_translation"}
        snake |= {"RandomHeight": "random_height", "RandomWidth": "random_width"}
        snake |= {"RandomBrightness": "random_brightness", "RandomContrast": "random_contrast"}
        assert got.pop("name").startswith(snake[type(layer).__name__])
        assert got == want
        again = type(layer).from_config(layer.get_config()).get_config()
        assert {k: v for k, v in again.items() if k != "name"} == want


def test_symbolic_shapes_are_kerases() -> None:
    inp = tf.keras.Input((None, None, 3))
    assert L.Resizing(8, 5)(inp).shape == (None, 8, 5, 3)
    assert L.RandomFlip()(inp).shape == (None, None, None, 3)
    assert L.CenterCrop(3, 4)(inp).shape == (None, 3, 4, 3)
    assert L.RandomZoom(0.2)(inp).shape == (None, None, None, 3)
    inp = tf.keras.Input((9, 7, 3))
    assert L.RandomRotation(0.2)(inp).shape == (None, 9, 7, 3)
    assert L.RandomCrop(3, 4)(inp).shape == (None, 3, 4, 3)
    assert L.Resizing(8, 5, pad_to_aspect_ratio=True)(inp).shape == (None, 8, 5, 3)


# Keras 3's texts (Keras wraps them in "Exception encountered when calling ...").
ERRORS = [
    (lambda: L.Resizing(3, 3, interpolation="foo")(X), ValueError,
     "Invalid value for argument `interpolation`. Expected of one ('bilinear', 'nearest', "
     "'lanczos3', 'lanczos5', 'bicubic', 'area'). Received: interpolation=foo"),
    (lambda: L.Resizing(3, 3, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)(X),
     ValueError, "Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`."),
    (lambda: L.RandomFlip(seed=1)(X[None]), ValueError,
     "Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
     "Received: data.shape=(1, 2, 7, 5, 3)"),
    (lambda: L.Resizing(3, 3)(X[0, 0]), IndexError, "tuple index out of range"),
    (lambda: L.Resizing(3, 3, interpolation="lanczos3")(X), NotImplementedError,
     "ScaleAndTranslate"),
    (lambda: L.RandomRotation(1.5), ValueError,
     "The `factor` argument should be a number (or a list of two numbers) in the range "
     "[-1, 1]. Received: factor=1.5"),
    (lambda: L.RandomRotation([0.1]), ValueError, "Received: factor=[0.1]"),
    (lambda: L.RandomRotation(0.1, fill_mode="x"), NotImplementedError,
     "Unknown `fill_mode` x. Expected of one ('reflect', 'wrap', 'constant', 'nearest')."),
    (lambda: L.RandomZoom(1.5), ValueError,
     "The `height_factor` and `width_factor` arguments should be a number (or a list of two "
     "numbers) in the range (-1.0, 1.0]. Received: input_number=1.5"),
    (lambda: L.RandomZoom(0.1, interpolation="bicubic"), NotImplementedError,
     "Unknown `interpolation` bicubic. Expected of one ('nearest', 'bilinear')."),
    (lambda: L.RandomBrightness(1.5), ValueError,
     "The `factor` argument should be a number (or a list of two numbers) in the range "
     "[-1, 1]. Received: factor=1.5"),
    (lambda: L.RandomBrightness(0.1, value_range=3), ValueError,
     "The `value_range` argument should be a list of two numbers. Received: value_range=3"),
    (lambda: L.RandomContrast(-0.5), ValueError,
     "The `factor` argument should be a number (or a list of two numbers) in the range "
     "[0, 1]. Received: factor=-0.5"),
    (lambda: L.RandomContrast((0.2,)), ValueError, "[0, 1]. Received: factor=(0.2,)"),
    (lambda: L.RandomTranslation(1.2, 0.1), ValueError,
     "The `factor` argument should be a number (or a list of two numbers) in the range "
     "[-1.0, 1.0]. Received: input_number=1.2"),
    (lambda: L.RandomTranslation(0.1, [0.1]), ValueError, "Received: width_factor=[0.1]"),
    (lambda: L.RandomBrightness(0.1)(X[None]), ValueError,
     "Expected the input image to be rank 3 or 4. Received inputs.shape=(1, 2, 7, 5, 3)"),
    (lambda: L.RandomHeight((0.3, 0.1)), ValueError,
     "`factor` argument cannot have an upper bound lesser than the lower bound. "
     "Received: factor=(0.3, 0.1)"),
    (lambda: L.RandomWidth((0.3, 0.1)), ValueError,
     "`factor` argument cannot have an upper bound less than the lower bound. "
     "Received: factor=(0.3, 0.1)"),
    (lambda: L.RandomWidth((-1.5, 0.1)), ValueError,
     "`factor` argument must have values larger than -1. Received: factor=(-1.5, 0.1)"),
    (lambda: L.RandomWidth(0.5, seed=2)(X.astype("uint8")), ValueError,
     "Tensor conversion requested dtype float32 for Tensor with dtype uint8"),
    (lambda: L.RandomTranslation(0.1, 0.1, interpolation="bicubic"), NotImplementedError,
     "Unknown `interpolation` bicubic. Expected of one ('nearest', 'bilinear')."),
]  # fmt: skip


@pytest.mark.parametrize(("call", "kind", "text"), ERRORS)
def test_bad_arguments_raise_kerases_errors(call, kind, text) -> None:
    with pytest.raises(kind) as info:
        call()
    assert text in str(info.value)
