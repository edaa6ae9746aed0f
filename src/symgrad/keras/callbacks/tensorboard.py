"""``tf.keras.callbacks.TensorBoard``: Keras 3's logging of training to TensorBoard.

As Keras 3.15's (``keras/src/callbacks/tensorboard.py``), through ``tf.summary``: one
writer under ``log_dir/train`` and one under ``log_dir/validation``; after each epoch the
logs as ``epoch_<name>`` scalars (``epoch_learning_rate`` too, from the optimizer), the
``val_`` ones in ``validation``; after each evaluation ``evaluation_<name>_vs_iterations``
at the optimizer's step; with an integer ``update_freq`` (``"batch"`` is 1) each batch's
logs as ``batch_<name>`` every that many batches; with ``histogram_freq`` each weight's
histogram (``<path>/histogram``), and its image with ``write_images``; with
``write_graph`` the model's JSON for TensorBoard's graph plugin (Keras writes the traced
graph as well: symgrad has no ``GraphDef``, so only the Keras view is there).
``profile_batch`` is checked as Keras checks it, and nothing is profiled.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from typing import Any

import numpy as np

from symgrad import summary
from symgrad.keras.backend import image_data_format
from symgrad.keras.callbacks.base import Callback
from symgrad.keras.optimizers.base import Optimizer
from symgrad.summary.proto import PluginData, SummaryMetadata

_EMBEDDINGS = "layer_with_weights-0/embeddings/.ATTRIBUTES/VARIABLE_VALUE"  # Keras's, every layer


class TensorBoard(Callback):
    """Writes the logs of ``fit``/``evaluate`` (and weight histograms) for TensorBoard."""

    def __init__(
        self,
        log_dir: Any = "logs",
        histogram_freq: int = 0,
        write_graph: bool = True,
        write_images: bool = False,
        write_steps_per_second: bool = False,
        update_freq: Any = "epoch",
        profile_batch: Any = 0,
        embeddings_freq: int = 0,
        embeddings_metadata: Any = None,
    ) -> None:
        super().__init__()
        self.log_dir = str(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        _check_profile_batch(profile_batch)
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._previous_epoch_iterations = 0.0
        self._batch_start_time = 0.0
        self._epoch_start_time = 0.0
        self._writers: dict[str, Any] = {}
        self._prev_summary_state: list[tuple[Any, Any]] = []

    def set_model(self, model: Any) -> None:
        self._model = model
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._writers = {}
        if self.write_graph:
            self._write_keras_model_summary()
        if self.embeddings_freq:
            self._configure_embeddings()

    @property
    def _train_writer(self) -> Any:
        if "train" not in self._writers:
            self._writers["train"] = summary.create_file_writer(self._train_dir)
        return self._writers["train"]

    @property
    def _val_writer(self) -> Any:
        if "val" not in self._writers:
            self._writers["val"] = summary.create_file_writer(self._val_dir)
        return self._writers["val"]

    def _write_keras_model_summary(self) -> None:
        with self._train_writer.as_default():
            if type(self.model).__name__ in ("Functional", "Sequential"):
                keras_model_summary("keras", self.model, step=0)

    def _configure_embeddings(self) -> None:
        """``projector_config.pbtxt`` (protobuf's text format, as Keras writes it) naming
        the checkpointed embeddings and their metadata files."""
        metadata = self.embeddings_metadata
        entries = []
        for layer in self.model.layers:
            if type(layer).__name__ == "Embedding":
                entry = f'embeddings {{\n  tensor_name: "{_EMBEDDINGS}"\n'
                path = (
                    metadata
                    if isinstance(metadata, str)
                    else (metadata or {}).pop(layer.name, None)
                )
                entries.append(entry + (f'  metadata_path: "{path}"\n' if path else "") + "}\n")
        if metadata and not isinstance(metadata, str):
            raise ValueError(
                "Unrecognized `Embedding` layer names passed to `keras.callbacks.TensorBoard` "
                f"`embeddings_metadata` argument: {metadata.keys()}"
            )
        os.makedirs(self.log_dir, exist_ok=True)
        with open(os.path.join(self.log_dir, "projector_config.pbtxt"), "w") as f:
            f.write("".join(entries))

    def _push_writer(self, writer: Any, step: int) -> None:
        if self.update_freq == "epoch":
            return
        context = (writer.as_default(step), summary.record_if(lambda: step % self.update_freq == 0))
        self._prev_summary_state.append(context)
        context[0].__enter__()
        context[1].__enter__()

    def _pop_writer(self) -> None:
        if self.update_freq == "epoch":
            return
        previous = self._prev_summary_state.pop()
        previous[1].__exit__(*sys.exc_info())
        previous[0].__exit__(*sys.exc_info())

    def on_train_begin(self, logs: Any = None) -> None:
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0.0
        self._push_writer(self._train_writer, self._global_train_batch)

    def on_train_end(self, logs: Any = None) -> None:
        self._pop_writer()
        for writer in self._writers.values():
            writer.close()

    def on_test_begin(self, logs: Any = None) -> None:
        self._push_writer(self._val_writer, self._global_test_batch)

    def on_test_end(self, logs: Any = None) -> None:
        if self.model.optimizer and hasattr(self.model.optimizer, "iterations"):
            with self._val_writer.as_default():
                for name, value in (logs or {}).items():
                    summary.scalar(
                        f"evaluation_{name}_vs_iterations",
                        value,
                        step=self.model.optimizer.iterations,
                    )
        self._pop_writer()

    def on_train_batch_begin(self, batch: int, logs: Any = None) -> None:
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._train_writer, self._global_train_batch)
        if self.write_steps_per_second:
            self._batch_start_time = time.time()

    def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
        if self.write_steps_per_second:
            batch_run_time = time.time() - self._batch_start_time
            summary.scalar(
                "batch_steps_per_second", 1.0 / batch_run_time, step=self._global_train_batch
            )
        if isinstance(logs, dict):
            for name, value in logs.items():
                summary.scalar(f"batch_{name}", value, step=self._global_train_batch)

    def on_test_batch_begin(self, batch: int, logs: Any = None) -> None:
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._val_writer, self._global_test_batch)

    def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
        if self.write_steps_per_second:
            self._previous_epoch_iterations = float(np.asarray(self.model.optimizer.iterations))
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            path = os.path.join(self.log_dir, "train", f"keras_embedding.ckpt-{epoch}.weights.h5")
            self.model.save_weights(path)

    def _collect_learning_rate(self, logs: dict[str, Any]) -> dict[str, Any]:
        optimizer = getattr(self.model.optimizer, "inner_optimizer", self.model.optimizer)
        if hasattr(optimizer, "optimizers"):
            for opt in optimizer.optimizers:
                logs[f"learning_rate_{opt.name}"] = float(np.asarray(opt.learning_rate))
        elif isinstance(optimizer, Optimizer):
            logs["learning_rate"] = float(np.asarray(optimizer.learning_rate))
        return logs

    def _compute_steps_per_second(self) -> float:
        iterations = np.float32(np.asarray(self.model.optimizer.iterations))
        elapsed = np.float32(time.time() - self._epoch_start_time)
        return float((iterations - np.float32(self._previous_epoch_iterations)) / elapsed)

    def _log_epoch_metrics(self, epoch: int, logs: Any) -> None:
        if not logs:
            return
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k: v for k, v in logs.items() if k.startswith("val_")}
        train_logs = self._collect_learning_rate(train_logs)
        if self.write_steps_per_second:
            train_logs["steps_per_second"] = self._compute_steps_per_second()
        if train_logs:
            with self._train_writer.as_default():
                for name, value in train_logs.items():
                    summary.scalar(f"epoch_{name}", value, step=epoch)
        if val_logs:
            with self._val_writer.as_default():
                for name, value in val_logs.items():
                    summary.scalar(f"epoch_{name[4:]}", value, step=epoch)

    def _log_weights(self, epoch: int) -> None:
        with self._train_writer.as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    weight_name = weight.path.replace(":", "_")
                    summary.histogram(f"{weight_name}/histogram", weight, step=epoch)
                    if self.write_images:
                        _log_weight_as_image(weight, f"{weight_name}/image", epoch)
            self._train_writer.flush()


def _log_weight_as_image(weight: Any, name: str, epoch: int) -> None:
    """A weight as Keras shows it: a bias as one row, a kernel with its longer side across,
    a convolution's kernels one image per output channel (channels last)."""
    w = np.squeeze(np.asarray(weight))
    if w.ndim == 1:
        w = w.reshape(1, w.shape[0], 1, 1)
    elif w.ndim == 2:
        w = (w.T if w.shape[0] > w.shape[1] else w)[None, :, :, None]
    elif w.ndim == 3:
        if image_data_format() == "channels_last":
            w = np.transpose(w, [2, 0, 1])
        w = w[..., None]
    if w.ndim == 4 and w.shape[-1] in (1, 3, 4):
        summary.image(name, w, step=epoch)


def _check_profile_batch(profile_batch: Any) -> None:
    message = (
        "profile_batch must be a non-negative integer or 2-tuple of positive integers. A "
        "pair of positive integers signifies a range of batches to profile. Found: "
        f"{profile_batch}"
    )
    if isinstance(profile_batch, str):
        profile_batch = [int(p) for p in profile_batch.split(",")]
    if isinstance(profile_batch, int):
        start = stop = profile_batch
    elif isinstance(profile_batch, tuple | list) and len(profile_batch) == 2:
        start, stop = profile_batch
    else:
        raise ValueError(message)
    if start < 0 or stop < start:
        raise ValueError(message)


def keras_model_summary(name: str, data: Any, step: Any = None) -> Any:
    """The model's JSON as a text tensor for TensorBoard's graph plugin (``graph_keras_model``,
    content ``b"1"``), as Keras's ``keras_model_summary``."""
    metadata = SummaryMetadata(
        plugin_data=PluginData(plugin_name="graph_keras_model", content=b"1")
    )
    try:
        json_string = data.to_json()
    except Exception as exc:
        warnings.warn(f"Model failed to serialize as JSON. Ignoring... {exc}", stacklevel=2)
        return False
    with summary.experimental.summary_scope(name, "graph_keras_model") as (tag, _):
        return summary.write(tag=tag, tensor=json_string, step=step, metadata=metadata)
