"""``tf.data.Options`` and ``Dataset.with_options``: TF's option names and defaults.

symgrad runs a pipeline in the calling thread, in order (see the package docstring), so
no option changes what a dataset yields; the options are kept, merged and read back as
TF's are (``dataset.options()``), and a name TF does not have is TF's AttributeError.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar


class AutoShardPolicy(enum.IntEnum):
    """How a distributed dataset is split between workers (TF's values)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _Options:
    """A group of options: the names in ``_FIELDS`` with their defaults, nothing else."""

    _FIELDS: ClassVar[dict[str, Any]] = {}
    _set: set[str]

    def __init__(self) -> None:
        object.__setattr__(self, "_set", set())  # the names given a value (merge keeps them)
        for name, default in self._FIELDS.items():
            object.__setattr__(self, name, default() if isinstance(default, type) else default)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._FIELDS:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)
        self._set.add(name)

    def _values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._FIELDS}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._values()})"

    def _merged(self, other: _Options) -> _Options:
        """These options with ``other``'s set values over them."""
        out = type(self)()
        for name in self._FIELDS:
            mine = getattr(self, name)
            if isinstance(mine, _Options):
                value = mine._merged(getattr(other, name))
            elif name in other._set:
                value = getattr(other, name)
            elif name in self._set:
                value = mine
            else:
                continue
            setattr(out, name, value)
        return out


class AutotuneOptions(_Options):
    _FIELDS: ClassVar[dict[str, Any]] = dict.fromkeys(
        (
            "autotune_algorithm",
            "cpu_budget",
            "enabled",
            "initial_parallelism",
            "min_parallelism",
            "ram_budget",
        )
    )


class DistributeOptions(_Options):
    _FIELDS: ClassVar[dict[str, Any]] = {"auto_shard_policy": None, "num_devices": None}

    def __init__(self) -> None:
        super().__init__()
        object.__setattr__(self, "auto_shard_policy", AutoShardPolicy.AUTO)


class OptimizationOptions(_Options):
    _FIELDS: ClassVar[dict[str, Any]] = dict.fromkeys(
        (
            "apply_default_optimizations",
            "filter_fusion",
            "filter_parallelization",
            "inject_prefetch",
            "map_and_batch_fusion",
            "map_and_filter_fusion",
            "map_fusion",
            "map_parallelization",
            "noop_elimination",
            "parallel_batch",
            "seq_interleave_prefetch",
            "shuffle_and_repeat_fusion",
        )
    )


class ThreadingOptions(_Options):
    _FIELDS: ClassVar[dict[str, Any]] = {
        "max_intra_op_parallelism": None,
        "private_threadpool_size": None,
    }


class Options(_Options):
    """``tf.data.Options()``: set its fields, then ``dataset.with_options(options)``."""

    _FIELDS: ClassVar[dict[str, Any]] = {
        "autotune": AutotuneOptions,
        "dataset_name": None,
        "deterministic": None,
        "experimental_deterministic": None,
        "experimental_distribute": DistributeOptions,
        "experimental_external_state_policy": None,
        "experimental_optimization": OptimizationOptions,
        "experimental_slack": None,
        "experimental_symbolic_checkpoint": None,
        "experimental_warm_start": None,
        "framework_type": None,
        "threading": ThreadingOptions,
    }

    @property
    def experimental_threading(self) -> ThreadingOptions:
        """TF's old name of ``threading``."""
        return self.__dict__["threading"]  # type: ignore[no-any-return]

    def merge(self, options: Options) -> Options:
        """These options with ``options``'s set values over them (TF's ``merge``)."""
        return self._merged(options)  # type: ignore[return-value]
