"""Workload 'mirrored': a data-parallel training step over 4 devices (issue 28, point 4).

The training workload's MLP step (softmax cross-entropy, SGD), its global batch split
over 4 replicas: JAX's CPU devices made by ``XLA_FLAGS=--xla_force_host_platform_
device_count=4`` (on this 2-core host they share the cores, so this measures the cost of
running data parallel, not a speed-up).  Frameworks: ``symgrad_single`` (one device, the
NumPy path: the floor), ``symgrad_mirrored`` (``MirroredStrategy``: ``strategy.run`` in a
``function``, gradients summed by ``apply_gradients``), ``symgrad_mirrored_xla`` (the
same ``function`` with ``jit_compile=True``: one replica's step run by ``jax.shard_map``
over the 4 devices, the batch split, the variables replicated, the gradients psum'd),
and ``jax_sharded`` (``jax.jit`` with the batch sharded over a 4-device mesh, the
parameters replicated: XLA's own data parallelism).  The ``symgrad_mirrored_xla`` row
also times the others interleaved in its process (``paired_*``: its time / the peer's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import harness
import numpy as np
import report
import wl_training
import wl_xla

NAME = "mirrored"
CASES = {"mlp_big": "big", "mlp_small": "small"}
FRAMEWORKS = ("symgrad_single", "symgrad_mirrored", "symgrad_mirrored_xla", "jax_sharded")
DEVICES = 4
ENV = {
    "XLA_FLAGS": harness.thread_env()["XLA_FLAGS"]
    + f" --xla_force_host_platform_device_count={DEVICES}"
}


def _data(case: str) -> Any:
    return wl_training.make_data(**wl_training.CASES[CASES[case]])


def _symgrad(d: Any, mirrored: bool, jit: bool | None) -> Callable[[], Any]:
    import symgrad as tf

    strategy = tf.distribute.MirroredStrategy() if mirrored else tf.distribute.get_strategy()
    with strategy.scope():
        ws, bs = [tf.Variable(w) for w in d.ws], [tf.Variable(b) for b in d.bs]
        opt = tf.keras.optimizers.SGD(d.lr)
    params, batch = ws + bs, d.x.shape[0]

    def step(x: Any, y: Any) -> Any:
        with tf.GradientTape() as tape:
            logits = wl_training._sg_logits(tf, x, ws, bs)
            per_example = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=batch)
        opt.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

    @tf.function(jit_compile=jit)
    def run(x: Any, y: Any) -> Any:
        return strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None)

    ds = tf.data.Dataset.from_tensor_slices((d.x, d.y)).batch(batch)
    x, y = next(iter(strategy.experimental_distribute_dataset(ds)))
    return lambda: run(x, y)


def _jax_sharded(d: Any) -> Callable[[], float]:
    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    step = wl_training_jax_update(d)
    mesh = Mesh(np.array(jax.devices()[:DEVICES]), ("batch",))
    rows, every = NamedSharding(mesh, PartitionSpec("batch")), NamedSharding(mesh, PartitionSpec())
    state = {"params": jax.device_put(([*d.ws], [*d.bs]), every)}
    x, y = jax.device_put(d.x, rows), jax.device_put(d.y, rows)
    update = jax.jit(step, out_shardings=(every, every))

    def run() -> float:
        state["params"], loss = update(state["params"], x, y)
        return float(loss)

    return run


def wl_training_jax_update(d: Any) -> Callable[..., Any]:
    """The training workload's JAX step function (params, x, y) -> (params, loss)."""
    import jax
    import jax.numpy as jnp

    def loss_fn(params: Any, x: Any, y: Any) -> Any:
        ws, bs = params
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = h @ w + b
            if i < len(ws) - 1:
                h = jax.nn.relu(h)
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(h), axis=1))

    def update(params: Any, x: Any, y: Any) -> Any:
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - d.lr * g, params, grads), loss

    return update


def build(framework: str, case: str) -> Callable[[], Any]:
    d = _data(case)
    if framework == "jax_sharded":
        return _jax_sharded(d)
    mirrored = framework != "symgrad_single"
    return _symgrad(d, mirrored, True if framework == "symgrad_mirrored_xla" else None)


def tasks(quick: bool) -> list[dict[str, Any]]:
    return [
        {
            "workload": NAME,
            "case": c,
            "framework": f,
            "params": {"repeat": 5 if quick else 11},
            "env": ENV,
        }
        for c in CASES
        for f in FRAMEWORKS
    ]


def run(framework: str, case: str, params: dict[str, Any]) -> None:
    import time

    step = build(framework, case)
    t0 = time.perf_counter()
    first = wl_training.to_float(step())
    harness.emit(compile_s=time.perf_counter() - t0, loss_step1=first)
    harness.emit(**harness.time_call(step, repeat=params["repeat"], warmup=1))
    if framework != "symgrad_mirrored_xla":
        return
    for peer in ("jax_sharded", "symgrad_mirrored", "symgrad_single"):
        other = build(peer, case)
        other()
        ratios = harness.time_paired(
            {peer: other, framework: step},
            rounds=params["repeat"],
            min_sample_s=wl_xla.BLOCK_S,  # (a step of 15-40 ms: blocks of several)
            gap_s=wl_xla.PEER_GAP_S,
        )
        harness.emit(**{f"paired_{peer}": ratios[framework]})


def tables(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    header = ["case", *FRAMEWORKS, "xla / jax", "xla / mirrored", "xla / single", "loss (step 1)"]
    body = []
    for case in CASES:
        by_fw = {r["framework"]: r for r in rows if r["case"] == case}
        if not by_fw:
            continue
        times = [
            report.status(by_fw.get(f)) or report.ms(by_fw[f].get("median_s")) for f in FRAMEWORKS
        ]
        xla = by_fw.get("symgrad_mirrored_xla", {})
        ratios = [
            f"{xla[k]:.2f}x" if k in xla else "-"
            for k in ("paired_jax_sharded", "paired_symgrad_mirrored", "paired_symgrad_single")
        ]
        losses = " / ".join(
            f"{by_fw[f]['loss_step1']:.6f}" if "loss_step1" in by_fw.get(f, {}) else "-"
            for f in FRAMEWORKS
        )
        body.append([case, *times, *ratios, losses])
    title = f"### MirroredStrategy over {DEVICES} CPU devices beside jax.jit sharded"
    return title + "\n\n" + report.table(header, body), []
