"""Embedding training programs for Ftrl, Adadelta, ProximalGradientDescent, ProximalAdagrad
and AdagradDA (IndexedSlices gradients with a duplicate index) that run unchanged on
TensorFlow and on symgrad: three steps, then the table and its slots.

Tables of shape (5, 3) take the row path of TF's SparseApply* kernels, tables of shape
(5,) their scalar loop (another operation order, some of it in double)."""

from __future__ import annotations

from typing import Any

import numpy as np
from tf_sparse_updates import loss_of, table, weights

FTRL = ["accum", "linear"]
PROXIMAL_ADAGRAD = ["accumulator"]
DA = ["gradient_accumulator", "gradient_squared_accumulator"]

OPTIMIZERS = {
    "ftrl": (lambda t, step: t.FtrlOptimizer(0.1), FTRL),
    "ftrl_l1_l2": (
        lambda t, step: t.FtrlOptimizer(
            0.5, l1_regularization_strength=0.3, l2_regularization_strength=0.1
        ),
        FTRL,
    ),
    "ftrl_v2": (
        lambda t, step: t.FtrlOptimizer(
            0.2,
            learning_rate_power=-0.6,
            initial_accumulator_value=0.2,
            l1_regularization_strength=0.05,
            l2_regularization_strength=0.1,
            l2_shrinkage_regularization_strength=0.05,
            beta=0.3,
        ),
        FTRL,
    ),
    "adadelta": (
        lambda t, step: t.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-4),
        ["accum", "accum_update"],
    ),
    "proximal_gd": (lambda t, step: t.ProximalGradientDescentOptimizer(0.1), []),
    "proximal_gd_l1_l2": (
        lambda t, step: t.ProximalGradientDescentOptimizer(
            0.1, l1_regularization_strength=0.5, l2_regularization_strength=0.2
        ),
        [],
    ),
    "proximal_adagrad": (lambda t, step: t.ProximalAdagradOptimizer(0.1), PROXIMAL_ADAGRAD),
    "proximal_adagrad_l1_l2": (
        lambda t, step: t.ProximalAdagradOptimizer(
            0.3, 0.2, l1_regularization_strength=0.1, l2_regularization_strength=0.2
        ),
        PROXIMAL_ADAGRAD,
    ),
    "adagrad_da": (lambda t, step: t.AdagradDAOptimizer(0.1, step), DA),
    "adagrad_da_l1_l2": (
        lambda t, step: t.AdagradDAOptimizer(
            0.2,
            step,
            initial_gradient_squared_accumulator_value=0.2,
            l1_regularization_strength=0.05,
            l2_regularization_strength=0.1,
        ),
        DA,
    ),
}


def eager(key: str, shape: tuple[int, ...], dtype: Any = np.float32) -> Any:
    """TF2 style: minimize a loss function with a global step (AdagradDA reads it)."""

    def program(tf: Any) -> Any:
        make, slots = OPTIMIZERS[key]
        v = tf.Variable(table(shape).astype(dtype), name="emb")
        w = tf.constant(weights(shape).astype(dtype))
        step = tf.Variable(0, dtype=tf.int64)
        opt = make(tf.compat.v1.train, step)
        for _ in range(3):
            opt.minimize(lambda: loss_of(tf, v, w), global_step=step, var_list=[v])
        return {"var": v.numpy(), **{s: opt.get_slot(v, s).numpy() for s in slots}}

    suffix = ("_1d" if len(shape) == 1 else "") + ("_float64" if dtype is np.float64 else "")
    program.__name__ = key + suffix
    return program


def session(key: str, shape: tuple[int, ...]) -> Any:
    """TF1 style: compute_gradients gives the IndexedSlices, a Session runs the train op."""

    def program(tf: Any) -> Any:
        v1 = tf.compat.v1
        make, slots = OPTIMIZERS[key]
        with tf.Graph().as_default():
            v = tf.Variable(table(shape), name="emb")
            loss = loss_of(tf, v, tf.constant(weights(shape)))
            step = v1.train.get_or_create_global_step()
            opt = make(v1.train, step)
            pairs = opt.compute_gradients(loss, [v])
            train = opt.apply_gradients(pairs, global_step=step)
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                for _ in range(3):
                    sess.run(train)
                grad = sess.run(pairs[0][0])
                out = sess.run({"var": v, **{s: opt.get_slot(v, s) for s in slots}})
        out["grad"] = (type(grad).__name__, grad.indices)
        return out

    program.__name__ = f"session_{key}" + ("_1d" if len(shape) == 1 else "")
    return program


PROGRAMS = [
    *[eager(k, (5, 3)) for k in OPTIMIZERS],
    *[eager(k, (5,)) for k in OPTIMIZERS],
    *[eager(k, (5,), np.float64) for k in ("ftrl_v2", "proximal_adagrad_l1_l2", "adagrad_da")],
    *[session(k, (5, 3)) for k in ("ftrl_v2", "adadelta", "proximal_gd_l1_l2", "adagrad_da")],
    *[session(k, (5,)) for k in ("ftrl_l1_l2", "proximal_adagrad_l1_l2", "adagrad_da_l1_l2")],
]
