"""``MonitoredSession``, ``SingularMonitoredSession``, ``MonitoredTrainingSession``,
``Scaffold`` and ``ChiefSessionCreator``, as TF's ``monitored_session.py`` and
``session_manager.py``.

The calls a hook sees come in TF's order: every hook's ``begin`` when the session object is
made, then the Scaffold is finalized and the session created (restored from the latest
checkpoint in ``checkpoint_dir`` when there is one, else initialized by ``init_op`` and
``init_fn``; then ``local_init_op``; then the ready check), then every hook's
``after_create_session``; around each ``run`` every hook's ``before_run`` (their fetches
and feeds merged into the one Session run) and ``after_run``; on ``close`` (or leaving the
``with`` block without an error, an OutOfRangeError or StopIteration counting as none)
every hook's ``end``.

There are no threads to coordinate and no remote workers to recover from: the Coordinator
handed to ``after_create_session`` only records a stop request and an exception.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from symgrad.api.variable_scope import (
    GraphKeys,
    add_to_collection,
    get_collection,
    local_variables,
)
from symgrad.compat.monitored import hooks as basic_hooks
from symgrad.compat.monitored.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunValues,
)
from symgrad.compat.tf1_app import tf_logging as logging
from symgrad.compat.v1_config import RunMetadata, RunOptions
from symgrad.compat.v1_ops import local_variables_initializer
from symgrad.core.errors import FailedPreconditionError, OutOfRangeError
from symgrad.core.graph import get_default_graph
from symgrad.ops.control import group
from symgrad.ops.state.variables import global_variables, global_variables_initializer
from symgrad.runtime.session import Session
from symgrad.summary.v1 import merge_all
from symgrad.train import checkpoint_format as fmt
from symgrad.train.saver import Saver

USE_DEFAULT: Any = object()  # TF's sentinel: "not given" (None turns a saver hook off)


class ReadyCheck:
    """The default ``ready_op``: lists the variables (global and local, or global only for
    ``ready_for_local_init_op``) not yet initialized.  TF's is a string tensor made by
    ``report_uninitialized_variables``; symgrad has no string tensors, so this is a
    Python check, called with the session (``check(sess)`` gives the names)."""

    def __init__(self, local: bool) -> None:
        self._local = local

    def check(self, session: Any = None) -> list[str]:
        local = {id(v) for v in local_variables()}
        variables = [v for v in global_variables() if self._local or id(v) not in local]
        return [v.op.name for v in variables if not v.is_initialized()]

    def __repr__(self) -> str:
        return "<report_uninitialized_variables>"


class Scaffold:
    """What a training session needs besides the model: init, ready and local-init ops, the
    summary op and the Saver; ``finalize`` fills in every one not given with TF's default
    (or the one in its graph collection)."""

    def __init__(
        self,
        init_op: Any = None,
        init_feed_dict: Any = None,
        init_fn: Any = None,
        ready_op: Any = None,
        ready_for_local_init_op: Any = None,
        local_init_op: Any = None,
        summary_op: Any = None,
        saver: Any = None,
        copy_from_scaffold: Any = None,
        local_init_feed_dict: Any = None,
    ) -> None:
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            c = copy_from_scaffold

            def coalesce(a: Any, b: Any) -> Any:
                return a if a is not None else b

            init_op = coalesce(init_op, c.init_op)
            init_feed_dict = coalesce(init_feed_dict, c.init_feed_dict)
            init_fn = coalesce(init_fn, c._user_init_fn)
            ready_op = coalesce(ready_op, c.ready_op)
            ready_for_local_init_op = coalesce(ready_for_local_init_op, c.ready_for_local_init_op)
            local_init_op = coalesce(local_init_op, c.local_init_op)
            local_init_feed_dict = coalesce(local_init_feed_dict, c.local_init_feed_dict)
            summary_op = coalesce(summary_op, c.summary_op)
            saver = coalesce(saver, c.saver)
        self._user_init_fn: Any = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self) -> Scaffold:
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", GraphKeys.INIT_OP, lambda: group(global_variables_initializer())
            )
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", GraphKeys.READY_OP, lambda: ReadyCheck(local=True)
            )
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op",
                "ready_for_local_init_op",
                lambda: ReadyCheck(local=False),
            )
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op
            )
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default(
                "summary_op", GraphKeys.SUMMARY_OP, merge_all
            )
        if self._saver is None:
            self._saver = _get_saver_or_default()
        get_default_graph().finalize()
        logging.info("Graph was finalized.")
        return self

    @property
    def init_fn(self) -> Any:
        return self._init_fn

    @property
    def init_op(self) -> Any:
        return self._init_op

    @property
    def ready_op(self) -> Any:
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Any:
        return self._ready_for_local_init_op

    @property
    def local_init_op(self) -> Any:
        return self._local_init_op

    @property
    def local_init_feed_dict(self) -> Any:
        return self._local_init_feed_dict

    @property
    def summary_op(self) -> Any:
        return self._summary_op

    @property
    def saver(self) -> Any:
        return self._saver

    @property
    def init_feed_dict(self) -> Any:
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name: str, collection_key: str, default_constructor: Any) -> Any:
        elements = get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(
                    f'More than one item in the collection "{collection_key}". Please indicate '
                    "which one to use by passing it to the tf.Scaffold constructor as:  "
                    f"tf.Scaffold({arg_name}=item to use)"
                )
            return elements[0]
        op = default_constructor()
        if op is not None:
            add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op() -> Any:
        return group(local_variables_initializer())


def _get_saver_or_default() -> Any:
    savers = get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(
                f"More than one item in collection {GraphKeys.SAVERS}. Please indicate which "
                "one to use by passing it to the constructor."
            )
        return savers[0]
    saver = Saver(sharded=True, allow_empty=True)
    add_to_collection(GraphKeys.SAVERS, saver)
    return saver


def _maybe_name(obj: Any) -> Any:
    if obj is None:
        return None
    return getattr(obj, "name", obj)


def _not_ready(ready: Any, session: Any) -> list[str]:
    """The names ``ready`` reports (TF's ``session_manager._ready``: a None, int32 or empty
    value means ready; a FailedPreconditionError about an uninitialized value means not)."""
    if ready is None:
        return []
    if isinstance(ready, ReadyCheck):
        return ready.check(session)
    try:
        value = session.run(ready)
    except FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            logging.warning("Model not ready raised: %s", str(e))
            raise
        return [str(e)]
    if value is None or np.asarray(value).dtype == np.int32 or np.asarray(value).size == 0:
        return []
    return [v.decode() if isinstance(v, bytes) else str(v) for v in np.asarray(value).reshape(-1)]


class SessionCreator:
    """Makes a ``tf.compat.v1.Session``."""

    def create_session(self) -> Any:
        raise NotImplementedError(f"create_session is not implemented for {self}.")


class ChiefSessionCreator(SessionCreator):
    """Makes a session ready to train: restored from a checkpoint or initialized."""

    def __init__(
        self,
        scaffold: Scaffold | None = None,
        master: str = "",
        config: Any = None,
        checkpoint_dir: str | None = None,
        checkpoint_filename_with_path: str | None = None,
    ) -> None:
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config

    def create_session(self) -> Any:
        s = self._scaffold.finalize()
        sess = Session(self._master, graph=get_default_graph(), config=self._config)
        restored = self._restore_checkpoint(sess, s.saver)
        if not restored:
            if s.init_op is None and not s.init_fn and s.local_init_op is None:
                raise RuntimeError(
                    "Model is not initialized and no init_op or init_fn or local_init_op was given"
                )
            if s.init_op is not None:
                sess.run(s.init_op, feed_dict=s.init_feed_dict)
            if s.init_fn:
                s.init_fn(sess)
        missing = _not_ready(s.ready_for_local_init_op, sess)
        if missing:
            raise RuntimeError(
                "Init operations did not make model ready for local_init.  Init op: "
                f"{_maybe_name(s.init_op)}, init fn: {s.init_fn}, error: Variables not "
                f"initialized: {', '.join(missing)}"
            )
        if s.local_init_op is not None:
            logging.info("Running local_init_op.")
            sess.run(s.local_init_op, feed_dict=s.local_init_feed_dict)
            logging.info("Done running local_init_op.")
        missing = _not_ready(s.ready_op, sess)
        if missing:
            raise RuntimeError(
                f"Init operations did not make model ready.  Init op: {_maybe_name(s.init_op)}, "
                f"init fn: {s.init_fn}, local_init_op: {s.local_init_op}, error: Variables "
                f"not initialized: {', '.join(missing)}"
            )
        return sess

    def _restore_checkpoint(self, sess: Any, saver: Any) -> bool:
        if self._checkpoint_filename_with_path:
            _restore(saver, sess, self._checkpoint_filename_with_path)
            return True
        if not self._checkpoint_dir:
            return False
        state = fmt.read_state(self._checkpoint_dir)
        if state is None or not fmt.exists(state[0]):
            return False
        _restore(saver, sess, state[0])
        saver.recover_last_checkpoints(state[1])
        return True


def _restore(saver: Any, sess: Any, path: str) -> None:
    logging.info("Restoring parameters from %s", path)
    saver.restore(sess, path)


class _Coordinator:
    """What hooks are handed as ``coord``: a stop flag and a recorded exception."""

    def __init__(self) -> None:
        self._stop = False
        self._exc: BaseException | None = None

    def request_stop(self, ex: BaseException | None = None) -> None:
        if ex is not None and self._exc is None:
            self._exc = ex
        self._stop = True

    def should_stop(self) -> bool:
        return self._stop

    def raise_requested_exception(self) -> None:
        if self._exc is not None:
            raise self._exc

    def join(
        self,
        threads: Any = None,
        stop_grace_period_secs: float = 120,
        ignore_live_threads: bool = False,
    ) -> None:
        pass


class _HookedSession:
    """A session whose ``run`` calls the hooks around it and merges what they ask for."""

    def __init__(self, sess: Any, hooks: list[Any]) -> None:
        self._sess = sess
        self._hooks = hooks
        self._should_stop = False

    @property
    def graph(self) -> Any:
        return self._sess.graph

    def should_stop(self) -> bool:
        return self._should_stop or self._sess is None

    def close(self) -> None:
        if self._sess is not None:
            try:
                self._sess.close()
            finally:
                self._sess = None

    def run(
        self, fetches: Any, feed_dict: Any = None, options: Any = None, run_metadata: Any = None
    ) -> Any:
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches: dict[Any, Any] = {"caller": fetches}
        run_context = SessionRunContext(
            original_args=SessionRunArgs(fetches, feed_dict), session=self._sess
        )
        options = options or RunOptions()
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict)
        run_metadata = run_metadata or RunMetadata()
        outputs = self._sess.run(
            actual_fetches,
            feed_dict=feed_dict,
            options=options,
            run_metadata=run_metadata,
        )
        for hook in self._hooks:
            hook.after_run(
                run_context,
                SessionRunValues(
                    results=outputs.get(hook), options=options, run_metadata=run_metadata
                ),
            )
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(
        self, run_context: Any, fetch_dict: dict[Any, Any], user_feed_dict: Any
    ) -> Any:
        hook_feeds: dict[Any, Any] = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is not None:
                if request.fetches is not None:
                    fetch_dict[hook] = request.fetches
                if request.feed_dict:
                    _raise_if_feeds_intersect(
                        hook_feeds, request.feed_dict, "Same tensor is fed by two hooks."
                    )
                    hook_feeds.update(request.feed_dict)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(
            user_feed_dict, hook_feeds, "Same tensor is fed by a SessionRunHook and user."
        )
        hook_feeds.update(user_feed_dict)
        return hook_feeds


def _raise_if_feeds_intersect(feeds1: Any, feeds2: Any, message: str) -> None:
    intersection = set(feeds1.keys()) & set(feeds2.keys())
    if intersection:
        raise RuntimeError(message + " Conflict(s): " + str(list(intersection)))


class _StepContext:
    """What ``run_step_fn``'s ``step_fn`` is given."""

    def __init__(self, session: Any, run_with_hooks_fn: Any) -> None:
        self._session = session
        self._run_with_hooks_fn = run_with_hooks_fn

    @property
    def session(self) -> Any:
        return self._session

    def run_with_hooks(self, *args: Any, **kwargs: Any) -> Any:
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self) -> None:
        raise StopIteration("step_fn has requested the iterations to stop.")


class _MonitoredSession:
    StepContext = _StepContext

    def __init__(
        self,
        session_creator: Any,
        hooks: Any,
        should_recover: bool,
        stop_grace_period_secs: float = 120,
    ) -> None:
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        creator = session_creator or ChiefSessionCreator()
        self._raw: Any = creator.create_session()
        self._coord = _Coordinator()
        for h in self._hooks:
            h.after_create_session(self._raw, self._coord)
        self._sess: _HookedSession | None = _HookedSession(self._raw, self._hooks)

    @property
    def graph(self) -> Any:
        return None if self._raw is None else self._raw.graph

    def run(
        self, fetches: Any, feed_dict: Any = None, options: Any = None, run_metadata: Any = None
    ) -> Any:
        if self._sess is None:
            raise RuntimeError("Run called even after should_stop requested.")
        try:
            return self._sess.run(
                fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata
            )
        except Exception:
            self._coord.raise_requested_exception()
            raise

    def run_step_fn(self, step_fn: Any) -> Any:
        args = tuple(inspect.signature(step_fn).parameters)
        if inspect.ismethod(step_fn):
            args = ("self", *args)
        if args != ("step_context",) and args != ("self", "step_context"):
            raise ValueError(
                "`step_fn` may either have one `step_context` argument, or `self` and "
                f"`step_context` arguments if it's an instance method. Got {args} instead."
            )
        return step_fn(_StepContext(self._raw, self.run))

    def should_stop(self) -> bool:
        return self._sess is None or self._sess.should_stop() or self._coord.should_stop()

    def close(self) -> None:
        self._close_internal()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, exception_type: Any, exception_value: Any, traceback: Any) -> bool:
        if exception_type is not None and issubclass(
            exception_type, OutOfRangeError | StopIteration
        ):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None

    def _close_internal(self, exception_type: Any = None) -> None:
        try:
            if not exception_type:
                for h in self._hooks:
                    h.end(self._raw)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._coord.request_stop()
                self._sess.close()
            finally:
                self._sess = None
                self._raw = None

    def _tf_sess(self) -> Any:
        return self._raw


class MonitoredSession(_MonitoredSession):
    """A session that calls hooks around each run, made ready by ``session_creator``."""

    def __init__(
        self, session_creator: Any = None, hooks: Any = None, stop_grace_period_secs: float = 120
    ) -> None:
        super().__init__(session_creator, hooks, True, stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A MonitoredSession for one process, with ``raw_session()``."""

    def __init__(
        self,
        hooks: Any = None,
        scaffold: Any = None,
        master: str = "",
        config: Any = None,
        checkpoint_dir: str | None = None,
        stop_grace_period_secs: float = 120,
        checkpoint_filename_with_path: str | None = None,
    ) -> None:
        creator = ChiefSessionCreator(
            scaffold=scaffold,
            master=master,
            config=config,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
        )
        super().__init__(creator, hooks, False, stop_grace_period_secs)

    def raw_session(self) -> Any:
        return self._raw


def MonitoredTrainingSession(
    master: str = "",
    is_chief: bool = True,
    checkpoint_dir: str | None = None,
    scaffold: Any = None,
    hooks: Any = None,
    chief_only_hooks: Any = None,
    save_checkpoint_secs: Any = USE_DEFAULT,
    save_summaries_steps: Any = USE_DEFAULT,
    save_summaries_secs: Any = USE_DEFAULT,
    config: Any = None,
    stop_grace_period_secs: float = 120,
    log_step_count_steps: int = 100,
    max_wait_secs: float = 7200,
    save_checkpoint_steps: Any = USE_DEFAULT,
    summary_dir: str | None = None,
    save_graph_def: bool = True,
) -> MonitoredSession:
    """A MonitoredSession for training: restores from or initializes, and (for the chief)
    saves checkpoints every 600 seconds and summaries every 100 steps unless told
    otherwise, and logs the global steps per second every ``log_step_count_steps``."""
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    if not is_chief:
        raise NotImplementedError(
            "MonitoredTrainingSession(is_chief=False): symgrad runs one process, there is no "
            "chief to wait for"
        )
    all_hooks: list[Any] = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(
        scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config
    )
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(
                basic_hooks.StepCounterHook(
                    output_dir=summary_dir, every_n_steps=log_step_count_steps
                )
            )
        if (save_summaries_steps and save_summaries_steps > 0) or (
            save_summaries_secs and save_summaries_secs > 0
        ):
            all_hooks.append(
                basic_hooks.SummarySaverHook(
                    scaffold=scaffold,
                    save_steps=save_summaries_steps,
                    save_secs=save_summaries_secs,
                    output_dir=summary_dir,
                )
            )
    if checkpoint_dir and (
        (save_checkpoint_secs and save_checkpoint_secs > 0)
        or (save_checkpoint_steps and save_checkpoint_steps > 0)
    ):
        all_hooks.append(
            basic_hooks.CheckpointSaverHook(
                checkpoint_dir,
                save_steps=save_checkpoint_steps,
                save_secs=save_checkpoint_secs,
                scaffold=scaffold,
                save_graph_def=save_graph_def,
            )
        )
    all_hooks.extend(hooks or [])
    return MonitoredSession(
        session_creator=creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs
    )


__all__ = [
    "ChiefSessionCreator",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "Scaffold",
    "SessionCreator",
    "SingularMonitoredSession",
]
