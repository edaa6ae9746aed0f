"""``tensorflow.python.ops.array_ops``: names only TF's internals export (the rest of the
module's names resolve to symgrad's top level)."""

from symgrad.ops.array.shape import squeeze as squeeze_v2  # noqa: F401
from symgrad.ops.linalg.tensor_diag import tensor_diag as diag  # noqa: F401
