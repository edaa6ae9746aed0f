"""TF1 and TF2 calls whose positional arguments meant something else before issue 23.

Each program ``fn(tf)`` calls one function positionally as a TF1 (or TF2) tutorial does
and returns a list of arrays; tests/test_tf1_signatures.py runs it with ``tf`` = symgrad
and compares with TensorFlow 2.21's results in tf1_positional_expected.py.  Record them
again with TensorFlow's Python (writes tests/tf1_positional_expected.py):

    TF_CPP_MIN_LOG_LEVEL=3 <tf>/bin/python tests/tf1_positional_calls.py
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

X = (np.sin(np.arange(12) * 1.3 + 0.1) * 1.5).reshape(3, 4).astype(np.float32)
IMG = (np.cos(np.arange(2 * 5 * 5 * 2) * 0.7)).reshape(2, 5, 5, 2).astype(np.float32)
W = (np.sin(np.arange(3 * 3 * 2 * 3) * 0.9)).reshape(3, 3, 2, 3).astype(np.float32)
DW = (np.sin(np.arange(3 * 3 * 2 * 2) * 0.4)).reshape(3, 3, 2, 2).astype(np.float32)
PW = (np.cos(np.arange(4 * 3) * 0.6)).reshape(1, 1, 4, 3).astype(np.float32)


def _dropout(tf: Any) -> list[Any]:
    tf.random.set_seed(7)
    y = tf.compat.v1.nn.dropout(tf.ones([2000]), 0.9, None, 3)  # keep_prob 0.9
    return [tf.math.count_nonzero(y), tf.reduce_max(y)]


def _moments(tf: Any) -> list[Any]:
    m, v = tf.compat.v1.nn.moments(tf.constant(X), [0], None, "m")  # name, not keepdims
    return [m, v]


def _transpose(tf: Any) -> list[Any]:
    z = tf.complex(tf.constant(X), tf.constant(X * 2))
    return [tf.math.imag(tf.compat.v1.transpose(z, [1, 0], "t"))]  # name, not conjugate


def _convolution(tf: Any) -> list[Any]:
    return [tf.compat.v1.nn.convolution(tf.constant(IMG), tf.constant(W), "VALID", [1, 2])]


def _conv2d(tf: Any) -> list[Any]:
    v1 = tf.compat.v1.nn
    return [v1.conv2d(tf.constant(IMG), tf.constant(W), [1, 1, 1, 1], "SAME", True, "NHWC")]


def _conv2d_v2(tf: Any) -> list[Any]:
    return [tf.nn.conv2d(tf.constant(IMG), tf.constant(W), 2, "SAME", "NHWC")]


def _depthwise(tf: Any) -> list[Any]:
    v1 = tf.compat.v1.nn
    return [v1.depthwise_conv2d(tf.constant(IMG), tf.constant(DW), [1, 1, 1, 1], "SAME", [2, 2])]


def _separable(tf: Any) -> list[Any]:
    v1 = tf.compat.v1.nn
    x, d, p = tf.constant(IMG), tf.constant(DW), tf.constant(PW)
    return [v1.separable_conv2d(x, d, p, [1, 1, 1, 1], "VALID", [2, 2])]


def _variables(tf: Any) -> list[Any]:
    # TF 2.21 takes both in TF2's order (its _variable_call), caching_device fourth
    a = tf.compat.v1.Variable(1.0, True, True, None, "positional_a", None, tf.float64)
    b = tf.Variable(2.0, True, True, None, "positional_b")
    return [np.array(a.name.encode()), a.dtype == tf.float64, np.array(b.name.encode())]


def _gradients(tf: Any) -> list[Any]:
    @tf.function
    def f(x: Any) -> Any:
        y = x * x * x
        g2 = tf.gradients(y, x, None, "g", True)  # gate_gradients fifth (TF2)
        g1 = tf.compat.v1.gradients(y, x, None, "g1", False, True)  # gate sixth (TF1)
        h = tf.hessians(y, x, False, None, "h")  # name last (TF2)
        return g2[0], g1[0], h[0]

    return list(f(tf.constant([1.0, 2.0])))


def _initializer(tf: Any) -> list[Any]:
    return [
        tf.random_normal_initializer(seed=3)([2, 3]),
        tf.random_uniform_initializer(seed=3)([2, 3]),
        tf.constant_initializer([1.0, 2.0])([2]),
    ]


def _reductions(tf: Any) -> list[Any]:
    v1, x = tf.compat.v1, tf.constant(X)
    return [
        v1.reduce_sum(x, 1, None, None, None, True),  # keep_dims sixth
        v1.reduce_mean(x, None, None, None, [1]),  # reduction_indices fifth
        v1.reduce_max(x, 0, True),
        v1.reduce_logsumexp(x, 1, None, "lse"),
        v1.math.reduce_prod(x, None, None, None, 0, True),
        v1.argmax(x, None, None, 1),  # dimension fourth
        v1.count_nonzero(x > 0, 1, None, tf.int64, None, None, True),
        v1.norm(x, "euclidean", 1, None, None, True),
    ]


def _softmaxes(tf: Any) -> list[Any]:
    v1, x = tf.compat.v1, tf.constant(X)
    labels = tf.nn.softmax(tf.constant(X[::-1].copy()), 0)
    return [
        v1.nn.softmax(x, None, None, 0),  # dim fourth
        v1.nn.log_softmax(x, None, None, 0),
        v1.nn.softmax_cross_entropy_with_logits(labels, x, 0),  # dim third
        v1.nn.softmax_cross_entropy_with_logits_v2(labels, x, 0),
    ]


def _shapes(tf: Any) -> list[Any]:
    v1, x = tf.compat.v1, tf.constant(X)
    return [
        v1.expand_dims(x, None, None, 1),  # dim fourth
        v1.squeeze(tf.ones([1, 3, 1]), None, None, [0]),  # squeeze_dims fourth
        v1.shape(x, "s"),
        v1.size(x, "n", tf.int64),
        v1.pad(x, [[1, 0], [0, 1]], "CONSTANT", None, 5.0),  # constant_values fifth
        v1.gather(x, [2, 0], None, None, 1),  # axis fifth
        v1.gather_nd(x, [[1, 2]], None, 0),
        v1.ones_like(x, tf.float64),
        tf.convert_to_tensor(1, None, tf.float64),  # TF2: dtype_hint third
        v1.convert_to_tensor(1, None, None, tf.float64),  # TF1: preferred_dtype fourth
    ]


def _names_third(tf: Any) -> list[Any]:
    """TF1 puts ``name`` earlier than TF2: a string third/fourth is the name, not data."""
    v1, x = tf.compat.v1, tf.constant(X)
    params = tf.constant(X * 10.0)
    return [
        v1.argmax(x, 1, "am"),
        v1.gather_nd(x, [[0, 1], [2, 3]], "g"),
        v1.gather(x, [1], None, "g", 1),
        v1.nn.embedding_lookup(params, [2, 0], "mod", "e", True, 1.0),  # max_norm sixth
        tf.constant_initializer([1.0, 2.0, 3.0], False)([3]),  # support_partition second
    ]


def _while_loop(tf: Any) -> list[Any]:
    def loop() -> Any:
        return tf.compat.v1.while_loop(lambda i: i < 5, lambda i: [i + 2], [tf.constant(0)])

    eager, traced = loop(), tf.function(loop)()  # a list eagerly, bare in a graph
    return [eager, np.array(isinstance(eager, list)), traced, np.array(isinstance(traced, list))]


def _pools(tf: Any) -> list[Any]:
    v1, x = tf.compat.v1.nn, tf.constant(IMG)
    return [
        v1.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        v1.avg_pool(x, [1, 2, 2, 1], [1, 1, 1, 1], "SAME", "NHWC"),
    ]


def _in_top_k(tf: Any) -> list[Any]:
    return [tf.compat.v1.nn.in_top_k(tf.constant(X), tf.constant([0, 3, 1]), 2)]


def _conv1d(tf: Any) -> list[Any]:
    x = tf.constant(IMG[0])  # [5, 5, 2]: batch 5, width 5, channels 2
    w = tf.constant(W[0])  # [3, 2, 3]
    return [tf.compat.v1.nn.conv1d(x, w, 1, "SAME", None, "NWC")]  # use_cudnn fifth


def _conv2d_transpose(tf: Any) -> list[Any]:
    x = tf.constant(IMG[:, :, :, :1].repeat(3, axis=3))
    return [tf.compat.v1.nn.conv2d_transpose(x, tf.constant(W), [2, 10, 10, 2], [1, 2, 2, 1])]


CALLS: dict[str, Callable[[Any], list[Any]]] = {
    "dropout": _dropout,
    "moments": _moments,
    "transpose": _transpose,
    "convolution": _convolution,
    "conv2d": _conv2d,
    "conv2d_v2": _conv2d_v2,
    "depthwise": _depthwise,
    "separable": _separable,
    "variables": _variables,
    "gradients": _gradients,
    "initializer": _initializer,
    "reductions": _reductions,
    "softmaxes": _softmaxes,
    "shapes": _shapes,
    "names_third": _names_third,
    "while_loop": _while_loop,
    "pools": _pools,
    "in_top_k": _in_top_k,
    "conv1d": _conv1d,
    "conv2d_transpose": _conv2d_transpose,
}


def run(tf: Any, name: str) -> list[np.ndarray]:
    return [np.asarray(v) for v in CALLS[name](tf)]


if __name__ == "__main__":
    import tensorflow

    np.set_printoptions(precision=9, threshold=100000)
    lines = [
        '"""TensorFlow 2.21\'s results for tests/tf1_positional_calls.py (generated by it)."""',
        "",
        "from numpy import array, float32, float64, int32, int64  # noqa: F401",
        "",
        "EXPECTED = {",
    ]
    for key in CALLS:
        values = run(tensorflow, key)
        lines.append(f"    {key!r}: [{', '.join(repr(v) for v in values)}],")
    lines.append("}")
    path = __file__.replace("tf1_positional_calls.py", "tf1_positional_expected.py")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
