"""``tf.compat.v1.data``: TF1's graph iterators (``make_one_shot_iterator``,
``make_initializable_iterator``, ``Iterator.from_structure``, run by a ``Session``) and
the ``get_output_*`` helpers; every other name resolves to ``tf.data``."""

from __future__ import annotations

from typing import Any

from symgrad import data as _data
from symgrad.data.v1_iterators import (  # noqa: F401
    Iterator,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)

_FALLBACK = "symgrad.data"


def __getattr__(name: str) -> Any:
    from symgrad.core.missing import missing

    try:
        return getattr(_data, name)
    except AttributeError:
        raise missing("tf.compat.v1.data", name) from None
