"""``tf.keras.mixed_precision``: Keras 3's dtype policies (``Policy`` = ``DTypePolicy``), the
global policy and ``LossScaleOptimizer`` (re-exports only)."""

from __future__ import annotations

from symgrad.keras.dtype_policies import (
    DTypePolicy,
    Policy,
    dtype_policy,
    global_policy,
    set_dtype_policy,
    set_global_policy,
)
from symgrad.keras.optimizers.loss_scale import LossScaleOptimizer

__all__ = [
    "DTypePolicy",
    "LossScaleOptimizer",
    "Policy",
    "dtype_policy",
    "global_policy",
    "set_dtype_policy",
    "set_global_policy",
]
