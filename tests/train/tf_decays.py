"""TF1 learning-rate decays (tf.compat.v1.train.*_decay) that run unchanged on TensorFlow
and on symgrad: each decay's value at a run of steps, as a TF1 graph tensor and as an
eager function of no arguments."""

from __future__ import annotations

from typing import Any

import numpy as np

STEPS = [0, 1, 2, 3, 4, 5, 7, 9, 10, 11, 15, 20, 29, 30, 31, 45, 50, 69, 70, 71, 99, 100, 150]

# (name, function name, args after (learning_rate, global_step), kwargs); learning rate 0.1
DECAYS: list[tuple[str, str, tuple[Any, ...], dict[str, Any]]] = [
    ("poly", "polynomial_decay", (50,), {}),
    ("poly_end_power", "polynomial_decay", (40, 0.01, 0.5), {}),
    ("poly_cycle", "polynomial_decay", (30,), {"end_learning_rate": 0.001, "cycle": True}),
    ("poly_cycle_pow", "polynomial_decay", (7, 0.002, 2.0, True), {}),
    ("cosine", "cosine_decay", (60,), {}),
    ("cosine_alpha", "cosine_decay", (45,), {"alpha": 0.1}),
    ("restarts", "cosine_decay_restarts", (10,), {}),
    ("restarts_t1", "cosine_decay_restarts", (10,), {"t_mul": 1.0, "m_mul": 0.5}),
    ("restarts_alpha", "cosine_decay_restarts", (7, 1.5, 0.8, 0.05), {}),
    ("linear_cosine", "linear_cosine_decay", (60,), {}),
    (
        "linear_cosine_args",
        "linear_cosine_decay",
        (40,),
        {"num_periods": 2.0, "alpha": 0.1, "beta": 0.01},
    ),
    ("natural_exp", "natural_exp_decay", (10, 0.5), {}),
    ("natural_exp_stair", "natural_exp_decay", (7, 0.3), {"staircase": True}),
    ("inverse_time", "inverse_time_decay", (10, 0.5), {}),
    ("inverse_time_stair", "inverse_time_decay", (3, 2.0), {"staircase": True}),
    ("exponential", "exponential_decay", (10, 0.9), {}),
    ("piecewise_decay", "piecewise_constant_decay", (), {}),
]


def _make(train: Any, fn: str, step: Any, args: Any, kwargs: Any, lr: Any = 0.1) -> Any:
    if fn == "piecewise_constant_decay":
        return train.piecewise_constant_decay(step, [10, 30], [0.1, 0.05, 0.01])
    return getattr(train, fn)(lr, step, *args, **kwargs)


def _session(tf: Any) -> Any:
    """A Session; on TensorFlow one without Grappler, whose constant folding rewrites
    ``x / c`` for a constant ``c`` into ``x * (1 / c)`` (a rounding symgrad's runtime does
    not make yet: ``grappler`` records what TF's default Session gives)."""
    v1 = tf.compat.v1
    if tf.__name__ != "tensorflow":
        return v1.Session()
    config = v1.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    return v1.Session(config=config)


def graph_decays(tf: Any) -> Any:
    """Each decay as a tensor of a TF1 graph, read at each step; and the tensors' names."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        step = v1.train.get_or_create_global_step()
        lrs = {name: _make(v1.train, fn, step, a, k) for name, fn, a, k in DECAYS}
        names = {name: t.name for name, t in lrs.items()}
        dtypes = {name: t.dtype.name for name, t in lrs.items()}
        with _session(tf) as sess:
            sess.run(v1.global_variables_initializer())
            values = []
            for s in STEPS:
                sess.run(step.assign(s))
                values.append(sess.run(lrs))
    return names, dtypes, {name: np.float32([v[name] for v in values]) for name in lrs}


def eager_decays(tf: Any) -> Any:
    """Each decay as TF2 code gets it, a function of no arguments reading the step."""
    step = tf.Variable(0, dtype=tf.int64)
    fns = {name: _make(tf.compat.v1.train, fn, step, a, k) for name, fn, a, k in DECAYS}
    values = []
    for s in STEPS:
        step.assign(s)
        values.append({name: f().numpy() for name, f in fns.items()})
    return {name: np.float32([v[name] for v in values]) for name in fns}


def float64_decays(tf: Any) -> Any:
    """A float64 learning rate: the decays computed in float64 (those without a float32 pi)."""
    v1 = tf.compat.v1
    out = {}
    with tf.Graph().as_default():
        step = v1.placeholder(tf.int32, [])
        lr = tf.constant(0.1, tf.float64)
        for name, fn, a, k in DECAYS:
            # (with cycle, TF's where(step == 0, 1.0, ...) mixes in a float32: a TypeError)
            kinds = ("polynomial", "natural", "inverse", "exponential")
            if fn.startswith(kinds) and "cycle" not in name:
                out[name] = _make(v1.train, fn, step, a, k, lr)
        with _session(tf) as sess:
            values = [sess.run(out, {step: s}) for s in STEPS]
    return {name: np.float64([v[name] for v in values]) for name in out}


def python_step(tf: Any) -> Any:
    """A Python number as the global step (eager: the function ignores later changes)."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        t = v1.train.polynomial_decay(0.1, 7, 20, cycle=True)
        c = v1.train.cosine_decay_restarts(0.05, 13, 5)
        with _session(tf) as sess:
            graph = sess.run([t, c])
    f = v1.train.inverse_time_decay(0.3, 4, 3, 0.25, staircase=True)
    return np.float32(graph), np.float32(f().numpy())


def noisy_graph(tf: Any) -> Any:
    """noisy_linear_cosine_decay under a graph seed: TF's normal draws, one per run."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        v1.set_random_seed(7)
        step = v1.train.get_or_create_global_step()
        noisy = v1.train.noisy_linear_cosine_decay(0.1, step, 50)
        noisy2 = v1.train.noisy_linear_cosine_decay(
            0.2, step, 30, initial_variance=0.5, variance_decay=0.3, num_periods=1.0
        )
        with _session(tf) as sess:
            sess.run(v1.global_variables_initializer())
            values = []
            for s in STEPS[:12]:
                sess.run(step.assign(s))
                values.append(sess.run([noisy, noisy2]))
    return np.float32(values)


def noisy_eager(tf: Any) -> Any:
    """noisy_linear_cosine_decay in eager code under a global seed."""
    tf.random.set_seed(11)
    step = tf.Variable(0, dtype=tf.int64)
    f = tf.compat.v1.train.noisy_linear_cosine_decay(0.1, step, 40)
    values = []
    for s in STEPS[:10]:
        step.assign(s)
        values.append(f().numpy())
    tf.random.set_seed(None)
    return np.float32(values)


def grappler(tf: Any) -> Any:
    """TF's default Session (with Grappler) on decays that divide by a constant."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        step = v1.placeholder(tf.int64, [])
        poly = v1.train.polynomial_decay(0.1, step, 30, end_learning_rate=0.001, cycle=True)
        inverse = v1.train.inverse_time_decay(0.1, step, 10, 0.5)
        with v1.Session() as sess:
            return np.float32([sess.run([poly, inverse], {step: s}) for s in (15, 150)])


PROGRAMS = [
    graph_decays,
    eager_decays,
    float64_decays,
    python_step,
    noisy_graph,
    noisy_eager,
    grappler,
]
