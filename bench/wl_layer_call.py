"""Workload 'layer_call' (issue 29): a Keras-style layer called eagerly, one call at a time.

``Dense(64, activation="relu")`` on a [32, 64] float32 batch, the layer built before
timing: what a user pays per call when debugging or writing a custom loop eagerly.  The
arithmetic is small (a 32x64 by 64x64 matmul), so the time is the per-call machinery:
symgrad's Keras layer, Keras 3 on TensorFlow eager, and ``torch.nn.Linear`` + ReLU.
The goal (issue 29): symgrad's call costs at most a fifth of TF eager's, timed paired.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import harness
import numpy as np
import report

NAME = "layer_call"
FRAMEWORKS = ("symgrad_eager", "tf_eager", "torch")
PARTNERS = ("tf_eager", "torch")


def _x() -> np.ndarray:
    return np.random.default_rng(0).standard_normal((32, 64)).astype(np.float32)


def _keras(tf: Any) -> Callable[[], Any]:
    layer = tf.keras.layers.Dense(64, activation="relu")
    x = tf.constant(_x())
    layer(x)  # build
    return lambda: layer(x)


def symgrad_eager() -> Callable[[], Any]:
    import symgrad

    return _keras(symgrad)


def tf_eager() -> Callable[[], Any]:
    import tensorflow as tf

    return _keras(tf)


def torch() -> Callable[[], Any]:
    import torch as th

    th.manual_seed(0)
    layer = th.nn.Linear(64, 64)
    x = th.from_numpy(_x())
    return lambda: th.relu(layer(x))


BUILDERS = {"symgrad_eager": symgrad_eager, "tf_eager": tf_eager, "torch": torch}


def tasks(quick: bool) -> list[dict[str, Any]]:
    params = {"repeat": 5 if quick else 15}
    return [
        {"workload": NAME, "case": "dense", "framework": f, "params": params} for f in FRAMEWORKS
    ]


def run(framework: str, case: str, params: dict[str, Any]) -> None:
    fn = BUILDERS[framework]()
    timing = harness.time_call(fn, repeat=params["repeat"], warmup=3, min_sample_s=0.02)
    harness.emit(us_per_call=1e6 * timing["median_s"])
    if not framework.startswith("symgrad"):
        return
    for partner in PARTNERS:
        try:
            other = BUILDERS[partner]()
        except ImportError:  # a peer that is not installed: no paired ratio with it
            continue
        ratios = harness.time_paired(
            {partner: other, framework: fn}, rounds=params["repeat"], min_sample_s=0.02
        )
        harness.emit(**{f"paired_{partner}": ratios[framework]})


def tables(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    body, goals = [], []
    for r in rows:
        why = report.status(r)
        paired = [report.num(r.get(f"paired_{p}")) for p in PARTNERS]
        body.append([r["framework"], why or f"{r['us_per_call']:.1f}", *paired])
        if r["framework"] == "symgrad_eager" and not why:
            goals.append(
                report.goal("layer call eagerly: symgrad / tf_eager", r.get("paired_tf_eager"), 0.2)
            )
    head = ["framework", "µs per call", "paired × tf_eager", "paired × torch"]
    text = "### Keras-style layer call, eager: Dense(64, relu) on [32, 64]\n\n" + report.table(
        head, body
    )
    return text + "\n", goals
