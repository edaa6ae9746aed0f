"""``SessionRunHook`` and the three records a hook sees, as TF's ``session_run_hook.py``."""

from __future__ import annotations

import collections
from typing import Any


class SessionRunHook:
    """Hook to extend calls to ``MonitoredSession.run()``.

    Called in this order: ``begin`` (when the MonitoredSession is made, before the graph is
    finalized), ``after_create_session`` (the session exists, before the first run), then
    around each run ``before_run`` and ``after_run``, and ``end`` when the session closes
    without an error (an OutOfRangeError or StopIteration ending the loop counts as none).
    """

    def begin(self) -> None:
        pass

    def after_create_session(self, session: Any, coord: Any) -> None:
        pass

    def before_run(self, run_context: Any) -> Any:
        return None

    def after_run(self, run_context: Any, run_values: Any) -> None:
        pass

    def end(self, session: Any) -> None:
        pass


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a ``Session.run()`` call: fetches, feeds and options."""

    def __new__(cls, fetches: Any, feed_dict: Any = None, options: Any = None) -> SessionRunArgs:
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """The run a hook is called around: its original arguments and session, and the
    hook's way to ask the loop to stop."""

    def __init__(self, original_args: SessionRunArgs, session: Any) -> None:
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs:
        return self._original_args

    @property
    def session(self) -> Any:
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        self._stop_requested = True


class SessionRunValues(
    collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])
):
    """The results of the fetches a hook asked for in ``before_run``."""
