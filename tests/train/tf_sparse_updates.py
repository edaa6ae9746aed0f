"""Embedding training programs (IndexedSlices gradients) that run unchanged on TensorFlow
and on symgrad: three steps of each optimizer, then the table and its slots."""

from __future__ import annotations

from typing import Any

import numpy as np

IDS = [[0, 2], [2, 4]]  # row 2 twice: duplicate indices; rows 1 and 3 never touched


def table(shape: tuple[int, ...]) -> np.ndarray:
    return np.linspace(-1.0, 1.3, int(np.prod(shape))).reshape(shape).astype(np.float32)


def weights(shape: tuple[int, ...]) -> np.ndarray:
    n = 4 * (shape[1] if len(shape) > 1 else 1)
    return np.linspace(0.5, -0.7, n).reshape((2, 2, *shape[1:])).astype(np.float32)


def loss_of(tf: Any, v: Any, w: Any) -> Any:
    e = tf.nn.embedding_lookup(v, IDS)
    return tf.reduce_sum(e * w) + 0.5 * tf.reduce_sum(tf.square(e))


V1 = {
    "gd": (lambda t: t.GradientDescentOptimizer(0.1), []),
    "momentum": (lambda t: t.MomentumOptimizer(0.1, 0.9), ["momentum"]),
    "nesterov": (lambda t: t.MomentumOptimizer(0.1, 0.9, use_nesterov=True), ["momentum"]),
    "adam": (lambda t: t.AdamOptimizer(0.1), ["m", "v"]),
    "adagrad": (lambda t: t.AdagradOptimizer(0.1), ["accumulator"]),
    "rmsprop": (lambda t: t.RMSPropOptimizer(0.1, momentum=0.5), ["rms", "momentum"]),
    "rmsprop_centered": (
        lambda t: t.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
        ["rms", "mg", "momentum"],
    ),
}


def v1_eager(key: str, shape: tuple[int, ...]) -> Any:
    def program(tf: Any) -> Any:
        make, slots = V1[key]
        v = tf.Variable(table(shape), name="emb")
        w = tf.constant(weights(shape))
        opt = make(tf.compat.v1.train)
        for _ in range(3):
            opt.minimize(lambda: loss_of(tf, v, w), var_list=[v])
        return {"var": v.numpy(), **{s: opt.get_slot(v, s).numpy() for s in slots}}

    program.__name__ = f"v1_{key}" + ("_1d" if len(shape) == 1 else "")
    return program


def v1_session(key: str) -> Any:
    """TF1 style: gradients() gives the IndexedSlices, a Session runs the train op."""

    def program(tf: Any) -> Any:
        v1 = tf.compat.v1
        make, slots = V1[key]
        with tf.Graph().as_default():
            v = tf.Variable(table((5, 3)), name="emb")
            loss = loss_of(tf, v, tf.constant(weights((5, 3))))
            opt = make(v1.train)
            pairs = opt.compute_gradients(loss, [v])
            train = opt.apply_gradients(pairs)
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                for _ in range(3):
                    sess.run(train)
                grad = sess.run(pairs[0][0])
                out = sess.run({"var": v, **{s: opt.get_slot(v, s) for s in slots}})
        out["grad"] = (type(grad).__name__, grad.indices, grad.dense_shape)
        return out

    program.__name__ = f"v1_session_{key}"
    return program


KERAS = {
    "sgd": lambda k: k.SGD(0.1),
    "sgd_momentum": lambda k: k.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda k: k.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda k: k.Adam(0.1),
    "adamw": lambda k: k.AdamW(0.1),
    "adagrad": lambda k: k.Adagrad(0.1),
    "rmsprop": lambda k: k.RMSprop(0.1),
    "rmsprop_momentum": lambda k: k.RMSprop(0.1, momentum=0.5),
    "rmsprop_centered": lambda k: k.RMSprop(0.1, momentum=0.5, centered=True),
    "adadelta": lambda k: k.Adadelta(1.0),
    "ftrl": lambda k: k.Ftrl(
        0.1, l1_regularization_strength=0.01, l2_shrinkage_regularization_strength=0.1
    ),
    "lion": lambda k: k.Lion(0.05),
}


def keras(key: str, shape: tuple[int, ...] = (5, 3)) -> Any:
    def program(tf: Any) -> Any:
        v = tf.Variable(table(shape), name="emb")
        w = tf.constant(weights(shape))
        opt = KERAS[key](tf.keras.optimizers)
        kinds = []
        for _ in range(3):
            with tf.GradientTape() as tape:
                loss = loss_of(tf, v, w)
            grads = tape.gradient(loss, [v])
            kinds.append(type(grads[0]).__name__)
            opt.apply_gradients(zip(grads, [v]))
        slots = {  # by Keras's slot kind: "emb_0_momentum" -> "momentum"
            s.name.split(":")[0].rsplit("_0_", 1)[-1]: s.numpy()
            for s in opt.variables
            if len(s.shape) and s.shape[0] == shape[0]
        }
        return {"kinds": tuple(kinds), "var": v.numpy(), **dict(sorted(slots.items()))}

    program.__name__ = f"keras_{key}" + ("_1d" if len(shape) == 1 else "")
    return program


def keras_adafactor(shape: tuple[int, ...]) -> Any:
    """Adafactor: the squared slices densified before ε1 is added, the step's slices
    scaled by an rms over the whole table; its variables by Keras's order (iteration,
    learning rate, then r, c and the velocity, r and c int32 placeholders for a vector)."""

    def program(tf: Any) -> Any:
        v = tf.Variable(table(shape), name="emb")
        w = tf.constant(weights(shape))
        opt = tf.keras.optimizers.Adafactor(0.1)
        kinds = []
        for _ in range(3):
            with tf.GradientTape() as tape:
                loss = loss_of(tf, v, w)
            grads = tape.gradient(loss, [v])
            kinds.append(type(grads[0]).__name__)
            opt.apply_gradients(zip(grads, [v]))
        r, c, velocity = (s.numpy() for s in opt.variables[2:])
        return {"kinds": tuple(kinds), "var": v.numpy(), "r": r, "c": c, "velocity": velocity}

    program.__name__ = "keras_adafactor" + ("_1d" if len(shape) == 1 else "")
    return program


def keras_clipped(tf: Any) -> Any:
    """SGD with each Keras clipping option on the sparse gradient (global_clipnorm squares
    the slices' values, then densifies; clipnorm and clipvalue keep the slices)."""
    out = {}
    for key, options in (
        ("global_clipnorm", {"global_clipnorm": 1.0}),
        ("clipnorm", {"clipnorm": 1.0}),
        ("clipvalue", {"clipvalue": 0.3}),
    ):
        v = tf.Variable(table((5, 3)))
        w = tf.constant(weights((5, 3)))
        opt = tf.keras.optimizers.SGD(0.1, **options)
        for _ in range(2):
            with tf.GradientTape() as tape:
                loss = loss_of(tf, v, w)
            opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
        out[key] = v.numpy()
    return out


PROGRAMS = [
    *[v1_eager(k, (5, 3)) for k in V1],
    *[v1_eager(k, (5,)) for k in ("adagrad", "rmsprop_centered")],
    *[v1_session(k) for k in ("gd", "adam", "rmsprop")],
    *[keras(k) for k in KERAS],
    *[keras(k, (5,)) for k in ("adagrad", "rmsprop", "adadelta", "ftrl", "lion")],
    keras_adafactor((5, 3)),
    keras_adafactor((5,)),
    keras_clipped,
]
