"""More ``keras.ops`` NumPy-style functions: one program for TensorFlow and symgrad;
tests/keras/test_keras_ops_numpy.py compares symgrad's values, dtypes and tape gradients
with TF 2.21's, recorded by running this file:

    TF_CPP_MIN_LOG_LEVEL=3 <tf>/bin/python tests/keras/ops_numpy_program.py
(writes tests/keras/data/ops_numpy_tf.json).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np

U = np.array([[-0.9, -0.4, 0.0, 0.3], [0.5, 0.8, 0.95, -0.1]])
V = np.array([[1.2, 2.5, 4.0, 1.01], [7.5, 1.5, 3.0, 10.0]])
W = np.array([[-2.5, -1.2, 0.0, 0.7], [1.5, 3.0, -0.2, 40.0]])
SPECIAL = np.array([np.nan, np.inf, -np.inf, 1.0, -0.0])


def float_cases(K: Any) -> dict[str, Any]:
    return {
        "arccos": (K.arccos, U), "arcsin": (K.arcsin, U), "arctan": (K.arctan, W),
        "arccosh": (K.arccosh, V), "arcsinh": (K.arcsinh, W), "arctanh": (K.arctanh, U),
        "cosh": (K.cosh, W), "sinh": (K.sinh, W), "tan": (K.tan, U), "ceil": (K.ceil, W),
        "exp2": (K.exp2, W), "expm1": (K.expm1, W), "log10": (K.log10, V),
        "log2": (K.log2, V), "cumprod": (lambda x: K.cumprod(x, axis=1), W),
        "cumprod_flat": (K.cumprod, U), "diff": (K.diff, W),
        "diff2_axis0": (lambda x: K.diff(x, 1, axis=0), W), "diff_n2": (lambda x: K.diff(x, 2), W),
        "moveaxis": (lambda x: K.moveaxis(K.reshape(x, (2, 2, 2)), [0, 1], [2, 0]), W),
        "arctan2": (lambda x: K.arctan2(x, x[::-1] + 0.5), W),
        "logaddexp": (lambda x: K.logaddexp(x, x[::-1] * 2.0), W),
    }  # fmt: skip


def run(tf: Any) -> dict[str, Any]:
    K = tf.keras.ops
    out: dict[str, Any] = {}
    for dtype in ("float32", "float64"):
        for name, (f, x0) in float_cases(K).items():
            x = tf.constant(x0.astype(dtype))
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
                loss = tf.reduce_sum(y * y)
            g = tape.gradient(loss, x)
            grad = None if g is None else tf.convert_to_tensor(g).numpy().tolist()
            out[f"{name}/{dtype}"] = [y.numpy().tolist(), grad, y.dtype.name]
    ints = tf.constant([[1, 2], [3, 4]])
    for name, y in {
        "int_arccos": K.arccos(ints // 4), "int_log2": K.log2(ints), "int_exp2": K.exp2(ints),
        "int64_cosh": K.cosh(tf.constant([1, 2], dtype="int64")), "int_ceil": K.ceil(ints),
        "bool_tan": K.tan(tf.constant([True, False])), "int_cumprod": K.cumprod(ints),
        "bool_cumprod": K.cumprod(tf.constant([True, True, False])), "int_diff": K.diff(ints),
        "bool_diff": K.diff(tf.constant([True, True, False, True])),
        "isnan": K.isnan(SPECIAL), "isinf": K.isinf(SPECIAL), "isfinite": K.isfinite(SPECIAL),
        "int_isnan": K.isnan(ints), "int_isfinite": K.isfinite(ints),
        "full": K.full((2, 3), 7), "full_int": K.full((2,), 3, dtype="int32"),
        "full_like": K.full_like(ints, 2.5), "full_like_f": K.full_like(ints, 2.5, "float64"),
        "identity": K.identity(3), "identity_int": K.identity(2, dtype="int64"),
        "logaddexp_special": K.logaddexp(SPECIAL, np.array([np.inf, np.inf, -np.inf, 2.0, 0.0])),
        "logaddexp_mixed": K.logaddexp(ints, tf.constant([[0.5, 1.5]], "float64")),
        "arctan2_int": K.arctan2(ints, ints - 2),
        "diff_n0": K.diff(ints, 0),
        "round": K.round(tf.constant([0.5, 1.5, 2.5, -0.5, -1.7, 3.14159])),
        "round_2": K.round(tf.constant([0.125, 1.555, -2.675, 3.14159], "float64"), 2),
        "round_int": K.round(tf.constant([15, 25, -35, 1234]), -1),
        "round_int_pos": K.round(ints, 1),
        "nan_to_num": K.nan_to_num(SPECIAL.astype("float32")),
        "nan_to_num_set": K.nan_to_num(SPECIAL, nan=-1.0, posinf=9.0, neginf=-9.0),
        "nan_to_num_int": K.nan_to_num(ints),
    }.items():  # fmt: skip
        out[name] = [np.asarray(y).tolist(), y.dtype.name]
    out["ndim"] = [K.ndim(np.zeros((2, 3, 1))), K.ndim(3.0)]
    return out


def main() -> None:
    import tensorflow as tf

    path = pathlib.Path(__file__).parent / "data" / "ops_numpy_tf.json"
    path.write_text(json.dumps({"versions": [tf.__version__], "cases": run(tf)}, indent=0))


if __name__ == "__main__":
    main()
