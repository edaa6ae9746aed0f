"""The hooks of TF's ``basic_session_run_hooks.py``: stop at a step, save checkpoints and
summaries, log tensors and steps/sec, fail on NaN, run final ops, feed each run.

Their decisions follow TF's line by line (when a timer triggers, which global step a
checkpoint or summary is written at, what is logged and how it is formatted), so a loop
writes the checkpoints, events and log lines TF's writes.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from symgrad.compat.monitored.session_run_hook import SessionRunArgs, SessionRunHook
from symgrad.compat.tf1_app import tf_logging as logging
from symgrad.core.errors import OutOfRangeError
from symgrad.core.graph import get_default_graph
from symgrad.summary.proto import SessionLog, Summary
from symgrad.summary.v1 import FileWriterCache as SummaryWriterCache
from symgrad.train.training_util import get_global_step


def _global_step_read(hook: str) -> Any:
    step = get_global_step()
    if step is None:
        raise RuntimeError(f"Global step should be created to use {hook}.")
    return step


def _as_graph_element(x: Any) -> Any:
    if not isinstance(x, str):
        return x
    graph = get_default_graph()
    for v in graph.variables:  # a variable's name is no op's in symgrad's graph
        if v.name == x:
            return v
    return graph.as_graph_element(x)


class SecondOrStepTimer:
    """Triggers at most once every ``every_secs`` seconds or every ``every_steps`` steps."""

    def __init__(self, every_secs: float | None = None, every_steps: int | None = None) -> None:
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self) -> None:
        self._last_triggered_step: Any = None
        self._last_triggered_time: Any = None

    def should_trigger_for_step(self, step: Any) -> bool:
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and time.time() >= (
            self._last_triggered_time + self._every_secs
        ):
            return True
        return bool(
            self._every_steps is not None and step >= self._last_triggered_step + self._every_steps
        )

    def update_last_triggered_step(self, step: Any) -> tuple[Any, Any]:
        now = time.time()
        if self._last_triggered_time is None:
            elapsed: tuple[Any, Any] = (None, None)
        else:
            elapsed = (now - self._last_triggered_time, step - self._last_triggered_step)
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed

    def last_triggered_step(self) -> Any:
        return self._last_triggered_step


class _NeverTriggerTimer(SecondOrStepTimer):
    def __init__(self) -> None:
        self.reset()

    def should_trigger_for_step(self, step: Any) -> bool:
        return False

    def update_last_triggered_step(self, step: Any) -> tuple[Any, Any]:
        return (None, None)


class LoggingTensorHook(SessionRunHook):
    """Logs ``tag = value`` for the given tensors every N runs or seconds, or at the end."""

    def __init__(
        self,
        tensors: Any,
        every_n_iter: int | None = None,
        every_n_secs: float | None = None,
        at_end: bool = False,
        formatter: Any = None,
    ) -> None:
        only_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError(
                "either at_end and/or exactly one of every_n_iter and every_n_secs "
                "must be provided."
            )
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._timer: SecondOrStepTimer = (
            _NeverTriggerTimer()
            if only_at_end
            else SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter)
        )
        self._log_at_end = at_end

    def begin(self) -> None:
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {
            tag: _as_graph_element(tensor) for tag, tensor in self._tensors.items()
        }

    def before_run(self, run_context: Any) -> Any:
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values: Any) -> None:
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
        try:
            if self._formatter:
                logging.info(self._formatter(tensor_values))
            else:
                stats = ", ".join("%s = %s" % (tag, tensor_values[tag]) for tag in self._tag_order)  # noqa: UP031  (str(), as TF)
                if elapsed_secs is not None:
                    logging.info("%s (%.3f sec)", stats, elapsed_secs)
                else:
                    logging.info("%s", stats)
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session: Any) -> None:
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step`` (or ``num_steps`` more
    than it was when the session was made)."""

    def __init__(self, num_steps: int | None = None, last_step: int | None = None) -> None:
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self) -> None:
        self._global_step_tensor = _global_step_read("StopAtStepHook")

    def after_create_session(self, session: Any, coord: Any) -> None:
        if self._last_step is None:
            self._last_step = session.run(self._global_step_tensor) + self._num_steps

    def before_run(self, run_context: Any) -> Any:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if run_values.results + 1 >= self._last_step:
            step = run_context.session.run(self._global_step_tensor)
            if step >= self._last_step:
                run_context.request_stop()


class CheckpointSaverListener:
    """Called around each save of a ``CheckpointSaverHook``; ``after_save`` returning True
    stops the loop."""

    def begin(self) -> None:
        pass

    def before_save(self, session: Any, global_step_value: Any) -> None:
        pass

    def after_save(self, session: Any, global_step_value: Any) -> Any:
        pass

    def end(self, session: Any, global_step_value: Any) -> None:
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves ``checkpoint_dir/model.ckpt-<step>`` when the session is made, every N steps
    or seconds, and at the end (unless the last step was just saved)."""

    def __init__(
        self,
        checkpoint_dir: str,
        save_secs: float | None = None,
        save_steps: int | None = None,
        saver: Any = None,
        checkpoint_basename: str = "model.ckpt",
        scaffold: Any = None,
        listeners: Any = None,
        save_graph_def: bool = True,
    ) -> None:
        logging.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._steps_per_run = 1000000
        self._save_graph_def = save_graph_def

    def begin(self) -> None:
        self._summary_writer = SummaryWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _global_step_read("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session: Any, coord: Any) -> None:
        global_step = session.run(self._global_step_tensor)
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context: Any) -> Any:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if self._timer.should_trigger_for_step(run_values.results + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session: Any) -> None:
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session: Any, step: Any) -> bool:
        logging.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=int(step))
        self._summary_writer.add_session_log(
            SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._save_path), step
        )
        logging.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                logging.info(
                    "A CheckpointSaverListener requested that training be stopped. "
                    f"listener: {listener}"
                )
                should_stop = True
        return should_stop

    def _get_saver(self) -> Any:
        from symgrad.api.variable_scope import GraphKeys, get_collection

        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(
                f"No items in collection {GraphKeys.SAVERS}. Please add a saver to the "
                "collection or provide a saver or scaffold."
            )
        if len(savers) > 1:
            raise RuntimeError(
                f"More than one item in collection {GraphKeys.SAVERS}. Please indicate which "
                "one to use by passing it to the constructor."
            )
        self._saver = savers[0]
        return self._saver


class StepCounterHook(SessionRunHook):
    """Logs and writes ``global_step/sec`` every N steps or seconds."""

    def __init__(
        self,
        every_n_steps: int | None = 100,
        every_n_secs: float | None = None,
        output_dir: str | None = None,
        summary_writer: Any = None,
    ) -> None:
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step: Any = None
        self._steps_per_run = 1

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = SummaryWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_read("StepCounterHook")
        self._summary_tag = self._global_step_tensor.op.name + "/sec"

    def before_run(self, run_context: Any) -> Any:
        return SessionRunArgs(self._global_step_tensor)

    def _log_and_record(self, elapsed_steps: Any, elapsed_time: Any, global_step: Any) -> None:
        steps_per_sec = elapsed_steps / elapsed_time
        if self._summary_writer is not None:
            summary = Summary(
                value=[Summary.Value(tag=self._summary_tag, simple_value=steps_per_sec)]
            )
            self._summary_writer.add_summary(summary, global_step)
        logging.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(global_step)
                if elapsed_time is not None:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step:
            logging.log_first_n(
                logging.WARN,
                "It seems that global step (tf.train.get_global_step) has not been increased. "
                "Current value (could be stable): %s vs previous value: %s. You could increase "
                "the global step by passing tf.train.get_global_step() to "
                "Optimizer.apply_gradients or Optimizer.minimize.",
                5,
                stale_global_step,
                self._last_global_step,
            )
        self._last_global_step = stale_global_step


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self) -> str:
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Raises ``NanLossDuringTrainingError`` (or requests a stop) when the loss is NaN."""

    def __init__(self, loss_tensor: Any, fail_on_nan_loss: bool = True) -> None:
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context: Any) -> Any:
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if np.isnan(run_values.results):
            message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                logging.error(message)
                raise NanLossDuringTrainingError
            logging.warning(message)
            run_context.request_stop()


class SummarySaverHook(SessionRunHook):
    """Runs the summary op every N steps or seconds and writes what it gives."""

    def __init__(
        self,
        save_steps: int | None = None,
        save_secs: float | None = None,
        output_dir: str | None = None,
        summary_writer: Any = None,
        scaffold: Any = None,
        summary_op: Any = None,
    ) -> None:
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = SummaryWriterCache.get(self._output_dir)
        self._next_step: Any = None
        self._global_step_tensor = _global_step_read("SummarySaverHook")

    def before_run(self, run_context: Any) -> Any:
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(
            self._next_step
        )
        requests: dict[str, Any] = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            requests["summary"] = self._get_summary_op()
        return SessionRunArgs(requests)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if not self._summary_writer:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
        if self._next_step is None:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session: Any = None) -> None:
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self) -> Any:
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if op is None:
            return None
        return op if isinstance(op, list) else [op]


class GlobalStepWaiterHook(SessionRunHook):
    """Delays the first run until the global step reaches ``wait_until_step``."""

    def __init__(self, wait_until_step: int) -> None:
        self._wait_until_step = wait_until_step

    def begin(self) -> None:
        self._worker_is_started = False
        self._global_step_tensor = _global_step_read("_GlobalStepWaiterHook")

    def before_run(self, run_context: Any) -> Any:
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        logging.info("Waiting for global step %d before starting training.", self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = run_context.session.run(self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current_step - last_logged_step > 1000:
                logging.info(
                    "Waiting for global step %d before starting training. Current step is %d.",
                    self._wait_until_step,
                    current_step,
                )
                last_logged_step = current_step
            time.sleep(0.5)


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` when the session ends; their values are ``final_ops_values``."""

    def __init__(self, final_ops: Any, final_ops_feed_dict: Any = None) -> None:
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values: Any = None

    @property
    def final_ops_values(self) -> Any:
        return self._final_ops_values

    def end(self, session: Any) -> None:
        if self._final_ops is None:
            return
        try:
            self._final_ops_values = session.run(
                self._final_ops, feed_dict=self._final_ops_feed_dict
            )
        except (OutOfRangeError, StopIteration):
            logging.warning(
                "An OutOfRangeError or StopIteration exception is raised by the code in "
                "FinalOpsHook. This typically means the Ops running by the FinalOpsHook have "
                "a dependency back to some input source, which should not happen."
            )
            raise


class FeedFnHook(SessionRunHook):
    """Feeds each run with what ``feed_fn()`` returns."""

    def __init__(self, feed_fn: Any) -> None:
        self.feed_fn = feed_fn

    def before_run(self, run_context: Any) -> Any:
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


__all__ = [
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LoggingTensorHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "SecondOrStepTimer",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
]
