"""``tensorflow.python.ops.cond``: where TF 2 defines ``tf.cond``."""

from symgrad.control_flow.cond import cond as cond
