"""``Model.compile``/``fit``/``evaluate``/``predict`` and the ``*_on_batch`` methods, as
Keras 3's ``Trainer`` on the TensorFlow backend runs them: each step (``train_step``,
``test_step``, ``predict_step``, overridable) is one symgrad ``function``, traced once per
input signature; the ``loss`` metric averages each batch's loss weighted by its size."""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import numpy as np

from symgrad.api.config_extra import experimental as config_experimental
from symgrad.autodiff.tape import GradientTape
from symgrad.core import devices as config_devices
from symgrad.core import nest
from symgrad.distribute import keras_step
from symgrad.keras import metrics as metrics_mod
from symgrad.keras import optimizers as optimizers_mod
from symgrad.keras.trainers import loops
from symgrad.keras.trainers.compile_utils import CompileLoss, CompileMetrics
from symgrad.keras.trainers.data import unpack_x_y_sample_weight
from symgrad.ops.array.shape import shape
from symgrad.ops.array.structure import cast
from symgrad.runtime.function import function


class Trainer:
    """The training half of ``tf.keras.Model`` (mixed into it)."""

    compiled = False
    stop_training = False
    optimizer: Any = None
    _compile_loss: Any = None
    _compile_metrics: Any = None
    _loss_tracker: Any = None

    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        loss_weights: Any = None,
        metrics: Any = None,
        weighted_metrics: Any = None,
        run_eagerly: bool = False,
        steps_per_execution: int = 1,
        jit_compile: Any = "auto",
        auto_scale_loss: bool = True,
    ) -> None:
        self.optimizer = passed_optimizer = optimizers_mod.get(optimizer)
        policy = getattr(self, "dtype_policy", None)
        if (
            auto_scale_loss and policy is not None and policy.name == "mixed_float16"
            and not isinstance(self.optimizer, optimizers_mod.LossScaleOptimizer)
        ):  # fmt: skip
            self.optimizer = optimizers_mod.LossScaleOptimizer(
                self.optimizer, name="loss_scale_optimizer"
            )
        self._compile_args = {  # for the .keras file's compile_config
            "loss": loss, "loss_weights": loss_weights, "metrics": metrics,
            "weighted_metrics": weighted_metrics, "run_eagerly": run_eagerly,
            "steps_per_execution": steps_per_execution, "optimizer": passed_optimizer,
        }  # fmt: skip
        names = _output_names(self)
        keyed = isinstance(getattr(self, "_outputs_struct", None), dict)
        self._compile_loss = (
            CompileLoss(loss, loss_weights, names, keyed) if loss is not None else None
        )
        has_metrics = metrics is not None or weighted_metrics is not None
        self._compile_metrics = (
            CompileMetrics(metrics, weighted_metrics, names) if has_metrics else None
        )
        self._loss_tracker = metrics_mod.Mean(name="loss")
        self._distribute_strategy = keras_step.strategy_for_model()
        self.loss = loss
        self.run_eagerly = run_eagerly
        self.jit_compile = _resolve_jit_compile(self, jit_compile, run_eagerly)
        self.steps_per_execution = steps_per_execution
        self.compiled, self.stop_training = True, False
        self._step_functions: dict[str, Any] = {}

    # -- what a step computes -------------------------------------------------------------
    def compute_loss(
        self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None,
        training: bool = True,
    ) -> Any:  # fmt: skip
        losses = []
        if self._compile_loss is not None:
            value = self._compile_loss(y, y_pred, sample_weight)
            if value is not None:
                losses.append(value)
        losses.extend(cast(v, "float32") for v in self.losses)  # type: ignore[attr-defined]
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        total = losses[0]
        for v in losses[1:]:
            total = total + v
        return total

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for m in self.metrics:
            result = m.result()
            out.update(result if isinstance(result, dict) else {m.name: result})
        return out

    @property
    def metrics(self) -> list[Any]:
        """Keras's order: the loss tracker, ``compile_metrics``, then metrics the model
        holds as attributes (a custom ``train_step``'s own trackers)."""
        out = []
        if self.compiled:
            out.append(self._loss_tracker)
            if self._compile_metrics is not None:
                out.append(self._compile_metrics)
            if self._compile_loss is not None:
                out.extend(self._compile_loss.metrics)
        own = [v for k, v in vars(self).items() if not k.startswith("_compile")]
        out.extend(v for v in own if isinstance(v, metrics_mod.Metric) and v not in out)
        return out

    @property
    def metrics_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        for m in self.metrics:
            m.reset_state()

    def _track_loss(self, loss: Any, x: Any) -> None:
        """The loss, weighted by the batch's size as Keras's TF backend weighs it (the
        dynamic size: a relaxed trace's batch dimension is unknown)."""
        first = next(i for i in nest.flatten(x) if i is not None)
        self._loss_tracker.update_state(loss, sample_weight=cast(shape(first)[0], "float32"))

    def _forward(self, x: Any, training: bool) -> Any:
        """``self(x, training=...)``, or ``self(x)`` when ``call`` takes no ``training``."""
        call = self.call  # type: ignore[attr-defined]
        if "training" in inspect.signature(call).parameters:
            return self(x, training=training)  # type: ignore[operator]
        return self(x)  # type: ignore[operator]

    def train_step(self, data: Any) -> Any:
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self._forward(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
            self._track_loss(loss, x)
            loss = keras_step.scale_loss(loss)  # a replica's share, under a strategy
            if self.optimizer is not None:
                loss = self.optimizer.scale_loss(loss)  # a LossScaleOptimizer's scale
        weights = self.trainable_weights  # type: ignore[attr-defined]
        if weights:
            grads = tape.gradient(loss, weights)
            self.optimizer.apply_gradients(zip(grads, weights, strict=True))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data: Any) -> Any:
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self._forward(x, training=False)
        loss = self.compute_loss(
            x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False
        )
        self._track_loss(loss, x)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data: Any) -> Any:
        x, _, _ = unpack_x_y_sample_weight(data)
        return self._forward(x, training=False)

    def _step_function(self, kind: str) -> Any:
        """``train_step`` etc. compiled once (eager with ``run_eagerly=True``)."""
        if not hasattr(self, "_step_functions"):
            self._step_functions = {}
        if kind not in self._step_functions:
            step = getattr(self, f"{kind}_step")
            # As Keras: jit_compile=True compiles every step with XLA; otherwise train and
            # test steps are tf.function(jit_compile=False), predict's jit_compile=None.
            jit = (
                True
                if getattr(self, "jit_compile", False)
                else None
                if kind == "predict"
                else False
            )
            strategy = getattr(self, "_distribute_strategy", None)
            if kind != "predict" and strategy is not None and len(strategy._devices()) > 1:
                step = keras_step.distributed_step(strategy, step)
            self._step_functions[kind] = (  # (traces relaxed as Keras's: a last, short batch)
                step
                if getattr(self, "run_eagerly", False)
                else function(step, jit_compile=jit, reduce_retracing=True)
            )
        return self._step_functions[kind]

    def _prepare(self, batch: Any, training: bool) -> None:
        """Build what a step must not create inside its function: the model's weights, the
        compiled metrics (their kind depends on the shapes), the optimizer's slots."""
        x, y, _ = unpack_x_y_sample_weight(batch)
        loss, metrics = self._compile_loss, self._compile_metrics
        if y is None:  # predict: no targets, so no loss or metric to build yet
            loss = metrics = None
        unbuilt_loss = loss is not None and loss._flat is None
        if not getattr(self, "built", True) or unbuilt_loss or (metrics and not metrics.built):
            was_built = getattr(self, "built", True)
            y_pred = self._forward(x, training=False)
            if not was_built:
                _unbatch_build_shapes(self)
            if metrics is not None and not metrics.built:
                metrics.build(y, y_pred)
            if unbuilt_loss:
                loss.build(len(nest.flatten(y_pred)))
        if training and self.optimizer is not None and not getattr(self.optimizer, "built", False):
            self.optimizer.build(self.trainable_weights)  # type: ignore[attr-defined]

    # -- public loops (see loops.py) ------------------------------------------------------
    def fit(
        self, x: Any = None, y: Any = None, batch_size: Any = None, epochs: int = 1,
        verbose: Any = "auto", callbacks: Any = None, validation_split: float = 0.0,
        validation_data: Any = None, shuffle: bool = True, class_weight: Any = None,
        sample_weight: Any = None, initial_epoch: int = 0, steps_per_epoch: Any = None,
        validation_steps: Any = None, validation_batch_size: Any = None,
        validation_freq: int = 1,
    ) -> Any:  # fmt: skip
        return loops.fit(self, locals())

    def evaluate(
        self, x: Any = None, y: Any = None, batch_size: Any = None, verbose: Any = "auto",
        sample_weight: Any = None, steps: Any = None, callbacks: Any = None,
        return_dict: bool = False, **kwargs: Any,
    ) -> Any:  # fmt: skip
        return loops.evaluate(self, locals())

    def predict(
        self, x: Any, batch_size: Any = None, verbose: Any = "auto", steps: Any = None,
        callbacks: Any = None,
    ) -> Any:  # fmt: skip
        return loops.predict(self, locals())

    def train_on_batch(
        self, x: Any, y: Any = None, sample_weight: Any = None, class_weight: Any = None,
        return_dict: bool = False,
    ) -> Any:  # fmt: skip
        return loops.on_batch(self, "train", x, y, sample_weight, class_weight, return_dict)

    def test_on_batch(
        self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False
    ) -> Any:
        return loops.on_batch(self, "test", x, y, sample_weight, None, return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        self._prepare((x,), training=False)
        return nest.map_structure(np.asarray, self._step_function("predict")((x,)))


def _resolve_jit_compile(model: Any, jit_compile: Any, run_eagerly: bool) -> bool:
    """Keras 3's rule on the TF backend: ``"auto"`` compiles with XLA only where a device
    other than the CPU is present, no strategy is in force and op determinism is off;
    ``run_eagerly`` disables ``jit_compile`` (warning when it was asked for)."""
    if jit_compile == "auto":
        if run_eagerly:
            return False
        jit_compile = (
            any(d.device_type != "CPU" for d in config_devices.list_physical_devices())
            and model._distribute_strategy is None
            and not config_experimental.op_determinism_enabled()
        )
    if jit_compile and run_eagerly:
        warnings.warn(
            "If `run_eagerly` is True, then `jit_compile` cannot also be True. "
            "Disabling `jit_compile`.",
            stacklevel=3,
        )
        return False
    return bool(jit_compile)


def _output_names(model: Any) -> list[str]:
    struct = getattr(model, "_outputs_struct", None)
    if isinstance(struct, dict):
        return sorted(struct)  # flattened in key order, like the targets
    outputs = getattr(model, "_outputs", None) or getattr(model, "outputs", None)
    names: list[str] = []
    for t in nest.flatten(outputs) if outputs is not None else []:
        node = getattr(t, "node", None)
        names.append(node.layer.name if node is not None else str(len(names)))
    return names


def _unbatch_build_shapes(model: Any) -> None:
    """Keras builds a model in fit/evaluate/predict from the data's spec, whose batch size
    is None: its build_config records ``(None, ...)``, not the first batch's size."""
    shapes = getattr(model, "_build_shapes_dict", None)
    if not shapes:
        return

    def unbatch(shape: Any) -> Any:
        if (
            isinstance(shape, (tuple, list))
            and shape
            and all(s is None or isinstance(s, int) for s in shape)
        ):
            return (None, *shape[1:])
        if isinstance(shape, (tuple, list)):
            return type(shape)(unbatch(s) for s in shape)
        return shape

    object.__setattr__(model, "_build_shapes_dict", {k: unbatch(v) for k, v in shapes.items()})
