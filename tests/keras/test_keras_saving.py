"""save_weights/load_weights: Keras 3's ``.weights.h5`` files (h5py, the optional extra
``symgrad[keras]``).  The files' layout against TF's own is checked in conformance/test_keras.py."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

import symgrad as tf

layers = tf.keras.layers


def _model() -> Any:
    return tf.keras.Sequential(
        [tf.keras.Input((3,)), layers.Dense(4), layers.BatchNormalization(), layers.Dense(2)]
    )


def test_missing_h5py_says_how_to_install(monkeypatch: Any, tmp_path: Any) -> None:
    monkeypatch.setitem(sys.modules, "h5py", None)  # import h5py now raises ImportError
    with pytest.raises(ImportError, match=r"pip install symgrad\[keras\]"):
        _model().save_weights(str(tmp_path / "m.weights.h5"))


def test_filename_must_be_weights_h5(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`"):
        _model().save_weights(str(tmp_path / "m.h5"))


def test_round_trip(tmp_path: Any) -> None:
    pytest.importorskip("h5py")
    a, b = _model(), _model()
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    a(x, training=True)  # moves the moving statistics away from their start
    path = str(tmp_path / "m.weights.h5")
    a.save_weights(path)
    b.load_weights(path)
    for wa, wb in zip(a.get_weights(), b.get_weights(), strict=True):
        np.testing.assert_array_equal(wa, wb)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
