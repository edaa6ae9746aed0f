"""``tensorflow.python.ops.state_ops``: TF1's variable updates, for TF's own tests."""

from symgrad.ops.state.variables import assign, assign_add, assign_sub  # noqa: F401
