"""tf.compat.v1's op aliases (to_float, div ...) and initializers (he_normal, orthogonal
...) in programs that run unchanged on TensorFlow and on symgrad.

Run with TensorFlow's interpreter to (re)make the literals of test_tf1_ops.py::

    PYTHONPATH=src <tf-python> tests/compat/tf_v1_ops.py
"""

from __future__ import annotations

import pathlib
import pprint
import sys
from typing import Any

import numpy as np

INIT_SHAPES = [[3, 5], [5, 3], [2, 3, 4]]


def aliases_graph(tf: Any) -> Any:
    """Op types, names and dtypes of the aliases in a TF1 graph, and their values."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        i = tf.constant([-7, 7, 5], name="i")
        f = tf.constant([-7.5, 7.25, 0.5], name="f")
        outs = [
            v1.to_float(i),
            v1.to_double(i),
            v1.to_int32(f),
            v1.to_int64(f),
            v1.to_complex64(f),
            v1.to_complex128(i),
            v1.to_float(i, name="again"),
            v1.div(i, 2),
            v1.div(f, 2.0),
            v1.div(i, tf.constant(-2), name="neg"),
            v1.div(tf.constant([7, -7], tf.int64), tf.constant([2, 2], tf.int64)),
        ]
        same = v1.to_float(f) is f
        with v1.Session() as sess:
            values = sess.run(outs)
        return (
            [(t.op.type, t.name, t.dtype.name) for t in outs],
            same,
            [np.real(v).tolist() if np.iscomplexobj(v) else v.tolist() for v in values],
        )


def aliases_eager(tf: Any) -> Any:
    v1 = tf.compat.v1
    a = v1.div(tf.constant([-7, 7]), tf.constant([2, -2]))
    b = v1.div(7.0, 2.0)
    c = v1.to_int32(tf.constant([-1.5, 2.7]))
    return a.numpy().tolist(), float(b), c.numpy().tolist(), a.dtype.name, b.dtype.name


def _inits(v1: Any, seed: Any) -> list[Any]:
    i = v1.initializers
    return [
        ("he_normal", i.he_normal(seed=seed)),
        ("he_uniform", i.he_uniform(seed=seed)),
        ("lecun_normal", i.lecun_normal(seed=seed)),
        ("lecun_uniform", i.lecun_uniform(seed=seed)),
        ("orthogonal", v1.orthogonal_initializer(gain=2.0, seed=seed)),
        ("orthogonal_ns", i.orthogonal(seed=seed)),
        ("unit_scaling", v1.uniform_unit_scaling_initializer(factor=1.5, seed=seed)),
    ]


def initializers_graph(tf: Any) -> Any:
    """Each initializer's values under a graph seed (the op seeds as TF gives them)."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        v1.set_random_seed(3)
        made = {
            f"{name} {shape}": init(shape)
            for name, init in _inits(v1, None)
            for shape in INIT_SHAPES
        }
        made["seeded he_normal"] = v1.initializers.he_normal(seed=5)([4, 2])
        made["identity"] = v1.initializers.identity(gain=2.0)([2, 3])
        made["identity float64"] = v1.initializers.identity()([2, 2], dtype=tf.float64)
        with v1.Session() as sess:
            return {k: np.asarray(v) for k, v in sess.run(made).items()}


def initializers_eager(tf: Any) -> Any:
    v1 = tf.compat.v1
    tf.random.set_seed(9)
    out = {name: init([4, 3]).numpy() for name, init in _inits(v1, 4)}
    tf.random.set_seed(None)
    return out


def initializer_errors(tf: Any) -> Any:
    v1 = tf.compat.v1
    out = []
    for f in (
        lambda: v1.orthogonal_initializer()([3]),
        lambda: v1.initializers.identity()([2, 2, 2]),
        lambda: v1.orthogonal_initializer(dtype=tf.int32),
    ):
        try:
            f()
            out.append(None)
        except (ValueError, TypeError) as e:
            out.append((type(e).__name__, str(e)))
    return out


PROGRAMS = [
    aliases_graph,
    aliases_eager,
    initializers_graph,
    initializers_eager,
    initializer_errors,
]

if __name__ == "__main__":
    import tensorflow as tf

    sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "train"))
    from record_tf import literal

    out = {}
    for prog in PROGRAMS:
        tf.random.set_seed(None)
        out[prog.__name__] = literal(prog(tf))
    sys.stdout.write("LITERALS = " + pprint.pformat(out, width=100, sort_dicts=False) + "\n")
