"""``keras.preprocessing``: Keras 3's ``sequence.pad_sequences`` (the same function as
``keras.utils.pad_sequences``)."""

from __future__ import annotations

from types import SimpleNamespace

from symgrad.keras.sequence_utils import pad_sequences

sequence = SimpleNamespace(pad_sequences=pad_sequences)

__all__ = ["sequence"]
