"""symgrad's event files hold what TensorFlow 2.21's hold for the same programs
(``programs.py``; TF's files were described by ``record_tf.py`` into ``tf_files.py``): the
same files, events, steps, tags, values, histogram buckets, decoded image pixels and plugin
metadata.  conformance/test_summary.py runs the programs on both libraries and reads
symgrad's files with TensorFlow's and TensorBoard's readers."""

from __future__ import annotations

from typing import Any

import pytest

import symgrad as tf
from tests.summary.describe import assert_same, describe, without_graphs
from tests.summary.summary_programs import PROGRAMS
from tests.summary.tf_files import FILES


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_files_hold_what_tensorflow_writes(program: Any, tmp_path: Any) -> None:
    # A fresh top level: its name counters make a scope entered before (by another test)
    # unique, and the tags under it would read "outer_1/inner" (docs/semantics.md).
    tf.compat.v1.reset_default_graph()
    program(tf, str(tmp_path))
    assert_same(describe(tmp_path), without_graphs(FILES[program.__name__]), program.__name__)
