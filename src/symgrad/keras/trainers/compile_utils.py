"""``compile``'s losses and metrics as Keras 3's ``compile_utils`` resolves them: names
through ``tf.keras.losses.get``/``tf.keras.metrics.get``, ``"accuracy"`` becoming binary,
sparse categorical or categorical accuracy from the shapes of ``y_true`` and ``y_pred``;
one loss (with its weight) per output for lists and dicts of outputs."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograph import converter as autograph
from symgrad.core import nest
from symgrad.keras import losses as losses_mod
from symgrad.keras import metrics as metrics_mod
from symgrad.keras.losses.classes import LossFunctionWrapper
from symgrad.ops.array.structure import cast


def is_binary_or_sparse_categorical(y_true: Any, y_pred: Any) -> tuple[bool, bool]:
    t_rank, p_rank = len(y_true.shape), len(y_pred.shape)
    t_last, p_last = y_true.shape[-1], y_pred.shape[-1]
    return p_last == 1, t_rank < p_rank or (t_last == 1 and p_last > 1)


def get_metric(identifier: Any, y_true: Any, y_pred: Any) -> Any:
    if str(identifier).lower() not in ("accuracy", "acc"):
        metric = metrics_mod.get(identifier)
    else:
        binary, sparse = is_binary_or_sparse_categorical(y_true, y_pred)
        cls = (
            metrics_mod.BinaryAccuracy
            if binary
            else metrics_mod.SparseCategoricalAccuracy
            if sparse
            else metrics_mod.CategoricalAccuracy
        )
        metric = cls(name=str(identifier))
    name = identifier if isinstance(identifier, str) else _object_name(metric)
    if not isinstance(metric, metrics_mod.Metric):
        metric = metrics_mod.MeanMetricWrapper(_converted(metric))
    metric.name = name
    return metric


def get_loss(identifier: Any) -> Any:
    """A ``Loss`` object (functions wrapped, classes instantiated), as Keras's ``get_loss``."""
    if identifier is None:
        return None
    loss = losses_mod.get(identifier)
    if isinstance(loss, losses_mod.Loss):
        return loss
    if isinstance(loss, type):
        loss = loss()
        return loss if isinstance(loss, losses_mod.Loss) else LossFunctionWrapper(loss)
    return LossFunctionWrapper(_converted(loss))


def _converted(fn: Any) -> Any:
    """A user's loss or metric function with AutoGraph's conversion, as TF's traced step
    converts the functions it calls (a tensor ``if`` or ``while`` in a loss works)."""
    return autograph.convert(fn, strict=False)


def _object_name(obj: Any) -> str:
    if hasattr(obj, "name"):
        return str(obj.name)
    return str(getattr(obj, "__name__", type(obj).__name__))


def _per_output(spec: Any, n: int, names: list[str], what: str) -> list[Any]:
    """One entry of ``spec`` per flat output (a list, a dict keyed by output name, or one
    value shared by a single output)."""
    if isinstance(spec, dict):
        return [spec.get(name) for name in names]
    if isinstance(spec, (list, tuple)) and (n > 1 or len(spec) == 1):
        if len(spec) != n:
            raise ValueError(f"`{what}` has {len(spec)} entries but the model has {n} outputs")
        return list(spec)
    return [spec] * n


class CompileLoss:
    """The weighted sum of each output's loss, each reduced with ``sample_weight``; with
    several outputs, a ``<output>_loss`` tracker each.  Keras's TF backend weights those
    trackers by the static batch size, unknown in its traced step: a plain mean of the
    batches' values (the ``loss`` tracker weights by the dynamic batch size)."""

    def __init__(
        self, loss: Any, loss_weights: Any, output_names: list[str], keyed: bool = False
    ) -> None:
        self.loss, self.loss_weights, self.output_names = loss, loss_weights, output_names
        self.keyed = keyed  # the model's outputs are a dict (``output_names``: its keys)
        self._flat: list[tuple[int, Any, Any]] | None = None
        self.metrics: list[Any] = []

    def build(self, n: int) -> None:
        """Each output's loss and weight.  Outputs in a dict are taken in the order of the
        loss dict's keys, as Keras walks it: the ``<name>_loss`` trackers and the order of
        the sum (its rounding) are Keras's."""
        names = self.output_names if len(self.output_names) == n else [str(i) for i in range(n)]
        fns = [get_loss(f) for f in _per_output(self.loss, n, names, "loss")]
        weights = _per_output(self.loss_weights, n, names, "loss_weights")
        order = list(range(n))
        if self.keyed and isinstance(self.loss, dict):
            order = [names.index(k) for k in self.loss if k in names]
        self._flat = [(i, fns[i], weights[i]) for i in order if fns[i] is not None]
        if len(self._flat) > 1:
            self.metrics = [metrics_mod.Mean(name=f"{names[i]}_loss") for i, _, _ in self._flat]

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        flat_pred, flat_true = nest.flatten(y_pred), nest.flatten(y_true)
        if self._flat is None:
            self.build(len(flat_pred))
        total, trackers = None, iter(self.metrics)
        for i, fn, weight in self._flat:  # type: ignore[union-attr]
            if i >= len(flat_true):
                continue
            yt, yp = flat_true[i], flat_pred[i]
            value = cast(fn(yt, yp, sample_weight), "float32")
            tracker = next(trackers, None)
            if tracker is not None:
                tracker.update_state(value)
            if weight is not None:
                value = value * np.float32(weight)
            total = value if total is None else total + value
        return total


class CompileMetrics:
    """Each output's metrics (unweighted) and weighted metrics (given ``sample_weight``), as
    one metric named ``compile_metrics`` whose ``result()`` is a dict (Keras's, which a
    custom ``train_step`` meets in ``self.metrics``)."""

    name = "compile_metrics"

    def __init__(self, metrics: Any, weighted_metrics: Any, output_names: list[str]) -> None:
        self.specs, self.weighted_specs, self.output_names = metrics, weighted_metrics, output_names
        self.flat: list[tuple[int, Any, bool]] = []
        self.built, self.n_outputs = False, 1

    def build(self, y_true: Any, y_pred: Any) -> None:
        flat_true, flat_pred = nest.flatten(y_true), nest.flatten(y_pred)
        n = self.n_outputs = len(flat_pred)
        names = self.output_names if len(self.output_names) == n else [str(i) for i in range(n)]
        for specs, weighted in ((self.specs, False), (self.weighted_specs, True)):
            if specs is None:
                continue
            per = _per_output(specs, n, names, "metrics") if n > 1 else [specs]
            for i, spec in enumerate(per):
                for ident in spec if isinstance(spec, (list, tuple)) else [spec]:
                    if ident is None:
                        continue
                    m = get_metric(ident, flat_true[i], flat_pred[i])
                    if n > 1:
                        m.name = f"{names[i]}_{m.name}"
                    if weighted and self.specs is not None:
                        m.name = f"weighted_{m.name}" if _clashes(m, self.flat) else m.name
                    self.flat.append((i, m, weighted))
        self.built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        flat_true, flat_pred = nest.flatten(y_true), nest.flatten(y_pred)
        for i, m, weighted in self.flat:
            m.update_state(flat_true[i], flat_pred[i], sample_weight if weighted else None)

    @property
    def metrics(self) -> list[Any]:
        return [m for _, m, _ in self.flat]

    @property
    def variables(self) -> list[Any]:
        return [v for m in self.metrics for v in m.variables]

    @property
    def ordered_names(self) -> list[str]:
        """The names ``evaluate`` lists first: with several outputs Keras's sub-metric names
        lack the output prefix its logs have, so none match and the logs come sorted."""
        return [m.name for m in self.metrics] if self.n_outputs == 1 else []

    def result(self) -> dict[str, Any]:
        return {m.name: m.result() for m in self.metrics}

    def reset_state(self) -> None:
        for m in self.metrics:
            m.reset_state()


def _clashes(metric: Any, flat: list[tuple[int, Any, bool]]) -> bool:
    return any(m.name == metric.name for _, m, _ in flat)
