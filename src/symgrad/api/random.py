"""``tf.random``: random numbers under TensorFlow's names, seed rules and numbers.

Re-exports only; the ops are in :mod:`symgrad.ops.random.seeded` (seeds, stateful ops),
:mod:`symgrad.ops.random.stateless` and :mod:`symgrad.ops.random.generator`.  TF1's
``tf.compat.v1.random`` names (``set_random_seed``, ``get_seed``, ``multinomial``,
``stateless_multinomial``) are here too, as symgrad has one namespace for both.
"""

from __future__ import annotations

from types import SimpleNamespace

from symgrad.core import missing as _missing
from symgrad.ops.random.candidates import (
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from symgrad.ops.random.gamma_poisson import random_gamma as gamma
from symgrad.ops.random.gamma_poisson import random_poisson as poisson
from symgrad.ops.random.gamma_poisson import stateless_random_gamma as stateless_gamma
from symgrad.ops.random.gamma_poisson import stateless_random_poisson as stateless_poisson
from symgrad.ops.random.generator import (
    Algorithm,
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
)
from symgrad.ops.random.seeded import (
    categorical,
    get_seed,
    multinomial,
    set_random_seed,
    set_seed,
    shuffle,
    truncated_normal,
)
from symgrad.ops.random.seeded import random_normal as normal
from symgrad.ops.random.seeded import random_uniform as uniform
from symgrad.ops.random.stateless import (
    fold_in,
    split,
    stateless_categorical,
    stateless_multinomial,
    stateless_truncated_normal,
)
from symgrad.ops.random.stateless import stateless_random_normal as stateless_normal
from symgrad.ops.random.stateless import stateless_random_uniform as stateless_uniform

experimental = SimpleNamespace(
    Algorithm=Algorithm,
    Generator=Generator,
    create_rng_state=create_rng_state,
    get_global_generator=get_global_generator,
    set_global_generator=set_global_generator,
    stateless_split=split,
    stateless_fold_in=fold_in,
)

__all__ = [
    "Algorithm",
    "Generator",
    "categorical",
    "create_rng_state",
    "experimental",
    "fold_in",
    "gamma",
    "get_global_generator",
    "get_seed",
    "log_uniform_candidate_sampler",
    "multinomial",
    "normal",
    "poisson",
    "set_global_generator",
    "set_random_seed",
    "set_seed",
    "shuffle",
    "split",
    "stateless_categorical",
    "stateless_gamma",
    "stateless_multinomial",
    "stateless_normal",
    "stateless_poisson",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
    "uniform_candidate_sampler",
]


__getattr__ = _missing.module_getattr("tf.random")
