"""``tensorflow.python.ops.math_ops``: the ``tf.math`` names TF's tests import from it, and
the internal spellings of two (the rest resolve to symgrad's top level)."""

from symgrad.api.math import divide_no_nan as div_no_nan  # noqa: F401
from symgrad.api.math import multiply_no_nan as mul_no_nan  # noqa: F401
from symgrad.api.math import (  # noqa: F401
    nextafter,
    reduce_euclidean_norm,
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    xdivy,
    xlog1py,
    xlogy,
)

# The internal names of Add and Mul that TF's eager tests call (issue 17, point 7).
from symgrad.ops.math.elementwise import add as add_v2  # noqa: F401
from symgrad.ops.math.elementwise import multiply as _mul_dispatch  # noqa: F401
from symgrad.ops.math.elementwise import multiply as mul  # noqa: F401
from symgrad.ops.sparse.indexed_slices import as_indexed_slices as _as_indexed_slices  # noqa: F401
