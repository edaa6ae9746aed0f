"""``tf.summary.experimental``: the default step, ``summary_scope`` and ``write_raw_pb``."""

from __future__ import annotations

from typing import Any

from symgrad.summary.writer import get_step, set_step, summary_scope, write_value


def write_raw_pb(tensor: Any, step: Any = None, name: Any = None) -> Any:
    """Write the values of serialized ``Summary`` messages (``tensor``: bytes, or an array
    or string tensor of them) at ``step``, as TF1 programs built them by hand."""
    return write_value("", tensor, step, b"", raw=True)


__all__ = ["get_step", "set_step", "summary_scope", "write_raw_pb"]
