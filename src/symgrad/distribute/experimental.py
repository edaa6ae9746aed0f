"""``tf.distribute.experimental``: the collectives' options and ``ValueContext``."""

from __future__ import annotations

import enum
from typing import Any

from symgrad.core import missing as _missing
from symgrad.distribute.strategy import ValueContext

__all__ = [
    "CommunicationImplementation",
    "CommunicationOptions",
    "ValueContext",
]


class CommunicationImplementation(enum.Enum):
    """Which collective implementation to use (symgrad's is XLA's, through JAX)."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


class CommunicationOptions:
    """Options for the cross-worker collectives (recorded; XLA chooses)."""

    def __init__(
        self,
        bytes_per_pack: int = 0,
        timeout_seconds: Any = None,
        implementation: Any = CommunicationImplementation.AUTO,
    ) -> None:
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation


__getattr__ = _missing.module_getattr("tf.distribute.experimental")
