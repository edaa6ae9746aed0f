"""``tf.compat.v1.linalg``: TF1's ``norm`` (with ``keep_dims``); every other name resolves
to ``tf.linalg``."""

from __future__ import annotations

from typing import Any

from symgrad.api import linalg as _linalg
from symgrad.compat.v1_ops import norm  # noqa: F401  (TF1's signature)

_FALLBACK = "symgrad.api.linalg"


def __getattr__(name: str) -> Any:
    from symgrad.core.missing import missing

    try:
        return getattr(_linalg, name)
    except AttributeError:
        raise missing("tf.compat.v1.linalg", name) from None
