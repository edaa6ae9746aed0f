"""Run a program on the eager fast path and on the general path, to compare them."""

from collections.abc import Callable
from typing import Any

import symgrad as tf
from symgrad.core import op_registry


def on_both_paths(program: Callable[[], Any]) -> list[Any]:
    """``program()`` on the eager fast path and on the general path (an installed output
    check turns the fast path off), each in a fresh graph."""
    results = []
    for check in (None, lambda op, outputs, inputs, mode: None):
        tf.compat.v1.reset_default_graph()
        op_registry.set_output_check(check)
        try:
            results.append(program())
        finally:
            op_registry.set_output_check(None)
    tf.compat.v1.reset_default_graph()
    return results
