"""``tensorflow.python.ops.logging_ops``: ``print_v2`` is ``tf.print``."""

from symgrad.ops.debug.printing import print_v2  # noqa: F401
