"""The error for a TensorFlow name symgrad does not have (yet)."""

from __future__ import annotations

from typing import Any


def missing(namespace: str, name: str) -> AttributeError:
    """``AttributeError`` naming ``namespace.name``, saying symgrad lacks it."""
    return AttributeError(
        f"symgrad does not have the TensorFlow API {namespace}.{name} yet "
        "(module has no attribute " + repr(name) + "); the names it has are listed in "
        "README.md, 'The TensorFlow API covered' (python -m symgrad api)"
    )


def module_getattr(namespace: str) -> Any:
    """A module ``__getattr__`` raising :func:`missing` for every name it is asked."""

    def __getattr__(name: str) -> Any:
        raise missing(namespace, name)

    return __getattr__
