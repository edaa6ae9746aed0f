"""``tf.distribute.MultiWorkerMirroredStrategy`` over ``jax.distributed``.

Each worker process runs its local replicas (JAX's local devices) as MirroredStrategy
does; the all-reduce spans every process's devices through JAX's collectives (gloo on
CPU).  The cluster comes from ``TF_CONFIG`` (:mod:`.cluster_resolver`): the first worker's
address (the chief's, if there is one) is JAX's coordinator, the task's index its process
id.  Without ``TF_CONFIG`` it is one worker, as in TF.
"""

from __future__ import annotations

from typing import Any

from symgrad.core import devices
from symgrad.distribute.cluster_resolver import TFConfigClusterResolver
from symgrad.distribute.reduce import JaxCollective
from symgrad.distribute.strategy import Strategy, StrategyExtended, _jax_collective, default_devices


def _workers(resolver: Any) -> list[str]:
    cluster = resolver.cluster_spec().as_dict()
    return list(cluster.get("chief", [])) + list(cluster.get("worker", []))


def _index(resolver: Any) -> int:
    cluster = resolver.cluster_spec().as_dict()
    chiefs = len(cluster.get("chief", []))
    if resolver.task_type not in ("chief", "worker") or resolver.task_id is None:
        raise ValueError(
            "TF_CONFIG's task must be a 'chief' or 'worker' with an index, got "
            f"type={resolver.task_type!r} index={resolver.task_id!r}"
        )
    return int(resolver.task_id) + (chiefs if resolver.task_type == "worker" else 0)


def _start_jax(workers: list[str], index: int) -> Any:
    jax = devices.jax_module()
    if jax is None:
        raise ImportError(
            "MultiWorkerMirroredStrategy across processes runs over jax.distributed: "
            "install JAX (pip install symgrad[jax])"
        )
    from jax._src import distributed

    if distributed.global_state.client is None:
        if devices.jax_started():
            raise RuntimeError(
                "MultiWorkerMirroredStrategy must be created before JAX starts (before "
                "any JAX computation), so that it can call jax.distributed.initialize"
            )
        jax.distributed.initialize(workers[0], num_processes=len(workers), process_id=index)
    return jax


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous data parallelism over the devices of several worker processes."""

    def __init__(self, cluster_resolver: Any = None, communication_options: Any = None) -> None:
        resolver = cluster_resolver or TFConfigClusterResolver()
        self._resolver = resolver
        workers = _workers(resolver)
        if len(workers) <= 1:
            names = default_devices()[:1]
            super().__init__(StrategyExtended(self)._set_devices(names))
            self._extended._collective = _jax_collective(names)
            self._num_workers, self._worker_index = 1, 0
            return
        index = _index(resolver)
        jax = _start_jax(workers, index)
        local = list(jax.local_devices())
        everywhere = list(jax.devices())
        job = resolver.task_type
        names = tuple(
            f"/job:{job}/replica:0/task:{resolver.task_id}/device:CPU:{i}"
            for i in range(len(local))
        )
        super().__init__(StrategyExtended(self)._set_devices(names))
        self._local_replicas = names
        self._extended._num_replicas = len(everywhere)
        self._extended._replica_offset = index * len(local)
        self._extended._collective = JaxCollective(jax, everywhere, local)
        self._num_workers, self._worker_index = len(workers), index

    @property
    def cluster_resolver(self) -> Any:
        return self._resolver
