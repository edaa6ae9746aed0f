"""Layer options as whole programs against TF 2.21 (layer_options_program.py): masks
through merge layers, channels_first layers, UpSampling2D's interpolations."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import symgrad as tf
from symgrad.keras.layers.masks import get_mask
from tests.keras.layer_options_program import run_all

TF = json.loads((pathlib.Path(__file__).parent / "data" / "layer_options_tf.json").read_text())
TOL = dict(rtol=2e-6, atol=1e-6)


@pytest.fixture(scope="module")
def ours() -> dict:
    return run_all(tf, tf.keras, get_mask)


@pytest.mark.parametrize("case", sorted(TF["merge_masks"]))
def test_merge_layers_propagate_masks_as_keras(ours: dict, case: str) -> None:
    (mask, pooled), (want_mask, want_pooled) = ours["merge_masks"][case], TF["merge_masks"][case]
    assert mask == want_mask
    np.testing.assert_allclose(pooled, want_pooled, **TOL)


def test_conv3d_channels_first_is_the_channels_last_conv_transposed() -> None:
    """Keras-on-TF 2.21's channels_first Conv3D on a CPU adds the bias along the last axis
    (a TF-side bug, so no TF literal): symgrad's equals the channels_last layer on the
    transposed input, bias on the channel axis."""
    x = np.random.RandomState(0).uniform(-1, 1, (1, 2, 3, 4, 3)).astype(np.float32)
    first = tf.keras.layers.Conv3D(2, 2, data_format="channels_first")
    last = tf.keras.layers.Conv3D(2, 2)
    first.build(x.shape)
    last.build((1, 3, 4, 3, 2))
    weights = [np.linspace(-1, 1, 32, dtype=np.float32).reshape(2, 2, 2, 2, 2), [0.6, 0.4]]
    first.set_weights([weights[0], np.float32(weights[1])])
    last.set_weights([weights[0], np.float32(weights[1])])
    want = np.transpose(last(np.transpose(x, (0, 2, 3, 4, 1))).numpy(), (0, 4, 1, 2, 3))
    np.testing.assert_allclose(first(x).numpy(), want, rtol=1e-6, atol=1e-6)
