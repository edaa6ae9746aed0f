"""Every registered op type has a row in an op table (or a stated reason it cannot)."""

import importlib

from symgrad.op_registry import BUILTIN_OPS

TABLES = ["ops.test_math_table", "ops.test_array_table", "ops.test_reduction_table",
          "ops.test_nn_table"]

# Op types that a row cannot exercise, and the tests that cover them instead.
EXEMPT = {
    "Const": "every row's inputs are Consts",
    "Placeholder": "every shape-rule check feeds placeholders",
    "ReadVariableOp": "tests/runtime/test_session.py and test_gradients.py (variables)",
    "AssignVariableOp": "tests/runtime/test_session.py (assign, assign_add, assign_sub)",
    "NoOp": "tests/runtime/test_session.py (initializers and group)",
    "CustomGradient": "tests/autodiff/test_custom_gradient.py (carries a Python grad_fn)",
    "PartitionedCall": "tests/runtime/test_function.py (carries a traced function)",
}


def test_every_registered_op_has_a_table_row():
    covered = set()
    for name in TABLES:
        covered |= {case.op_type for case in importlib.import_module(name).CASES}
    missing = sorted(set(BUILTIN_OPS) - covered - set(EXEMPT))
    assert not missing, f"op types without an op-table row: {missing}"
    assert not set(EXEMPT) & covered, "an exempt op has a row: drop it from EXEMPT"
    assert set(EXEMPT) <= set(BUILTIN_OPS)
