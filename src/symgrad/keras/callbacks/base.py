"""``tf.keras.callbacks.Callback`` with every hook, the ``CallbackList`` that ``fit`` calls,
``History`` (``fit``'s return value), ``LambdaCallback`` and ``TerminateOnNaN``."""

from __future__ import annotations

from typing import Any

import numpy as np

_HOOKS = [
    f"on_{mode}_{event}"
    for mode in ("train", "test", "predict")
    for event in ("begin", "end", "batch_begin", "batch_end")
] + ["on_epoch_begin", "on_epoch_end"]


class Callback:
    """Base class: override any ``on_*`` hook; ``self.model`` and ``self.params`` are set."""

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}
        self._model: Any = None

    def set_params(self, params: dict[str, Any]) -> None:
        self.params = params

    def set_model(self, model: Any) -> None:
        self._model = model

    @property
    def model(self) -> Any:
        return self._model

    # every hook does nothing until overridden
    def on_train_begin(self, logs: Any = None) -> None:
        pass

    def on_train_end(self, logs: Any = None) -> None:
        pass

    def on_test_begin(self, logs: Any = None) -> None:
        pass

    def on_test_end(self, logs: Any = None) -> None:
        pass

    def on_predict_begin(self, logs: Any = None) -> None:
        pass

    def on_predict_end(self, logs: Any = None) -> None:
        pass

    def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
        pass

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        pass

    def on_batch_begin(self, batch: int, logs: Any = None) -> None:
        pass

    def on_batch_end(self, batch: int, logs: Any = None) -> None:
        pass

    def on_train_batch_begin(self, batch: int, logs: Any = None) -> None:
        self.on_batch_begin(batch, logs=logs)  # Keras's older name

    def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
        self.on_batch_end(batch, logs=logs)  # Keras's older name

    def on_test_batch_begin(self, batch: int, logs: Any = None) -> None:
        pass

    def on_test_batch_end(self, batch: int, logs: Any = None) -> None:
        pass

    def on_predict_batch_begin(self, batch: int, logs: Any = None) -> None:
        pass

    def on_predict_batch_end(self, batch: int, logs: Any = None) -> None:
        pass


class CallbackList:
    """Calls a hook on each callback in order (``History`` and ``ProgbarLogger`` added)."""

    def __init__(
        self,
        callbacks: Any = None,
        add_history: bool = False,
        add_progbar: bool = False,
        model: Any = None,
        **params: Any,
    ) -> None:
        from symgrad.keras.callbacks.progbar import ProgbarLogger

        self.callbacks = list(callbacks or [])
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        if add_history:
            self.callbacks.append(History())
        for c in self.callbacks:
            c.set_model(model)
            c.set_params(params)

    def __getattr__(self, name: str) -> Any:
        if name not in _HOOKS:
            raise AttributeError(name)

        def call(*args: Any, logs: Any = None) -> None:
            for c in self.callbacks:  # logs by keyword, as Keras passes them
                getattr(c, name)(*args, logs=logs)

        return call

    def history(self) -> Any:
        return next(c for c in self.callbacks if isinstance(c, History))


class History(Callback):
    """``history.history``: each log key to its per-epoch values; ``history.epoch``."""

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: Any = None) -> None:
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self


class LambdaCallback(Callback):
    """Hooks given as functions (``on_epoch_end=lambda epoch, logs: ...``)."""

    def __init__(
        self,
        on_epoch_begin: Any = None,
        on_epoch_end: Any = None,
        on_train_begin: Any = None,
        on_train_end: Any = None,
        on_train_batch_begin: Any = None,
        on_train_batch_end: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        hooks = dict(kwargs)
        hooks.update(
            on_epoch_begin=on_epoch_begin,
            on_epoch_end=on_epoch_end,
            on_train_begin=on_train_begin,
            on_train_end=on_train_end,
            on_train_batch_begin=on_train_batch_begin,
            on_train_batch_end=on_train_batch_end,
        )
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)


class TerminateOnNaN(Callback):
    """Stops training (or raises, with ``raise_error=True``) when a batch's loss is NaN or
    infinite."""

    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch: int, logs: Any = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            if self.raise_error:
                raise RuntimeError(
                    f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. "
                    "Terminating training immediately."
                )
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True
