"""A data-parallel tape step over 4 replicas, as in TF's tutorial; prints JSON.

``python mirrored_step.py config``: the 4 CPUs made by tf.config (TF's way);
``python mirrored_step.py xla``: made by XLA_FLAGS (the caller sets it);
``python mirrored_step.py single``: the same two steps on one device, the global batch;
``python mirrored_step.py xla_jit``: as ``xla``, the traced step ``jit_compile=True`` (one
sharded XLA program; ``single_jit``: on one device).
"""

import json
import sys

import numpy as np

import symgrad as tf
from symgrad.ops.state.variables import device_array

mode = sys.argv[1]
if mode == "config":
    cpu = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpu[0], [tf.config.LogicalDeviceConfiguration()] * 4)
single = mode.startswith("single")
strategy = tf.distribute.get_strategy() if single else tf.distribute.MirroredStrategy()
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


@tf.function(jit_compile=mode.endswith("_jit") or None)
def traced(xb, yb):
    return strategy.reduce("SUM", strategy.run(step, args=(xb, yb)), axis=None)


out = {"replicas": strategy.num_replicas_in_sync, "losses": [], "batches": [], "devices": []}
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
for xb, yb in strategy.experimental_distribute_dataset(ds):
    parts = strategy.experimental_local_results(xb)
    out["batches"] = [p.numpy().tolist() for p in parts]
    out["devices"] = [p.device for p in parts]
    losses = strategy.run(step, args=(xb, yb))
    out["per_replica_loss"] = [float(v) for v in strategy.experimental_local_results(losses)]
    out["losses"].append(float(strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)))
    out["losses"].append(float(traced(xb, yb)))
out["w"] = w.numpy().ravel().tolist()
out["b"] = b.numpy().tolist()
out["iterations"] = int(opt.iterations.numpy())
out["jax_all_reduce"] = strategy.extended._collective is not None if not single else False
if mode.endswith("_jit"):  # the trace's ops, and the devices the variables are on
    graph = traced.get_concrete_function(xb, yb).graph
    out["op_types"] = sorted({op.type for op in graph.get_operations()})
    held = device_array(w)
    out["w_devices"] = len(held.sharding.device_set) if held is not None else 0
    out["replica_calls"] = sum(op.type == "ReplicaCall" for op in graph.get_operations())
print(json.dumps(out))
