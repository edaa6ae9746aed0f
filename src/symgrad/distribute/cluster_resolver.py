"""``tf.distribute.cluster_resolver``: the cluster from ``TF_CONFIG``.

``TF_CONFIG`` is TF's JSON: ``{"cluster": {"worker": ["host:port", ...]}, "task":
{"type": "worker", "index": 0}}`` (a ``"chief"`` job, if any, counts as the first worker).
"""

from __future__ import annotations

import json
import os
from typing import Any

from symgrad.core import missing as _missing

__all__ = ["ClusterResolver", "TFConfigClusterResolver"]


class ClusterSpec:
    """The jobs of a cluster and their tasks' addresses (``tf.train.ClusterSpec``)."""

    def __init__(self, cluster: dict[str, list[str]]) -> None:
        self._cluster = {job: list(tasks) for job, tasks in cluster.items()}

    def as_dict(self) -> dict[str, list[str]]:
        return {job: list(tasks) for job, tasks in self._cluster.items()}

    @property
    def jobs(self) -> list[str]:
        return list(self._cluster)

    def num_tasks(self, job_name: str) -> int:
        return len(self._cluster[job_name])

    def task_address(self, job_name: str, task_index: int) -> str:
        return self._cluster[job_name][task_index]

    def __bool__(self) -> bool:
        return bool(self._cluster)

    def __repr__(self) -> str:
        return f"ClusterSpec({self._cluster})"


class ClusterResolver:
    """``tf.distribute.cluster_resolver.ClusterResolver``: the base class."""

    task_type: Any = None
    task_id: Any = None
    rpc_layer: Any = None

    def cluster_spec(self) -> ClusterSpec:
        raise NotImplementedError


class TFConfigClusterResolver(ClusterResolver):
    """The cluster, this task's job and index, read from ``TF_CONFIG``."""

    def __init__(
        self,
        task_type: Any = None,
        task_id: Any = None,
        rpc_layer: Any = None,
        environment: Any = None,
    ) -> None:
        config = _tf_config()
        task = config.get("task", {})
        self.task_type = task_type if task_type is not None else task.get("type")
        self.task_id = task_id if task_id is not None else task.get("index")
        self.rpc_layer = rpc_layer if rpc_layer is not None else config.get("rpc_layer")
        self.environment = environment if environment is not None else config.get("environment", "")
        self._cluster = config.get("cluster", {})

    def cluster_spec(self) -> ClusterSpec:
        return ClusterSpec(self._cluster)

    def master(self, task_type: Any = None, task_id: Any = None, rpc_layer: Any = None) -> str:
        job = task_type if task_type is not None else self.task_type
        index = task_id if task_id is not None else self.task_id
        if job is None or index is None:
            return ""
        address = self._cluster[job][index]
        layer = rpc_layer or self.rpc_layer
        return f"{layer}://{address}" if layer else address


def _tf_config() -> dict[str, Any]:
    text = os.environ.get("TF_CONFIG", "")
    if not text:
        return {}
    try:
        config = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"TF_CONFIG is not valid JSON ({e}): {text!r}") from None
    if not isinstance(config, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object, got {text!r}")
    return config


__getattr__ = _missing.module_getattr("tf.distribute.cluster_resolver")
