"""``tf.distribute``: data parallelism over the devices of one process or several.

``MirroredStrategy`` runs a step once per replica (:mod:`.mirrored_run`), splits the
input batches as TF does (:mod:`.input_lib`) and combines the replicas' values with JAX's
collectives where the replicas are JAX devices, with symgrad's own ops otherwise
(:mod:`.reduce`).  ``MultiWorkerMirroredStrategy`` does the same across processes over
``jax.distributed`` (:mod:`.multi_worker`).  See ``docs/distribute.md``.
"""

from __future__ import annotations

from symgrad.core import missing as _missing
from symgrad.distribute import cluster_resolver, experimental, mirrored_vars, sharded  # noqa: F401  (installs its hooks)
from symgrad.distribute.distribute_lib import (
    InputContext,
    ReplicaContext,
    experimental_set_strategy,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from symgrad.distribute.input_lib import DistributedDataset, DistributedIterator
from symgrad.distribute.multi_worker import MultiWorkerMirroredStrategy
from symgrad.distribute.strategy import (
    MirroredStrategy,
    OneDeviceStrategy,
    Strategy,
    StrategyExtended,
)
from symgrad.distribute.values import DistributedValues, ReduceOp

__all__ = [
    "DistributedDataset",
    "DistributedIterator",
    "DistributedValues",
    "InputContext",
    "MirroredStrategy",
    "MultiWorkerMirroredStrategy",
    "OneDeviceStrategy",
    "ReduceOp",
    "ReplicaContext",
    "Strategy",
    "StrategyExtended",
    "cluster_resolver",
    "experimental",
    "experimental_set_strategy",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]

__getattr__ = _missing.module_getattr("tf.distribute")
