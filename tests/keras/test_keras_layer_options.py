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
