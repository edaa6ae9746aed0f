"""Workload 'per_op': dispatch cost of a 1,000-op elementwise chain on a [4] float32 tensor.

The chain repeats ``y*1.0001, y+0.001, sin(y), tanh(y)``; the arithmetic is negligible, so
time per op is the framework's per-op overhead.  'fwd' runs the chain; 'fwd+bwd' also
computes d sum(y) / dx (with a tape in eager mode, in the same compiled call otherwise).
Reported in µs per forward op.  Bare NumPy calls (and a hand-written backward) are the
floor for both the eager and the compiled case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import harness
import numpy as np
import report
import wl_per_op_peers as peers

NAME = "per_op"
OPS = 1000
EAGER = ("symgrad_eager", "tf_eager", "torch", "autograd", "jax_eager", "numpy")
COMPILED = (
    "symgrad_session",
    "symgrad_function",
    "tf_session",
    "tf_function",
    "jax_jit",
    "pytensor",
    "numpy",
)


def x_value() -> np.ndarray:
    return np.array([0.1, 0.2, 0.3, 0.4], np.float32)


def chain(x: Any, sin: Callable[[Any], Any], tanh: Callable[[Any], Any], n: int = OPS) -> Any:
    y = x
    for i in range(n):
        k = i % 4
        y = y * 1.0001 if k == 0 else y + 0.001 if k == 1 else sin(y) if k == 2 else tanh(y)
    return y


Pair = tuple[Callable[[], Any], Callable[[], Any]]  # (forward, forward+backward)


def numpy_pair() -> Pair:
    x = x_value()

    def backward() -> np.ndarray:
        ys = [x]
        for i in range(OPS):
            k, y = i % 4, ys[-1]
            ys.append(
                y * 1.0001
                if k == 0
                else y + 0.001
                if k == 1
                else np.sin(y)
                if k == 2
                else np.tanh(y)
            )
        g = np.ones_like(x)
        for i in reversed(range(OPS)):
            k = i % 4
            if k == 0:
                g = g * 1.0001
            elif k == 2:
                g = g * np.cos(ys[i])
            elif k == 3:
                g = g * (1 - ys[i + 1] * ys[i + 1])
        return g

    return (lambda: chain(x, np.sin, np.tanh)), backward


def _tape_fns(tf: Any) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    def fwd(v: Any) -> Any:
        return chain(v, tf.sin, tf.tanh)

    def fwd_bwd(v: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = fwd(v)
        return y, tape.gradient(y, v)

    return fwd, fwd_bwd


def tape_pair(tf: Any) -> Pair:
    """Eager chain and eager chain under a GradientTape (symgrad or TensorFlow)."""
    x = tf.constant(x_value())
    fwd, fwd_bwd = _tape_fns(tf)
    return (lambda: fwd(x)), (lambda: fwd_bwd(x))


def function_pair(tf: Any) -> Pair:
    """The same two, each traced once by ``tf.function`` and called with x as argument."""
    x = tf.constant(x_value())
    fwd, fwd_bwd = (tf.function(f) for f in _tape_fns(tf))
    return (lambda: fwd(x)), (lambda: fwd_bwd(x))


def session_pair(tf: Any, session_kw: dict[str, Any]) -> Pair:
    v1 = tf.compat.v1 if hasattr(tf, "compat") else tf
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [4])
        y = chain(x, tf.sin, tf.tanh)
        (g,) = v1.gradients(y, [x])
        sess = v1.Session(graph=graph, **session_kw)
    feed = {x: x_value()}
    return (lambda: sess.run(y, feed)), (lambda: sess.run([y, g], feed))


def symgrad_eager() -> Pair:
    import symgrad

    return tape_pair(symgrad)


def symgrad_function() -> Pair:
    import symgrad

    return function_pair(symgrad)


def symgrad_session() -> Pair:
    import symgrad

    return session_pair(symgrad, {})


BUILDERS: dict[str, Callable[[], Pair]] = {
    "numpy": numpy_pair,
    "symgrad_eager": symgrad_eager,
    "symgrad_function": symgrad_function,
    "symgrad_session": symgrad_session,
    **peers.BUILDERS,
}


def tasks(quick: bool) -> list[dict[str, Any]]:
    params = {"repeat": 5 if quick else 15}
    return [
        {"workload": NAME, "case": case, "framework": fw, "params": params}
        for case, fws in (("eager", EAGER), ("compiled", COMPILED))
        for fw in fws
    ]


# Whom each symgrad row is also timed against, interleaved in its own process: those its
# goals compare it with (see harness.time_paired).
PARTNERS = {"eager": ("tf_eager", "torch"), "compiled": ("numpy",)}


def run(framework: str, case: str, params: dict[str, Any]) -> None:
    fwd, fwd_bwd = BUILDERS[framework]()
    for label, fn in (("fwd", fwd), ("fwd_bwd", fwd_bwd)):
        value, _, first = harness.cpu_and_wall(fn)
        check = _checksum(value)
        del value  # (a taped chain: kept, it would be eager history alive in what follows)
        timing = harness.time_call(fn, repeat=params["repeat"], warmup=1, min_sample_s=0.02)
        harness.emit(
            **{
                f"{label}_first_call_s": first,
                f"{label}_check": check,
                f"{label}_us_per_op": 1e6 * timing["median_s"] / OPS,
            }
        )
    if framework.startswith("symgrad"):
        _pair(framework, case, (fwd, fwd_bwd), params["repeat"])


# The eager case is timed in two states of eager history (the memory sweep's work and
# the collector's passes grow with what is alive): none alive, and one taped 1,000-op
# chain (a fwd+bwd call's result) kept alive in each framework, as a program that holds a
# result does.  Suffix of the emitted keys, and the name the report gives the state.
STATES = {"": "no history alive", "_held": "a 1,000-op chain alive"}


def _pair(framework: str, case: str, mine: Pair, repeat: int) -> None:
    """The symgrad row / each partner, timed interleaved: ``<label>_paired_<partner>`` with
    the partner's block first; for the eager case also ``<label>_paired_<partner>_rev``,
    symgrad's block first, and both again with a chain alive (``..._held``, ``STATES``)."""
    for partner in PARTNERS[case]:
        try:
            other = BUILDERS[partner]()
        except ImportError:  # a peer that is not installed: no paired ratio with it
            continue
        for state in STATES if case == "eager" else ("",):
            kept = (mine[1](), other[1]()) if state else None  # (held: alive)
            for i, label in enumerate(("fwd", "fwd_bwd")):
                kw = {"rounds": repeat, "min_sample_s": 0.02}
                ratios = harness.time_paired({partner: other[i], framework: mine[i]}, **kw)
                key = f"{label}_paired_{partner}"
                harness.emit(**{key + state: ratios[framework]})
                if case == "eager":
                    rev = harness.time_paired({framework: mine[i], partner: other[i]}, **kw)
                    harness.emit(**{f"{key}_rev{state}": 1.0 / rev[partner]})
            del kept


def _checksum(value: Any) -> float:
    """Sum of the result (of the gradient, when a call returns (y, dy/dx))."""
    if isinstance(value, (tuple, list)):
        value = value[-1]
    return float(np.sum(value.numpy() if hasattr(value, "numpy") else np.asarray(value)))


# --- report --------------------------------------------------------------------------------


def tables(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    out, goals = [], []
    for case, ref in (("eager", "symgrad_eager"), ("compiled", "symgrad_session")):
        by_fw = {r["framework"]: r for r in rows if r["case"] == case}
        if by_fw:
            out.append(_table(case, ref, by_fw) + _paired_lines(case, by_fw))
            goals += _goals(case, by_fw)
    return "\n\n".join(out), goals


def _us(row: dict[str, Any] | None, key: str) -> float | None:
    return None if report.status(row) else row.get(key)  # type: ignore[union-attr]


def _table(case: str, ref: str, by_fw: dict[str, dict[str, Any]]) -> str:
    body = []
    for fw, row in by_fw.items():
        cells = [fw]
        for key in ("fwd_us_per_op", "fwd_bwd_us_per_op"):
            t = _us(row, key)
            cells += [
                report.num(t, 2),
                report.num(report.ratio(t, _us(by_fw.get(ref), key))),
                report.num(report.ratio(t, _us(by_fw.get("numpy"), key))),
            ]
        cells.append(report.status(row) or f"{row.get('fwd_bwd_first_call_s', 0):.2f}")
        cells.append(
            f"{report.num(row.get('fwd_check'), 5)} / {report.num(row.get('fwd_bwd_check'), 5)}"
        )
        body.append(cells)
    header = [
        "framework",
        "fwd µs/op",
        f"× {ref}",
        "× numpy",
        "fwd+bwd µs/op",
        f"× {ref}",
        "× numpy",
        "first fwd+bwd call s",
        "check: Σy / Σdx",
    ]
    return (
        f"### per-op overhead, {case}: {OPS}-op chain on a [4] float32 tensor\n\n"
        + report.table(header, body)
    )


def _paired_lines(case: str, by_fw: dict[str, dict[str, Any]]) -> str:
    """The symgrad rows' ratios to their partners, timed interleaved in one process."""
    lines = []
    for fw, row in by_fw.items():
        for partner in PARTNERS[case] if fw.startswith("symgrad") else ():
            for state, name in STATES.items():
                cells = []
                for k, label in (("fwd", "fwd"), ("fwd_bwd", "fwd+bwd")):
                    key = f"{k}_paired_{partner}"
                    first, rev = _us(row, key + state), _us(row, f"{key}_rev{state}")
                    if rev is not None:
                        cells.append(f"{label} {report.num(first)} / {report.num(rev)}")
                    elif first is not None:
                        cells.append(f"{label} {report.num(first)}")
                if cells:
                    where = f" ({name})" if case == "eager" else ""
                    lines.append(f"- {fw} / {partner}{where}: " + ", ".join(cells))
    if not lines:
        return ""
    return (
        "\n\nPaired ratios (timed interleaved in one process; where two are given, the "
        "partner's block first / symgrad's first):\n\n" + "\n".join(lines)
    )


def _goals(case: str, by_fw: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    def ratio(prefix: str, sg: str, peer: str, state: str = "") -> float | None:
        row = by_fw.get(sg)  # paired where measured, the worse of the two orders
        paired = [_us(row, f"{prefix}_paired_{peer}{s}{state}") for s in ("", "_rev")]
        if any(p is not None for p in paired):
            return max(p for p in paired if p is not None)
        key = f"{prefix}_us_per_op"
        return report.ratio(_us(row, key), _us(by_fw.get(peer), key))

    goals = []
    for prefix, label in (("fwd", "fwd"), ("fwd_bwd", "fwd+bwd")):
        if case == "compiled":
            for sg in ("symgrad_session", "symgrad_function"):
                goals.append(
                    report.goal(
                        f"compiled per-op {label}: {sg}/numpy", ratio(prefix, sg, "numpy"), 1.3
                    )
                )
        else:
            for state, name in STATES.items():
                to_torch = ratio(prefix, "symgrad_eager", "torch", state)
                to_tf = ratio(prefix, "symgrad_eager", "tf_eager", state)
                title = f"eager per-op {label}, {name}"
                goals += [
                    report.goal(f"{title}: symgrad/torch (issue 29)", to_torch, 2.0),
                    report.goal(f"{title}: symgrad/torch", to_torch, 1.0),
                    report.goal(f"{title}: symgrad/tf_eager", to_tf, 0.5),
                ]
    return goals
