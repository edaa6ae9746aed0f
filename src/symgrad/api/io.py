"""``tf.io``: so far only ``tf.io.gfile`` (TF's file API, :mod:`symgrad.api.gfile`)."""

from __future__ import annotations

from symgrad.api import gfile
from symgrad.core import missing as _missing

__all__ = ["gfile"]

__getattr__ = _missing.module_getattr("tf.io")
