"""fit/evaluate/predict on Python generators and PyDatasets: one program for TensorFlow
and symgrad (tests/keras/test_fit_python_data.py holds TF 2.21's output as literals).

    TF_CPP_MIN_LOG_LEVEL=3 /work/main/.venv-tf/bin/python tests/keras/python_data_program.py
Each run logs the callbacks' batch and epoch events, and the batches a PyDataset was asked
for between epoch ends (TF reads ahead in a thread, so only their order per epoch is
compared, not when they are read)."""

from __future__ import annotations

import json
import sys
import warnings
from typing import Any

import numpy as np

RNG = np.random.RandomState(0)
X = RNG.uniform(-1, 1, (20, 3)).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5]], "float32")).astype("float32")


def run_all(keras: Any) -> dict[str, Any]:
    log: list[Any] = []

    def model() -> Any:
        keras.utils.set_random_seed(1)
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, kernel_initializer="ones")])
        m.compile(keras.optimizers.SGD(0.1), "mse")
        return m

    class Count(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch: int, logs: Any = None) -> None:
            log.append(["b", batch])

        def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            log.append(["e", epoch])

    def gen(n: int) -> Any:
        for i in range(n):
            yield X[4 * i : 4 * i + 4], Y[4 * i : 4 * i + 4]

    def forever() -> Any:
        i = 0
        while True:
            yield X[4 * (i % 5) : 4 * (i % 5) + 4], Y[4 * (i % 5) : 4 * (i % 5) + 4]
            i += 1

    class Batches(keras.utils.PyDataset):
        def __init__(self, n: int, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.n = n

        def __len__(self) -> int:
            return self.n

        def __getitem__(self, i: int) -> Any:
            log.append(["get", i])
            return X[4 * i : 4 * i + 4], Y[4 * i : 4 * i + 4]

        def on_epoch_end(self) -> None:
            log.append(["end"])

    out: dict[str, Any] = {}

    def fit(name: str, **kwargs: Any) -> None:
        log.clear()
        m = model()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            h = m.fit(callbacks=[Count()], verbose=0, **kwargs)
        out[name] = {
            "history": h.history,
            "warnings": [str(w.message)[:40] for w in caught],
            "events": [e for e in log if e[0] in ("b", "e")],
            "reads": _reads(log),
            "weights": m.get_weights()[0].ravel().tolist(),
        }

    fit("generator", x=gen(5), epochs=2)
    fit("generator_forever_steps", x=forever(), epochs=2, steps_per_epoch=3)
    fit("generator_steps_runs_out", x=gen(5), epochs=3, steps_per_epoch=3)
    fit("pydataset_shuffled", x=Batches(5), epochs=2)
    fit("pydataset", x=Batches(5), epochs=2, shuffle=False)
    fit("pydataset_steps", x=Batches(5), epochs=3, steps_per_epoch=3, shuffle=False)
    fit("validation_generator", x=Batches(4), validation_data=gen(1), epochs=2, shuffle=False)
    m = model()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["evaluate_generator"] = m.evaluate(gen(5), verbose=0)
        log.clear()
        out["evaluate_pydataset"] = [m.evaluate(Batches(5), verbose=0), _reads(log)]
        log.clear()
        out["predict_pydataset"] = [m.predict(Batches(2), verbose=0).ravel().tolist(), _reads(log)]
        xs = ((x,) for x in [X[:3], X[3:5]])
        out["predict_generator"] = m.predict(xs, verbose=0).ravel().tolist()
    return out


def _reads(log: list[Any]) -> list[list[int]]:
    """The PyDataset reads between its on_epoch_end calls."""
    groups: list[list[int]] = [[]]
    for e in log:
        if e[0] == "get":
            groups[-1].append(e[1])
        elif e[0] == "end":
            groups.append([])
    return groups


if __name__ == "__main__":
    if sys.argv[1:] == ["symgrad"]:
        import symgrad

        keras_module: Any = symgrad.keras
    else:
        import keras as keras_module
    print(json.dumps(run_all(keras_module)))
