"""``tensorflow.python.framework.indexed_slices``: the class TF's tests import from it."""

from symgrad.ops.sparse.indexed_slices import IndexedSlices  # noqa: F401
