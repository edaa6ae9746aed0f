"""Keras fit and evaluate under MirroredStrategy over 4 logical CPUs: each replica
trains on its quarter of the batch, and the numbers are TF 2.21's (Keras 3.15, the same
program), which are the single-device ones."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
SRC = str(HERE.parents[1] / "src")
# TF 2.21 + Keras 3.15 under MirroredStrategy over 4 logical CPUs
TF_LOSS = [0.8805973529815674, 0.8062083721160889]
TF_MAE = [0.820618748664856, 0.7619935274124146]
TF_WEIGHTS = [[0.39843738079071045, -0.34555113315582275, 0.910460352897644], [0.16011473536491394]]
TF_EVALUATE = [0.7948989272117615, 0.7597509622573853]


def run(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("XLA_FLAGS", None)
    out = subprocess.run(
        [sys.executable, str(HERE / "programs" / "keras_fit.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("args", [("4", "graph"), ("4", "eager"), ("4", "jit"), ("1", "graph")])
def test_fit_under_mirrored_strategy(args):
    if args[1] == "jit":  # the steps sharded over the 4 JAX CPU devices; metrics summed
        pytest.importorskip("jax")
    got = run(*args)
    replicas = int(args[0])
    assert got["replicas"] == replicas
    assert got["replica_batch"] == 8 // replicas  # the step sees its replica's rows
    np.testing.assert_allclose(got["history"]["loss"], TF_LOSS, rtol=1e-6)
    np.testing.assert_allclose(got["history"]["mae"], TF_MAE, rtol=1e-6)
    for have, want in zip(got["weights"], TF_WEIGHTS):
        np.testing.assert_allclose(have, want, rtol=1e-6)
    np.testing.assert_allclose(got["evaluate"], TF_EVALUATE, rtol=1e-6)
