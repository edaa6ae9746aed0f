"""The everyday TF2 program: Keras models trained in a GradientTape loop with Adam.

A Sequential CNN (Conv2D, MaxPooling2D, Flatten, Dropout, Dense) trained in a
``tf.function`` train step, then a functional model (Dense, BatchNormalization with its
moving statistics, an L2 kernel regularizer collected in ``model.losses``) trained eagerly.
The initializers and Dropout are seeded, and Keras 3 draws seeded numbers with TF's
stateless Philox ops, so the starting weights too are TensorFlow's.

Runs unchanged on TensorFlow: replace the import line with ``import tensorflow as tf``
(examples/expected/keras_tape_loop.txt is what TensorFlow 2.21 with Keras 3 prints).
"""

import numpy as np

import symgrad as tf

layers = tf.keras.layers
rng = np.random.RandomState(0)
images = rng.uniform(0, 1, size=(64, 8, 8, 1)).astype(np.float32)
labels = (images[:, :4].sum(axis=(1, 2, 3)) * 10 / 32).astype(np.int32).clip(0, 9)


def glorot(seed):
    return tf.keras.initializers.GlorotUniform(seed=seed)


model = tf.keras.Sequential(
    [
        tf.keras.Input((8, 8, 1)),
        layers.Conv2D(8, 3, activation="relu", kernel_initializer=glorot(1)),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dropout(0.2, seed=3),
        layers.Dense(10, kernel_initializer=glorot(2)),
    ]
)
print("weights:", [(w.path, tuple(w.shape)) for w in model.weights])
optimizer = tf.keras.optimizers.Adam(1e-2)


def loss_fn(y, logits):
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for step in range(1, 31):
    loss = train_step(images, labels)
    if step % 10 == 0 or step == 1:
        print(f"step {step:3d}  loss {float(loss):.6f}")
logits = model(images)
accuracy = np.mean(np.argmax(logits.numpy(), axis=1) == labels)
print(f"sequential: eval loss {float(loss_fn(labels, logits)):.6f}  accuracy {accuracy:.4f}")

inputs = tf.keras.Input((64,), name="pixels")
h = layers.Dense(
    16, kernel_initializer=glorot(4), kernel_regularizer=tf.keras.regularizers.L2(1e-3)
)(inputs)
h = layers.BatchNormalization()(h)
h = layers.Activation("relu")(h)
outputs = layers.Dense(10, kernel_initializer=glorot(5))(h)
functional = tf.keras.Model(inputs, outputs)
print("layers:", [layer.name for layer in functional.layers])
adam = tf.keras.optimizers.Adam(5e-3)
flat = images.reshape(64, 64)
for step in range(1, 6):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, functional(flat, training=True)) + tf.add_n(functional.losses)
    grads = tape.gradient(loss, functional.trainable_variables)
    adam.apply_gradients(zip(grads, functional.trainable_variables))
    print(f"functional step {step}  loss {float(loss):.6f}")
bn = functional.layers[2]
print("moving mean[:3]:", " ".join(f"{v:.5f}" for v in bn.moving_mean.numpy()[:3]))
print("moving variance[:3]:", " ".join(f"{v:.5f}" for v in bn.moving_variance.numpy()[:3]))
print(f"regularization: {float(tf.add_n(functional.losses)):.6f}")
