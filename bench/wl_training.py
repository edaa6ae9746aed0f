"""Workload 'training': one SGD step (forward, backward, update) of a ReLU MLP.

Softmax cross-entropy against one-hot labels, mean over the batch, float32, plain SGD
(``w -= lr * dw``).  Every framework starts from the same weights and data, and reports
the loss of its 1st and 3rd step, so the table shows they computed the same thing.
The NumPy builders here are the floor for a NumPy engine; the peers are in
``wl_training_peers.py``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import harness
import numpy as np
import report
import wl_training_peers as peers

NAME = "training"
CASES = {
    "big": {"sizes": [784, 1024, 1024, 10], "batch": 256},
    "small": {"sizes": [64, 64, 64, 10], "batch": 32},
}
LR = 0.01


@dataclass
class Data:
    ws: list[np.ndarray]
    bs: list[np.ndarray]
    x: np.ndarray
    y: np.ndarray
    lr: float = LR


def make_data(sizes: list[int], batch: int, seed: int = 0) -> Data:
    rng = np.random.default_rng(seed)
    ws = [
        (rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32)
        for a, b in itertools.pairwise(sizes)
    ]
    bs = [np.zeros(b, np.float32) for b in sizes[1:]]
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]
    return Data(ws, bs, x, y)


# --- the NumPy floor -----------------------------------------------------------------------


def numpy_step(d: Data) -> Callable[[], float]:
    """Hand-written forward/backward with preallocated buffers and in-place updates."""
    ws, bs, x, y, lr = [w.copy() for w in d.ws], [b.copy() for b in d.bs], d.x, d.y, d.lr
    batch = x.shape[0]
    hs = [np.empty((batch, w.shape[1]), np.float32) for w in ws]
    ds = [np.empty_like(h) for h in hs]
    gws = [np.empty_like(w) for w in ws]

    def step() -> float:
        inp = x
        for i, (w, b, h) in enumerate(zip(ws, bs, hs)):
            np.matmul(inp, w, out=h)
            h += b
            if i < len(ws) - 1:
                np.maximum(h, 0, out=h)
            inp = h
        loss = _softmax_xent_grad(hs[-1], y, ds[-1])
        for i in reversed(range(len(ws))):
            np.matmul(hs[i - 1].T if i else x.T, ds[i], out=gws[i])
            gb = ds[i].sum(axis=0)
            if i:
                np.matmul(ds[i], ws[i].T, out=ds[i - 1])
                ds[i - 1] *= hs[i - 1] > 0
            gws[i] *= lr
            ws[i] -= gws[i]
            gb *= lr
            bs[i] -= gb
        return loss

    return step


def _softmax_xent_grad(z: np.ndarray, y: np.ndarray, dz: np.ndarray) -> float:
    """Mean softmax cross-entropy of logits ``z``; writes its gradient into ``dz``."""
    m = z.max(axis=1, keepdims=True)
    np.subtract(z, m, out=dz)
    np.exp(dz, out=dz)
    s = dz.sum(axis=1, keepdims=True)
    loss = (np.log(s).sum() + m.sum() - np.vdot(y, z)) / z.shape[0]
    dz /= s
    dz -= y
    dz *= 1.0 / z.shape[0]
    return float(loss)


def numpy_matmuls(d: Data) -> Callable[[], float]:
    """Only the step's matmuls (3 forward, 3 weight grads, 2 input grads): a lower bound."""
    ws, x = d.ws, d.x
    hs = [np.empty((x.shape[0], w.shape[1]), np.float32) for w in ws]
    gws = [np.empty_like(w) for w in ws]

    def step() -> float:
        inp = x
        for w, h in zip(ws, hs):
            np.matmul(inp, w, out=h)
            inp = h
        for i in reversed(range(len(ws))):
            np.matmul(hs[i - 1].T if i else x.T, hs[i], out=gws[i])
            if i:
                np.matmul(hs[i], ws[i].T, out=hs[i - 1])
        return float("nan")

    return step


# --- symgrad -----------------------------------------------------------------------------


def _sg_logits(tf: Any, x: Any, ws: list[Any], bs: list[Any]) -> Any:
    h = x
    for i, (w, b) in enumerate(zip(ws, bs)):
        h = tf.matmul(h, w) + b
        if i < len(ws) - 1:
            h = tf.nn.relu(h)
    return h


def sg_loss(tf: Any, x: Any, y: Any, ws: list[Any], bs: list[Any]) -> Any:
    logits = _sg_logits(tf, x, ws, bs)
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))


def tf1_session_step(tf: Any, d: Data, session_kw: dict[str, Any]) -> Callable[[], float]:
    """TF1 style, for symgrad and for TensorFlow: placeholders, gradients, grouped updates."""
    v1 = getattr(tf, "compat", None)
    v1 = v1.v1 if v1 is not None else tf
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, d.x.shape)
        y = v1.placeholder(tf.float32, d.y.shape)
        ws = [tf.Variable(w) for w in d.ws]
        bs = [tf.Variable(b) for b in d.bs]
        loss = sg_loss(tf, x, y, ws, bs)
        params = ws + bs
        grads = v1.gradients(loss, params)
        train = tf.group(*[p.assign_sub(d.lr * g) for p, g in zip(params, grads)])
        sess = v1.Session(graph=graph, **session_kw)
        sess.run(v1.global_variables_initializer())
    feed = {x: d.x, y: d.y}
    return lambda: sess.run([train, loss], feed)[1]


def tf2_step(tf: Any, d: Data, compile_fn: bool, optimizer: bool = False) -> Callable[[], Any]:
    """TF2 style, for symgrad and for TensorFlow: a tape inside (maybe) a function; the
    update by hand, or (``optimizer``) by ``tf.keras.optimizers.SGD``."""
    ws = [tf.Variable(w) for w in d.ws]
    bs = [tf.Variable(b) for b in d.bs]
    params = ws + bs
    opt = tf.keras.optimizers.SGD(d.lr) if optimizer else None

    def step(x: Any, y: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = sg_loss(tf, x, y, ws, bs)
        grads = tape.gradient(loss, params)
        if opt is not None:
            opt.apply_gradients(zip(grads, params))
            return loss
        for p, g in zip(params, grads):
            p.assign_sub(d.lr * g)
        return loss

    fn = tf.function(step) if compile_fn else step
    x, y = tf.constant(d.x), tf.constant(d.y)
    return lambda: fn(x, y)


def symgrad_session(d: Data) -> Callable[[], Any]:
    import symgrad

    return tf1_session_step(symgrad, d, {})


def symgrad_function(d: Data) -> Callable[[], Any]:
    import symgrad

    return tf2_step(symgrad, d, compile_fn=True)


def symgrad_eager(d: Data) -> Callable[[], Any]:
    import symgrad

    return tf2_step(symgrad, d, compile_fn=False)


def symgrad_eager_sgd(d: Data) -> Callable[[], Any]:
    import symgrad

    return tf2_step(symgrad, d, compile_fn=False, optimizer=True)


BUILDERS: dict[str, Callable[[Data], Callable[[], Any]]] = {
    "numpy": numpy_step,
    "numpy_matmuls": numpy_matmuls,
    "symgrad_session": symgrad_session,
    "symgrad_function": symgrad_function,
    "symgrad_eager": symgrad_eager,
    "symgrad_eager_sgd": symgrad_eager_sgd,
    **peers.BUILDERS,
}
SYMGRAD = ("symgrad_session", "symgrad_function", "symgrad_eager", "symgrad_eager_sgd")


# The peers each goal names, timed interleaved with the symgrad rows in their process.
PEERS = {"big": ("tf_session", "tf_function", "torch"), "small": ("tf_session", "tf_function")}
# The eager steps' peers (issue 29: ≤ 1.5× PyTorch's step), timed in both orders: the
# update by hand, and by an optimizer (Keras SGD beside torch.optim.SGD).
EAGER_PEERS = {"symgrad_eager": ("torch", "tf_eager"), "symgrad_eager_sgd": ("torch_sgd",)}
PEER_GAP_S = 0.25  # lets a peer's spinning thread pool park (see harness.time_paired)


def tasks(quick: bool) -> list[dict[str, Any]]:
    cases = ["small", "big"]
    return [
        {"workload": NAME, "case": c, "framework": f, "params": {"repeat": 5 if quick else 15}}
        for c in cases
        for f in BUILDERS
    ]


def to_float(value: Any) -> float:
    """A scalar loss of any framework as a Python float (symgrad's Tensor has no __float__)."""
    return float(value.numpy() if hasattr(value, "numpy") else value)


def run(framework: str, case: str, params: dict[str, Any]) -> None:
    d = make_data(**CASES[case])
    step = BUILDERS[framework](d)
    losses = [to_float(step()) for _ in range(3)]
    harness.emit(loss_step1=losses[0], loss_step3=losses[2])
    harness.emit(**harness.time_call(step, repeat=params["repeat"], warmup=1))
    if framework in SYMGRAD:  # the floor goals: timed against the NumPy step, interleaved
        ratios = harness.time_paired(
            {"numpy": numpy_step(d), framework: step}, rounds=3 * params["repeat"]
        )
        harness.emit(paired_numpy=ratios[framework])
    for peer in PEERS[case] if framework in ("symgrad_session", "symgrad_function") else ():
        try:
            other = BUILDERS[peer](d)
        except ImportError:  # a peer that is not installed: no paired ratio with it
            continue
        ratios = harness.time_paired(
            {peer: other, framework: step},
            rounds=params["repeat"],
            min_sample_s=0.02,
            gap_s=PEER_GAP_S,
        )
        harness.emit(**{f"paired_{peer}": ratios[framework]})
    if framework in EAGER_PEERS:
        _pair_eager(framework, d, step, params["repeat"])


def _pair_eager(framework: str, d: Data, step: Callable[[], Any], repeat: int) -> None:
    """An eager symgrad step / each of its peers, timed interleaved in both orders (the
    peer's block first: ``paired_<peer>``; symgrad's first: ``paired_<peer>_rev``)."""
    for peer in EAGER_PEERS[framework]:
        try:
            other = BUILDERS[peer](d)
        except ImportError:  # a peer that is not installed: no paired ratio with it
            continue
        kw = {"rounds": repeat, "min_sample_s": 0.02, "gap_s": PEER_GAP_S}
        first = harness.time_paired({peer: other, framework: step}, **kw)
        second = harness.time_paired({framework: step, peer: other}, **kw)
        harness.emit(
            **{
                f"paired_{peer}": first[framework],
                f"paired_{peer}_rev": 1.0 / second[peer],
            }
        )


# --- report --------------------------------------------------------------------------------


def tables(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    out, goals = [], []
    for case in CASES:
        by_fw = {r["framework"]: r for r in rows if r["case"] == case}
        if not by_fw:
            continue
        out.append(_case_table(case, by_fw) + _paired_lines(case, by_fw))
        goals += _case_goals(case, by_fw)
    return "\n\n".join(out), goals


def _median(row: dict[str, Any] | None) -> float | None:
    return None if report.status(row) else row.get("median_s")  # type: ignore[union-attr]


def _case_table(case: str, by_fw: dict[str, dict[str, Any]]) -> str:
    spec = CASES[case]
    sg, floor = _median(by_fw.get("symgrad_session")), _median(by_fw.get("numpy"))
    body = []
    for fw, row in by_fw.items():
        t = _median(row)
        note = report.status(row) or (
            f"loss {row['loss_step1']:.5f} → {row['loss_step3']:.5f}"
            if fw != "numpy_matmuls"
            else "matmuls only"
        )
        body.append(
            [
                fw,
                report.ms(t),
                report.num(report.ratio(t, sg)),
                report.num(report.ratio(t, floor)),
                report.num(_paired(row)),
                note,
            ]
        )
    title = (
        f"### training step, {case}: MLP {'-'.join(map(str, spec['sizes']))}, batch {spec['batch']}"
    )
    header = [
        "framework",
        "median",
        "× symgrad_session",
        "× numpy",
        "× numpy, paired",
        "check (steps 1 → 3)",
    ]
    return title + "\n\n" + report.table(header, body)


def _paired(row: dict[str, Any] | None, peer: str = "numpy") -> float | None:
    """A symgrad row's time / ``peer``'s, timed interleaved (see harness.time_paired)."""
    return None if report.status(row) else row.get(f"paired_{peer}")  # type: ignore[union-attr]


def _paired_lines(case: str, by_fw: dict[str, dict[str, Any]]) -> str:
    lines = [
        f"- {sg} / {peer}: {report.num(_paired(by_fw.get(sg), peer))}"
        for sg in ("symgrad_session", "symgrad_function")
        for peer in PEERS[case]
        if _paired(by_fw.get(sg), peer) is not None
    ]
    lines += [
        f"- {sg} / {peer}: {report.num(_paired(by_fw.get(sg), peer))} "
        f"({peer} first), {report.num(_paired(by_fw.get(sg), peer + '_rev'))} "
        "(symgrad first)"
        for sg, peers_of in EAGER_PEERS.items()
        for peer in peers_of
        if _paired(by_fw.get(sg), peer) is not None
    ]
    if not lines:
        return ""
    return (
        "\n\nPaired with the peers (timed interleaved in one process, "
        f"{PEER_GAP_S} s pause after each block):\n\n" + "\n".join(lines)
    )


def _case_goals(case: str, by_fw: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    t = {fw: _median(row) for fw, row in by_fw.items()}
    goals = []
    for sg, peer in (("symgrad_eager", "torch"), ("symgrad_eager_sgd", "torch_sgd")):
        eager = _paired(by_fw.get(sg), peer)  # issue 29: the eager step ≤ 1.5× PyTorch's,
        if case == "small" and eager is not None:  # in both orders
            for order in (peer, peer + "_rev"):
                ratio = _paired(by_fw.get(sg), order)
                goals.append(report.goal(f"small eager step: {sg}/{order}", ratio, 1.5))
    for sg in ("symgrad_session", "symgrad_function"):

        def ratio(peer: str, sg: str = sg) -> float | None:  # paired where it was measured
            return _paired(by_fw.get(sg), peer) or report.ratio(t.get(sg), t.get(peer))

        g = report.goal
        if case == "big":
            goals += [
                g(f"big step: {sg}/numpy", ratio("numpy"), 1.0),
                g(f"big step: {sg}/tf_session", ratio("tf_session"), 1 / 1.1),
                g(f"big step: {sg}/tf_function", ratio("tf_function"), 1 / 1.1),
                g(f"big step (stretch): {sg}/torch", ratio("torch"), 1.0),
            ]
        else:
            goals += [
                g(f"small step: {sg}/numpy", ratio("numpy"), 1.2),
                g(f"small step: {sg}/tf_session", ratio("tf_session"), 1 / 3),
                g(f"small step: {sg}/tf_function", ratio("tf_function"), 1 / 3),
            ]
    return goals
