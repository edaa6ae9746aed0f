"""Keras 3's categorical preprocessing layers: CategoryEncoding and Discretization
(:mod:`.encoding`), IntegerLookup (:mod:`.lookup`)."""

from __future__ import annotations

from symgrad.keras.layers.categorical.encoding import CategoryEncoding, Discretization
from symgrad.keras.layers.categorical.lookup import IntegerLookup

__all__ = ["CategoryEncoding", "Discretization", "IntegerLookup"]
