"""Workload 'memory': peak resident memory of forward+backward of a deep MLP.

L layers ``h = relu(h @ W_i)`` (no bias, the last one linear) of 1024×1024 float32, batch
512, loss ``mean(h_L ** 2)``; one call computes the loss and every weight's gradient and
hands the gradients back.  Each framework runs in a fresh process: imports, data and a tiny
warm-up model (kernels, allocators, compilers), then the weights are built and RSS is
taken; one call runs (compiling where the framework compiles), its results are dropped,
the peak mark is reset, and a second call is measured.  The step's own peak is peak RSS
minus the RSS after building; reported peak = that + the weights' size, against the
theoretical minimum (weights + all gradients + the activations still alive when they
are).  'weights held' is the RSS growth while building: above the weights' size means
the framework keeps extra copies.  glibc is told to serve large
blocks by mmap (MALLOC_MMAP_THRESHOLD_) so that freed buffers leave RSS, for everyone.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import harness
import numpy as np
import report
import wl_memory_peers as peers

NAME = "memory"
MIB = 2.0**20


def spec(quick: bool) -> dict[str, int]:
    return {"layers": 10 if quick else 50, "width": 1024, "batch": 512}


def minimum_mib(layers: int, width: int, batch: int, fused: bool = False) -> float:
    """Weights + gradients + live activations at the worst moment of a reverse pass.

    Going back through layer k, the inputs of layers 1..k-1 are still needed (the input x
    of layer 0 is data, not counted), the gradients of layers k..L-1 exist (only one at a
    time when the update is fused into the backward pass), plus the incoming and the
    outgoing activation gradient.
    """
    w, act = width * width * 4, batch * width * 4
    worst = 0
    for k in range(layers):
        grads = 1 if fused else layers - k
        worst = max(worst, k * act + grads * w + 2 * act)
    return (layers * w + worst) / MIB


def make_weights(layers: int, width: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    scale = np.float32(np.sqrt(2.0 / width))
    return [rng.standard_normal((width, width), dtype=np.float32) * scale for _ in range(layers)]


def make_x(width: int, batch: int) -> np.ndarray:
    return np.random.default_rng(1).standard_normal((batch, width), dtype=np.float32)


def numpy_fwd_bwd(ws: list[np.ndarray], x: np.ndarray) -> Callable[[], Any]:
    """Hand-written: keep each layer's output, then walk back freeing them."""

    def call() -> list[np.ndarray]:
        hs = [x]
        for i, w in enumerate(ws):
            h = hs[-1] @ w
            if i < len(ws) - 1:
                np.maximum(h, 0, out=h)
            hs.append(h)
        d = hs.pop() * np.float32(2.0 / hs[0].size)
        grads: list[Any] = [None] * len(ws)
        for i in reversed(range(len(ws))):
            h = hs.pop()
            grads[i] = h.T @ d
            if i:
                d = d @ ws[i].T
                d *= h > 0
            del h
        return grads

    return call


def numpy_update(ws: list[np.ndarray], x: np.ndarray) -> Callable[[], Any]:
    """Hand-written, with the SGD update fused into the backward pass (one gradient alive)."""

    def call() -> float:
        hs = [x]
        for i, w in enumerate(ws):
            h = hs[-1] @ w
            if i < len(ws) - 1:
                np.maximum(h, 0, out=h)
            hs.append(h)
        loss = float(np.mean(np.square(hs[-1])))
        d = hs.pop() * np.float32(2.0 / hs[0].size)
        for i in reversed(range(len(ws))):
            h = hs.pop()
            g = h.T @ d
            if i:
                d = d @ ws[i].T
                d *= h > 0
            g *= np.float32(LR)
            ws[i] -= g
            del h, g
        return loss

    return call


LR = 0.01


def _sg_loss(tf: Any, x: Any, ws: list[Any]) -> Any:
    h = x
    for i, w in enumerate(ws):
        h = tf.matmul(h, w)
        if i < len(ws) - 1:
            h = tf.nn.relu(h)
    return tf.reduce_mean(tf.square(h))


def tf1_fwd_bwd(
    tf: Any, ws: list[np.ndarray], x: np.ndarray, session_kw: dict[str, Any], update: bool = False
) -> tuple[Callable[[], Any], Any]:
    """TF1 style; with ``update``, one run also applies ``w -= lr * dw`` to every weight
    (a grouped ``assign_sub``) and fetches the loss instead of the gradients."""
    v1 = tf.compat.v1 if hasattr(tf, "compat") else tf
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(tf.float32, x.shape)
        vs = [tf.Variable(tf.zeros(w.shape)) for w in ws]
        loss = _sg_loss(tf, xp, vs)
        grads = v1.gradients(loss, vs)
        if update:
            train = tf.group(*[v.assign_sub(LR * g) for v, g in zip(vs, grads)])
            grads = [train, loss]
        sess = v1.Session(graph=graph, **session_kw)
        sess.run(v1.global_variables_initializer())
        # Loaded through a feed, not tf.Variable(array): that would keep a copy in the graph.
        w_in = v1.placeholder(tf.float32, ws[0].shape)
        loads = [v.assign(w_in) for v in vs]
        for load, w in zip(loads, ws):
            sess.run(load, {w_in: w})
    ws.clear()
    return (lambda: sess.run(grads, {xp: x})), (grads, {xp: x})


def tf2_fwd_bwd(tf: Any, ws: list[np.ndarray], x: np.ndarray, compile_fn: bool) -> Any:
    vs = [tf.Variable(w) for w in ws]
    ws.clear()
    xt = tf.constant(x)

    def call() -> Any:
        with tf.GradientTape() as tape:
            loss = _sg_loss(tf, xt, vs)
        return tape.gradient(loss, vs)

    return tf.function(call) if compile_fn else call


def symgrad_session(ws: list[np.ndarray], x: np.ndarray) -> Callable[[], Any]:
    import symgrad

    call, (fetches, feed) = tf1_fwd_bwd(symgrad, ws, x, {})
    harness.emit(**_estimate(symgrad, fetches, feed))
    return call


def _estimate(symgrad: Any, fetches: Any, feed: Any) -> dict[str, Any]:
    """symgrad's own static prediction of the peak, where symgrad.runtime.memory has one."""
    try:
        from symgrad.runtime import memory  # type: ignore[attr-defined]
    except ImportError:
        return {"estimate_note": "symgrad.runtime.memory not available"}
    estimate = getattr(memory, "estimate_peak", None) or getattr(memory, "estimate_memory", None)
    if estimate is None:
        return {"estimate_note": "symgrad.runtime.memory has no estimate_peak/estimate_memory"}
    est = estimate(fetches, feed_dict=feed)
    out = {"estimate_mib": float(getattr(est, "peak_bytes", est)) / MIB}
    if hasattr(est, "held_bytes"):
        out["estimate_held_mib"] = est.held_bytes / MIB
    return out


def symgrad_session_update(ws: list[np.ndarray], x: np.ndarray) -> Callable[[], Any]:
    import symgrad

    call, (fetches, feed) = tf1_fwd_bwd(symgrad, ws, x, {}, update=True)
    harness.emit(**_estimate(symgrad, fetches, feed))
    return call


def symgrad_session_update_nonatomic(ws: list[np.ndarray], x: np.ndarray) -> Callable[[], Any]:
    """The fused update with atomic runs off: no journal holds the replaced weights."""
    import symgrad

    symgrad.api.config.set_atomic_runs(False)
    return symgrad_session_update(ws, x)


def symgrad_function(ws: list[np.ndarray], x: np.ndarray) -> Callable[[], Any]:
    import symgrad

    return tf2_fwd_bwd(symgrad, ws, x, compile_fn=True)


def symgrad_eager(ws: list[np.ndarray], x: np.ndarray) -> Callable[[], Any]:
    import symgrad

    return tf2_fwd_bwd(symgrad, ws, x, compile_fn=False)


BUILDERS: dict[str, Callable[[list[np.ndarray], np.ndarray], Callable[[], Any]]] = {
    "numpy": numpy_fwd_bwd,
    "numpy_update": numpy_update,
    "symgrad_session": symgrad_session,
    "symgrad_session_update": symgrad_session_update,
    "symgrad_session_update_nonatomic": symgrad_session_update_nonatomic,
    "symgrad_function": symgrad_function,
    "symgrad_eager": symgrad_eager,
    **peers.BUILDERS,
}


def tasks(quick: bool) -> list[dict[str, Any]]:
    env = {"MALLOC_MMAP_THRESHOLD_": "65536"}
    return [
        {"workload": NAME, "case": "deep_mlp", "framework": fw, "params": spec(quick), "env": env}
        for fw in BUILDERS
    ]


def run(framework: str, case: str, params: dict[str, Any]) -> None:
    layers, width, batch = params["layers"], params["width"], params["batch"]
    build = BUILDERS[framework]
    x = make_x(width, batch)
    build(make_weights(2, 128), make_x(128, 8))()  # warm-up: kernels, allocators, compilers
    gc.collect()
    base = harness.rss_mib()
    call = build(make_weights(layers, width), x)
    gc.collect()
    after_build = harness.rss_mib()
    out = call()
    del out
    harness.reset_peak_rss()
    out = call()
    step_peak = harness.peak_rss_mib() - after_build
    harness.emit(
        weights_held_mib=after_build - base,
        step_peak_mib=step_peak,
        peak_mib=step_peak + layers * width * width * 4 / MIB,
        total_peak_mib=harness.peak_rss_mib() - base,
    )
    del out


def tables(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    if not rows:
        return "", []
    p = rows[0]["params"]
    minimum = minimum_mib(p["layers"], p["width"], p["batch"])
    fused = minimum_mib(p["layers"], p["width"], p["batch"], fused=True)
    weights = p["layers"] * p["width"] ** 2 * 4 / MIB
    body = [_row(r, minimum) for r in rows]
    header = [
        "framework",
        "peak MiB (weights + step)",
        "× minimum",
        "step's own peak MiB",
        "weights held MiB",
        "symgrad's estimate MiB (held for backward)",
        "note",
    ]
    title = (
        f"### memory: fwd+bwd of {p['layers']} layers {p['width']}×{p['width']}, batch "
        f"{p['batch']}; minimum {minimum:.0f} MiB = weights {weights:.0f} + gradients and "
        f"live activations ({fused:.0f} MiB with the update fused into the backward pass)"
    )
    return title + "\n\n" + report.table(header, body), _goals(rows, minimum)


def _row(r: dict[str, Any], minimum: float) -> list[Any]:
    est = r.get("estimate_mib")
    est_cell = "—" if est is None else f"{est:.0f} ({r.get('estimate_held_mib', 0):.0f})"
    return [
        r["framework"],
        report.num(r.get("peak_mib"), 0),
        report.num(report.ratio(r.get("peak_mib"), minimum)),
        report.num(r.get("step_peak_mib"), 0),
        report.num(r.get("weights_held_mib"), 0),
        est_cell,
        report.status(r) or r.get("estimate_note", ""),
    ]


def _goals(rows: list[dict[str, Any]], minimum: float) -> list[dict[str, Any]]:
    peak = {r["framework"]: r.get("peak_mib") for r in rows if not report.status(r)}
    sg, fused = peak.get("symgrad_session"), peak.get("symgrad_session_update")
    return [
        report.goal("memory: symgrad_session peak/minimum", report.ratio(sg, minimum), 1.2),
        report.goal(
            "memory: symgrad_session peak/tf_session", report.ratio(sg, peak.get("tf_session")), 1.0
        ),
        report.goal(
            "memory: symgrad_session_update (update fused) peak/minimum",
            report.ratio(fused, minimum),
            0.9,
        ),
        report.goal(
            "memory: symgrad_session_update_nonatomic (atomic runs off) peak/minimum",
            report.ratio(peak.get("symgrad_session_update_nonatomic"), minimum),
            0.9,
        ),
        report.goal(
            "memory: symgrad_session_update peak/tf_session_update",
            report.ratio(fused, peak.get("tf_session_update")),
            1.0,
        ),
    ]
