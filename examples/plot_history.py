"""Plot a ``History`` from ``model.fit``: one panel per metric, the training curve beside
its ``val_`` twin, as the TensorFlow tutorials draw them (matplotlib is the demo extra).

    history = model.fit(x, y, validation_split=0.2, epochs=10)
    plot_history(history, "history.png")

Run as a script it fits the quickstart model of keras_fit.py's kind on generated data and
saves ``history.png`` (or the path given).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


def plot_history(history: Any, path: str | Path, title: str = "") -> list[str]:
    """Save ``history``'s curves (a ``History`` or its ``.history`` dict) to ``path``;
    returns the panels' metric names in order."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    logs = getattr(history, "history", history)
    names = [k for k in logs if not k.startswith("val_")]
    if not names:
        raise ValueError(f"plot_history: no training metrics in the history; keys {list(logs)}")
    fig, axes = plt.subplots(1, len(names), figsize=(4 * len(names), 3.2), squeeze=False)
    for ax, name in zip(axes[0], names):
        epochs = range(1, len(logs[name]) + 1)
        ax.plot(epochs, logs[name], marker="o", label=name)
        if f"val_{name}" in logs:
            ax.plot(epochs, logs[f"val_{name}"], marker="o", label=f"val_{name}")
        ax.set_xlabel("epoch")
        ax.set_title(name)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return names


def main(argv: list[str]) -> int:
    import numpy as np

    import symgrad as tf

    rng = np.random.RandomState(0)
    x = rng.rand(256, 8).astype(np.float32)
    y = (x[:, :4].sum(axis=1) > 2).astype(np.int32)
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential(
        [tf.keras.Input((8,)), tf.keras.layers.Dense(16, "relu"), tf.keras.layers.Dense(2)]
    )
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile("adam", loss, metrics=["accuracy"])
    history = model.fit(x, y, epochs=8, validation_split=0.25, verbose=0)
    out = Path(argv[0]) if argv else Path("history.png")
    plot_history(history, out, title="fit on generated data")
    print(f"saved: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
