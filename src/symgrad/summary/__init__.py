"""``tf.summary``: TensorBoard summaries written to event files, in Python.

TF2's API (``create_file_writer``, ``scalar``/``histogram``/``image``/``text``/``write``,
``record_if``, ``experimental.set_step``) is here; TF1's (``merge_all``, ``FileWriter``)
is ``symgrad.summary.v1``, reached as ``tf.compat.v1.summary``.  The files are TF's: the
same records, messages, tags, steps, values and plugin metadata, which TensorBoard and
``tf.compat.v1.train.summary_iterator`` read.
"""

from __future__ import annotations

from symgrad.summary import experimental
from symgrad.summary.summary_v2 import histogram, image, scalar, text
from symgrad.summary.writer import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
    record_if,
    should_record_summaries,
    write,
)

__all__ = [
    "SummaryWriter",
    "create_file_writer",
    "create_noop_writer",
    "experimental",
    "flush",
    "histogram",
    "image",
    "record_if",
    "scalar",
    "should_record_summaries",
    "text",
    "write",
]
