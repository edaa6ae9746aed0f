"""MultiWorkerMirroredStrategy across two processes on localhost (JAX's CPU collectives
through jax.distributed): each worker trains on its half of every batch, and both end
with the single-device numbers (TF's, see test_mirrored_step.py)."""

import importlib.util
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import symgrad as tf

HERE = Path(__file__).resolve().parent
SRC = str(HERE.parents[1] / "src")
TF_LOSSES = [0.9365624, 0.8246322]
TF_W = [0.4186819791793823, -0.33018550276756287, 0.9209470152854919]
TF_B = [0.1113249808549881]


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


@pytest.mark.parametrize("local", [1, 2])
def test_two_workers_give_the_single_device_numbers(local):
    """Two workers with ``local`` CPU devices each (XLA's host device count)."""
    if importlib.util.find_spec("jax") is None:  # not imported here: no JAX in pytest
        pytest.skip("JAX is not installed")
    workers = [f"localhost:{p}" for p in free_ports(2)]
    procs = []
    for i in range(2):
        config = {"cluster": {"worker": workers}, "task": {"type": "worker", "index": i}}
        env = {**os.environ, "PYTHONPATH": SRC, "TF_CONFIG": json.dumps(config)}
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={local}"
        procs.append(
            subprocess.Popen(
                [sys.executable, str(HERE / "programs" / "multi_worker_step.py")],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
            )
        )  # fmt: skip
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    got = [json.loads(o.strip().splitlines()[-1]) for o, _ in outs]
    x = np.arange(24, dtype=np.float32).reshape(8, 3) / 10
    # each worker keeps its replicas' rows of the global batch: worker 0 the first half
    np.testing.assert_allclose(got[0]["batch"], np.split(x[:4], local), rtol=1e-7)
    np.testing.assert_allclose(got[1]["batch"], np.split(x[4:], local), rtol=1e-7)
    for g in got:
        assert g["replicas"] == 2 * local
        np.testing.assert_allclose(g["losses"], TF_LOSSES, rtol=1e-6)
        np.testing.assert_allclose(g["w"], TF_W, rtol=1e-6)
        np.testing.assert_allclose(g["b"], TF_B, rtol=1e-6)


def test_tf_config_is_read(monkeypatch):
    config = {
        "cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"]},
        "task": {"type": "worker", "index": 1},
    }
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (r.task_type, r.task_id) == ("worker", 1)
    assert r.cluster_spec().as_dict() == config["cluster"]
    assert r.cluster_spec().num_tasks("worker") == 2
    assert r.master() == "host2:2222"
    assert r.master(rpc_layer="grpc") == "grpc://host2:2222"


def test_bad_tf_config_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", "{cluster")
    with pytest.raises(ValueError, match="TF_CONFIG is not valid JSON"):
        tf.distribute.cluster_resolver.TFConfigClusterResolver()
    config = {"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "ps", "index": 0}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))
    with pytest.raises(ValueError, match="must be a 'chief' or 'worker'"):
        tf.distribute.MultiWorkerMirroredStrategy()


def test_without_tf_config_one_worker(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    s = tf.distribute.MultiWorkerMirroredStrategy()
    assert s.num_replicas_in_sync == 1
    assert s.run(lambda: tf.constant(2.0) * 3).numpy() == 6.0
