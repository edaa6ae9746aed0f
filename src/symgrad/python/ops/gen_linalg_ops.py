"""``tensorflow.python.ops.gen_linalg_ops``: the generated op wrappers TF's tests call."""

from symgrad.ops.linalg.solve import slogdet as log_matrix_determinant  # noqa: F401
