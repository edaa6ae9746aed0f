"""The TensorFlow tutorials' compile/fit programs on generated data, for
tests/keras/test_tutorials.py. Each function takes the library (``tensorflow`` or
``symgrad``) and returns the numbers the tutorial prints. ``python tutorials_program.py
tensorflow`` prints them for TF 2.21 / Keras 3.15.1 (the literals in the test)."""

import importlib
import sys

import numpy as np


def glorot(tf, seed):
    return tf.keras.initializers.GlorotUniform(seed=seed)


def quickstart(tf):
    """The beginner quickstart: Flatten/Dense(128, relu)/Dropout(0.2)/Dense(10)."""
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(7)
    rng = np.random.RandomState(0)
    x_train, y_train = rng.rand(96, 8, 8).astype(np.float32), rng.randint(0, 10, 96)
    x_test, y_test = rng.rand(32, 8, 8).astype(np.float32), rng.randint(0, 10, 32)
    model = tf.keras.models.Sequential(
        [
            tf.keras.layers.Input((8, 8)),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(128, activation="relu", kernel_initializer=glorot(tf, 1)),
            tf.keras.layers.Dropout(0.2),
            tf.keras.layers.Dense(10, kernel_initializer=glorot(tf, 2)),
        ]
    )
    predictions = model(x_train[:1]).numpy()
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    first_loss = float(loss_fn(y_train[:1], predictions).numpy())
    model.compile(optimizer="adam", loss=loss_fn, metrics=["accuracy"])
    h = model.fit(x_train, y_train, epochs=3, batch_size=32, shuffle=False, verbose=0)
    ev = model.evaluate(x_test, y_test, verbose=0)
    probability_model = tf.keras.Sequential([model, tf.keras.layers.Softmax()])
    probs = probability_model(x_test[:2]).numpy()
    return {
        "logits0": predictions[0].tolist(),
        "first_loss": first_loss,
        "history": h.history,
        "evaluate": [float(v) for v in ev],
        "probs": probs.tolist(),
    }


def cnn(tf):
    """The CNN tutorial: Conv2D/MaxPooling2D stack, Dense head, validation_data."""
    tf.keras.backend.clear_session()
    rng = np.random.RandomState(1)
    x, y = rng.rand(48, 10, 10, 3).astype(np.float32), rng.randint(0, 10, 48)
    xv, yv = rng.rand(16, 10, 10, 3).astype(np.float32), rng.randint(0, 10, 16)
    layers = tf.keras.layers
    model = tf.keras.models.Sequential(
        [
            tf.keras.Input((10, 10, 3)),
            layers.Conv2D(8, (3, 3), activation="relu", kernel_initializer=glorot(tf, 3)),
            layers.MaxPooling2D((2, 2)),
            layers.Conv2D(8, (3, 3), activation="relu", kernel_initializer=glorot(tf, 4)),
            layers.Flatten(),
            layers.Dense(16, activation="relu", kernel_initializer=glorot(tf, 5)),
            layers.Dense(10, kernel_initializer=glorot(tf, 6)),
        ]
    )
    model.compile(
        optimizer="adam",
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    h = model.fit(x, y, epochs=3, batch_size=16, shuffle=False, validation_data=(xv, yv), verbose=0)
    ev = model.evaluate(xv, yv, verbose=0)
    return {"history": h.history, "evaluate": [float(v) for v in ev]}


def overfit(tf):
    """Overfit and underfit: L2 regularizers, Dropout, InverseTimeDecay, EarlyStopping."""
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(3)
    rng = np.random.RandomState(2)
    x, xv = rng.randn(64, 6).astype(np.float32), rng.randn(32, 6).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.float32)  # labels (n, 1), as the outputs: Keras requires it
    yv = rng.randint(0, 2, (32, 1)).astype(np.float32)
    reg = tf.keras.regularizers.l2(0.001)
    layers = tf.keras.layers
    model = tf.keras.Sequential(
        [
            tf.keras.Input((6,)),
            layers.Dense(32, "elu", kernel_regularizer=reg, kernel_initializer=glorot(tf, 7)),
            layers.Dropout(0.5),
            layers.Dense(32, "elu", kernel_regularizer=reg, kernel_initializer=glorot(tf, 8)),
            layers.Dense(1, kernel_initializer=glorot(tf, 9)),
        ]
    )
    lr = tf.keras.optimizers.schedules.InverseTimeDecay(0.05, 2 * 10, 1, staircase=False)
    model.compile(
        optimizer=tf.keras.optimizers.Adam(lr),
        loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[
            tf.keras.metrics.BinaryCrossentropy(from_logits=True, name="binary_crossentropy"),
            "accuracy",
        ],
    )
    stop = tf.keras.callbacks.EarlyStopping(monitor="val_binary_crossentropy", patience=3)
    h = model.fit(
        x,
        y,
        epochs=40,
        batch_size=32,
        shuffle=False,
        validation_data=(xv, yv),
        callbacks=[stop],
        verbose=0,
    )
    return {"history": h.history, "stopped_epoch": stop.stopped_epoch}


def transformer(tf):
    """The Transformer tutorial's masked loss/accuracy, CustomSchedule and Adam."""
    tf.keras.backend.clear_session()

    class CustomSchedule(tf.keras.optimizers.schedules.LearningRateSchedule):
        def __init__(self, d_model, warmup_steps=4000):
            super().__init__()
            self.d_model = tf.cast(d_model, tf.float32)
            self.warmup_steps = warmup_steps

        def __call__(self, step):
            step = tf.cast(step, dtype=tf.float32)
            arg1 = tf.math.rsqrt(step)
            arg2 = step * (self.warmup_steps**-1.5)
            return tf.math.rsqrt(self.d_model) * tf.math.minimum(arg1, arg2)

    def masked_loss(label, pred):
        mask = label != 0
        loss_object = tf.keras.losses.SparseCategoricalCrossentropy(
            from_logits=True, reduction="none"
        )
        loss = loss_object(label, pred)
        mask = tf.cast(mask, dtype=loss.dtype)
        loss *= mask
        return tf.reduce_sum(loss) / tf.reduce_sum(mask)

    def masked_accuracy(label, pred):
        pred = tf.argmax(pred, axis=2)
        label = tf.cast(label, pred.dtype)
        match = label == pred
        mask = label != 0
        match = match & mask
        match = tf.cast(match, dtype=tf.float32)
        mask = tf.cast(mask, dtype=tf.float32)
        return tf.reduce_sum(match) / tf.reduce_sum(mask)

    rng = np.random.RandomState(3)
    tokens = rng.randint(1, 12, (24, 7))
    tokens[np.arange(24) % 3 == 0, 4:] = 0  # padded sequences
    x, y = tokens[:, :-1], tokens[:, 1:]
    d_model = 16
    model = tf.keras.Sequential(
        [
            tf.keras.Input((6,), dtype="int32"),
            tf.keras.layers.Embedding(
                12, d_model, embeddings_initializer=tf.keras.initializers.RandomUniform(seed=10)
            ),
            tf.keras.layers.Dense(d_model, "relu", kernel_initializer=glorot(tf, 11)),
            tf.keras.layers.Dense(12, kernel_initializer=glorot(tf, 12)),
        ]
    )
    schedule = CustomSchedule(d_model, warmup_steps=4)
    lrs = [float(schedule(s).numpy()) for s in (1, 4, 9)]
    optimizer = tf.keras.optimizers.Adam(schedule, beta_1=0.9, beta_2=0.98, epsilon=1e-9)
    model.compile(loss=masked_loss, optimizer=optimizer, metrics=[masked_accuracy])
    h = model.fit(x, y, epochs=4, batch_size=8, shuffle=False, verbose=0)
    return {
        "lrs": lrs,
        "history": h.history,
        "iterations": int(optimizer.iterations.numpy()),
        "lr_now": float(np.asarray(optimizer.learning_rate)),
    }


PROGRAMS = {"quickstart": quickstart, "cnn": cnn, "overfit": overfit, "transformer": transformer}

if __name__ == "__main__":
    lib = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "symgrad")
    for name, prog in PROGRAMS.items():
        if len(sys.argv) > 2 and name not in sys.argv[2:]:
            continue
        print(name, "=", repr(prog(lib)))
