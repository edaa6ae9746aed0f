"""Workload 'keras_fit' (issue 26, point 7): ``fit`` and a ``tf.data`` pipeline, symgrad
beside Keras on TF.

- ``fit``: the digits CNN (as ``wl_cnn``: Conv2D(32, 3, same, relu) → MaxPooling2D →
  Flatten → Dense(10)) compiled with Adam(1e-3) and
  SparseCategoricalCrossentropy(from_logits=True), ``fit(x, y, batch_size=64, epochs=2,
  shuffle=False, verbose=0)`` on 1,797 images of 8×8×1 (scikit-learn's digits' count
  and size; generated, so the bench needs no scikit-learn).  One timed call is one
  ``fit``; the first, untimed, traces the step.  Checked by the loss after the first
  ``fit``.
- ``data``: ``Dataset.from_tensor_slices((x, y)).shuffle(1024, seed=0).batch(64)
  .prefetch(AUTOTUNE)`` over the same arrays, one full pass per call (29 batches),
  reported per batch: the pipeline's own cost, which ``fit`` on a dataset pays on top of
  the step.  Checked by the sum of the labels of the first batch (the seeded order).

Both frameworks start from the same weights (``set_weights``) and data, one thread
each.  Goals: symgrad ``fit`` ≤ 1.5 × TF's, and symgrad's pipeline ≤ TF's per batch, paired.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import harness
import numpy as np
import report

NAME = "keras_fit"
CASES = {"fit": {"n": 1797, "batch": 64, "epochs": 2}, "data": {"n": 1797, "batch": 64}}
THREADS = 1
GOALS = {"fit": 1.5, "data": 1.0}


def make_data(seed: int = 0) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n, flat = CASES["fit"]["n"], 32 * 4 * 4
    weights = [
        (rng.standard_normal((3, 3, 1, 32)) / 3).astype(np.float32),
        np.zeros(32, np.float32),
        (rng.standard_normal((flat, 10)) / np.sqrt(flat)).astype(np.float32),
        np.zeros(10, np.float32),
    ]
    x = rng.uniform(0, 1, (n, 8, 8, 1)).astype(np.float32)
    return weights, x, rng.integers(0, 10, n).astype(np.int32)


def fit_call(tf: Any) -> tuple[Callable[[], Any], float]:
    """The timed ``fit`` call, and the loss of a first (tracing) one."""
    layers, spec = tf.keras.layers, CASES["fit"]
    model = tf.keras.Sequential(
        [
            tf.keras.Input((8, 8, 1)),
            layers.Conv2D(32, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(),
            layers.Flatten(),
            layers.Dense(10),
        ]
    )
    weights, x, y = make_data()
    model.set_weights(weights)
    model.compile(
        optimizer=tf.keras.optimizers.Adam(1e-3),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    kw = {"batch_size": spec["batch"], "epochs": spec["epochs"], "shuffle": False, "verbose": 0}
    loss = float(model.fit(x, y, **kw).history["loss"][-1])
    return lambda: model.fit(x, y, **kw), loss


def data_pass(tf: Any) -> tuple[Callable[[], Any], float]:
    """One pass over the pipeline, and the label sum of its first batch."""
    _, x, y = make_data()
    ds = (
        tf.data.Dataset.from_tensor_slices((x, y))
        .shuffle(1024, seed=0)
        .batch(CASES["data"]["batch"])
        .prefetch(tf.data.AUTOTUNE)
    )

    def run() -> int:
        n = 0
        for _ in ds:
            n += 1
        return n

    first = next(iter(ds))[1]
    return run, float(np.asarray(first).sum())


def _symgrad() -> Any:
    import symgrad

    return symgrad


BUILDERS: dict[str, dict[str, Callable[[], tuple[Callable[[], Any], float]]]] = {
    "fit": {"symgrad": lambda: fit_call(_symgrad()), "tf": lambda: fit_call(harness.import_tf())},
    "data": {
        "symgrad": lambda: data_pass(_symgrad()),
        "tf": lambda: data_pass(harness.import_tf()),
    },
}
PEER_GAP_S = 0.25


def tasks(quick: bool) -> list[dict[str, Any]]:
    env = {**harness.thread_env(THREADS), "BENCH_THREADS": str(THREADS)}
    return [
        {
            "workload": NAME,
            "case": c,
            "framework": f,
            "params": {"repeat": 5 if quick else 11},
            "env": env,
            "timeout_s": 300,
        }
        for c in CASES
        for f in ("symgrad", "tf")
    ]


def run(framework: str, case: str, params: dict[str, Any]) -> None:
    call, check = BUILDERS[case][framework]()
    harness.emit(check=check)
    harness.emit(**harness.time_call(call, repeat=params["repeat"], warmup=1))
    if framework == "symgrad":
        try:
            other, _ = BUILDERS[case]["tf"]()
        except ImportError:
            return
        ratios = harness.time_paired(
            {"tf": other, "symgrad": call}, rounds=params["repeat"], gap_s=PEER_GAP_S
        )
        harness.emit(paired_tf=ratios["symgrad"])


# --- report --------------------------------------------------------------------------------


def _get(row: dict[str, Any] | None, key: str) -> Any:
    return None if row is None or report.status(row) else row.get(key)


def tables(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    body, goals = [], []
    for case in CASES:
        by_fw = {r["framework"]: r for r in rows if r["case"] == case}
        per = CASES[case]["n"] // CASES[case]["batch"] + 1 if case == "data" else 1
        for fw, row in by_fw.items():
            t = _get(row, "median_s")
            shown = report.ms(t) if per == 1 else f"{report.num(t and t / per * 1e6)} µs/batch"
            note = report.status(row) or f"check {row['check']:.5f}"
            body.append([case, fw, shown, report.num(_get(row, "paired_tf")), note])
        value = _get(by_fw.get("symgrad"), "paired_tf") or report.ratio(
            _get(by_fw.get("symgrad"), "median_s"), _get(by_fw.get("tf"), "median_s")
        )
        goals.append(report.goal(f"keras {case}: symgrad/tf", value, GOALS[case]))
    header = ["case", "framework", "median", "× tf, paired", "check"]
    text = "### Keras fit and tf.data (issue 26), digits CNN, batch 64 of 8×8×1\n\n"
    return text + report.table(header, body), goals
