"""``tf.compat.v1.random``: ``tf.random`` without the TF2-only ``set_seed`` (TF1's is
``set_random_seed``)."""

from __future__ import annotations

from typing import Any

from symgrad.api import random as _random
from symgrad.ops.random.gamma_poisson import random_poisson_v1 as poisson

__all__ = ["poisson"]  # TF1's takes (lam, shape, ...): the rate first

_FALLBACK = "symgrad.api.random"
_NOT_INHERITED = frozenset({"set_seed"})


def __getattr__(name: str) -> Any:
    from symgrad.core.missing import missing

    if name in _NOT_INHERITED:
        raise missing("tf.compat.v1.random", name)
    try:
        return getattr(_random, name)
    except AttributeError:
        raise missing("tf.compat.v1.random", name) from None
