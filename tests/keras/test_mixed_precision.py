"""``tf.keras.mixed_precision``: policies, layers computing in float16 with float32 variables
(variable reads autocast inside the layer's call), and LossScaleOptimizer's dynamic scale.
The literals are Keras-on-TF 2.21's output for the same program."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import symgrad as tf

keras = tf.keras
layers = keras.layers
mp = keras.mixed_precision
X8 = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
X = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
Y = np.linspace(0, 1, 8, dtype=np.float32).reshape(8, 1)


@pytest.fixture
def mixed() -> Iterator[None]:
    mp.set_global_policy("mixed_float16")
    try:
        yield
    finally:
        mp.set_global_policy("float32")


def test_policy_names_and_global_policy() -> None:
    assert repr(mp.global_policy()) == '<DTypePolicy "float32">'
    p = mp.Policy("mixed_float16")
    assert (p.compute_dtype, p.variable_dtype, p.get_config()) == (
        "float16", "float32", {"name": "mixed_float16"}
    )  # fmt: skip
    assert mp.Policy("mixed_bfloat16").compute_dtype == "bfloat16"
    assert mp.DTypePolicy("float64").variable_dtype == "float64"
    with pytest.raises(ValueError, match="Cannot convert 'int9'"):
        mp.Policy("int9")
    with pytest.raises(ValueError, match="Invalid `policy` argument"):
        mp.set_global_policy(3)


def test_dense_computes_in_float16_with_float32_variables(mixed: None) -> None:
    d = layers.Dense(3, kernel_initializer=keras.initializers.GlorotUniform(seed=1))
    xt = tf.constant(X8)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = d(xt)
        loss = tf.reduce_sum(tf.cast(y, "float32") ** 2)
    assert (y.dtype.name, d.kernel.dtype.name, d.dtype, d.compute_dtype) == (
        "float16", "float32", "float32", "float16"
    )  # fmt: skip
    np.testing.assert_array_equal(
        y.numpy(),
        [[-0.51806640625, 0.3134765625, 0.25439453125], [0.39501953125, -0.765625, -0.6572265625]],
    )
    gx, gk, gb = tape.gradient(loss, [xt, d.kernel, d.bias])
    assert gk.dtype == tf.float32 and gb.dtype == tf.float32
    np.testing.assert_array_equal(gb.numpy(), [-0.24609375, -0.904296875, -0.8056640625])
    np.testing.assert_array_equal(
        gx.numpy(),
        [
            [-0.67822265625, -0.1329345703125, 0.193603515625, -1.2080078125],
            [0.423095703125, 0.67822265625, 0.0938720703125, 1.9306640625],
        ],
    )
    np.testing.assert_array_equal(
        gk.numpy()[0], [1.1494140625, -0.845703125, -0.6962890625]
    )  # fmt: skip
    assert d.get_config()["dtype"]["config"] == {"name": "mixed_float16"}
    assert layers.Dense.from_config(d.get_config()).compute_dtype == "float16"
    assert d.kernel.numpy().dtype == np.float32  # the variable itself is not cast


def test_loss_scale_optimizer_grows_halves_and_skips() -> None:
    o = mp.LossScaleOptimizer(keras.optimizers.SGD(0.5), initial_scale=4.0, dynamic_growth_steps=2)
    v = tf.Variable([1.0, 2.0])
    want = [  # (v, dynamic_scale, step_counter, iterations) after each apply
        ([0.9375, 1.875], 4.0, 1, 1),
        ([0.9375, 1.875], 2.0, 0, 1),  # an Inf: skipped, the scale halved
        ([0.6875, 1.625], 2.0, 1, 2),
        ([0.625, 1.5], 4.0, 0, 3),  # two finite steps: the scale doubled
        ([0.625, 1.5], 2.0, 0, 3),  # a NaN
        ([0.375, 1.25], 2.0, 1, 4),
    ]
    grads = ([0.5, 1.0], [np.inf, 1.0], [1.0, 1.0], [0.25, 0.5], [1.0, np.nan], [1.0, 1.0])
    for g, (value, scale, counter, iterations) in zip(grads, want):
        o.apply_gradients([(tf.constant(np.array(g, np.float32)), v)])
        assert v.numpy().tolist() == value
        assert (float(o.dynamic_scale.numpy()), int(o.step_counter.numpy())) == (scale, counter)
        assert int(o.iterations.numpy()) == iterations
    assert float(o.scale_loss(tf.constant(3.0)).numpy()) == 6.0
    config = o.get_config()
    assert config["inner_optimizer"]["class_name"] == "SGD"
    again = mp.LossScaleOptimizer.from_config(config)
    assert (again.initial_scale, again.dynamic_growth_steps) == (4.0, 2)
    with pytest.raises(ValueError, match="does not support `clipnorm`"):
        mp.LossScaleOptimizer(keras.optimizers.SGD(), clipnorm=1.0)


def _model() -> object:
    g = keras.initializers.GlorotUniform
    return keras.Sequential(
        [
            keras.Input((4,)),
            layers.Dense(5, activation="relu", kernel_initializer=g(seed=2)),
            layers.Dense(1, kernel_initializer=g(seed=3)),
            layers.Activation("linear", dtype="float32"),
        ]
    )


def test_fit_wraps_the_optimizer_and_scales_the_loss(mixed: None) -> None:
    m = _model()
    m.compile(optimizer=keras.optimizers.SGD(0.1, name="sgd"), loss="mse")
    assert type(m.optimizer).__name__ == "LossScaleOptimizer"
    assert m.optimizer.name == "loss_scale_optimizer"
    h = m.fit(X, Y, epochs=3, batch_size=4, verbose=0, shuffle=False)
    assert [v.path for v in m.optimizer.variables] == [
        "loss_scale_optimizer/iteration", "loss_scale_optimizer/learning_rate",
        "loss_scale_optimizer/step_counter", "loss_scale_optimizer/dynamic_scale",
        "sgd/iteration", "sgd/learning_rate",
    ]  # fmt: skip
    assert float(m.optimizer.dynamic_scale.numpy()) == 32768.0
    assert int(m.optimizer.step_counter.numpy()) == 6 and int(m.optimizer.iterations.numpy()) == 6
    # float16 forward and backward passes: TF's numbers to float16 rounding (a few ulp of
    # float16 in the gradients move the weights by ~1e-5), not bit for bit
    tf_losses = [0.29460960626602173, 0.02731986716389656, 0.014050047844648361]
    np.testing.assert_allclose(h.history["loss"], tf_losses, rtol=3e-3)
    tf_bias = [-0.10512695461511612, -0.008512497879564762, 0.013896179385483265,
               0.13005982339382172, -0.10363160073757172]  # fmt: skip
    np.testing.assert_allclose(m.weights[1].numpy(), tf_bias, atol=2e-4)
    pred = m.predict(X[:2], verbose=0)
    assert pred.dtype == np.float32
    np.testing.assert_allclose(pred, [[0.17333984375], [0.2017822265625]], atol=5e-4)


def test_mixed_model_file_keeps_policies_and_the_passed_optimizer(
    mixed: None, tmp_path: object
) -> None:
    pytest.importorskip("h5py")
    m = _model()
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    m.fit(X, Y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    want = [[0.034820556640625], [0.032928466796875]]  # TF's, the same program
    np.testing.assert_array_equal(m.predict(X[:2], verbose=0), want)
    path = str(tmp_path) + "/m.keras"  # type: ignore[operator]
    m.save(path)
    mp.set_global_policy("float32")
    with pytest.warns(UserWarning, match=r"Skipping variable loading for optimizer 'adam(_\d+)?'"):
        again = keras.models.load_model(path)  # as Keras: the wrapper's 14 saved, Adam has 10
    assert repr(again.layers[0].dtype_policy) == '<DTypePolicy "mixed_float16">'
    assert again.layers[0].compute_dtype == "float16"
    assert type(again.optimizer).__name__ == "Adam"  # as Keras: compile_config holds Adam
    np.testing.assert_array_equal(again.predict(X[:2], verbose=0), want)


def test_normalization_layers_compute_in_float32_under_mixed_float16(mixed: None) -> None:
    """BatchNormalization and LayerNormalization widen float16 to float32 inside (their
    weights unautocast) and return float16: TF's bits."""
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (2, 5, 4)).astype(np.float32)
    bn, ln = layers.BatchNormalization(), layers.LayerNormalization()
    for layer in (bn, ln):
        layer.build(x.shape)
        layer.set_weights([rs.uniform(0.5, 1, w.shape).astype(np.float32) for w in layer.weights])
    y = bn(x, training=True)
    assert y.dtype == tf.float16 and bn.moving_mean.dtype == tf.float32
    np.testing.assert_array_equal(
        y.numpy().ravel()[:6],
        [0.89794921875, 1.1015625, 1.021484375, 0.281494140625, 0.60546875, 0.79931640625],
    )
    np.testing.assert_array_equal(
        bn.moving_mean.numpy()[:2], [0.6515594720840454, 0.678119957447052]
    )
    np.testing.assert_array_equal(
        bn.moving_variance.numpy()[:2], [0.9876179695129395, 0.546591579914093]
    )
    y = ln(x)
    assert y.dtype == tf.float16
    np.testing.assert_array_equal(
        y.numpy().ravel()[:6],
        [-0.054473876953125, 1.552734375, 0.82666015625, 0.05718994140625, -0.1829833984375,
         0.70654296875],
    )  # fmt: skip
