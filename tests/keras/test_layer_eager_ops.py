"""A Keras layer called eagerly makes the ops the general path makes: the eager fast
path reads a layer's weight (a Keras variable) as an operand, cast under a mixed
precision policy, with the names, inputs and user's lines recorded from the general
path (before the fast path took Keras variables)."""

from __future__ import annotations

import sys
from typing import Any

import symgrad as tf


def _describe(t: Any, line: int, depth: int = 3) -> list[Any]:
    """(type, name, traceback line relative to ``line``, input names) of t's op and of
    its inputs' ops, depth first."""
    op = t.op
    out = [(op.type, op.name, op.traceback[1] - line, [i.name for i in op.inputs])]
    if depth:
        for i in op.inputs:
            out += _describe(i, line, depth - 1)
    return out


def test_dense_weights_read_as_operands_as_the_general_path_reads_them() -> None:
    tf.compat.v1.reset_default_graph()
    dense = tf.keras.layers.Dense(3, activation="relu")
    x, x_line = tf.constant([[1.0, 2.0]]), sys._getframe().f_lineno
    dense(x)
    y, line = dense(x), sys._getframe().f_lineno
    assert _describe(y, line) == [
        ("Relu", "Relu_1", 0, ["Add_1:0"]),
        ("AddV2", "Add_1", 0, ["MatMul_1:0", "ReadVariableOp_3:0"]),
        ("MatMul", "MatMul_1", 0, ["Const:0", "ReadVariableOp_2:0"]),
        ("Const", "Const", x_line - line, []),
        ("ReadVariableOp", "ReadVariableOp_2", 0, []),
        ("ReadVariableOp", "ReadVariableOp_3", 0, []),
    ]
    tf.keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        half = tf.keras.layers.Dense(2)
        half(x)
        z, line = half(x), sys._getframe().f_lineno
    finally:
        tf.keras.mixed_precision.set_global_policy("float32")
    assert z.dtype.name == "float16"
    assert _describe(z, line) == [
        ("AddV2", "Add_3", 0, ["MatMul_3:0", "Cast_5:0"]),
        ("MatMul", "MatMul_3", 0, ["Cast_3:0", "Cast_4:0"]),
        ("Cast", "Cast_3", 0, ["Const:0"]),
        ("Const", "Const", x_line - line, []),
        ("Cast", "Cast_4", 0, ["ReadVariableOp_6:0"]),
        ("ReadVariableOp", "ReadVariableOp_6", 0, []),
        ("Cast", "Cast_5", 0, ["ReadVariableOp_7:0"]),
        ("ReadVariableOp", "ReadVariableOp_7", 0, []),
    ]
