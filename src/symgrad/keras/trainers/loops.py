"""The loops behind ``fit``, ``evaluate``, ``predict`` and the ``*_on_batch`` methods, in
Keras 3's order of callbacks; logs are Python floats sorted by name (Keras's
``pythonify_logs``), validation logs prefixed ``val_``."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import nest
from symgrad.keras.callbacks.base import CallbackList
from symgrad.keras.trainers.compile_utils import CompileMetrics
from symgrad.keras.trainers.data import (
    EpochIterator,
    class_weights_to_sample_weights,
    split_validation,
)
from symgrad.keras.trainers.data import unpack_x_y_sample_weight as unpack
from symgrad.keras.trainers.py_data import PyEpochIterator, adapter, is_python_input


def epoch_iterator(
    x: Any, y: Any, sw: Any, batch_size: Any, steps: Any, shuffle: bool = False,
    class_weight: Any = None, reset: bool = True,
) -> Any:  # fmt: skip
    """The batches of an epoch: Keras's EpochIterator for generators and PyDatasets (reset
    once before fit/evaluate, as Keras does), symgrad's for arrays and Datasets."""
    if is_python_input(x):
        batches = PyEpochIterator(adapter(x, y, sw, shuffle, class_weight), steps)
        if reset:
            batches.reset()
        return batches
    return EpochIterator(x, y, sw, batch_size, steps, shuffle, class_weight)


def pythonify_logs(logs: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in sorted((logs or {}).items()):
        if isinstance(v, dict):
            out.update(pythonify_logs(v))
        else:
            try:
                out[k] = float(np.asarray(v))
            except (TypeError, ValueError):
                out[k] = v
    return out


def flatten_in_order(model: Any, logs: dict[str, Any]) -> Any:
    names = [
        name
        for m in model.metrics
        for name in (m.ordered_names if isinstance(m, CompileMetrics) else [m.name])
    ]
    results = [logs[n] for n in names if n in logs]
    results += [logs[k] for k in sorted(logs) if k not in names]
    return results[0] if len(results) == 1 else results


def _check_compiled(model: Any, method: str) -> None:
    if not model.compiled:
        raise ValueError(f"You must call `compile()` before using the model. ({method})")


def _run_step(model: Any, kind: str, batch: Any) -> dict[str, Any]:
    """The step's own output (nested as it returned it, values as NumPy)."""
    model._prepare(batch, training=kind == "train")
    return nest.map_structure(
        np.asarray, model._step_function(kind)(pack_x_y_sample_weight(*batch))
    )


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """What a step is handed (Keras's rule, its lists made tuples first): ``x`` alone
    unless it is a tuple, else ``(x, y)`` or ``(x, y, sample_weight)``, so a custom
    ``train_step``'s ``data`` is the batch itself when ``fit`` has no targets, and
    ``((a, b),)`` for a two-input model's ``predict([a, b])``."""
    x, y, sample_weight = _tuples(x), _tuples(y), _tuples(sample_weight)
    if y is None and sample_weight is None:
        return (x,) if isinstance(x, tuple) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def _metrics_result_or_logs(model: Any, logs: dict[str, Any]) -> dict[str, Any]:
    """The metrics' results, unless a custom step returned other keys: then its last logs."""
    metric_logs = pythonify_logs(model.get_metrics_result())
    return metric_logs if set(logs) == set(metric_logs) else pythonify_logs(logs)


def fit(model: Any, a: dict[str, Any]) -> Any:
    _check_compiled(model, "fit")
    x, y, sw, val = a["x"], a["y"], a["sample_weight"], a["validation_data"]
    if a["validation_split"] and val is None:
        (x, y, sw), val = split_validation(x, y, sw, a["validation_split"])
    batches = epoch_iterator(
        x, y, sw, a["batch_size"], a["steps_per_epoch"], a["shuffle"], a["class_weight"]
    )
    verbose = a["verbose"]
    callbacks = a["callbacks"]
    if not isinstance(callbacks, CallbackList):
        callbacks = CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=model,
            verbose=verbose, epochs=a["epochs"], steps=batches.num_batches,
        )  # fmt: skip
    model.stop_training = False
    callbacks.on_train_begin()
    training_logs, logs = None, {}
    for epoch in range(a["initial_epoch"], a["epochs"]):
        model.reset_metrics()
        callbacks.on_epoch_begin(epoch)
        for step, batch in batches.enumerate_epoch():
            callbacks.on_train_batch_begin(step)
            batch = batch() if callable(batch) else batch  # a generator's: read it now
            if batch is None:
                break
            logs = _run_step(model, "train", batch)
            callbacks.on_train_batch_end(step, logs=pythonify_logs(logs))
            if model.stop_training:
                break
        epoch_logs = _metrics_result_or_logs(model, logs)
        if val is not None and (epoch + 1) % a["validation_freq"] == 0:
            epoch_logs = pythonify_logs({**epoch_logs, **_validate(model, val, a, callbacks)})
        callbacks.on_epoch_end(epoch, logs=epoch_logs)
        training_logs = epoch_logs
        if model.stop_training or batches.exhausted:
            break
    finalize = getattr(model.optimizer, "finalize_variable_values", None)
    if finalize is not None and a["epochs"] > 0:  # Keras's: an EMA's averages written back
        finalize(model.trainable_weights)
    callbacks.on_train_end(logs=training_logs)
    return callbacks.history()


def _validate(model: Any, val: Any, a: dict[str, Any], callbacks: Any) -> dict[str, Any]:
    vx, vy, vsw = unpack(val) if isinstance(val, (tuple, list)) else (val, None, None)
    if is_python_input(vx):  # one iterator for every epoch's validation, as Keras caches it
        if "_val_batches" not in a:
            a["_val_batches"] = epoch_iterator(vx, vy, vsw, None, a["validation_steps"])
        else:
            a["_val_batches"].reset()
        vx, vy, vsw = a["_val_batches"], None, None
    logs = evaluate(
        model,
        dict(
            x=vx, y=vy, sample_weight=vsw, steps=a["validation_steps"], callbacks=callbacks,
            batch_size=a["validation_batch_size"] or a["batch_size"], verbose=0,
            return_dict=True,
        ),
    )  # fmt: skip
    return {f"val_{k}": v for k, v in logs.items()}


def evaluate(model: Any, a: dict[str, Any]) -> Any:
    _check_compiled(model, "evaluate")
    if a.get("kwargs"):
        raise ValueError(f"Arguments not recognized: {a['kwargs']}")
    batches = a["x"]
    if not isinstance(batches, PyEpochIterator):
        batches = epoch_iterator(batches, a["y"], a["sample_weight"], a["batch_size"], a["steps"])
    callbacks = a["callbacks"]
    if not isinstance(callbacks, CallbackList):
        callbacks = CallbackList(
            callbacks, add_progbar=a["verbose"] != 0, model=model, verbose=a["verbose"],
            epochs=1, steps=batches.num_batches,
        )  # fmt: skip
    callbacks.on_test_begin()
    model.reset_metrics()
    logs: dict[str, Any] = {}
    for step, batch in batches.enumerate_epoch():
        callbacks.on_test_batch_begin(step)
        batch = batch() if callable(batch) else batch
        if batch is None:
            break
        logs = _run_step(model, "test", batch)
        callbacks.on_test_batch_end(step, logs=pythonify_logs(logs))
    logs = _metrics_result_or_logs(model, logs)
    callbacks.on_test_end(logs=logs)
    return logs if a["return_dict"] else flatten_in_order(model, logs)


def predict(model: Any, a: dict[str, Any]) -> Any:
    batches = epoch_iterator(a["x"], None, None, a["batch_size"], a["steps"], reset=False)
    callbacks = a["callbacks"]
    if not isinstance(callbacks, CallbackList):
        callbacks = CallbackList(
            callbacks, add_progbar=a["verbose"] != 0, model=model, verbose=a["verbose"],
            epochs=1, steps=batches.num_batches,
        )  # fmt: skip
    callbacks.on_predict_begin()
    outputs: list[Any] = []
    for step, batch in batches.enumerate_epoch():
        callbacks.on_predict_batch_begin(step)
        batch = batch() if callable(batch) else batch
        if batch is None:
            break
        batch = unpack(batch) if isinstance(batch, tuple) else (batch, None, None)
        model._prepare(batch, training=False)
        out = nest.map_structure(
            np.asarray, model._step_function("predict")(pack_x_y_sample_weight(batch[0]))
        )
        outputs.append(out)
        callbacks.on_predict_batch_end(step, logs={"outputs": out})
    callbacks.on_predict_end()
    if not outputs:
        raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs).")
    flat = [nest.flatten(o) for o in outputs]
    joined = [np.concatenate(parts, axis=0) for parts in zip(*flat, strict=True)]
    return nest.pack_sequence_as(outputs[0], joined)


def on_batch(
    model: Any, kind: str, x: Any, y: Any, sw: Any, class_weight: Any, return_dict: bool
) -> Any:
    _check_compiled(model, f"{kind}_on_batch")
    if class_weight is not None:
        if sw is not None:
            raise ValueError(
                "Arguments `sample_weight` and `class_weight` cannot be specified at the same "
                f"time. Received: sample_weight={sw}, class_weight={class_weight}"
            )
        sw = class_weights_to_sample_weights(y, class_weight)
    model._prepare((x, y, sw), training=kind == "train")
    model.reset_metrics()
    logs = pythonify_logs(_run_step(model, kind, (x, y, sw)))
    return logs if return_dict else flatten_in_order(model, logs)


def _tuples(data: Any) -> Any:
    """Keras's ``tree.lists_to_tuples``: every list in ``data`` a tuple."""
    if isinstance(data, (list, tuple)):
        return tuple(_tuples(d) for d in data)
    if isinstance(data, dict):
        return {k: _tuples(v) for k, v in data.items()}
    return data
