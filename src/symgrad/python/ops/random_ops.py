"""``tensorflow.python.ops.random_ops``: TF's tests draw their inputs with these names."""

from symgrad.ops.random.seeded import random_normal, random_uniform, truncated_normal  # noqa: F401
