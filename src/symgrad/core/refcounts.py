"""Whether reference counts may decide that nothing else holds an object.

symgrad writes a result over an array in place (a plan step's dying input, a list's row
write, a variable's own update) and drops eager history (``history.release_history``) when
``sys.getrefcount`` says that only the running code holds the object.  The counts those
decisions compare with depend on how the interpreter holds locals, parameters and call
arguments: CPython 3.11 to 3.13 count one reference for each.  An interpreter that
borrows references (CPython 3.14's stack references) or is not CPython may count fewer,
and a count lower than the truth would write into a buffer a live read still holds.

So each site checks its own test at import, on probes in its exact calling pattern
(``calibrate``): an unshared probe must read as unshared and a probe with one more
holder as shared.  Where a site's probe fails, under a tracer or debugger
(``sys.gettrace()``, whose frames may hold locals), or when switched off
(``SYMGRAD_NO_REFCOUNT=1`` in the environment, or ``tf.config.set_refcount_checks
(False)``), ``trusted()`` is false: symgrad then copies instead of writing in place and
keeps eager history (correct, slower).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator

_gettrace = sys.gettrace
_enabled = os.environ.get("SYMGRAD_NO_REFCOUNT", "").strip() in ("", "0")
_failed: list[str] = []  # the sites whose probe failed, with what they read
_on = _enabled


def trusted() -> bool:
    """Whether a reference count may decide now (cheap: called on every in-place write)."""
    return _on and _gettrace() is None


def enabled() -> bool:
    """Whether the checks are on: switched on, and every site's probe passed."""
    return _on


def set_enabled(enabled: bool) -> None:
    """Switch the checks off (copy and keep history everywhere) or back on."""
    global _enabled, _on
    _enabled = bool(enabled)
    _on = _enabled and not _failed


def failures() -> list[str]:
    """What each failed probe read (empty where every site's probe passed)."""
    return list(_failed)


def calibrate(site: str, probe: Callable[[], str | None]) -> bool:
    """Run ``probe`` (which returns None, or what it read where that was wrong) with the
    checks on; turn them off for good if it fails.  Returns whether it passed."""
    global _on
    with _probing():
        try:
            wrong = probe()
        except Exception as e:  # an interpreter without sys.getrefcount, say
            wrong = f"{type(e).__name__}: {e}"
    if wrong is not None:
        _failed.append(f"{site}: {wrong}")
    _on = _enabled and not _failed
    return wrong is None


@contextlib.contextmanager
def _probing() -> Iterator[None]:
    global _on, _gettrace
    saved = _on, _gettrace
    _on, _gettrace = True, _no_trace
    try:
        yield
    finally:
        _on, _gettrace = saved


def _no_trace() -> None:
    return None


class _Probe:
    """An object with no references but the ones ``ref_bases`` makes."""


def ref_bases() -> tuple[int, int, int]:
    """What ``sys.getrefcount`` reads for an object held by one local variable; by one
    list entry and a loop variable; and by one local and one other holder (the patterns
    of ``release_history``)."""
    t = _Probe()
    single = sys.getrefcount(t)
    items = [_Probe()]
    listed = 0
    for o in items:
        listed = sys.getrefcount(o)
    other = [t]
    held = sys.getrefcount(t)
    del other
    return single, listed, held


def _check_bases() -> str | None:
    single, listed, held = ref_bases()
    # CPython 3.11-3.13: the local (or list entry and loop variable), and getrefcount's
    # own argument; a second holder adds one.
    if (single, listed, held) != (2, 3, 3):
        return f"getrefcount read {single}, {listed}, {held}, not 2, 3, 3"
    return None


calibrate("release_history", _check_bases)
LOCAL_REFS, LISTED_REFS, _ = ref_bases()
