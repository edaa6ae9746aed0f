"""Keras compile/fit/evaluate under MirroredStrategy.scope(); prints JSON.
``python keras_fit.py 4 eager|graph|jit``: 4 logical CPUs (``jit``: compile(jit_compile=True),
each step one XLA program sharded over the 4 devices); ``1 graph``: one device."""

import json
import sys

import numpy as np

import symgrad as tf

if sys.argv[1] == "4":
    cpu = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpu[0], [tf.config.LogicalDeviceConfiguration()] * 4)
strategy = tf.distribute.MirroredStrategy()
x = np.arange(24, dtype=np.float32).reshape(8, 3) / 10
y = np.array([[1.0], [0.0], [2.0], [1.0], [3.0], [0.5], [1.5], [2.5]], np.float32)
with strategy.scope():
    init = tf.keras.initializers.Constant([[0.5], [-0.25], [1.0]])
    dense = tf.keras.layers.Dense(
        1, kernel_initializer=init, bias_initializer=tf.keras.initializers.Constant(0.1)
    )
    model = tf.keras.Sequential([tf.keras.Input((3,)), dense])
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.1),
        loss="mse",
        metrics=["mae"],
        run_eagerly=sys.argv[2] == "eager",
        jit_compile=sys.argv[2] == "jit",
    )
seen = []
model.train_step = (lambda step: lambda data: seen.append(int(data[0].shape[0])) or step(data))(
    model.train_step
)
history = model.fit(
    np.concatenate([x, x]),
    np.concatenate([y, y]),
    batch_size=8,
    epochs=2,
    shuffle=False,
    verbose=0,
)
out = {
    "replicas": strategy.num_replicas_in_sync,
    "history": history.history,
    "weights": [w.ravel().tolist() for w in model.get_weights()],
    "evaluate": model.evaluate(x, y, batch_size=4, verbose=0),
    "replica_batch": seen[0],
}
print(json.dumps(out))
