"""``tf.compat.v2``: TF 2's API, which is ``tf`` without TF1-only names and symgrad's own
additions (see :mod:`symgrad.compat`)."""

from __future__ import annotations

from typing import Any

# Names resolve in tf (the API walk lists them too), but for TF1-only and own ones.
_FALLBACK = "symgrad"
_TF2_ONLY = True


def __getattr__(name: str) -> Any:
    import symgrad
    from symgrad.core.missing import missing
    from symgrad.tools.api import OWN, TF1_ONLY

    if name in OWN or name in TF1_ONLY:
        raise missing("tf.compat.v2", name)
    try:
        return getattr(symgrad, name)
    except AttributeError:
        raise missing("tf.compat.v2", name) from None
