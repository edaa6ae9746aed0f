"""``tensorflow.python.ops.random_ops``: TF's tests draw their inputs with these names."""

from symgrad.ops.random import (  # noqa: F401
    random_normal,
    random_uniform,
    truncated_normal,
)
