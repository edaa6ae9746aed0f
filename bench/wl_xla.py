"""Workload 'xla': ``function(jit_compile=True)`` beside JAX's ``jax.jit`` and TF's
``tf.function(jit_compile=True)`` on the same training steps (issue 28).

Cases: the training workload's MLPs (784-1024-1024-10, batch 256; 64-64-64-10, batch 32)
and the CNN workload's small CNN.  Frameworks: ``symgrad_xla`` (jit_compile=True),
``symgrad_numpy`` (the same step, jit_compile=None: the NumPy plan), ``jax_jit`` and
``tf_xla``.  Each row reports the first call (trace + compile) as ``compile_s``; the
``symgrad_xla`` row also times JAX, TF and the NumPy path interleaved in its process
(``paired_*``: symgrad_xla's time / the peer's) and, against JAX, the same pairing in
CPU time (``cpu_paired_jax_jit``: the process's CPU seconds, all threads), which the
other load on a shared machine moves far less than wall-clock time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import harness
import report
import wl_cnn
import wl_training
import wl_training_peers

NAME = "xla"
CASES = {"mlp_big": "big", "mlp_small": "small", "cnn": "digits"}
FRAMEWORKS = ("symgrad_xla", "symgrad_numpy", "jax_jit", "tf_xla")
GOALS = {"mlp_big": 1.05, "cnn": 1.05, "mlp_small": 1.0}  # x JAX jit, dispatch included
PEER_GAP_S = 0.25
# Each timed block lasts at least this long.  With 20 ms blocks the big MLP's block was
# one 25-40 ms step right after the pause: it timed the thread pools waking up as much
# as the step, and its paired ratio moved 1.07-1.45x between two runs on the same host.
BLOCK_S = 0.2


def _data(case: str) -> Any:
    if case == "cnn":
        return wl_cnn.make_data(**wl_cnn.CASES["digits"])
    return wl_training.make_data(**wl_training.CASES[CASES[case]])


def _tf2(tf: Any, case: str, d: Any, jit: bool | None) -> Callable[[], Any]:
    params = [tf.Variable(p) for p in (d.params if case == "cnn" else d.ws + d.bs)]

    def loss_of(x: Any, y: Any) -> Any:
        if case == "cnn":
            return wl_cnn.cnn_loss(tf, x, y, params)
        half = len(params) // 2
        return wl_training.sg_loss(tf, x, y, params[:half], params[half:])

    def step(x: Any, y: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = loss_of(x, y)
        for p, g in zip(params, tape.gradient(loss, params)):
            p.assign_sub(d.lr * g)
        return loss

    fn = tf.function(step, jit_compile=jit)
    x, y = tf.constant(d.x), tf.constant(d.y)
    return lambda: wl_training.to_float(fn(x, y))  # waits for the result, as JAX's step


def _jax_cnn(d: Any) -> Callable[[], float]:
    import jax
    import jax.numpy as jnp

    def loss_fn(params: Any, x: Any, y: Any) -> Any:
        w1, b1, w2, b2 = params
        h = jax.lax.conv_general_dilated(
            x, w1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        h = jax.nn.relu(h + b1)
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        logits = h.reshape(h.shape[0], -1) @ w2 + b2
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), axis=1))

    @jax.jit
    def update(params: Any, x: Any, y: Any) -> Any:
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return [p - d.lr * g for p, g in zip(params, grads)], loss

    state = {"params": jax.device_put(list(d.params))}
    x, y = jax.device_put(d.x), jax.device_put(d.y)

    def step() -> float:
        state["params"], loss = update(state["params"], x, y)
        return float(loss)

    return step


def _symgrad() -> Any:
    import symgrad

    return symgrad


def build(framework: str, case: str, d: Any) -> Callable[[], Any]:
    if framework == "symgrad_xla":
        return _tf2(_symgrad(), case, d, True)
    if framework == "symgrad_numpy":
        return _tf2(_symgrad(), case, d, None)
    if framework == "tf_xla":
        return _tf2(harness.import_tf(), case, d, True)
    return _jax_cnn(d) if case == "cnn" else wl_training_peers.jax_jit(d)


def tasks(quick: bool) -> list[dict[str, Any]]:
    return [
        {"workload": NAME, "case": c, "framework": f, "params": {"repeat": 5 if quick else 11}}
        for c in CASES
        for f in FRAMEWORKS
    ]


def run(framework: str, case: str, params: dict[str, Any]) -> None:
    import time

    d = _data(case)
    step = build(framework, case, d)
    t0 = time.perf_counter()
    first = wl_training.to_float(step())
    harness.emit(compile_s=time.perf_counter() - t0, loss_step1=first)
    harness.emit(**harness.time_call(step, repeat=params["repeat"], warmup=1))
    if framework != "symgrad_xla":
        return
    for peer in ("jax_jit", "tf_xla", "symgrad_numpy"):
        try:
            other = build(peer, case, _data(case))
        except ImportError:
            continue
        ratios = harness.time_paired(
            {peer: other, framework: step},
            rounds=params["repeat"],
            min_sample_s=BLOCK_S,
            gap_s=PEER_GAP_S,
        )
        harness.emit(**{f"paired_{peer}": ratios[framework]})
        if peer == "jax_jit":
            harness.emit(cpu_paired_jax_jit=_cpu_paired(other, step, params["repeat"]))


def _cpu_paired(peer: Callable[[], Any], step: Callable[[], Any], rounds: int) -> float:
    """Median over rounds of step's CPU time / the peer's, blocks interleaved (each
    block lasts at least 50 ms of wall-clock time, so the CPU clock's tick is small)."""
    import statistics
    import time

    def block(fn: Callable[[], Any], n: int) -> float:
        c0 = time.process_time()
        for _ in range(n):
            fn()
        return time.process_time() - c0

    t0 = time.perf_counter()
    step()
    n = max(1, int(0.05 / max(time.perf_counter() - t0, 1e-9)))
    ratios = []
    for _ in range(rounds):
        a, b = block(peer, n), block(step, n)
        ratios.append(b / max(a, 1e-9))
        time.sleep(PEER_GAP_S)
    return statistics.median(ratios)


def tables(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    header = [
        "case",
        *FRAMEWORKS,
        "compile (xla / jax / tf)",
        "xla / jax",
        "xla / jax (CPU)",
        "xla / tf",
        "xla / numpy",
    ]
    body, goals = [], []
    for case in CASES:
        by_fw = {r["framework"]: r for r in rows if r["case"] == case}
        if not by_fw:
            continue
        times = [
            report.status(by_fw.get(f)) or report.ms(by_fw[f].get("median_s")) for f in FRAMEWORKS
        ]
        comp = " / ".join(
            f"{by_fw[f]['compile_s']:.2f} s" if f in by_fw and "compile_s" in by_fw[f] else "-"
            for f in ("symgrad_xla", "jax_jit", "tf_xla")
        )
        xla = by_fw.get("symgrad_xla", {})
        ratios = [
            f"{xla[k]:.2f}x" if k in xla else "-"
            for k in (
                "paired_jax_jit",
                "cpu_paired_jax_jit",
                "paired_tf_xla",
                "paired_symgrad_numpy",
            )
        ]
        body.append([case, *times, comp, *ratios])
        goals.append(
            report.goal(
                f"xla: {case} step, symgrad jit_compile=True / jax.jit",
                xla.get("paired_jax_jit"),
                GOALS[case],
            )
        )
    title = "### function(jit_compile=True) beside jax.jit and tf.function(jit_compile=True)"
    return title + "\n\n" + report.table(header, body), goals
