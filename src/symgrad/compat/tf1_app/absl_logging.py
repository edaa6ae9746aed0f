"""absl's logging handler, as ``tf.compat.v1.app.run`` installs it (absl's ``app.run``
calls ``use_absl_handler``): a handler on the root logger that prints each record again
in absl's format, ``I1129 07:01:40.869299 140616015223680 prog.py:14] message``, to
stderr.  So after ``app.run`` a TF log line prints twice, once by the "tensorflow"
logger's own handler and once by this one, as in TF; and the ``--verbosity`` flag (absl's
-1 warning, 0 info, 1 debug; ``app.run`` sets 0 when not given) becomes the root logger's
level.  A record at CRITICAL not made by absl prints as an error with "CRITICAL - "
(TF's ``logging.fatal``)."""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import Any

VERBOSITY_HELP = (
    "Logging verbosity level. Messages logged at this level or lower will be included. "
    "Set to 1 for debug logging. If the flag was not set or supplied, the value will be "
    "changed from the default of -1 (warning) to 0 (info) after flags are parsed."
)
THRESHOLD_HELP = (
    "log messages at this level, or more severe, to stderr in addition to the logfile.  "
    "Possible values are 'debug', 'info', 'warning', 'error', and 'fatal'.  Obsoletes "
    "--alsologtostderr. Using --alsologtostderr cancels the effect of this flag. Please "
    "also note that this flag is subject to --verbosity and requires logfile not be stderr."
)
SHOWPREFIX_HELP = (
    "If False, do not prepend prefix to info messages when it's logged to stderr, "
    "--verbosity is set to INFO level, and python logging is used."
)
_ABSL_TO_STANDARD = {-3: logging.CRITICAL, -2: logging.ERROR, -1: logging.WARNING, 0: 20, 1: 10}
_THREAD_ID_MASK = 2 * sys.maxsize + 1


def standard_level(verbosity: int) -> int:
    """Python's level for absl's verbosity (2, 3 ... are finer than DEBUG)."""
    if verbosity <= 1:
        return _ABSL_TO_STANDARD[max(verbosity, -3)]
    return logging.DEBUG - (verbosity - 1)


def _prefix(record: logging.LogRecord) -> str:
    level, critical = record.levelno, ""
    if level >= logging.FATAL:  # not absl's own fatal: printed as an error
        level, critical = logging.ERROR, "CRITICAL - "
    initial = "I" if level < 30 else "W" if level < 40 else "E" if level < 50 else "F"
    t = time.localtime(record.created)
    micros = int(record.created % 1.0 * 1e6)
    thread = threading.get_ident() & _THREAD_ID_MASK
    return "%c%02d%02d %02d:%02d:%02d.%06d %5d %s:%d] %s" % (  # noqa: UP031  (absl's)
        initial,
        t.tm_mon,
        t.tm_mday,
        t.tm_hour,
        t.tm_min,
        t.tm_sec,
        micros,
        thread,
        record.filename,
        record.lineno,
        critical,
    )


class AbslHandler(logging.Handler):
    """absl's root handler: each record, with absl's prefix, to the current stderr."""

    warned = False

    def emit(self, record: logging.LogRecord) -> None:
        from symgrad.compat.tf1_app.flags import FLAGS

        fv = FLAGS.__dict__["__wrapped"]
        if not fv.is_parsed() and not AbslHandler.warned:
            sys.stderr.write("WARNING: Logging before flag parsing goes to stderr.\n")
            AbslHandler.warned = True
        bare = (
            fv.is_parsed()
            and not fv["showprefixforinfo"].value
            and fv["verbosity"].value == 0
            and record.levelno == logging.INFO
        )
        try:
            text = ("" if bare else _prefix(record)) + logging.Formatter().format(record)
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


HANDLER = AbslHandler()


def installed() -> bool:
    return HANDLER in logging.root.handlers


def install(verbosity: Any) -> None:
    """Adds the handler to the root logger (once) and sets the root's level."""
    if not installed():
        logging.root.addHandler(HANDLER)
        update_levels(verbosity)


def update_levels(verbosity: Any) -> None:
    """``--verbosity`` as the root's level, once the handler is installed (before, absl
    sets its own logger's level, which symgrad does not have)."""
    if installed() and isinstance(verbosity, int):
        logging.root.setLevel(standard_level(verbosity))
