"""The beginner quickstart's compile/fit on scikit-learn's handwritten digits (bundled
with scikit-learn, no download): Flatten, Dense(64, relu), Dropout(0.2), Dense(10);
``compile("adam", SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])``;
``fit`` with a validation split and Keras's ``verbose=2`` progress lines, then ``evaluate``.
Seeded (``tf.keras.utils.set_random_seed``, seeded initializers, ``shuffle=False``) so
the numbers are TensorFlow's.

Runs unchanged on TensorFlow: replace the import line with ``import tensorflow as tf``
(examples/expected/keras_fit.txt is what TensorFlow 2.21 with Keras 3 prints; only the
timing text of the progress lines differs).
"""

import numpy as np
from sklearn.datasets import load_digits

import symgrad as tf

digits = load_digits()
x = (digits.images / 16.0).astype(np.float32)
y = digits.target.astype(np.int32)
x_train, y_train, x_test, y_test = x[:1500], y[:1500], x[1500:], y[1500:]

tf.keras.utils.set_random_seed(0)
glorot = tf.keras.initializers.GlorotUniform
model = tf.keras.models.Sequential(
    [
        tf.keras.layers.Input((8, 8)),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu", kernel_initializer=glorot(seed=1)),
        tf.keras.layers.Dropout(0.2),
        tf.keras.layers.Dense(10, kernel_initializer=glorot(seed=2)),
    ]
)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
model.compile(optimizer="adam", loss=loss_fn, metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=64, epochs=4, validation_split=0.2, shuffle=False, verbose=2)
loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
print(f"test loss {loss:.6f}  test accuracy {accuracy:.6f}")
