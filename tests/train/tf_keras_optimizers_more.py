"""CosineDecayRestarts: tf.keras programs that run unchanged on TensorFlow (Keras 3) and
on symgrad (the other optimizers and schedules: tf_keras_optimizers.py)."""

from __future__ import annotations

from typing import Any

from tf_optimizers_v1 import B0, STEPS, W0, grads


def _restarts(tf: Any, *args: Any, **kwargs: Any) -> Any:
    return tf.keras.optimizers.schedules.CosineDecayRestarts(*args, **kwargs)


OPTIMIZERS = {
    "restarts": lambda tf: tf.keras.optimizers.SGD(
        _restarts(tf, 0.1, 1, t_mul=2.0, m_mul=0.5, alpha=0.1), momentum=0.5
    ),
}


def eager_steps(tf: Any, key: str) -> Any:
    """apply_gradients for STEPS steps on a (2, 3) and a (3,) variable; both variables
    and the optimizer's."""
    w, b = tf.Variable(W0, name="w"), tf.Variable(B0, name="b")
    opt = OPTIMIZERS[key](tf)
    for k in range(STEPS):
        gw, gb = grads(k)
        opt.apply_gradients(zip([tf.constant(gw), tf.constant(gb)], [w, b]))
    return w.numpy(), b.numpy(), tuple(v.numpy() for v in opt.variables)


def _program(key: str) -> Any:
    def program(tf: Any) -> Any:
        return eager_steps(tf, key)

    program.__name__ = key
    return program


def restart_rates(tf: Any) -> Any:
    """CosineDecayRestarts' rates over several restarts, as schedule(step)."""
    steps = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 14, 15, 21, 22, 30, 45, 46, 100]
    schedules = [
        _restarts(tf, 1.0, 3),
        _restarts(tf, 0.5, 4, t_mul=1.0, m_mul=0.8, alpha=0.2),
        _restarts(tf, 0.1, 2, t_mul=1.5, m_mul=0.5, alpha=0.05),
        _restarts(tf, 0.3, 1, t_mul=3.0),
    ]
    rates = tuple(tuple(s(k).numpy() for k in steps) for s in schedules)
    f = tf.function(lambda k: schedules[2](k))
    in_a_function = tuple(f(tf.constant(k, tf.int64)).numpy() for k in (0, 3, 11))
    config = tf.keras.optimizers.schedules.serialize(schedules[2])
    again = tf.keras.optimizers.schedules.deserialize(config)
    in_sgd = tf.keras.optimizers.SGD(schedules[3]).get_config()["learning_rate"]
    return rates, in_a_function, config, again(7).numpy(), in_sgd


def inverse_time_rates(tf: Any) -> Any:
    s = tf.keras.optimizers.schedules
    smooth, stair = s.InverseTimeDecay(0.5, 3, 0.7), s.InverseTimeDecay(1.0, 2, 0.5, True)
    steps = [0, 1, 2, 3, 5, 8, 13]
    return tuple(smooth(k).numpy() for k in steps), tuple(stair(k).numpy() for k in steps)


PROGRAMS = [_program(k) for k in OPTIMIZERS] + [restart_rates, inverse_time_rates]
