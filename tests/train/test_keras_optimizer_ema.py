"""Keras optimizers' ``use_ema`` and ``gradient_accumulation_steps`` against TF 2.21.

The program (run on .venv-tf with ``import tensorflow as tf``): ``w`` (shape 3) and ``b``
(shape 2×2) updated six times by ``apply_gradients`` with the gradients ``G[k]`` below;
after each step ``w``, ``b``, ``optimizer.iterations`` and ``optimizer._iterations`` are
printed, then ``optimizer.variables`` (names and values), then ``w`` and ``b`` after
``finalize_variable_values([w, b])``.  Options ("ema", "acc", "both") and optimizers are
``_make``'s.  Eagerly symgrad runs TF's float32 sequence op for op (TF's to the bit
here; compared within 4 ulps, as ``pow`` may round otherwise on another CPU).
Inside a ``function`` symgrad runs the same ops, so the eager literals hold bit for bit
there too; TF's own function run differs from its eager run by 1 ulp in ``b`` where
Grappler turns ``(g + acc) / steps`` into a multiplication (docs/semantics.md, Numbers).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from keras_optimizer_ema_tf import TF, TF_FIT
from ulp import assert_ulp

import symgrad as tf

G = [
    (
        np.array([0.3, -0.1, 0.7], np.float32) * (k + 1) ** 0.5,
        np.array([[0.2, -0.4], [0.05, 1.1]], np.float32) / (k + 1),
    )
    for k in range(6)
]


def _make(opt_name: str, kind: str) -> tf.keras.optimizers.Optimizer:
    keras = tf.keras
    sched = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
    kw: dict = {}
    if kind == "ema":
        kw = dict(use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3)
    elif kind == "acc":
        kw = dict(gradient_accumulation_steps=2)
    elif kind == "both":
        kw = dict(
            gradient_accumulation_steps=3, use_ema=True, ema_momentum=0.8, ema_overwrite_frequency=2
        )
    if opt_name == "sgd":
        return keras.optimizers.SGD(sched, momentum=0.9, **kw)
    if opt_name == "adam":
        return keras.optimizers.Adam(0.05, **kw)
    return keras.optimizers.AdamW(sched, weight_decay=0.1, **kw)


def _variables() -> tuple[tf.Variable, tf.Variable]:
    return tf.Variable([1.0, -2.0, 0.5], name="w"), tf.Variable(
        [[0.25, -0.75], [1.5, 0.125]], name="b"
    )


def _run(opt_name: str, kind: str, in_function: bool) -> None:
    expected = TF[(opt_name, kind)]
    w, b = _variables()
    opt = _make(opt_name, kind)

    def step(gw: tf.Tensor, gb: tf.Tensor) -> None:
        opt.apply_gradients([(gw, w), (gb, b)])

    if in_function:
        step = tf.function(step)
    check = _check_tf
    for k in range(6):
        step(tf.constant(G[k][0]), tf.constant(G[k][1]))
        check(w, expected["w"][k], f"w step {k}")
        check(b, expected["b"][k], f"b step {k}")
        assert int(np.asarray(opt.iterations)) == expected["iterations"][k]
        assert int(opt._iterations.numpy()) == expected["raw"][k]
    names = [v.path.split("/", 1)[1] for v in opt.variables]
    assert names == _names(expected["names"], w, b)
    for name, v, value in zip(names, opt.variables, expected["values"]):
        if v.dtype == tf.int64:
            assert int(v.numpy()) == value
        else:
            check(v, value, name)
    opt.finalize_variable_values([w, b])
    check(w, expected["final"][0], "w finalized")
    check(b, expected["final"][1], "b finalized")


def _names(tf_names: list[str], w: tf.Variable, b: tf.Variable) -> list[str]:
    """TF's names, made for ``w:0`` and ``b:0`` (Keras's ``w_0_average``), for the names
    these variables have here (symgrad numbers a repeated eager name: ``w_1:0``)."""
    ref = {"w_0": w.name.replace(":", "_"), "b_0": b.name.replace(":", "_")}
    return [ref.get(n[:3], n[:3]) + n[3:] if n[:3] in ref else n for n in tf_names]


def _check_tf(actual: tf.Variable, expected: list, what: str) -> None:
    """TF's values within 4 ulps: the decayed learning rates and Adam's bias corrections
    go through float32 ``pow``, which another CPU's libm may round the other way (here the
    numbers are TF's to the bit)."""
    assert_ulp(actual.numpy(), np.asarray(expected, np.float32), ulps=4, err_msg=what)


CASES = sorted(TF)


@pytest.mark.parametrize("opt_name,kind", CASES)
def test_eager_matches_tf_exactly(opt_name: str, kind: str) -> None:
    _run(opt_name, kind, in_function=False)


@pytest.mark.parametrize("opt_name,kind", CASES)
def test_in_a_function_gives_tfs_eager_numbers(opt_name: str, kind: str) -> None:
    _run(opt_name, kind, in_function=True)


@pytest.mark.parametrize("kind", ["ema", "acc"])
def test_fit_matches_tf_and_finalizes_the_averages(kind: str) -> None:
    """fit (batch 2, 6 samples, 1 epoch) on a Dense(1), SGD(0.1, momentum=0.5): with
    ``use_ema`` fit writes the averages into the kernel at the end (TF's kernel is the
    average, not the last step's value)."""
    keras = tf.keras
    x = np.array([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.25], [2.0, 1.0], [0.0, -0.5], [1.0, 1.0]])
    y = np.array([[1.0], [0.0], [-1.0], [2.0], [0.5], [1.0]], np.float32)
    kw: dict = (
        dict(use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2)
        if kind == "ema"
        else dict(gradient_accumulation_steps=2)
    )
    layer = keras.layers.Dense(
        1,
        kernel_initializer=keras.initializers.Constant([[0.5], [-0.25]]),
        bias_initializer="ones",
    )
    model = keras.Sequential([keras.Input((2,)), layer])
    opt = keras.optimizers.SGD(0.1, momentum=0.5, **kw)
    model.compile(optimizer=opt, loss="mse")
    model.fit(x.astype(np.float32), y, batch_size=2, epochs=1, shuffle=False, verbose=0)
    expected = TF_FIT[kind]
    assert_ulp(layer.kernel.numpy().ravel(), expected["kernel"], ulps=2, err_msg="kernel")
    assert_ulp(layer.bias, expected["bias"], ulps=2, err_msg="bias")
    assert int(np.asarray(opt.iterations)) == expected["iterations"]
    for v, value in zip(opt.variables[1:], expected["vars"][1:]):
        assert_ulp(np.asarray(v.numpy()).ravel(), value, ulps=2, err_msg=v.path)


def test_checkpoint_mid_accumulation_resumes_as_uninterrupted(tmp_path: os.PathLike) -> None:
    """Three steps, a tf.train.Checkpoint of the variables and optimizer (averages and
    accumulators included, by creation index as Keras's ``_variables``), a fresh optimizer
    restored before it is built, three more steps: TF's six-step numbers."""
    expected = TF[("adamw", "both")]
    w, b = _variables()
    opt = _make("adamw", "both")
    for k in range(3):
        opt.apply_gradients([(tf.constant(G[k][0]), w), (tf.constant(G[k][1]), b)])
    path = tf.train.Checkpoint(optimizer=opt, w=w, b=b).save(os.path.join(tmp_path, "c"))
    w2, b2 = _variables()
    opt2 = _make("adamw", "both")
    tf.train.Checkpoint(optimizer=opt2, w=w2, b=b2).restore(path)
    for k in range(3, 6):
        opt2.apply_gradients([(tf.constant(G[k][0]), w2), (tf.constant(G[k][1]), b2)])
    _check_tf(w2, expected["w"][5], "w")
    _check_tf(b2, expected["b"][5], "b")
    assert int(np.asarray(opt2.iterations)) == expected["iterations"][5]
    for name, v, value in zip(expected["names"], opt2.variables[1:], expected["values"][1:]):
        _check_tf(v, value, name)


def test_get_config_round_trip() -> None:
    opt = _make("adamw", "both")
    config = opt.get_config()
    assert config["use_ema"] is True
    assert config["ema_momentum"] == 0.8
    assert config["ema_overwrite_frequency"] == 2
    assert config["gradient_accumulation_steps"] == 3
    again = tf.keras.optimizers.AdamW.from_config(config)
    assert again.get_config() == config


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (
            dict(gradient_accumulation_steps=1),
            "`gradient_accumulation_steps` must be an integer >= 2. "
            "Received: gradient_accumulation_steps=1",
        ),
        (
            dict(use_ema=True, ema_momentum=1.5),
            "`ema_momentum` must be in the range [0, 1]. Received: ema_momentum=1.5",
        ),
        (
            dict(use_ema=True, ema_overwrite_frequency=2.0),
            "`ema_overwrite_frequency` must be an integer >= 1 or None. "
            "Received: ema_overwrite_frequency=2.0",
        ),
    ],
)
def test_arguments_are_checked_as_keras(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError) as info:
        tf.keras.optimizers.SGD(0.1, **kwargs)
    assert str(info.value) == message


def test_accumulation_under_a_strategy_accumulates_the_summed_gradients() -> None:
    """TF's Keras raises inside a ``function`` (``merge_call`` in the accumulation's
    ``cond``); symgrad sums the replicas' gradients first, then accumulates: one replica
    gives the numbers of the same program without a strategy (TF's, exactly)."""
    expected = TF[("adam", "acc")]
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        w, b = _variables()
        opt = _make("adam", "acc")

    @tf.function
    def step(gw: tf.Tensor, gb: tf.Tensor) -> None:
        strategy.run(lambda: opt.apply_gradients([(gw, w), (gb, b)]))

    for k in range(6):
        step(tf.constant(G[k][0]), tf.constant(G[k][1]))
        _check_tf(w, expected["w"][k], f"w step {k}")
        _check_tf(b, expected["b"][k], f"b step {k}")
    assert int(np.asarray(opt.iterations)) == expected["iterations"][5]
