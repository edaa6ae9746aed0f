"""TF1's session protocol messages: ``ConfigProto`` (with ``GPUOptions``, ``GraphOptions``,
``OptimizerOptions``), ``RunOptions`` and ``RunMetadata``, as TF1 programs build them
(``config.gpu_options.allow_growth = True; tf.Session(config=config)``).

They hold their fields as protobuf messages do (keyword arguments, attribute assignment,
nested messages made on first read, an unknown field is a ``ValueError``, text format
from ``str``); a ``Session`` accepts them and reads none: symgrad runs on NumPy's threads,
with no GPU to size and no trace to record (``RunMetadata`` stays empty).
"""

from __future__ import annotations

from typing import Any, ClassVar


class _Message:
    """A protobuf-like message: ``FIELDS`` name the scalar fields and their defaults,
    ``MESSAGES`` the nested message fields and their classes."""

    FIELDS: ClassVar[dict[str, Any]] = {}
    MESSAGES: ClassVar[dict[str, type[_Message]]] = {}
    ORDER: ClassVar[tuple[str, ...]] = ()  # every field, by field number (the text's order)
    ENUMS: ClassVar[dict[str, dict[int, str]]] = {}  # an enum field's names, for the text

    def __init__(self, **fields: Any) -> None:
        object.__setattr__(self, "_set", {})
        for name, value in fields.items():
            if name not in self.FIELDS and name not in self.MESSAGES:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" field.')
            if name in self.MESSAGES and isinstance(value, dict):
                value = self.MESSAGES[name](**value)
            setattr(self, name, value)

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__["_set"]
        if name in values:
            return values[name]
        if name in self.MESSAGES:  # a nested message is made when first read, as protobuf's
            values[name] = self.MESSAGES[name]()
            return values[name]
        if name in self.FIELDS:
            default = self.FIELDS[name]
            if isinstance(default, dict | list):  # a map or repeated field: filled in place
                values[name] = type(default)()
                return values[name]
            return default
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self.FIELDS and name not in self.MESSAGES:
            raise AttributeError(f'Protocol message {type(self).__name__} has no "{name}" field.')
        self._set[name] = value

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and str(self) == str(other)

    __hash__ = None  # type: ignore[assignment]  # (mutable, as protobuf messages)

    def __str__(self) -> str:
        """Protobuf's text format: the fields that differ from their defaults."""
        lines: list[str] = []
        for name in self.ORDER:
            if name not in self._set:
                continue
            value = self._set[name]
            if isinstance(value, _Message):
                inner = str(value)
                if inner:
                    body = "".join(f"  {line}\n" for line in inner.splitlines())
                    lines.append(f"{name} {{\n{body}}}")
            elif isinstance(value, dict):
                lines += [f'{name} {{\n  key: "{k}"\n  value: {v}\n}}' for k, v in value.items()]
            elif value != self.FIELDS.get(name):
                lines.append(f"{name}: {self.ENUMS.get(name, {}).get(value) or _text(value)}")
        return "".join(line + "\n" for line in lines)

    __repr__ = __str__


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


class GPUOptions(_Message):
    FIELDS: ClassVar[dict[str, Any]] = {
        "per_process_gpu_memory_fraction": 0.0,
        "allow_growth": False,
        "allocator_type": "",
        "deferred_deletion_bytes": 0,
        "visible_device_list": "",
        "polling_active_delay_usecs": 0,
        "polling_inactive_delay_msecs": 0,
        "force_gpu_compatible": False,
    }
    ORDER = (
        "per_process_gpu_memory_fraction", "allocator_type", "deferred_deletion_bytes",
        "allow_growth", "visible_device_list", "polling_active_delay_usecs",
        "polling_inactive_delay_msecs", "force_gpu_compatible",
    )  # fmt: skip


class OptimizerOptions(_Message):
    L1, L0 = 0, -1  # opt_level
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2  # global_jit_level
    FIELDS: ClassVar[dict[str, Any]] = {
        "do_common_subexpression_elimination": False,
        "do_constant_folding": False,
        "do_function_inlining": False,
        "opt_level": 0,
        "global_jit_level": 0,
        "max_folded_constant_in_bytes": 0,
    }
    ORDER = (
        "do_common_subexpression_elimination", "do_constant_folding", "opt_level",
        "do_function_inlining", "global_jit_level", "max_folded_constant_in_bytes",
    )  # fmt: skip
    ENUMS: ClassVar[dict[str, dict[int, str]]] = {
        "opt_level": {0: "L1", -1: "L0"},
        "global_jit_level": {-1: "OFF", 1: "ON_1", 2: "ON_2"},
    }


class GraphOptions(_Message):
    FIELDS: ClassVar[dict[str, Any]] = {
        "enable_recv_scheduling": False,
        "build_cost_model": 0,
        "infer_shapes": False,
        "place_pruned_graph": False,
        "enable_bfloat16_sendrecv": False,
        "timeline_step": 0,
    }
    MESSAGES: ClassVar[dict[str, type[_Message]]] = {"optimizer_options": OptimizerOptions}
    ORDER = (
        "enable_recv_scheduling", "optimizer_options", "build_cost_model", "infer_shapes",
        "place_pruned_graph", "enable_bfloat16_sendrecv", "timeline_step",
    )  # fmt: skip


class ConfigProto(_Message):
    FIELDS: ClassVar[dict[str, Any]] = {
        "device_count": {},
        "intra_op_parallelism_threads": 0,
        "inter_op_parallelism_threads": 0,
        "use_per_session_threads": False,
        "placement_period": 0,
        "device_filters": [],
        "allow_soft_placement": False,
        "log_device_placement": False,
        "operation_timeout_in_ms": 0,
        "isolate_session_state": False,
        "share_cluster_devices_in_session": False,
    }
    MESSAGES: ClassVar[dict[str, type[_Message]]] = {
        "gpu_options": GPUOptions,
        "graph_options": GraphOptions,
    }
    ORDER = (
        "device_count", "intra_op_parallelism_threads", "placement_period", "device_filters",
        "inter_op_parallelism_threads", "gpu_options", "allow_soft_placement",
        "log_device_placement", "use_per_session_threads", "graph_options",
        "operation_timeout_in_ms", "isolate_session_state", "share_cluster_devices_in_session",
    )  # fmt: skip


class RunOptions(_Message):
    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3
    FIELDS: ClassVar[dict[str, Any]] = {
        "trace_level": 0,
        "timeout_in_ms": 0,
        "inter_op_thread_pool": 0,
        "output_partition_graphs": False,
        "report_tensor_allocations_upon_oom": False,
    }
    ORDER = (
        "trace_level", "timeout_in_ms", "inter_op_thread_pool", "output_partition_graphs",
        "report_tensor_allocations_upon_oom",
    )  # fmt: skip
    ENUMS: ClassVar[dict[str, dict[int, str]]] = {
        "trace_level": {1: "SOFTWARE_TRACE", 2: "HARDWARE_TRACE", 3: "FULL_TRACE"}
    }


class StepStats(_Message):
    FIELDS: ClassVar[dict[str, Any]] = {"dev_stats": []}
    ORDER = ("dev_stats",)


class RunMetadata(_Message):
    FIELDS: ClassVar[dict[str, Any]] = {"partition_graphs": []}
    MESSAGES: ClassVar[dict[str, type[_Message]]] = {"step_stats": StepStats}
    ORDER = ("step_stats", "partition_graphs")
