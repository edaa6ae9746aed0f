"""The key acceptance test of issue 28: a data-parallel tape step over 4 devices gives
TF's numbers and the single-device numbers, and each replica gets TF's slice of the batch.

The 4 devices are made in a fresh process (device settings are fixed once made): by
``tf.config.set_logical_device_configuration`` as in TF (JAX's host device count where
JAX is installed), and by ``XLA_FLAGS=--xla_force_host_platform_device_count=4`` (JAX's
CPU devices).  TF 2.21's literals come from the same program on TF (4 logical CPUs).
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
SRC = str(HERE.parents[1] / "src")

# TF 2.21, MirroredStrategy over 4 logical CPUs (experimental_local_results of the batch).
TF_BATCHES = [
    [[0.0, 0.1, 0.2], [0.3, 0.4, 0.5]],
    [[0.6, 0.7, 0.8], [0.9, 1.0, 1.1]],
    [[1.2, 1.3, 1.4], [1.5, 1.6, 1.7]],
    [[1.8, 1.9, 2.0], [2.1, 2.2, 2.3]],
]
TF_DEVICES = [f"/job:localhost/replica:0/task:0/device:CPU:{i}" for i in range(4)]
TF_PER_REPLICA_LOSS = [0.11851564, 0.13882813, 0.52789056, 0.15132807]
TF_LOSSES = [0.9365624, 0.8246322]  # eager step, then the step in a tf.function
TF_W = [0.4186819791793823, -0.33018550276756287, 0.9209470152854919]
TF_B = [0.1113249808549881]


def run(mode: str, **env: str) -> dict:
    environ = {**os.environ, "PYTHONPATH": SRC, **env}
    out = subprocess.run(
        [sys.executable, str(HERE / "programs" / "mirrored_step.py"), mode],
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def check_tf_numbers(got: dict) -> None:
    assert got["replicas"] == 4
    np.testing.assert_allclose(got["batches"], TF_BATCHES, rtol=1e-7)
    assert got["devices"] == TF_DEVICES
    np.testing.assert_allclose(got["per_replica_loss"], TF_PER_REPLICA_LOSS, rtol=1e-6)
    np.testing.assert_allclose(got["losses"], TF_LOSSES, rtol=1e-6)
    np.testing.assert_allclose(got["w"], TF_W, rtol=1e-6)
    np.testing.assert_allclose(got["b"], TF_B, rtol=1e-6)
    assert got["iterations"] == 2  # one optimizer step per strategy.run, as TF


@pytest.fixture(scope="module")
def single() -> dict:
    return run("single")


def test_single_device_gives_tfs_numbers(single):
    assert single["replicas"] == 1
    np.testing.assert_allclose(single["losses"], TF_LOSSES, rtol=1e-6)
    np.testing.assert_allclose(single["w"], TF_W, rtol=1e-6)


def test_four_logical_cpus_from_tf_config(single):
    got = run("config")
    check_tf_numbers(got)
    np.testing.assert_allclose(got["w"], single["w"], rtol=1e-6)
    np.testing.assert_allclose(got["b"], single["b"], rtol=1e-6)


def test_four_jax_cpu_devices_from_xla_flags(single):
    if importlib.util.find_spec("jax") is None:  # not imported here: no JAX in pytest
        pytest.skip("JAX is not installed")
    got = run("xla", XLA_FLAGS="--xla_force_host_platform_device_count=4")
    assert got["jax_all_reduce"]  # the replicas are JAX devices: XLA sums the values
    check_tf_numbers(got)
    np.testing.assert_allclose(got["w"], single["w"], rtol=1e-6)


def test_jit_compiled_step_runs_sharded_over_four_jax_devices(single):
    """``strategy.run`` in a ``function(jit_compile=True)``: one replica's step traced
    once and run as one XLA program sharded over the 4 devices (a ``ReplicaCall``, not
    4 replicas' ops); TF's numbers, and the variables replicated on all 4 devices."""
    pytest.importorskip("jax")
    got = run("xla_jit", XLA_FLAGS="--xla_force_host_platform_device_count=4")
    check_tf_numbers(got)
    assert got["op_types"] == ["AddN", "Pack", "Placeholder", "ReplicaCall", "Unpack"]
    assert got["replica_calls"] == 1
    assert got["w_devices"] == 4
    one = run("single_jit")
    assert one["op_types"].count("ReplicaCall") == 0
    np.testing.assert_allclose(one["losses"], TF_LOSSES, rtol=1e-6)
    np.testing.assert_allclose(got["w"], one["w"], rtol=1e-6)
    np.testing.assert_allclose(got["b"], one["b"], rtol=1e-6)
