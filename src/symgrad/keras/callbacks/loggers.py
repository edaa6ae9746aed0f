"""``LearningRateScheduler`` (sets the rate before each epoch, logs ``learning_rate``) and
``CSVLogger`` (one row per epoch, columns sorted as Keras sorts them)."""

from __future__ import annotations

import collections
import csv
import os
from typing import Any

import numpy as np

from symgrad.keras.callbacks.base import Callback


class LearningRateScheduler(Callback):
    """``schedule(epoch, lr)`` (or ``schedule(epoch)``) gives each epoch's learning rate."""

    def __init__(self, schedule: Any, verbose: int = 0) -> None:
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
        optimizer = self.model.optimizer
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            lr = self.schedule(epoch, float(np.asarray(optimizer.learning_rate)))
        except TypeError:  # the old one-argument API
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.float32, np.float64)):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {lr}")
        optimizer.learning_rate = lr
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        if logs is not None:
            logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))


def _csv_value(v: Any) -> Any:
    if isinstance(v, str) or (isinstance(v, np.ndarray) and v.ndim == 0):
        return v
    if isinstance(v, collections.abc.Iterable):
        return f'"[{", ".join(map(str, v))}]"'
    return v


class CSVLogger(Callback):
    """Streams each epoch's logs to ``filename`` (``epoch`` first, then sorted keys)."""

    def __init__(self, filename: Any, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.sep, self.filename, self.append = separator, os.fspath(filename), append
        self.writer: Any = None
        self.keys: list[str] | None = None
        self.append_header = True
        self.csv_file: Any = None

    def on_train_begin(self, logs: Any = None) -> None:
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode, newline="")  # noqa: SIM115 (closed at train end)
        self.writer, self.keys = None, None

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys.extend([f"val_{k}" for k in self.keys])
        if self.writer is None:
            dialect = type("Dialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(
                self.csv_file, fieldnames=["epoch", *self.keys], dialect=dialect
            )
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch, **{k: _csv_value(logs.get(k, "NA")) for k in self.keys}}
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs: Any = None) -> None:
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None
