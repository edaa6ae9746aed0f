"""``tf.VariableSynchronization`` and ``tf.VariableAggregation``: accepted where TF takes
them (``tf.Variable``, ``get_variable``); symgrad has one device, so they change nothing."""

from __future__ import annotations

import enum


class VariableSynchronization(enum.Enum):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
