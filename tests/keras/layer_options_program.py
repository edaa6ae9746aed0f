"""Layer options checked as whole programs: masks through merge layers, ``channels_first``,
UpSampling2D's interpolations.  One program for TensorFlow and symgrad
(tests/keras/test_keras_layer_options.py holds TF 2.21's output, data/layer_options_tf.json).

    TF_CPP_MIN_LOG_LEVEL=3 /work/main/.venv-tf/bin/python tests/keras/layer_options_program.py
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np


def merge_masks(keras: Any, get_mask: Any) -> dict[str, Any]:
    """Masks from Embedding(mask_zero=True) through Concatenate (time and feature axes, one
    or both inputs masked), Add and Maximum, and what a masked average pooling makes of them."""
    layers, constant = keras.layers, keras.initializers.Constant
    a = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], "int32")
    b = np.array([[4, 4, 4, 0], [1, 2, 3, 4]], "int32")
    w = np.arange(15, dtype="float32").reshape(5, 3) / 10
    e1 = layers.Embedding(5, 3, mask_zero=True, embeddings_initializer=constant(w))(a)
    e2 = layers.Embedding(5, 3, embeddings_initializer=constant(w))(b)
    e3 = layers.Embedding(5, 3, mask_zero=True, embeddings_initializer=constant(w))(b)
    out: dict[str, Any] = {}
    for name, layer, xs in [
        ("concatenate_time_both", layers.Concatenate(axis=1), [e1, e3]),
        ("concatenate_time_one", layers.Concatenate(axis=1), [e1, e2]),
        ("concatenate_features_one", layers.Concatenate(), [e1, e2]),
        ("concatenate_features_both", layers.Concatenate(), [e1, e3]),
        ("add_both", layers.Add(), [e1, e3]),
        ("add_one", layers.Add(), [e1, e2]),
        ("maximum_both", layers.Maximum(), [e1, e3]),
    ]:
        y = layer(xs)
        mask = get_mask(y)
        pooled = layers.GlobalAveragePooling1D()(y)
        out[name] = [
            None if mask is None else np.asarray(mask).tolist(),
            np.asarray(pooled).tolist(),
        ]
    return out


def run_all(tf: Any, keras: Any, get_mask: Any) -> dict[str, Any]:
    return {"merge_masks": merge_masks(keras, get_mask)}


if __name__ == "__main__":
    if sys.argv[1:] == ["symgrad"]:
        import symgrad
        from symgrad.keras.layers.masks import get_mask as symgrad_mask

        print(json.dumps(run_all(symgrad, symgrad.keras, symgrad_mask)))
    else:
        import keras as keras_module
        import tensorflow

        def keras_mask(t: Any) -> Any:
            return getattr(t, "_keras_mask", None)

        print(json.dumps(run_all(tensorflow, keras_module, keras_mask)))
