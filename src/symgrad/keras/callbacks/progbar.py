"""``ProgbarLogger`` and Keras's ``Progbar`` line format: ``verbose=1`` redraws
``"3/3 ━━━━ 0s 2ms/step - accuracy: 0.4000 - loss: 4.6384"`` (bold count, green done part)
after each batch; ``verbose=2`` prints ``"3/3 - 0s - 2ms/step - ..."`` once per epoch."""

from __future__ import annotations

import math
import sys
import time
from typing import Any

from symgrad.keras.callbacks.base import Callback


def _format_time(per_unit: float, unit: str) -> str:
    if per_unit >= 1 or per_unit == 0:
        return f" {per_unit:.0f}s/{unit}"
    if per_unit >= 1e-3:
        return f" {per_unit * 1e3:.0f}ms/{unit}"
    return f" {per_unit * 1e6:.0f}us/{unit}"


def _format_value(v: float, cutoff: float) -> str:
    return f" {v:.4f}" if cutoff > 1e-3 else f" {v:.4e}"


class Progbar:
    """``tf.keras.utils.Progbar`` with the metrics shown as given (as ``fit`` uses it)."""

    def __init__(self, target: Any, width: int = 20, verbose: int = 1, interval: float = 0.05):
        self.target, self.width, self.verbose, self.interval = target, width, verbose, interval
        self._values: dict[str, float] = {}
        self._start = time.time()
        self._last_update = 0.0
        self._prev_width = 0

    def update(self, current: int, values: Any = None, finalize: Any = None) -> None:
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        self._values.update(dict(values or []))
        now = time.time()
        per_unit = (now - self._start) / current if current else 0.0
        if self.verbose == 1 and (now - self._last_update >= self.interval or finalize):
            self._draw(current, now, per_unit, finalize)
        elif self.verbose == 2 and finalize and self.target:
            digits = int(math.log10(self.target)) + 1
            info = f"{current:{digits}d}/{self.target} - {now - self._start:.0f}s"
            info += f" -{_format_time(per_unit, 'step')}"
            info += "".join(f" - {k}:{_format_value(v, v)}" for k, v in self._values.items())
            sys.stdout.write(info + "\n")
        self._last_update = now

    def _draw(self, current: int, now: float, per_unit: float, finalize: bool) -> None:
        message = "\b" * self._prev_width + "\r"
        special = 0
        if self.target:
            digits = int(math.log10(self.target)) + 1
            bar = f"\x1b[1m{current:{digits}d}/{self.target}\x1b[0m "
            done = int(self.width * current / self.target)
            special += 8
            if done > 0:
                bar += f"\33[32m{'━' * done}\x1b[0m"
                special += 9
            bar += f"\33[37m{'━' * (self.width - done)}\x1b[0m"
            special += 9
        else:
            bar = f"{current:7d}/Unknown"
        if self.target and not finalize:
            info = f" \x1b[1m{per_unit * (self.target - current):.0f}s\x1b[0m"
        else:
            info = f" \x1b[1m{now - self._start:.0f}s\x1b[0m"
        special += 8
        info += _format_time(per_unit, "step")
        info += "".join(f" - {k}:{_format_value(v, abs(v))}" for k, v in self._values.items())
        width = len(bar) + len(info) - special
        pad = " " * max(self._prev_width - width, 0)
        sys.stdout.write(message + bar + info + pad + ("\n" if finalize else ""))
        sys.stdout.flush()
        self._prev_width = width


class ProgbarLogger(Callback):
    """Prints ``fit``'s progress (``Epoch 1/3`` when there are several epochs)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0
        self.progbar: Progbar | None = None
        self.target: int | None = None
        self.verbose, self.epochs, self._called_in_fit = 1, 1, False

    def set_params(self, params: dict[str, Any]) -> None:
        super().set_params(params)
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else verbose
        self.epochs, self.target = params.get("epochs", 1), params.get("steps")

    def on_train_begin(self, logs: Any = None) -> None:
        self._called_in_fit = True  # validation inside fit is silent

    def _reset(self) -> None:
        self.seen, self.progbar = 0, None
        self._bar()  # started now, so its clock counts the whole epoch

    def _bar(self) -> Progbar:
        if self.progbar is None:
            self.progbar = Progbar(self.target, verbose=self.verbose)
        return self.progbar

    def on_test_begin(self, logs: Any = None) -> None:
        if not self._called_in_fit:
            self._reset()

    def on_predict_begin(self, logs: Any = None) -> None:
        self._reset()

    def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
        self._reset()
        if self.verbose and self.epochs > 1:
            print(f"Epoch {epoch + 1}/{self.epochs}")

    def _update(self, batch: int, logs: Any) -> None:
        self.seen = batch + 1
        if self.verbose == 1:
            self._bar().update(self.seen, list((logs or {}).items()), finalize=False)

    def _finalize(self, logs: Any) -> None:
        if self.target is None:
            self.target = self.seen
        bar = self._bar()
        bar.target = self.target
        bar.update(self.target, list((logs or {}).items()), finalize=True)  # type: ignore[arg-type]

    def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
        self._update(batch, logs)

    def on_test_batch_end(self, batch: int, logs: Any = None) -> None:
        if not self._called_in_fit:
            self._update(batch, logs)

    def on_predict_batch_end(self, batch: int, logs: Any = None) -> None:
        self._update(batch, None)

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        self._finalize(logs)

    def on_test_end(self, logs: Any = None) -> None:
        if not self._called_in_fit:
            self._finalize(logs)

    def on_predict_end(self, logs: Any = None) -> None:
        self._finalize(logs)
