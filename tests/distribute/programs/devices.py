"""tf.config's device answers in a fresh process; prints one repr per line."""

import symgrad as tf

cpu = tf.config.list_physical_devices("CPU")
print(tf.config.list_physical_devices())
print(tf.config.list_physical_devices("GPU"))
print(tf.config.get_logical_device_configuration(cpu[0]))
tf.config.threading.set_inter_op_parallelism_threads(3)
tf.config.set_logical_device_configuration(cpu[0], [tf.config.LogicalDeviceConfiguration()] * 4)
print(len(tf.config.get_logical_device_configuration(cpu[0])))
print(tf.config.list_logical_devices())
for call in (
    lambda: tf.config.set_logical_device_configuration(
        cpu[0], [tf.config.LogicalDeviceConfiguration()] * 2
    ),
    lambda: tf.config.set_visible_devices(cpu),
    lambda: tf.config.threading.set_intra_op_parallelism_threads(2),
):
    try:
        call()
    except RuntimeError as e:
        print(e)
print(
    tf.config.threading.get_intra_op_parallelism_threads(),
    tf.config.threading.get_inter_op_parallelism_threads(),
)
print(tf.constant(1.0).device)
with tf.device("/GPU:0"):
    print((tf.constant(2.0) + 1).device)
with tf.device("/CPU:1"):
    print((tf.constant(2.0) + 1).device, tf.Variable(1.0).device)
print(tf.test.is_gpu_available(), repr(tf.test.gpu_device_name()))
try:
    import jax

    print(len(jax.devices("cpu")))
except ImportError:
    print(4)
with tf.distribute.OneDeviceStrategy("/cpu:1").scope():
    print(tf.Variable(1.0).device, (tf.constant(1.0) + 1).device)
