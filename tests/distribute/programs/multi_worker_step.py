"""One worker of a two-worker MultiWorkerMirroredStrategy (TF_CONFIG set by the caller):
the tape step of mirrored_step.py, each worker on its half of the batch; prints JSON."""

import json

import numpy as np

import symgrad as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    w = tf.Variable([[0.5], [-0.25], [1.0]])
    b = tf.Variable([0.1])
    opt = tf.keras.optimizers.SGD(0.1)
x = np.arange(24, dtype=np.float32).reshape(8, 3) / 10
y = np.array([[1.0], [0.0], [2.0], [1.0], [3.0], [0.5], [1.5], [2.5]], np.float32)


def step(xb, yb):
    with tf.GradientTape() as tape:
        per_example = tf.square(tf.matmul(xb, w) + b - yb)[:, 0]
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=8)
    grads = tape.gradient(loss, [w, b])
    opt.apply_gradients(zip(grads, [w, b]))
    return loss


out = {"replicas": strategy.num_replicas_in_sync, "losses": []}
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
for _ in range(2):
    for xb, yb in strategy.experimental_distribute_dataset(ds):
        out["batch"] = [p.numpy().tolist() for p in strategy.experimental_local_results(xb)]
        losses = strategy.run(step, args=(xb, yb))
        out["losses"].append(float(strategy.reduce("SUM", losses, axis=None)))
out["w"] = w.numpy().ravel().tolist()
out["b"] = b.numpy().tolist()
print(json.dumps(out))
