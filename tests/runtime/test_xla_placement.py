"""A ``function(jit_compile=True)`` call placed by ``tf.device`` (``runtime/xla/placement.py``).

Two CPU devices are made in a fresh process (``XLA_FLAGS=--xla_force_host_platform_device_count=2``,
fixed once JAX starts).  ``EXPECTED`` is TF 2.21's printout of the same program with two
logical CPUs (``tf.config.set_logical_device_configuration``), but for the last lines,
which ask JAX where the values are.  TF's error adds "(defined @ file:line)" after the
resource's name and the trace's number to ``__inference_h`` (the program cuts the
``[Op:...]`` part), and names the second variable "Variable/1", where symgrad's eager
variables have unique names ("Variable_1:0", the name in its message).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")

SRC = str(Path(__file__).resolve().parents[2] / "src")
CPU = "/job:localhost/replica:0/task:0/device:CPU:"

PROGRAM = textwrap.dedent(
    """
    import re
    import symgrad as tf
    from symgrad.ops.state.variables import device_array

    def error(fn, *args):
        try:
            fn(*args)
        except tf.errors.InvalidArgumentError as e:
            return re.sub(r"\\[Op:.*\\]", "", str(e).split("\\n")[0])

    @tf.function(jit_compile=True)
    def f(x):
        return x * 2.0 + 1.0

    @tf.function(jit_compile=True)
    def g(x):
        with tf.device("/CPU:1"):  # ignored inside a compiled function, as in TF
            return x * 2.0

    x = tf.constant([1.0, 2.0])
    print(f(x).device)
    with tf.device("/CPU:1"):
        y = f(x)
        x1 = tf.constant([1.0, 2.0])
        v = tf.Variable([1.0, 2.0])
    print(y.device, y.numpy())
    print(x1.device, f(x1).device)
    print(g(x).device)
    print(v.device)

    @tf.function(jit_compile=True)
    def h(x):
        v.assign_add(x)
        return v * 2.0

    print(error(h, x))
    with tf.device("/CPU:1"):
        print(h(x).device, v.numpy())
    w = tf.Variable([1.0, 2.0])

    @tf.function(jit_compile=True)
    def k(x):
        w.assign_add(x)
        return w * 2.0

    with tf.device("/CPU:1"):
        print(error(k, x))
    for d in ("/CPU:5", "/GPU:0", "CPU:1", "/CPU:*"):
        with tf.device(d):
            print(d, f(x).device)
    with tf.device("/CPU:1"):
        print(h(x).numpy())
    print(v.numpy(), k(x).numpy())
    print(device_array(v).devices(), device_array(w).devices())
    """
)

EXPECTED = f"""{CPU}0
{CPU}1 [3. 5.]
{CPU}1 {CPU}0
{CPU}0
{CPU}1
Trying to access resource Variable/0 located in device {CPU}1 from device {CPU}0
{CPU}1 [2. 4.]
Trying to access resource Variable_1/1 located in device {CPU}0 from device {CPU}1
/CPU:5 {CPU}0
/GPU:0 {CPU}0
CPU:1 {CPU}1
/CPU:* {CPU}0
[ 6. 12.]
[3. 6.] [4. 8.]
{{CpuDevice(id=1)}} {{CpuDevice(id=0)}}
"""


def test_a_compiled_call_runs_on_the_device_of_its_tf_device_block() -> None:
    env = {**os.environ, "PYTHONPATH": SRC, "JAX_PLATFORMS": "cpu"}
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout == EXPECTED
