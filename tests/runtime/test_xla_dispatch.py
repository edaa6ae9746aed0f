"""``tf.config.experimental.set_synchronous_execution`` and JAX's CPU dispatch mode.

TF runs ops synchronously unless told otherwise (TF 2.21: ``get_synchronous_execution()``
is True, then False after ``set_synchronous_execution(False)``, True again after
``None``).  Under ``jit_compile=True`` the setting is the dispatch mode of JAX's CPU
client, fixed when JAX starts, so it is checked in fresh processes.  The numbers are the
same in either mode: TF 2.21's for the README's compiled step, within 1e-6 relative
(float32 through tanh: an ulp may differ across CPUs).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.devices import state

SRC = str(Path(__file__).resolve().parents[2] / "src")

PROGRAM = """
import numpy as np
import symgrad as tf
{setup}
w = tf.Variable(np.array([[0.5, -0.25], [0.75, 1.0], [-0.5, 0.25]], np.float32))

@tf.function(jit_compile=True)
def step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.tanh(tf.matmul(x, w)) - y))
    w.assign_sub(0.5 * tape.gradient(loss, w))
    return loss

x = tf.constant([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0]])
y = tf.constant([[0.25, -0.5], [1.0, 0.0]])
from symgrad.core.devices import jax_started
print(jax_started())  # the first compiled call starts JAX, after giving it the setting
print(repr([float(step(x, y)) for _ in range(3)]))
import jax
print(jax.config.values["jax_cpu_enable_async_dispatch"])
print(tf.config.experimental.get_synchronous_execution())
"""
# TF 2.21, tf.function(jit_compile=True), float32
TF_LOSSES = [1.7475758790969849, 1.425415277481079, 1.0344074964523315]


@pytest.fixture
def restored() -> Iterator[None]:
    before = state.synchronous
    yield
    state.synchronous = before


def test_synchronous_execution_is_the_default_and_can_be_set(restored: None) -> None:
    config = tf.config.experimental
    assert config.get_synchronous_execution() is True
    config.set_synchronous_execution(False)
    assert config.get_synchronous_execution() is False
    config.set_synchronous_execution(None)  # the default again
    assert config.get_synchronous_execution() is True
    assert tf.compat.v1.config.experimental.get_synchronous_execution() is True


@pytest.mark.parametrize(
    ("setup", "env", "asynchronous", "synchronous"),
    [
        ("", {}, False, True),  # TF's default: JAX's CPU client runs programs inline
        ("tf.config.experimental.set_synchronous_execution(False)", {}, True, False),
        ("", {"JAX_CPU_ENABLE_ASYNC_DISPATCH": "true"}, True, True),  # the user's JAX setting
    ],
)
def test_the_cpu_client_dispatches_as_set_and_the_numbers_are_tfs(
    setup: str, env: dict[str, str], asynchronous: bool, synchronous: bool
) -> None:
    pytest.importorskip("jax")
    run_env = {**os.environ, "PYTHONPATH": SRC, "JAX_PLATFORMS": "cpu", **env}
    if not env:
        run_env.pop("JAX_CPU_ENABLE_ASYNC_DISPATCH", None)
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(setup=setup)],
        capture_output=True,
        text=True,
        env=run_env,
        timeout=120,
        check=True,
    ).stdout.splitlines()
    started, losses, *modes = out
    assert started == "False"
    np.testing.assert_allclose(ast.literal_eval(losses), TF_LOSSES, rtol=1e-6)
    assert modes == [str(asynchronous), str(synchronous)]
