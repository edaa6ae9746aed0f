"""Workload 'keras' (issue 25): a Keras training step, symgrad beside Keras on TF and PyTorch.

Two models, each trained with Adam(1e-3) in the tape loop of the TF tutorials, the step
inside ``function`` (symgrad) / ``tf.function`` (TF):

- ``cnn``: Conv2D(32, 3, relu) → MaxPooling2D → Flatten → Dense(10),
  SparseCategoricalCrossentropy(from_logits=True), batch 32 of 28×28×1 (the issue's
  headline program);
- ``lstm``: Embedding(1000, 32) → LSTM(32) → Dense(1), BinaryCrossentropy(from_logits=True),
  batch 32 of sequences of 20 token ids.

PyTorch runs the equivalent ``nn.Module`` with ``torch.optim.Adam(lr=1e-3, eps=1e-7)``
(Keras's epsilon; Keras adds it to √v before the bias correction, PyTorch after, so
PyTorch's losses may differ from step 2 on in the 5th digit).  Every framework starts from
the same NumPy weights (``set_weights``; PyTorch's copies transposed to its layouts) and
data, and reports its loss after steps 1 and 3, so the table shows they computed the same
thing.  Every framework gets one thread (``BENCH_THREADS=1`` for these tasks): the
machine's two cores are shared.  Goal: symgrad ≤ 1.5 × TF, paired.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import harness
import numpy as np
import report

NAME = "keras"
CASES: dict[str, dict[str, Any]] = {
    "cnn": {"batch": 32, "size": 28},
    "lstm": {"batch": 32, "steps": 20, "vocab": 1000, "units": 32},
}
THREADS = 1
GOAL = 1.5


@dataclass
class Data:
    weights: list[np.ndarray]  # in Keras's order and layout
    x: np.ndarray
    y: np.ndarray


def _glorot(rng: np.random.Generator, shape: tuple[int, ...], fan: int) -> np.ndarray:
    return (rng.standard_normal(shape) / np.sqrt(fan)).astype(np.float32)


def make_data(case: str, seed: int = 0) -> Data:
    rng = np.random.default_rng(seed)
    spec = CASES[case]
    if case == "cnn":
        flat = 32 * ((spec["size"] - 2) // 2) ** 2
        weights = [
            _glorot(rng, (3, 3, 1, 32), 9),
            np.zeros(32, np.float32),
            _glorot(rng, (flat, 10), flat),
            np.zeros(10, np.float32),
        ]
        x = rng.uniform(0, 1, (spec["batch"], spec["size"], spec["size"], 1)).astype(np.float32)
        return Data(weights, x, rng.integers(0, 10, spec["batch"]).astype(np.int32))
    u, v = spec["units"], spec["vocab"]
    weights = [
        rng.uniform(-0.05, 0.05, (v, u)).astype(np.float32),
        _glorot(rng, (u, 4 * u), u),
        _glorot(rng, (u, 4 * u), u),
        np.zeros(4 * u, np.float32),
        _glorot(rng, (u, 1), u),
        np.zeros(1, np.float32),
    ]
    x = rng.integers(0, v, (spec["batch"], spec["steps"])).astype(np.int32)
    y = rng.integers(0, 2, (spec["batch"], 1)).astype(np.float32)
    return Data(weights, x, y)


def keras_model(tf: Any, case: str) -> tuple[Any, Any]:
    """The same Keras program for symgrad and TensorFlow: (model, loss function)."""
    layers = tf.keras.layers
    if case == "cnn":
        size = CASES[case]["size"]
        model = tf.keras.Sequential(
            [
                tf.keras.Input((size, size, 1)),
                layers.Conv2D(32, 3, activation="relu"),
                layers.MaxPooling2D(),
                layers.Flatten(),
                layers.Dense(10),
            ]
        )
        return model, tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    spec = CASES[case]
    model = tf.keras.Sequential(
        [
            tf.keras.Input((spec["steps"],), dtype="int32"),
            layers.Embedding(spec["vocab"], spec["units"]),
            layers.LSTM(spec["units"]),
            layers.Dense(1),
        ]
    )
    return model, tf.keras.losses.BinaryCrossentropy(from_logits=True)


def keras_step(tf: Any, case: str, d: Data) -> Callable[[], Any]:
    model, loss_fn = keras_model(tf, case)
    model.set_weights(d.weights)
    optimizer = tf.keras.optimizers.Adam(1e-3)

    @tf.function
    def train_step(x: Any, y: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    x, y = tf.constant(d.x), tf.constant(d.y)
    return lambda: train_step(x, y)


def _symgrad() -> Any:
    import symgrad

    return symgrad


def torch_step(case: str, d: Data) -> Callable[[], float]:
    torch = harness.import_torch()
    model, loss_fn, x, y = (_torch_cnn if case == "cnn" else _torch_lstm)(torch, d)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)

    def step() -> float:
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    return step


def _torch_cnn(torch: Any, d: Data) -> tuple[Any, Any, Any, Any]:
    nn = torch.nn
    w1, b1, w2, b2 = (torch.from_numpy(w.copy()) for w in d.weights)

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(1, 32, 3)
            self.dense = nn.Linear(w2.shape[0], 10)

        def forward(self, x: Any) -> Any:
            h = torch.max_pool2d(torch.relu(self.conv(x)), 2)
            # Keras flattens NHWC: channels last before the dense layer
            return self.dense(h.permute(0, 2, 3, 1).flatten(1))

    net = Net()
    with torch.no_grad():
        net.conv.weight.copy_(w1.permute(3, 2, 0, 1))
        net.conv.bias.copy_(b1)
        net.dense.weight.copy_(w2.T)
        net.dense.bias.copy_(b2)
    x = torch.from_numpy(d.x).permute(0, 3, 1, 2).contiguous()
    return net, nn.CrossEntropyLoss(), x, torch.from_numpy(d.y).long()


def _torch_lstm(torch: Any, d: Data) -> tuple[Any, Any, Any, Any]:
    nn = torch.nn
    emb, kernel, recurrent, bias, w, b = (torch.from_numpy(a.copy()) for a in d.weights)

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(*emb.shape)
            self.lstm = nn.LSTM(emb.shape[1], recurrent.shape[0], batch_first=True)
            self.dense = nn.Linear(recurrent.shape[0], 1)

        def forward(self, x: Any) -> Any:
            _, (h, _) = self.lstm(self.embedding(x))
            return self.dense(h[0])

    net = Net()
    with torch.no_grad():  # Keras's gate order i, f, c, o is PyTorch's i, f, g, o
        net.embedding.weight.copy_(emb)
        net.lstm.weight_ih_l0.copy_(kernel.T)
        net.lstm.weight_hh_l0.copy_(recurrent.T)
        net.lstm.bias_ih_l0.copy_(bias)
        net.lstm.bias_hh_l0.zero_()  # Keras has one bias: PyTorch's second stays 0
        net.dense.weight.copy_(w.T)
        net.dense.bias.copy_(b)
    net.lstm.bias_hh_l0.requires_grad_(False)
    x = torch.from_numpy(d.x).long()
    return net, nn.BCEWithLogitsLoss(), x, torch.from_numpy(d.y)


BUILDERS: dict[str, Callable[[str, Data], Callable[[], Any]]] = {
    "symgrad_function": lambda c, d: keras_step(_symgrad(), c, d),
    "tf_function": lambda c, d: keras_step(harness.import_tf(), c, d),
    "torch": torch_step,
}
PEERS = {"symgrad_function": ("tf_function", "torch")}
PEER_GAP_S = 0.25  # lets a peer's spinning thread pool park (see harness.time_paired)


def tasks(quick: bool) -> list[dict[str, Any]]:
    env = {**harness.thread_env(THREADS), "BENCH_THREADS": str(THREADS)}
    return [
        {
            "workload": NAME,
            "case": c,
            "framework": f,
            "params": {"repeat": 5 if quick else 15},
            "env": env,
            "timeout_s": 120,
        }
        for c in CASES
        for f in BUILDERS
    ]


def to_float(value: Any) -> float:
    return float(value.numpy() if hasattr(value, "numpy") else value)


def run(framework: str, case: str, params: dict[str, Any]) -> None:
    step = BUILDERS[framework](case, make_data(case))
    losses = [to_float(step()) for _ in range(3)]
    harness.emit(loss_step1=losses[0], loss_step3=losses[2])
    harness.emit(**harness.time_call(step, repeat=params["repeat"], warmup=1))
    for peer in PEERS.get(framework, ()):
        try:
            other = BUILDERS[peer](case, make_data(case))
        except ImportError:  # a peer that is not installed: no paired ratio with it
            continue
        ratios = harness.time_paired(
            {peer: other, framework: step},
            rounds=params["repeat"],
            min_sample_s=0.05,
            gap_s=PEER_GAP_S,
        )
        harness.emit(**{f"paired_{peer}": ratios[framework]})


# --- report --------------------------------------------------------------------------------

TITLES = {
    "cnn": "Conv2D(32, 3, relu) → MaxPooling2D → Flatten → Dense(10), batch 32 of 28×28×1",
    "lstm": "Embedding(1000, 32) → LSTM(32) → Dense(1), batch 32 of 20 tokens",
}


def _get(row: dict[str, Any] | None, key: str) -> float | None:
    return None if report.status(row) else row.get(key)  # type: ignore[union-attr]


def _case_table(case: str, by_fw: dict[str, dict[str, Any]]) -> str:
    tf_t = _get(by_fw.get("tf_function"), "median_s")
    body = []
    for fw, row in by_fw.items():
        t, t_min = _get(row, "median_s"), _get(row, "min_s")
        note = report.status(row) or f"loss {row['loss_step1']:.5f} → {row['loss_step3']:.5f}"
        ratio = report.num(report.ratio(t, tf_t))
        body.append([fw, report.ms(t_min), report.ms(t), ratio, note])
    header = ["framework", "min", "median", "× tf_function", "check (steps 1 → 3)"]
    text = f"### Keras training step (Adam), {case}: {TITLES[case]}\n\n"
    text += report.table(header, body)
    lines = [
        f"- {sg} / {peer}: {report.num(_get(by_fw.get(sg), f'paired_{peer}'))}"
        for sg, peers in PEERS.items()
        for peer in peers
        if _get(by_fw.get(sg), f"paired_{peer}") is not None
    ]
    if lines:
        text += (
            "\n\nPaired (timed interleaved in one process, "
            f"{PEER_GAP_S} s pause after each block):\n\n" + "\n".join(lines)
        )
    return text


def tables(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    out, goals = [], []
    for case in CASES:
        by_fw = {r["framework"]: r for r in rows if r["case"] == case}
        if not by_fw:
            continue
        out.append(_case_table(case, by_fw))
        value = _get(by_fw.get("symgrad_function"), "paired_tf_function") or report.ratio(
            _get(by_fw.get("symgrad_function"), "median_s"),
            _get(by_fw.get("tf_function"), "median_s"),
        )
        goals.append(report.goal(f"keras {case} step: symgrad_function/tf_function", value, GOAL))
    return "\n\n".join(out), goals
