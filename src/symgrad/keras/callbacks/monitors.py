"""Callbacks that watch a logged quantity (Keras's ``MonitorCallback``): ``EarlyStopping``,
``ReduceLROnPlateau`` and ``ModelCheckpoint``; ``mode="auto"`` reads the direction from the
name (``loss``) or from the compiled metric's kind, as Keras's ``_direction`` does."""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

from symgrad.keras.callbacks.base import Callback

_UP = {
    "AUC", "Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "ConcordanceCorrelation",
    "CosineSimilarity", "FBetaScore", "PearsonCorrelation", "Precision", "R2Score", "Recall",
    "SparseCategoricalAccuracy", "SparseTopKCategoricalAccuracy", "TopKCategoricalAccuracy",
    "IoU", "SensitivitySpecificityBase",
}  # fmt: skip
_DOWN = {
    "BinaryCrossentropy", "CategoricalCrossentropy", "CategoricalHinge", "Hinge",
    "LogCoshError", "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanMetricWrapper",
    "MeanSquaredError", "MeanSquaredLogarithmicError", "RootMeanSquaredError",
    "SparseCategoricalCrossentropy", "SquaredHinge",
}  # fmt: skip


def _direction(metric: Any) -> str | None:
    for cls in type(metric).__mro__:
        if cls.__name__ in _UP:
            return "up"
        if cls.__name__ in _DOWN:
            return "down"
    return None


class MonitorCallback(Callback):
    def __init__(
        self, monitor: str = "val_loss", mode: str = "auto", baseline: Any = None,
        min_delta: float = 0,
    ) -> None:  # fmt: skip
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(
                f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto mode.",
                stacklevel=2,
            )
            mode = "auto"
        self.monitor, self.mode, self.best = monitor, mode, baseline
        self.min_delta = abs(min_delta)
        self.monitor_op: Any = None

    def _set_monitor_op(self) -> None:
        if self.mode != "auto":
            self.monitor_op = np.less if self.mode == "min" else np.greater
        else:
            name = self.monitor.removeprefix("val_")
            if name == "loss":
                self.monitor_op = np.less
            compiled = [m for m in getattr(self.model, "metrics", []) if hasattr(m, "flat")]
            for m in (sub for c in compiled for sub in c.metrics):
                if m.name == name and _direction(m) is not None:
                    self.monitor_op = np.greater if _direction(m) == "up" else np.less
            if self.monitor_op is None:
                raise ValueError(
                    f"{type(self).__name__} callback received monitor={self.monitor}, but "
                    "Keras isn't able to automatically determine whether that metric should "
                    "be maximized or minimized. Pass `mode='max'` in order to monitor based "
                    "on the highest metric value, or pass `mode='min'` in order to use the "
                    "lowest value."
                )
        if self.monitor_op is np.less:
            self.min_delta *= -1

    def _is_improvement(self, value: Any, reference: Any) -> bool:
        if reference is None:
            return True
        return bool(self.monitor_op(value - self.min_delta, reference))


class EarlyStopping(MonitorCallback):
    """Stops training when ``monitor`` has not improved for ``patience`` epochs."""

    def __init__(
        self, monitor: str = "val_loss", min_delta: float = 0, patience: int = 0,
        verbose: int = 0, mode: str = "auto", baseline: Any = None,
        restore_best_weights: bool = False, start_from_epoch: int = 0,
    ) -> None:  # fmt: skip
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience, self.verbose, self.baseline = patience, verbose, baseline
        self.wait = self.stopped_epoch = 0
        self.restore_best_weights, self.best_weights = restore_best_weights, None
        self.start_from_epoch = start_from_epoch

    def on_train_begin(self, logs: Any = None) -> None:
        self.wait = self.stopped_epoch = self.best_epoch = 0
        self.best = self.best_weights = None

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights, self.best_epoch = self.model.get_weights(), epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: Any = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(
                    "Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs: Any) -> Any:
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not "
                f"available. Available metrics are: {','.join(list(logs.keys()))}",
                stacklevel=2,
            )
        return value


def _learning_rate(optimizer: Any) -> float:
    return float(np.asarray(optimizer.learning_rate))


class ReduceLROnPlateau(MonitorCallback):
    """Multiplies the learning rate by ``factor`` after ``patience`` epochs without
    improvement (then waits ``cooldown`` epochs); logs ``learning_rate``."""

    def __init__(
        self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
        verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4, cooldown: int = 0,
        min_lr: float = 0.0, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(
                f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}"
            )
        self.factor, self.min_lr, self.patience = factor, min_lr, patience
        self.verbose, self.cooldown = verbose, cooldown
        self.cooldown_counter = self.wait = 0

    def on_train_begin(self, logs: Any = None) -> None:
        self.best, self.cooldown_counter, self.wait = None, 0, 0

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs if logs is not None else {}
        logs["learning_rate"] = _learning_rate(self.model.optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(
                f"Learning rate reduction is conditioned on metric `{self.monitor}` which is "
                f"not available. Available metrics are: {','.join(list(logs.keys()))}.",
                stacklevel=2,
            )
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best, self.wait = current, 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience and self._reduce(epoch):
                self.cooldown_counter, self.wait = self.cooldown, 0

    def _reduce(self, epoch: int) -> bool:
        old = _learning_rate(self.model.optimizer)
        if old <= np.float32(self.min_lr):
            return False
        new = max(old * self.factor, self.min_lr)
        self.model.optimizer.learning_rate = new
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
        return True


class ModelCheckpoint(MonitorCallback):
    """Saves the weights (``.weights.h5``, ``save_weights_only=True``) or the whole model
    (``.keras``, Keras 3's zip) after each epoch or each ``save_freq`` batches, or only when
    ``monitor`` improves (``save_best_only``)."""

    def __init__(
        self, filepath: Any, monitor: str = "val_loss", verbose: int = 0,
        save_best_only: bool = False, save_weights_only: bool = False, mode: str = "auto",
        save_freq: Any = "epoch", initial_value_threshold: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose, self.filepath = verbose, os.fspath(filepath)
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.save_freq, self._seen = save_freq, 0
        self._last_batch: int | None = None
        self._current_epoch = 0
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(
                f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or int"
            )
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError(
                "When using `save_weights_only=True` in `ModelCheckpoint`, the filepath "
                "provided must end in `.weights.h5` (Keras weights format). Received: "
                f"filepath={self.filepath}"
            )
        if not save_weights_only and not self.filepath.endswith(".keras"):
            raise ValueError(
                "The filepath provided must end in `.keras` (Keras model format; symgrad "
                f"does not write legacy `.h5` models). Received: filepath={self.filepath}"
            )

    def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
        if self.save_freq == "epoch":
            return
        last = self._last_batch
        self._seen += batch + 1 if last is None or batch <= last else batch - last
        self._last_batch = batch
        if self._seen >= self.save_freq:
            self._seen = 0
            self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _should_save(self, logs: Any) -> bool:
        if not self.save_best_only:
            return True
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=2)
            return True
        if self._is_improvement(current, self.best):
            self.best = current
            return True
        return False

    def _save(self, epoch: int, batch: Any, logs: Any) -> None:
        logs = logs or {}
        fields = {"epoch": epoch + 1, **logs}
        if batch is not None and "batch" not in logs:
            fields["batch"] = batch + 1
        path = self.filepath.format(**fields)
        if self._should_save(logs):
            folder = os.path.dirname(path)
            if folder:
                os.makedirs(folder, exist_ok=True)
            if self.save_weights_only:
                self.model.save_weights(path, overwrite=True)
            else:
                self.model.save(path, overwrite=True)
