"""``tensorflow.python.ops.cond``: where TF 2 defines ``tf.cond``."""

from symgrad.ops.cond import cond as cond
