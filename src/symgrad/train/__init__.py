"""``tf.train`` and ``tf.compat.v1.train``: optimizers, the global step, learning rate
decays, checkpoints and the Saver (re-exports only).

TF1-only names that conflict with nothing stay beside TF2's: the TF1 optimizers
(``GradientDescentOptimizer`` ...) are here beside ``Checkpoint``.
"""

from __future__ import annotations

from .checkpoint import Checkpoint, CheckpointLoadStatus, CheckpointManager
from .checkpoint_format import (
    CheckpointFormatError,
    latest_checkpoint,
    list_variables,
    load_variable,
)
from .moving_averages import ExponentialMovingAverage
from .optimizer_v1 import Optimizer
from .optimizers_v1 import (
    AdagradOptimizer,
    AdamOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    RMSPropOptimizer,
)
from .saver import Saver
from .training_util import (
    create_global_step,
    exponential_decay,
    get_global_step,
    get_or_create_global_step,
    global_step,
    piecewise_constant,
)

__all__ = [
    "AdagradOptimizer",
    "AdamOptimizer",
    "Checkpoint",
    "CheckpointFormatError",
    "CheckpointLoadStatus",
    "CheckpointManager",
    "ExponentialMovingAverage",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "RMSPropOptimizer",
    "Saver",
    "create_global_step",
    "exponential_decay",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "latest_checkpoint",
    "list_variables",
    "load_variable",
    "piecewise_constant",
]
