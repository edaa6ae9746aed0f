"""The XLA program of a compiled training step is the one JAX makes of the same step.

Issue 28 asks that ``function(jit_compile=True)`` be no slower than ``jax.jit``: for the
MLP step (dense layers, ReLU, ``softmax_cross_entropy_with_logits``, ``reduce_mean``,
the tape's gradients and ``assign_sub`` updates) the optimized HLO symgrad's lowering
gives has the same fused kernels and dots as JAX's own ``value_and_grad`` step, with no
converts or materialized transposes; the only extra instruction allowed is the copy XLA
makes of a donated bias that a fusion re-reads (see ``donation``).  The step's numbers
are TF 2.21's (``tf.function(jit_compile=True)``), rtol 1e-6 (through exp and log).
"""

from __future__ import annotations

import collections
import re
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import symgrad as tf  # noqa: E402

WS = [
    [[0.0, 0.3, -0.3, -0.9], [-0.5, -1.0, 0.1, 1.3], [-0.5, -0.6, 0.5, 0.4]]
    + [[0.1, -0.9, -0.0, 0.7], [-1.3, -0.5, -1.9, -1.3]],
    [[-1.8, -0.2, -1.3, 0.3], [0.2, -0.2, -2.5, -0.5], [-0.0, 0.1, -1.5, -0.5]]
    + [[-1.0, -0.8, 1.1, -0.8]],
    [[-0.0, 0.9, -0.6], [-0.1, 0.1, 0.1], [-1.2, 0.1, 1.4], [-1.5, 0.9, 0.1]],
]
BS = [[-0.6, 2.0, 0.8, -1.2], [0.1, 0.6, -0.2, 0.7], [-0.1, 0.7, 1.4]]
X = [
    [-0.7, 0.2, -0.5, 0.1, -1.2],
    [-0.6, -0.2, 0.9, 1.1, -1.3],
    [-0.8, 0.6, -2.0, -0.5, -0.1],
    [1.3, 0.7, -0.3, -0.4, -0.3],
    [1.5, -0.4, -0.3, 0.4, -0.1],
    [-0.2, -1.1, -0.0, -0.4, 1.2],
]
LABELS = [0, 2, 1, 1, 0, 2]
LR = 0.1


def _data() -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    params = [np.array(p, np.float32) for p in WS + BS]
    return params, np.array(X, np.float32), np.eye(3, dtype=np.float32)[LABELS]


def _symgrad_step(params: list[tf.Variable]) -> Any:
    @tf.function(jit_compile=True)
    def step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            h = x
            for i in range(3):
                h = tf.matmul(h, params[i]) + params[3 + i]
                if i < 2:
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=h))
        for p, g in zip(params, tape.gradient(loss, params)):
            p.assign_sub(LR * g)
        return loss

    return step


def _jax_step() -> Any:
    jnp = jax.numpy

    def loss_fn(params: Any, x: Any, y: Any) -> Any:
        h = x
        for i in range(3):
            h = h @ params[i] + params[3 + i]
            if i < 2:
                h = jax.nn.relu(h)
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(h), axis=1))

    def update(params: Any, x: Any, y: Any) -> Any:
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return [p - LR * g for p, g in zip(params, grads)], loss

    return jax.jit(update)


def _entry_ops(hlo: str) -> collections.Counter[str]:
    """The opcodes of the entry computation's instructions (not its parameters)."""
    entry = hlo[hlo.index("\nENTRY") :]
    ops = re.findall(r"^\s+(?:ROOT )?%\S+ = .*? ([a-z][a-z0-9-]*)\(", entry, re.M)
    return collections.Counter(op for op in ops if op not in ("parameter", "constant", "tuple"))


def test_the_mlp_step_is_tfs_and_its_program_is_jaxs() -> None:
    params, x, y = _data()
    variables = [tf.Variable(p) for p in params]
    step = _symgrad_step(variables)
    xt, yt = tf.constant(x), tf.constant(y)
    losses = [float(step(xt, yt).numpy()) for _ in range(3)]
    # TF 2.21, the same step in tf.function(jit_compile=True)
    np.testing.assert_allclose(
        losses, [1.221958875656128, 1.174055576324463, 1.1593540906906128], rtol=1e-6
    )
    np.testing.assert_allclose(
        variables[5].numpy(), [-0.03857237473130226, 0.6709288358688354, 1.3676434755325317]
    )
    np.testing.assert_allclose(
        variables[2].numpy()[:2],
        [
            [0.01818631775677204, 0.8949862122535706, -0.6131725311279297],
            [-0.09824346750974655, 0.10302571207284927, 0.0952177569270134],
        ],
        rtol=1e-6,
    )
    ours = _entry_ops(step.get_concrete_function(xt, yt).compiled.hlo_text([x, y]))
    theirs = _entry_ops(_jax_step().lower(params, x, y).compile().as_text())
    assert ours["convert"] == ours["transpose"] == 0
    assert ours["copy"] <= 1  # (a donated bias a fusion re-reads; JAX donates nothing)
    ours.pop("copy", None)
    assert ours == theirs
