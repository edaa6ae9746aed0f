"""Keras 3's "customizing what happens in fit" guide (TensorFlow backend) in symgrad: a
``train_step``/``test_step`` override with ``tf.GradientTape``, ``self.compute_loss``,
``self.optimizer.apply`` and ``self.metrics`` (``compile_metrics`` among them), on a
subclass called as ``MyModel(inputs, outputs)``; literals from the same program on TF 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from tests.keras.test_fit import RTOL, check_history

keras = tf.keras


@pytest.fixture(autouse=True)
def _fresh_names():
    yield
    keras.backend.clear_session()


def _data() -> tuple[np.ndarray, np.ndarray]:
    rs = np.random.RandomState(1)
    return rs.random((100, 32)).astype(np.float32), rs.random((100, 1)).astype(np.float32)


def _functional(cls: type) -> keras.Model:
    keras.backend.clear_session()
    inputs = keras.Input(shape=(32,))
    init = keras.initializers.GlorotUniform(seed=2)
    return cls(inputs, keras.layers.Dense(1, kernel_initializer=init)(inputs))


class GuideModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def test_train_step_with_compiled_loss_and_metrics() -> None:
    x, y = _data()
    model = _functional(GuideModel)
    assert isinstance(model, keras.Model) and len(model.layers) == 2
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    h = model.fit(x, y, epochs=3, shuffle=False, verbose=0)
    # the step returns {"loss", "compile_metrics": {...}}: Keras logs it flattened, sorted
    check_history(
        h.history,
        {
            "mae": [0.737883985042572, 0.6795202493667603, 0.6234058737754822],
            "loss": [0.6644088625907898, 0.5748947858810425, 0.49562686681747437],
        },
    )
    np.testing.assert_allclose(
        model.evaluate(x, y, verbose=0), [0.4765247404575348, 0.5829106569290161], rtol=RTOL
    )


class OwnMetricsModel(keras.Model):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = keras.losses.MeanSquaredError()

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.loss_fn(y, y_pred)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(gradients, self.trainable_variables)
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        self.loss_tracker.update_state(self.loss_fn(y, y_pred))
        self.mae_metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


def test_train_and_test_step_with_own_metrics() -> None:
    x, y = _data()
    model = _functional(OwnMetricsModel)
    model.compile(optimizer=keras.optimizers.SGD(0.05))  # no loss: the step has its own
    h = model.fit(x, y, epochs=3, shuffle=False, verbose=0, validation_data=(x[:50], y[:50]))
    check_history(
        h.history,
        {
            "loss": [0.3439127206802368, 0.17041367292404175, 0.1566023826599121],
            "mae": [0.4995557367801666, 0.338847815990448, 0.3280943036079407],
            "val_loss": [0.16055406630039215, 0.14844219386577606, 0.13792163133621216],
            "val_mae": [0.33679524064064026, 0.32646653056144714, 0.31703224778175354],
        },
    )
    got = model.evaluate(x, y, verbose=0, return_dict=True)
    np.testing.assert_allclose(
        [got["loss"], got["mae"]], [0.14346729218959808, 0.3191331624984741], rtol=RTOL
    )


class NoTrainingArg(keras.Model):
    def __init__(self):
        super().__init__()
        glorot = keras.initializers.GlorotUniform
        self.d1 = keras.layers.Dense(4, activation="tanh", kernel_initializer=glorot(seed=5))
        self.d2 = keras.layers.Dense(1, kernel_initializer=glorot(seed=6))

    def call(self, x):
        return self.d2(self.d1(x))


def test_subclassed_model_built_by_fit_traces_once_per_shape() -> None:
    x, y = _data()
    model = NoTrainingArg()
    model.compile(keras.optimizers.RMSprop(0.01), "mae", metrics=["mse"])
    h = model.fit(x, y, batch_size=25, epochs=2, shuffle=False, verbose=0)
    check_history(
        h.history,
        {
            "loss": [0.39743101596832275, 0.3112291097640991],
            "mse": [0.2297738641500473, 0.15652751922607422],
        },
    )
    assert len(model._step_functions["train"]._cache) == 1  # 100 = 4 batches of 25
    model.fit(x[:90], y[:90], batch_size=25, epochs=2, shuffle=False, verbose=0)
    assert len(model._step_functions["train"]._cache) == 2  # plus the last batch of 15


class _Autoencoder(keras.Model):
    """An unsupervised ``train_step`` (a VAE's shape): ``fit(x)`` hands it the batch itself."""

    def __init__(self):
        super().__init__()
        self.enc = keras.Sequential(
            [keras.layers.Dense(8, activation="relu"), keras.layers.Dense(4)]
        )
        self.dec = keras.Sequential(
            [keras.layers.Dense(8, activation="relu"), keras.layers.Dense(6)]
        )
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.seen = []

    @property
    def metrics(self):
        return [self.loss_tracker]

    def call(self, x):
        return self.dec(self.enc(x)[:, :2])

    def train_step(self, data):
        self.seen.append(type(data).__name__)
        x = data
        with tf.GradientTape() as tape:
            h = self.enc(x)
            mu, logvar = h[:, :2], h[:, 2:]
            z = mu + tf.exp(0.5 * logvar) * (tf.ones_like(mu) * 0.5)
            kl = -0.5 * tf.reduce_mean(
                tf.reduce_sum(1 + logvar - tf.square(mu) - tf.exp(logvar), axis=1)
            )
            loss = tf.reduce_mean(tf.square(self.dec(z) - x)) + kl
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}


def test_fit_without_targets_hands_the_step_the_batch_itself() -> None:
    """Keras's ``pack_x_y_sample_weight``: ``fit(x)`` gives ``train_step`` the batch, not
    ``(x,)`` (a tuple there broke ``x = data``; TF 2.21's program below prints these)."""
    keras.utils.set_random_seed(0)
    x = np.linspace(-1, 1, 60, dtype=np.float32).reshape(10, 6)
    m = _Autoencoder()
    m.compile(optimizer=keras.optimizers.Adam(0.01))
    h = m.fit(x, epochs=3, batch_size=5, verbose=0, shuffle=False)
    assert set(m.seen) == {"Tensor"}
    check_history(h.history, {"loss": [1.445321798324585, 1.1227807998657227, 0.8788149356842041]})
    want = [
        [-0.01244407333433628, 0.05430125072598457, -0.015872906893491745, -0.0192740298807621,
         0.035565074533224106, -0.1063537448644638],
        [-0.02325735241174698, 0.044763240963220596, -0.017162684351205826, -0.008726264350116253,
         0.021884039044380188, -0.1084475964307785],
    ]  # fmt: skip
    np.testing.assert_allclose(m(x[:2]).numpy(), want, rtol=RTOL, atol=1e-7)


def test_a_two_input_models_steps_get_tuples() -> None:
    """Keras makes the inputs' lists tuples before packing: ``predict([a, b])`` hands
    ``predict_step`` ``((a, b),)`` and ``fit([a, b], y)`` hands ``train_step`` ``((a, b),
    y)`` (what TF 2.21's Keras hands the same overrides)."""
    seen = []

    class TwoInputs(keras.Model):
        def predict_step(self, data):
            seen.append(("predict", type(data).__name__, len(data), type(data[0]).__name__))
            return super().predict_step(data)

        def train_step(self, data):
            seen.append(("train", type(data).__name__, len(data), type(data[0]).__name__))
            return super().train_step(data)

    a, b = keras.Input((2,)), keras.Input((2,))
    m = TwoInputs([a, b], keras.layers.Add()([a, b]))
    m.compile("sgd", "mse")
    x = [np.ones((4, 2), np.float32), np.full((4, 2), 2.0, np.float32)]
    np.testing.assert_array_equal(m.predict(x, verbose=0), np.full((4, 2), 3.0))
    m.fit(x, np.ones((4, 2)), verbose=0)
    assert seen == [("predict", "tuple", 1, "tuple"), ("train", "tuple", 2, "tuple")]
