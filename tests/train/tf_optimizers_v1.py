"""TF1 optimizer programs that run unchanged on TensorFlow and on symgrad."""

from __future__ import annotations

from typing import Any

import numpy as np

W0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
B0 = np.array([0.1, -0.2, 0.3], np.float32)
GW = np.array([[0.3, -0.2, 0.5], [-0.1, 0.4, -0.6]], np.float32)
GB = np.array([0.2, -0.1, 0.05], np.float32)
STEPS = 5


def grads(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Step k's gradients: they shrink and change sign, so every slot formula matters."""
    return GW * np.float32(1.0 - 0.4 * k), GB * np.float32(k + 1)


OPTIMIZERS = {
    "gd": lambda t: t.GradientDescentOptimizer(0.1),
    "momentum": lambda t: t.MomentumOptimizer(0.1, 0.9),
    "nesterov": lambda t: t.MomentumOptimizer(0.05, 0.7, use_nesterov=True),
    "adam": lambda t: t.AdamOptimizer(0.01),
    "adam_hyper": lambda t: t.AdamOptimizer(0.1, 0.8, 0.9, 1e-3),
    "adagrad": lambda t: t.AdagradOptimizer(0.1),
    "adagrad_init": lambda t: t.AdagradOptimizer(0.5, initial_accumulator_value=0.2),
    "rmsprop": lambda t: t.RMSPropOptimizer(0.01),
    "rmsprop_centered": lambda t: t.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
    "rmsprop_hyper": lambda t: t.RMSPropOptimizer(0.1, decay=0.8, epsilon=1e-3),
    "ftrl": lambda t: t.FtrlOptimizer(0.1),
    "ftrl_l1_l2": lambda t: t.FtrlOptimizer(  # l1 large enough to zero some weights
        0.5,
        l1_regularization_strength=0.3,
        l2_regularization_strength=0.1,
        accum_name="acc",
        linear_name="lin",
    ),
    "ftrl_v2": lambda t: t.FtrlOptimizer(  # ApplyFtrlV2: pow, shrinkage, beta
        0.2,
        learning_rate_power=-0.6,
        initial_accumulator_value=0.2,
        l1_regularization_strength=0.05,
        l2_regularization_strength=0.1,
        l2_shrinkage_regularization_strength=0.05,
        beta=0.3,
    ),
    "adadelta": lambda t: t.AdadeltaOptimizer(1.0),
    "adadelta_hyper": lambda t: t.AdadeltaOptimizer(0.5, rho=0.8, epsilon=1e-4),
    "proximal_gd": lambda t: t.ProximalGradientDescentOptimizer(0.1),
    "proximal_gd_l1_l2": lambda t: t.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.5, l2_regularization_strength=0.2
    ),
    "proximal_adagrad": lambda t: t.ProximalAdagradOptimizer(0.1),
    "proximal_adagrad_l1_l2": lambda t: t.ProximalAdagradOptimizer(
        0.3, 0.2, l1_regularization_strength=0.1, l2_regularization_strength=0.2
    ),
    "adagrad_da": lambda t: t.AdagradDAOptimizer(0.1, t.get_global_step()),
    "adagrad_da_l1_l2": lambda t: t.AdagradDAOptimizer(
        0.2,
        t.get_global_step(),
        initial_gradient_squared_accumulator_value=0.2,
        l1_regularization_strength=0.05,
        l2_regularization_strength=0.1,
    ),
}


def session_steps(tf: Any, key: str, dtype: Any = np.float32) -> Any:
    """apply_gradients in a graph: the train op run for STEPS steps in a Session."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        w = tf.Variable(W0.astype(dtype), name="w")
        b = tf.Variable(B0.astype(dtype), name="b")
        gw = v1.placeholder(dtype, W0.shape)
        gb = v1.placeholder(dtype, B0.shape)
        step = v1.train.get_or_create_global_step()
        opt = OPTIMIZERS[key](v1.train)
        train = opt.apply_gradients([(gw, w), (gb, b)], global_step=step)
        names = opt.get_slot_names()
        slots = [opt.get_slot(v, n) for n in names for v in (w, b)]
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for k in range(STEPS):
                a, c = grads(k)
                sess.run(train, {gw: a.astype(dtype), gb: c.astype(dtype)})
            values = sess.run([w, b, step] + slots)
        return (
            tuple(names),
            tuple(s.name for s in slots),
            tuple(v.name for v in opt.variables()),
            tuple(values),
        )


def _program(key: str, dtype: Any = np.float32) -> Any:
    def program(tf: Any) -> Any:
        return session_steps(tf, key, dtype)

    program.__name__ = key if dtype is np.float32 else f"{key}_float64"
    return program


def eager_minimize(tf: Any) -> Any:
    """TF2 style: minimize a loss function eagerly, with None gradients skipped."""
    v1 = tf.compat.v1
    w = tf.Variable(W0)
    b = tf.Variable(B0)
    unused = tf.Variable(1.0)
    opt = v1.train.AdamOptimizer(0.05)
    target = tf.constant(GW)
    out = []
    for _ in range(3):
        opt.minimize(
            lambda: tf.reduce_sum(tf.square(w - target)) + tf.reduce_sum(b * b),
            var_list=[w, b, unused],
        )
        out += [w.numpy(), b.numpy()]
    return tuple(out) + (opt.get_slot(w, "m").numpy(), opt.get_slot(unused, "m"))


def graph_minimize(tf: Any) -> Any:
    """TF1 style: minimize with a decayed learning rate and a global step; compute_gradients."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        w = tf.Variable(W0, name="w")
        x = v1.placeholder(tf.float32, [None, 3])
        step = v1.train.get_or_create_global_step()
        lr = v1.train.exponential_decay(0.1, step, 2, 0.5, staircase=True)
        lr2 = v1.train.exponential_decay(0.1, step, 3, 0.9)
        loss = tf.reduce_mean(tf.square(tf.matmul(x, tf.transpose(w)) - 1.0))
        opt = v1.train.MomentumOptimizer(lr, 0.5)
        ((g, v),) = opt.compute_gradients(loss)
        train = opt.minimize(loss, global_step=step)
        data = np.array([[1.0, 0.5, -1.0], [0.25, 2.0, 1.0]], np.float32)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            first_grad = sess.run(g, {x: data})
            rates = []
            for _ in range(4):
                rates.append(sess.run([lr, lr2]))
                sess.run(train, {x: data})
            return (
                v is w,
                first_grad,
                sess.run(w),
                sess.run(step),
                tuple(map(tuple, rates)),
                train.name in [op.name for op in v1.get_collection("train_op")],
            )


PROGRAMS = [_program(k) for k in OPTIMIZERS] + [
    _program("adam", np.float64),
    _program("rmsprop", np.float64),
    *[_program(k, np.float64) for k in ("ftrl_l1_l2", "ftrl_v2", "adadelta", "adagrad_da_l1_l2")],
    eager_minimize,
    graph_minimize,
]
