"""Running a function once per replica, as TF's ``mirrored_run`` does.

Each replica runs ``fn`` on its own thread, inside ``tf.device(its device)`` and with its
own :class:`ReplicaContext`.  The threads take turns (one runs at a time, in replica
order), so the run is deterministic and symgrad's eager state is never touched by two
threads at once.  A replica that calls ``merge_call`` (``all_reduce`` does, and so does an
optimizer's ``apply_gradients``) pauses there; once every replica has paused, the caller's
thread runs the first replica's merge function once, on the values of all replicas
gathered as ``PerReplica``, in cross-replica context, and hands each replica its part.

Inside a traced ``function`` the threads build their ops into the caller's graph, so the
traced step holds every replica's ops and the merge's (``AddN`` for an all-reduce).  A
``function`` given to ``strategy.run`` itself becomes such a step, as in TF: one function
whose body runs the Python function on every replica (each replica calling the function
would trace it on its own thread, holding its trace lock through a merge that waits for
the others).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from symgrad.core import context as symgrad_context
from symgrad.core.devices import device as device_scope
from symgrad.distribute import distribute_lib
from symgrad.distribute.values import regroup, select_replica


class _Abort(Exception):
    """Raised in a paused replica when another replica failed."""


class _ReplicaThread(threading.Thread):
    def __init__(self, strategy: Any, index: int, fn: Callable[..., Any], args: Any) -> None:
        super().__init__(name=f"replica_{index}", daemon=True)
        self.strategy, self.index, self.fn, self.call_args = strategy, index, fn, args
        self.graphs = list(symgrad_context.current.graphs)  # the caller's graph stack
        self.should_run, self.has_paused = threading.Event(), threading.Event()
        self.done, self.result, self.abort = False, None, False
        self.error: BaseException | None = None
        self.merge_fn: Any = None
        self.merge_args: Any = None
        self.merge_result: Any = None

    def run(self) -> None:
        self.should_run.wait()
        self.should_run.clear()
        try:
            symgrad_context.current.graphs = self.graphs
            ctx = distribute_lib.ReplicaContext(self.strategy, self.index)
            ctx._thread = self
            distribute_lib.local.replica = ctx
            args, kwargs = self.call_args
            with device_scope(self.strategy.extended.worker_devices[self.index]):
                self.result = self.fn(*args, **kwargs)
        except BaseException as e:  # handed to the caller's thread
            self.error = e
        finally:
            self.done = True
            self.has_paused.set()

    def merge_call(self, merge_fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        """Pause until the caller's thread has run the merge; return this replica's part."""
        self.merge_fn, self.merge_args = merge_fn, (args, kwargs)
        self.has_paused.set()
        self.should_run.wait()
        self.should_run.clear()
        if self.abort:
            raise _Abort()
        return self.merge_result


def call_for_each_replica(strategy: Any, fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` on each replica (each its part of a PerReplica argument)."""
    from symgrad.runtime.function import Function

    if isinstance(fn, Function):
        step = _for_each_replica(strategy, fn)
        on = strategy._devices()
        if len(on) == 1:  # one replica: its call in its device's block, as TF's (which
            with device_scope(on[0]):  # places a compiled step there: runtime/xla/placement)
                return step(*args, **kwargs)
        return step(*args, **kwargs)
    n = len(strategy._devices())
    threads = [_ReplicaThread(strategy, i, fn, select_replica(i, (args, kwargs))) for i in range(n)]
    for t in threads:
        t.start()
    try:
        _drive(strategy, threads)
    finally:
        for t in threads:
            t.join()
    return regroup([t.result for t in threads])


def _for_each_replica(strategy: Any, fn: Any) -> Any:
    """``fn`` (a ``function``) as a function running ``fn.python_function`` on every replica
    of ``strategy``; made once per (strategy, fn), so its traces are kept.  The strategy
    holds them (a module-level map keyed by the strategy would keep it alive through the
    step's closure)."""
    from symgrad.runtime.function import Function

    made = strategy.__dict__.setdefault("_replica_steps", weakref.WeakKeyDictionary())
    step = made.get(fn)
    if step is None:
        python_function = fn.python_function

        def replicas(*args: Any, **kwargs: Any) -> Any:
            return call_for_each_replica(strategy, python_function, args, kwargs)

        step = made[fn] = Function(replicas, None, fn._name, fn.autograph, fn.jit_compile)
    return step


def _turn(threads: list[_ReplicaThread]) -> None:
    for t in threads:
        if not t.done:
            t.should_run.set()
            t.has_paused.wait()
            t.has_paused.clear()


def _drive(strategy: Any, threads: list[_ReplicaThread]) -> None:
    _turn(threads)
    while True:
        failed = next((t.error for t in threads if t.error is not None), None)
        if failed is not None:
            _abort(threads)
            raise failed
        paused = [t for t in threads if not t.done]
        if not paused:
            return
        if len(paused) != len(threads):
            _abort(threads)
            raise RuntimeError(
                "Some replicas made a different number of replica_context().merge_call() "
                "calls (all_reduce, apply_gradients) than others: every replica must make "
                "the same calls"
            )
        try:
            _merge(strategy, threads)
        except BaseException:
            _abort(threads)
            raise
        _turn(threads)


def _merge(strategy: Any, threads: list[_ReplicaThread]) -> None:
    grouped_args, grouped_kwargs = regroup([t.merge_args for t in threads])
    with distribute_lib.cross_replica(strategy):
        result = threads[0].merge_fn(strategy, *grouped_args, **(grouped_kwargs or {}))
    for t in threads:
        t.merge_result = select_replica(t.index, result)


def _abort(threads: list[_ReplicaThread]) -> None:
    for t in threads:
        if not t.done:
            t.abort = True
            t.should_run.set()
            t.has_paused.wait()
