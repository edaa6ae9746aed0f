"""``tensorflow.python.ops.embedding_ops``: ``embedding_lookup`` (``tf.nn.embedding_lookup``)."""

from symgrad.api.embedding_ops import embedding_lookup  # noqa: F401
