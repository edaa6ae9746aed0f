"""Keras 3's newer activations (glu, hard_shrink, hard_swish, hard_tanh, soft_shrink,
sparse_plus, sparse_sigmoid, squareplus, tanh_shrink, threshold, sparsemax): one program
for TensorFlow and symgrad; tests/keras/test_keras_activations_more.py compares symgrad's
outputs and tape gradients of sum(y * r) with TF 2.21's, recorded by running this file:

    TF_CPP_MIN_LOG_LEVEL=3 <tf>/bin/python tests/keras/activations_program.py
(writes tests/keras/data/activations_tf.json).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np

X = np.array([[-2.5, -1.0, -0.7, -0.5, -0.2, 0.0, 0.3, 0.5, 0.9, 1.0, 1.7, 3.0]], "float32")
R = np.linspace(-1, 1.3, 12).reshape(1, 12)


def cases(tf: Any) -> dict[str, Any]:
    A = tf.keras.activations
    return {
        "glu": lambda x: A.glu(x),
        "glu_axis0": lambda x: A.glu(tf.reshape(x, [2, 6]), axis=0),
        "hard_shrink": lambda x: A.hard_shrink(x),
        "hard_shrink_1": lambda x: A.hard_shrink(x, threshold=1.0),
        "hard_swish": lambda x: A.hard_swish(x),
        "hard_tanh": lambda x: A.hard_tanh(x * 1.3),
        "soft_shrink": lambda x: A.soft_shrink(x),
        "soft_shrink_02": lambda x: A.soft_shrink(x, 0.2),
        "sparse_plus": lambda x: A.sparse_plus(x),
        "sparse_sigmoid": lambda x: A.sparse_sigmoid(x),
        "squareplus": lambda x: A.squareplus(x),
        "squareplus_b": lambda x: A.squareplus(x, b=0.5),
        "tanh_shrink": lambda x: A.tanh_shrink(x),
        "threshold": lambda x: A.threshold(x, 0.4, -3.0),
        "sparsemax": lambda x: A.sparsemax(tf.reshape(x, [3, 4])),
        "sparsemax_axis0": lambda x: A.sparsemax(tf.reshape(x, [3, 4]), axis=0),
        "by_name_sparsemax": lambda x: A.get("sparsemax")(x),
        "by_name_hard_swish": lambda x: A.get("hard_swish")(x),
    }


def run(tf: Any) -> dict[str, Any]:
    out = {}
    for dtype in ("float32", "float64"):
        for name, f in cases(tf).items():
            x = tf.constant(X.astype(dtype))
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
                r = tf.constant(R[:, : int(np.prod(y.shape))].reshape(y.shape).astype(dtype))
                loss = tf.reduce_sum(y * r)
            g = tape.gradient(loss, x)
            out[f"{name}/{dtype}"] = [y.numpy().tolist(), g.numpy().tolist()]
    return out


def main() -> None:
    import tensorflow as tf

    path = pathlib.Path(__file__).parent / "data" / "activations_tf.json"
    path.write_text(json.dumps({"versions": [tf.__version__], "cases": run(tf)}, indent=0))


if __name__ == "__main__":
    main()
