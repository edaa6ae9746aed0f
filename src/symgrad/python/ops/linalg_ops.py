"""``tensorflow.python.ops.linalg_ops``: TF1 names of the linear-algebra ops (the rest of the
module's names resolve to symgrad's top level)."""

from symgrad.ops.linalg.solve import det as matrix_determinant  # noqa: F401
from symgrad.ops.linalg.solve import inv as matrix_inverse  # noqa: F401
