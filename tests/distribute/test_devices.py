"""tf.config's devices, tf.device placement and tf.test's GPU queries, with TF 2.21's
answers (a CPU-only host); the device settings are made in a fresh process."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import symgrad as tf

HERE = Path(__file__).resolve().parent
SRC = str(HERE.parents[1] / "src")
CPU = "/job:localhost/replica:0/task:0/device:CPU:"
LOGICAL = (
    "[LogicalDevice(name='/device:CPU:0', device_type='CPU'), "
    "LogicalDevice(name='/device:CPU:1', device_type='CPU'), "
    "LogicalDevice(name='/device:CPU:2', device_type='CPU'), "
    "LogicalDevice(name='/device:CPU:3', device_type='CPU')]"
)

# TF 2.21's output of the same program (the last line, JAX's CPU count, is symgrad's).
EXPECTED = f"""[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
[]
None
4
{LOGICAL}
Virtual devices cannot be modified after being initialized
Visible devices cannot be modified after being initialized
Intra op parallelism cannot be modified after initialization.
0 3
{CPU}0
{CPU}0
{CPU}1 {CPU}1
False ''
4
{CPU}1 {CPU}0
"""


def test_logical_cpus_and_placement_in_a_fresh_process():
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("XLA_FLAGS", None)
    out = subprocess.run(
        [sys.executable, str(HERE / "programs" / "devices.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    ).stdout
    assert out == EXPECTED


def test_graph_tensors_keep_the_requested_device():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:w/task:1"):
            with tf.device("/GPU:0"):
                a = tf.constant(1.0)
            with tf.device("cpu"):
                b = tf.constant(1.0)
            with tf.device(None):
                c = tf.constant(1.0)
    # TF 2.21's strings
    assert (a.device, b.device, c.device) == (
        "/job:w/task:1/device:GPU:0",
        "/job:w/task:1/device:CPU:*",
        "",
    )
    assert a.op.device == "/job:w/task:1/device:GPU:0"

    @tf.function
    def f(x):
        with tf.device("/cpu:0"):
            y = x * 2
        seen.append((x.device, y.device, (x + 1).device))
        return y

    seen: list = []
    f(tf.constant(1.0))
    assert seen == [("", "/device:CPU:0", "")]


def test_config_errors():
    with pytest.raises(ValueError, match="Unrecognized device: 'CPU:0'"):
        tf.config.set_logical_device_configuration(
            "CPU:0", [tf.config.LogicalDeviceConfiguration()]
        )
    with pytest.raises(RuntimeError, match="does not support functions"):
        with tf.device(lambda op: "/cpu:0"):
            pass
    with pytest.raises(ValueError, match="Unknown attribute"):
        with tf.device("/cpu:x:y"):
            pass
    with pytest.raises(TypeError, match="device_type must be a string"):
        tf.config.list_physical_devices(3)
    assert tf.config.list_physical_devices("cpu") == tf.config.list_physical_devices("CPU")
    assert tf.config.list_physical_devices("TPU") == []
    assert tf.config.get_visible_devices("GPU") == []
    assert tf.config.LogicalDeviceConfiguration() == tf.config.LogicalDeviceConfiguration(
        None, None, None
    )
