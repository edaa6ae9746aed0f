"""``tf.compat.v1.logging`` and ``tf.get_logger``: TF's logging functions, as TF 2.21's
``tf_logging``.

TF logs through Python's ``logging`` with the logger named "tensorflow" (absl is not
involved until ``app.run`` installs its handler on the root logger, see
:mod:`symgrad.compat.tf1_app.absl_logging`).  The first ``get_logger()`` configures it as TF
does: when the root logger has no handler, the "tensorflow" logger gets its own stream
handler with ``logging.BASIC_FORMAT``, so ``warning("x")`` prints ``WARNING:tensorflow:x``
to stderr (to stdout and at INFO in an interactive session).  The level is the logger's
own, so ``get_verbosity()`` is the root's WARNING (30) until ``set_verbosity`` is called.
``fatal`` logs at CRITICAL and returns (TF's does not exit), ``flush`` raises
NotImplementedError, and ``log_every_n``/``log_first_n`` count per caller location found
as TF finds it (the first frame outside the file that called them).
"""

from __future__ import annotations

import logging as _logging
import sys as _sys
import threading as _threading
from logging import DEBUG, ERROR, FATAL, INFO, WARN
from types import CodeType, FrameType
from typing import Any

__all__ = [
    "DEBUG",
    "ERROR",
    "FATAL",
    "INFO",
    "WARN",
    "TaskLevelStatusMessage",
    "debug",
    "error",
    "fatal",
    "flush",
    "get_verbosity",
    "info",
    "log",
    "log_every_n",
    "log_first_n",
    "log_if",
    "set_verbosity",
    "vlog",
    "warn",
    "warning",
]

_logger: _logging.Logger | None = None
_logger_lock = _threading.Lock()
_counts: dict[tuple[str, int], int] = {}


def _get_caller(offset: int = 3) -> tuple[CodeType | None, FrameType | None]:
    """The first frame, from ``offset`` frames up, whose file is not that frame's file
    (TF's ``_get_caller``: for a user's call through this module, the user's frame)."""
    f: FrameType | None = _sys._getframe(offset)
    assert f is not None
    our_file = f.f_code.co_filename
    f = f.f_back
    while f:
        if f.f_code.co_filename != our_file:
            return f.f_code, f
        f = f.f_back
    return None, None


def _find_caller(stack_info: bool = False, stacklevel: int = 1) -> tuple[str, int, str, Any]:
    """The logger's ``findCaller``, as TF replaces it: records name the caller of the
    logging function (frames: this, Logger._log, Logger.info, the function that called)."""
    import traceback

    code, frame = _get_caller(4)
    sinfo = "\n".join(traceback.format_stack()) if stack_info else None
    if code and frame:
        return code.co_filename, frame.f_lineno, code.co_name, sinfo
    return "(unknown file)", 0, "(unknown function)", sinfo


def get_logger() -> _logging.Logger:
    """The "tensorflow" logger, configured on first use as TF configures it."""
    global _logger
    if _logger:
        return _logger
    with _logger_lock:
        if _logger:
            return _logger
        logger = _logging.getLogger("tensorflow")
        logger.findCaller = _find_caller  # type: ignore[method-assign,assignment]
        if not _logging.getLogger().handlers:
            interactive = hasattr(_sys, "ps1") or bool(_sys.flags.interactive)
            if interactive:
                logger.setLevel(INFO)
            handler = _logging.StreamHandler(_sys.stdout if interactive else _sys.stderr)
            handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
            logger.addHandler(handler)
        _logger = logger
        return logger


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().debug(msg, *args, **kwargs)


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().error(msg, *args, **kwargs)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at CRITICAL (50) and returns: TF's ``fatal`` neither raises nor exits."""
    get_logger().fatal(msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().info(msg, *args, **kwargs)


def warn(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().warning(msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().warning(msg, *args, **kwargs)


def TaskLevelStatusMessage(msg: Any) -> None:
    """Logged as an error, as TF's."""
    error(msg)


def flush() -> None:
    """Raises NotImplementedError, as TF's (its logger has nothing to flush)."""
    raise NotImplementedError()


def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    """``log(level, ...)``: TF's vlog levels are the logging levels."""
    get_logger().log(level, msg, *args, **kwargs)


def _next_count(token: tuple[str, int]) -> int:
    _counts[token] = 1 + _counts.get(token, -1)
    return _counts[token]


def _file_and_line() -> tuple[str, int]:
    """The counting token of ``log_every_n``/``log_first_n``: TF's caller location (for a
    call from a script's top level, where no frame lies outside its file, the same
    ``('<unknown>', 0)`` for every call, as in TF)."""
    code, f = _get_caller()
    if not code or not f:
        return ("<unknown>", 0)
    return (code.co_filename, f.f_lineno)


def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs the 1st, (n+1)st, (2n+1)st ... call from the same location."""
    count = _next_count(_file_and_line())
    log_if(level, msg, not (count % n), *args)


def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs only the first ``n`` calls from the same location."""
    count = _next_count(_file_and_line())
    log_if(level, msg, count < n, *args)


def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    if condition:
        vlog(level, msg, *args)


def get_verbosity() -> int:
    """The logger's effective level (the root's, WARNING, until one is set)."""
    return get_logger().getEffectiveLevel()


def set_verbosity(v: int | str) -> None:
    """The "tensorflow" logger's level (a number or a level name, as ``Logger.setLevel``)."""
    get_logger().setLevel(v)
