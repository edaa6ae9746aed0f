"""TF's ``deprecated_argument_lookup``: a TF1 argument and its renamed TF2 twin."""

from __future__ import annotations

from typing import Any


def one_of(new: Any, old: Any, new_name: str, old_name: str) -> Any:
    """The one of ``new`` and ``old`` given (``new`` when neither); both is an error."""
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return old if new is None else new
