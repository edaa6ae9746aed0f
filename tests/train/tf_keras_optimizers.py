"""tf.keras.optimizers programs that run unchanged on TensorFlow (Keras 3) and on symgrad."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from tf_optimizers_v1 import B0, STEPS, W0, grads


def _sched(tf: Any, kind: str, *args: Any, **kwargs: Any) -> Any:
    return getattr(tf.keras.optimizers.schedules, kind)(*args, **kwargs)


OPTIMIZERS = {
    "sgd": lambda tf: tf.keras.optimizers.SGD(0.1),
    "sgd_momentum": lambda tf: tf.keras.optimizers.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda tf: tf.keras.optimizers.SGD(0.05, momentum=0.7, nesterov=True),
    "sgd_weight_decay": lambda tf: tf.keras.optimizers.SGD(0.1, weight_decay=0.01),
    "adam": lambda tf: tf.keras.optimizers.Adam(0.01),
    "adam_amsgrad": lambda tf: tf.keras.optimizers.Adam(0.1, 0.8, 0.9, 1e-3, amsgrad=True),
    "adamw": lambda tf: tf.keras.optimizers.AdamW(0.01),
    "adamw_hyper": lambda tf: tf.keras.optimizers.AdamW(0.1, weight_decay=0.1),
    "rmsprop": lambda tf: tf.keras.optimizers.RMSprop(0.01),
    "rmsprop_centered": lambda tf: tf.keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "adagrad": lambda tf: tf.keras.optimizers.Adagrad(0.1),
    "adagrad_init": lambda tf: tf.keras.optimizers.Adagrad(
        0.5, initial_accumulator_value=0.2, epsilon=1e-3
    ),
    "exponential_staircase": lambda tf: tf.keras.optimizers.SGD(
        _sched(tf, "ExponentialDecay", 0.1, 2, 0.5, staircase=True), momentum=0.5
    ),
    "exponential": lambda tf: tf.keras.optimizers.Adam(
        _sched(tf, "ExponentialDecay", 0.01, 3, 0.9)
    ),
    "piecewise": lambda tf: tf.keras.optimizers.SGD(
        _sched(tf, "PiecewiseConstantDecay", [1, 3], [0.1, 0.05, 0.01])
    ),
    "adamax": lambda tf: tf.keras.optimizers.Adamax(0.05),
    "adamax_hyper": lambda tf: tf.keras.optimizers.Adamax(0.1, 0.8, 0.95, 1e-3),
    "nadam": lambda tf: tf.keras.optimizers.Nadam(0.05),
    "nadam_hyper": lambda tf: tf.keras.optimizers.Nadam(0.1, 0.8, 0.95, 1e-3),
    "cosine": lambda tf: tf.keras.optimizers.Adam(
        _sched(tf, "CosineDecay", 0.0, 3, alpha=0.1, warmup_target=0.05, warmup_steps=2)
    ),
    "polynomial": lambda tf: tf.keras.optimizers.SGD(
        _sched(tf, "PolynomialDecay", 0.1, 3, 0.01, power=2.0, cycle=True), momentum=0.5
    ),
    "clipnorm": lambda tf: tf.keras.optimizers.SGD(0.1, clipnorm=0.5),
    "global_clipnorm": lambda tf: tf.keras.optimizers.Adam(0.01, global_clipnorm=0.5),
    "clipvalue": lambda tf: tf.keras.optimizers.RMSprop(0.01, clipvalue=0.3),
}


def eager_steps(tf: Any, key: str, dtype: Any = np.float32, wrap: Any = None) -> Any:
    """apply_gradients(zip(grads, vars)) for STEPS steps; the variables and the optimizer's."""
    w = tf.Variable(W0.astype(dtype))
    b = tf.Variable(B0.astype(dtype))
    opt = OPTIMIZERS[key](tf)

    def step(gw: Any, gb: Any) -> Any:
        return opt.apply_gradients(zip([gw, gb], [w, b]))

    if wrap is not None:
        step = wrap(step)
    for k in range(STEPS):
        gw, gb = grads(k)
        step(tf.constant(gw.astype(dtype)), tf.constant(gb.astype(dtype)))
    return w.numpy(), b.numpy(), tuple(v.numpy() for v in opt.variables)


def _program(key: str, dtype: Any = np.float32) -> Any:
    def program(tf: Any) -> Any:
        return eager_steps(tf, key, dtype)

    program.__name__ = key if dtype is np.float32 else f"{key}_float64"
    return program


def in_a_function(tf: Any) -> Any:
    """The same Adam steps inside tf.function (the optimizer builds during the first trace)."""
    return eager_steps(tf, "adamw", wrap=tf.function)


def nadam_in_a_function(tf: Any) -> Any:
    """Nadam's step product, updated once a step before the variables, inside tf.function."""
    return eager_steps(tf, "nadam", wrap=tf.function)


def none_gradients(tf: Any) -> Any:
    """A None gradient is skipped (with a warning); the step still counts."""
    w, unused = tf.Variable(W0), tf.Variable(2.0)
    opt = tf.keras.optimizers.Adam(0.01)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opt.apply_gradients([(tf.constant(grads(0)[0]), w), (None, unused)])
    return (
        w.numpy(),
        unused.numpy(),
        opt.iterations.numpy(),
        len(opt.variables),
        any("Gradients do not exist" in str(c.message) for c in caught),
    )


def schedule_values(tf: Any) -> Any:
    s = tf.keras.optimizers.schedules
    exp = s.ExponentialDecay(0.1, 3, 0.96)
    stair = s.ExponentialDecay(0.5, 2, 0.1, staircase=True)
    piece = s.PiecewiseConstantDecay([2, 5], [1.0, 0.5, 0.125])
    steps = [0, 1, 2, 3, 4, 5, 6, 10, 100]
    return (
        tuple(exp(k).numpy() for k in steps),
        tuple(stair(k).numpy() for k in steps),
        tuple(piece(k).numpy() for k in steps),
        exp.get_config(),
        piece.get_config(),
    )


def errors(tf: Any) -> Any:
    o = tf.keras.optimizers
    out = []
    for make in (
        lambda: o.Adam(1),
        lambda: o.SGD(0.1, momentum=2.0),
        lambda: o.SGD(0.1, clipnorm=1.0, clipvalue=1.0),
        lambda: o.AdamW(0.1, weight_decay=None),
        lambda: o.Adam(0.1, foo=1),
        lambda: o.schedules.ExponentialDecay(0.1, 0, 0.5),
    ):
        try:
            make()
            out.append("no error")
        except ValueError as e:
            out.append(str(e))
    opt = o.SGD(0.1)
    opt.apply_gradients([(tf.constant(1.0), tf.Variable(1.0))])
    try:
        opt.apply_gradients([(tf.constant(1.0), tf.Variable(2.0))])
    except ValueError as e:
        out.append(str(e).startswith("Unknown variable"))
    return tuple(out)


PROGRAMS = [_program(k) for k in OPTIMIZERS] + [
    _program("adam", np.float64),
    _program("rmsprop_centered", np.float64),
    in_a_function,
    nadam_in_a_function,
    none_gradients,
    schedule_values,
    errors,
]
