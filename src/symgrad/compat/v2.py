"""``tf.compat.v2``: symgrad's namespace (see :mod:`symgrad.compat`)."""

from __future__ import annotations

from typing import Any

# Names not defined here resolve in tf (the API walk lists them too).
_FALLBACK = "symgrad"


def __getattr__(name: str) -> Any:
    import symgrad

    try:
        return getattr(symgrad, name)
    except AttributeError:
        raise AttributeError(
            f"module 'symgrad.compat.v2' has no attribute '{name}' "
            "(symgrad has no such TensorFlow API)"
        ) from None
