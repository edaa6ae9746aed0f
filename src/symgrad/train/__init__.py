"""``tf.train`` and ``tf.compat.v1.train``: optimizers, the global step, learning rate
decays, checkpoints and the Saver (re-exports only).

TF1-only names that conflict with nothing stay beside TF2's: the TF1 optimizers
(``GradientDescentOptimizer`` ...) are here beside ``Checkpoint``.
"""

from __future__ import annotations

from symgrad.train.checkpoint import Checkpoint, CheckpointLoadStatus, CheckpointManager
from symgrad.train.checkpoint_format import (
    CheckpointFormatError,
    latest_checkpoint,
    list_variables,
    load_variable,
)
from symgrad.train.moving_averages import ExponentialMovingAverage
from symgrad.train.optimizer_v1 import Optimizer
from symgrad.train.optimizers_v1 import (
    AdagradOptimizer,
    AdamOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    RMSPropOptimizer,
)
from symgrad.train.optimizers_v1_more import (
    AdadeltaOptimizer,
    AdagradDAOptimizer,
    FtrlOptimizer,
    ProximalAdagradOptimizer,
    ProximalGradientDescentOptimizer,
)
from symgrad.train.saver import Saver
from symgrad.train.training_util import (
    cosine_decay,
    cosine_decay_restarts,
    create_global_step,
    exponential_decay,
    get_global_step,
    get_or_create_global_step,
    global_step,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    piecewise_constant_decay,
    polynomial_decay,
)

__all__ = [
    "AdadeltaOptimizer",
    "AdagradDAOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "Checkpoint",
    "CheckpointFormatError",
    "CheckpointLoadStatus",
    "CheckpointManager",
    "ExponentialMovingAverage",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "RMSPropOptimizer",
    "Saver",
    "cosine_decay",
    "cosine_decay_restarts",
    "create_global_step",
    "exponential_decay",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "inverse_time_decay",
    "latest_checkpoint",
    "linear_cosine_decay",
    "list_variables",
    "load_variable",
    "natural_exp_decay",
    "noisy_linear_cosine_decay",
    "piecewise_constant",
    "piecewise_constant_decay",
    "polynomial_decay",
]
