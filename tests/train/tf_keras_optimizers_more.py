"""Adadelta, Ftrl, Lion, Adafactor and CosineDecayRestarts: tf.keras programs that run
unchanged on TensorFlow (Keras 3) and on symgrad (the others: tf_keras_optimizers.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
from tf_optimizers_v1 import B0, STEPS, W0, grads


def _restarts(tf: Any, *args: Any, **kwargs: Any) -> Any:
    return tf.keras.optimizers.schedules.CosineDecayRestarts(*args, **kwargs)


OPTIMIZERS = {
    "adadelta": lambda tf: tf.keras.optimizers.Adadelta(),
    "adadelta_hyper": lambda tf: tf.keras.optimizers.Adadelta(1.0, rho=0.8, epsilon=1e-3),
    "adadelta_clipvalue": lambda tf: tf.keras.optimizers.Adadelta(0.5, clipvalue=0.3),
    "ftrl": lambda tf: tf.keras.optimizers.Ftrl(0.1),
    "ftrl_hyper": lambda tf: tf.keras.optimizers.Ftrl(
        0.2,
        learning_rate_power=-0.7,
        initial_accumulator_value=0.2,
        l1_regularization_strength=0.01,
        l2_regularization_strength=0.05,
        l2_shrinkage_regularization_strength=0.1,
        beta=0.3,
    ),
    "ftrl_l1": lambda tf: tf.keras.optimizers.Ftrl(
        0.5, learning_rate_power=0.0, l1_regularization_strength=0.4
    ),
    "lion": lambda tf: tf.keras.optimizers.Lion(0.01),
    "lion_weight_decay": lambda tf: tf.keras.optimizers.Lion(
        0.05, beta_1=0.8, beta_2=0.95, weight_decay=0.1
    ),
    "lion_global_clipnorm": lambda tf: tf.keras.optimizers.Lion(0.02, global_clipnorm=0.5),
    "adafactor": lambda tf: tf.keras.optimizers.Adafactor(),
    "adafactor_hyper": lambda tf: tf.keras.optimizers.Adafactor(
        0.1,
        beta_2_decay=-0.5,
        epsilon_1=1e-20,
        epsilon_2=1e-2,
        clip_threshold=0.5,
        relative_step=False,
    ),
    "adafactor_schedule": lambda tf: tf.keras.optimizers.Adafactor(
        tf.keras.optimizers.schedules.ExponentialDecay(0.8, 2, 0.5), loss_scale_factor=4.0
    ),
    "restarts": lambda tf: tf.keras.optimizers.SGD(
        _restarts(tf, 0.1, 1, t_mul=2.0, m_mul=0.5, alpha=0.1), momentum=0.5
    ),
    "restarts_equal": lambda tf: tf.keras.optimizers.Adadelta(
        _restarts(tf, 2.0, 2, t_mul=1.0, m_mul=0.8)
    ),
}


def eager_steps(tf: Any, key: str, dtype: Any = np.float32, wrap: Any = None) -> Any:
    """apply_gradients for STEPS steps on a (2, 3) and a (3,) variable; both variables
    and the optimizer's."""
    w = tf.Variable(W0.astype(dtype), name="w")
    b = tf.Variable(B0.astype(dtype), name="b")
    opt = OPTIMIZERS[key](tf)

    def step(gw: Any, gb: Any) -> Any:
        return opt.apply_gradients(zip([gw, gb], [w, b]))

    if wrap is not None:
        # built eagerly first: TF's Adafactor names a placeholder "w:0", which a name
        # scope inside tf.function refuses ("'w:0' is not a valid scope name")
        opt.build([w, b])
        step = wrap(step)
    for k in range(STEPS):
        gw, gb = grads(k)
        step(tf.constant(gw.astype(dtype)), tf.constant(gb.astype(dtype)))
    return w.numpy(), b.numpy(), tuple(v.numpy() for v in opt.variables)


def _program(key: str, dtype: Any = np.float32, wrap: str | None = None) -> Any:
    def program(tf: Any) -> Any:
        return eager_steps(tf, key, dtype, tf.function if wrap else None)

    program.__name__ = key + ("" if dtype is np.float32 else "_float64") + (wrap or "")
    return program


def adafactor_ranks(tf: Any) -> Any:
    """Adafactor factors the last two axes of a rank-3 variable; a scalar is not factored."""
    rng = np.random.default_rng(3)
    cube = rng.normal(size=(2, 3, 4)).astype(np.float32)
    u, s = tf.Variable(cube, name="u"), tf.Variable(0.7, name="s")
    opt = tf.keras.optimizers.Adafactor(0.05, clip_threshold=0.8, name="factored")
    for k in range(3):
        g = rng.normal(size=(2, 3, 4)).astype(np.float32) * (k + 1)
        opt.apply_gradients([(tf.constant(g), u), (tf.constant(np.float32(0.3 - k)), s)])
    return (
        u.numpy(),
        s.numpy(),
        tuple(v.numpy() for v in opt.variables),
        tuple(_dtype(v) for v in opt.variables),
    )


def _dtype(v: Any) -> str:
    return str(np.asarray(v.numpy()).dtype)


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


def configs(tf: Any) -> Any:
    """get_config of each new optimizer (defaults and not), from_config's round trip, and
    the variables (paths, dtypes, shapes) each makes for a Dense layer's (2, 3) kernel and
    (3,) bias (Keras variables: their paths, unlike an eager tf.Variable's name in
    symgrad, are never made unique)."""
    o = tf.keras.optimizers
    made = [  # named: an automatic name counts the optimizers made before
        o.Adadelta(name="a"),
        o.Adadelta(0.5, rho=0.9, epsilon=1e-6, clipnorm=1.0, name="ada"),
        o.Ftrl(name="f"),
        o.Ftrl(0.3, -0.6, 0.5, 0.01, 0.02, 0.03, 0.4, weight_decay=0.01, name="ftrl2"),
        o.Lion(name="l"),
        o.Lion(0.02, 0.8, 0.95, weight_decay=0.1, global_clipnorm=2.0, name="lion2"),
        o.Adafactor(name="af"),
        o.Adafactor(0.01, -0.7, 1e-20, 1e-2, 2.0, False, loss_scale_factor=8.0, name="af2"),
    ]
    out = []
    for i, opt in enumerate(made):
        config = opt.get_config()
        again = type(opt).from_config(config).get_config()
        layer = tf.keras.layers.Dense(3, name=f"dense{i}")
        layer.build((None, 2))
        # built by apply, in the optimizer's name scope (Keras's build() called directly
        # leaves Adafactor's int32 placeholders unprefixed; symgrad prefixes them)
        zeros = [tf.zeros_like(v) for v in layer.trainable_variables]
        opt.apply_gradients(zip(zeros, layer.trainable_variables))
        variables = [(v.path, _dtype(v), tuple(v.shape)) for v in opt.variables]
        out.append((config, again == config, tuple(variables)))
    return tuple(out)


def by_name(tf: Any) -> Any:
    """model.compile(optimizer="adadelta") and its like: the optimizer by its name, two
    epochs of fit, then the weights and the optimizer's variable paths."""
    x = np.linspace(-1.0, 1.0, 12).reshape(4, 3).astype(np.float32)
    y = np.array([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.2], [0.6, 0.0]], np.float32)
    out = {}
    for name in ("adadelta", "ftrl", "lion", "adafactor"):
        model = tf.keras.Sequential(
            [
                tf.keras.Input((3,)),
                tf.keras.layers.Dense(
                    2, kernel_initializer=tf.keras.initializers.Constant(0.3), name="out"
                ),
            ],
            name="seq",
        )
        model.compile(optimizer=name, loss="mse")
        model.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=0)
        opt = model.optimizer
        out[name] = (
            type(opt).__name__,
            tuple(w.numpy() for w in model.weights),
            tuple(v.path.split("/", 1)[1] for v in opt.variables),  # less its auto name
        )
    out["get"] = tuple(
        type(tf.keras.optimizers.get(n)).__name__ for n in ("Adadelta", "ftrl", "LION")
    )
    config = {"class_name": "Adafactor", "config": {"learning_rate": 0.25}}
    out["get_config_dict"] = tf.keras.optimizers.get(config).get_config()["learning_rate"]
    return out


def errors(tf: Any) -> Any:
    o = tf.keras.optimizers
    out = []
    for make in (
        lambda: o.Ftrl(initial_accumulator_value=-0.1),
        lambda: o.Ftrl(learning_rate_power=0.5),
        lambda: o.Ftrl(l1_regularization_strength=-1.0),
        lambda: o.Ftrl(l2_regularization_strength=-0.5),
        lambda: o.Ftrl(l2_shrinkage_regularization_strength=-0.25),
        lambda: o.Lion(beta_1=0.0),
        lambda: o.Lion(beta_1=1.5),
        lambda: o.Adadelta(2),
        lambda: o.Adafactor(0.1, foo=1),
        lambda: o.Lion(0.1, clipnorm=1.0, global_clipnorm=1.0),
        lambda: o.schedules.CosineDecayRestarts(0.1, 0),
        lambda: o.SGD(0.1).add_optimizer_variables(
            [tf.Variable([1.0])], ["a", "b"], initializer=["zeros"]
        ),
    ):
        try:
            make()
            out.append("no error")
        except ValueError as e:
            out.append(str(e))
    return tuple(out)


PROGRAMS = [_program(k) for k in OPTIMIZERS] + [
    _program("ftrl_hyper", np.float64),
    _program("adafactor_hyper", np.float64),
    _program("adadelta_hyper", np.float64),
    _program("ftrl_hyper", wrap="_in_a_function"),
    _program("adafactor", wrap="_in_a_function"),
    _program("lion_weight_decay", wrap="_in_a_function"),
    adafactor_ranks,
    restart_rates,
    inverse_time_rates,
    configs,
    by_name,
    errors,
]
