"""Keras 3's dtype policies: ``DTypePolicy`` (``mixed_precision.Policy``), the global policy
and the autocast scope.

A policy names a layer's compute and variable dtypes: ``"mixed_float16"`` computes in
float16 and keeps float32 variables (``"mixed_bfloat16"``: bfloat16 and float32); any float
dtype name is both.  A layer whose two dtypes differ calls ``call`` inside an
``AutocastScope(compute_dtype)``, where every read of a float Keras variable (``autocast``
true) is cast to the compute dtype, as Keras 3's ``KerasVariable.value``; a layer inside
another re-enters, clears (``autocast=False`` or a non-float compute dtype) or keeps the
scope by Keras's rules (``Layer.__call__``).
"""

from __future__ import annotations

from typing import Any

from symgrad.keras import backend

_STATE: dict[str, Any] = {"policy": None, "autocast": None}


class DTypePolicy:
    def __init__(self, name: Any = None) -> None:
        if name is None:
            name = dtype_policy().name
        self._name = name
        self._compute_dtype, self._variable_dtype = self._parse_name(name)
        self._quantization_mode = None

    def _parse_name(self, name: Any) -> tuple[str, str]:
        if not isinstance(name, str):
            raise TypeError(
                "'name' must be a string, such as 'mixed_float16'. "
                f"Received: name={name} (of type {type(name)})"
            )
        if name == "mixed_float16":
            return "float16", "float32"
        if name == "mixed_bfloat16":
            return "bfloat16", "float32"
        try:
            dtype = backend.standardize_dtype(name)
        except (ValueError, TypeError):
            raise ValueError(
                f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid policies "
                "include 'mixed_float16', 'mixed_bfloat16', and the name of any float dtype "
                "such as 'float32'."
            ) from None
        return dtype, dtype

    @property
    def variable_dtype(self) -> str:
        return self._variable_dtype

    @property
    def compute_dtype(self) -> str:
        return self._compute_dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def quantization_mode(self) -> Any:
        return self._quantization_mode

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> DTypePolicy:
        return cls(**config)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other: Any) -> bool:
        return type(other) in (DTypePolicy, FloatDTypePolicy) and self._name == other._name

    def __hash__(self) -> int:
        return hash(self._name)


class FloatDTypePolicy(DTypePolicy):
    pass


Policy = DTypePolicy


def set_dtype_policy(policy: Any) -> None:
    """The policy new layers take when given no ``dtype`` (``set_global_policy``)."""
    if not isinstance(policy, DTypePolicy):
        if not isinstance(policy, str):
            raise ValueError(
                "Invalid `policy` argument. Expected the string name of a policy (such as "
                f"'mixed_float16') or a `DTypePolicy` instance. Received: policy={policy} "
                f"(of type {type(policy)})"
            )
        policy = DTypePolicy(policy)
    _STATE["policy"] = policy


def dtype_policy() -> DTypePolicy:
    """The global policy (``global_policy``): ``floatx()``'s until one is set."""
    if _STATE["policy"] is None:
        _STATE["policy"] = DTypePolicy(backend.floatx())
    policy: DTypePolicy = _STATE["policy"]
    return policy


set_global_policy = set_dtype_policy
global_policy = dtype_policy


def get(identifier: Any) -> DTypePolicy:
    """A layer's ``dtype`` argument as a policy (None: the global one)."""
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return DTypePolicy.from_config(identifier["config"])
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    try:
        return DTypePolicy(backend.standardize_dtype(identifier))
    except (ValueError, TypeError):
        raise ValueError(
            "Cannot interpret `dtype` argument. Expected a string or an instance of "
            f"DTypePolicy. Received: dtype={identifier}"
        ) from None


# -- autocasting variable reads


class AutocastScope:
    """Inside: reads of float variables that allow it come out as ``dtype`` (None: as
    they are)."""

    def __init__(self, dtype: Any) -> None:
        if dtype is not None:
            dtype = backend.standardize_dtype(dtype)
            if "float" not in dtype:
                raise ValueError(
                    "`AutocastScope` can only be used with a floating-point target dtype, "
                    f"such as 'float16'. Received: dtype={dtype}"
                )
        self.dtype = dtype
        self.original_scope: Any = None

    def __enter__(self) -> None:
        self.original_scope = _STATE["autocast"]
        _STATE["autocast"] = self

    def __exit__(self, *args: Any) -> None:
        _STATE["autocast"] = self.original_scope


def get_autocast_scope() -> AutocastScope | None:
    scope: AutocastScope | None = _STATE["autocast"]
    return scope


def scope_for(layer: Any) -> AutocastScope | None:
    """The scope ``layer``'s call runs in, by Keras 3's ``Layer.__call__`` rules (None:
    the current one stays)."""
    current = _STATE["autocast"]
    compute = layer.compute_dtype
    if current is not None:
        if not layer.autocast or "float" not in compute:
            return AutocastScope(None)
        if current.dtype != compute:
            return AutocastScope(compute)
        return None
    if compute != layer.variable_dtype:
        return AutocastScope(compute)
    return None
