"""TensorFlow's dtypes over NumPy's: names, string aliases, and the differentiable set."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import missing as _missing


class DType:
    """A tensor element type: ``symgrad.float32`` and friends.

    Compares equal to another DType, to its NumPy dtype and to its TF names
    (``float32 == "float32" == np.float32``), so user code written against
    either library reads naturally.
    """

    __slots__ = (
        "is_bool",
        "is_complex",
        "is_differentiable",
        "is_floating",
        "is_integer",
        "name",
        "np",
    )

    def __init__(self, name: str, np_dtype: Any) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        kind = self.np.kind
        # Plain attributes, not properties: the gradient walk reads them for every edge.
        self.is_floating: bool = kind == "f"
        self.is_complex: bool = kind == "c"
        self.is_integer: bool = kind in "iu"
        self.is_bool: bool = kind == "b"
        # Whether gradients flow through tensors of this type (TF's backprop dtypes).
        self.is_differentiable: bool = kind in "fc"

    @property
    def as_numpy_dtype(self) -> type:
        return self.np.type

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def real_dtype(self) -> DType:
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def size(self) -> int:
        return self.np.itemsize

    @property
    def max(self) -> Any:
        """The largest value of the type (a NumPy scalar for floats, an int for integers)."""
        return self._bound("maximum", 1)

    @property
    def min(self) -> Any:
        """The smallest (most negative) value of the type."""
        return self._bound("minimum", 0)

    def _bound(self, what: str, end: int) -> Any:
        if self.is_floating:
            info = np.finfo(self.np)
            return info.max if end else info.min
        if self.is_integer:
            iinfo = np.iinfo(self.np)
            return int(iinfo.max if end else iinfo.min)
        raise TypeError(f"Cannot find {what} value of {self} with type {self}.")

    @property
    def limits(self) -> tuple[Any, Any]:
        """TF's image intensity range ``(0, max)``: (0, 1) for float32/float64, the
        integer range for integers, (0, True) for bool; negative bounds clipped to 0."""
        if self.name in ("float32", "float64"):
            return 0, 1
        if self.is_integer:
            return 0, int(np.iinfo(self.np).max)
        if self.is_bool:
            return 0, True
        raise ValueError(f"{self} does not have defined limits.")

    def is_compatible_with(self, other: Any) -> bool:
        """Whether a tensor of ``other`` dtype converts to this one (TF1's; equality)."""
        return as_dtype(other) is self

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self is other
        try:
            return as_dtype(other) is self  # type: ignore[arg-type]
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"


float16 = DType("float16", np.float16)
half = float16
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
double = float64
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint32 = DType("uint32", np.uint32)  # a full-range random draw's type
uint64 = DType("uint64", np.uint64)  # the Philox key and counter of the stateless random ops
bool_ = DType("bool", np.bool_)
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)

ALL: tuple[DType, ...] = (
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint32,
    uint64,
    bool_,
    complex64,
    complex128,
)
_BY_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}
# TF accepts these spellings wherever a dtype is expected (seed 003: placeholder("float")).
_BY_NAME.update(
    {
        "float": float32,
        "double": float64,
        "half": float16,
        "int": int32,
        "long": int64,
        "complex": complex64,
    }
)


def as_dtype(type_value: DType | str | type | np.dtype[Any]) -> DType:
    """Convert a DType, a TF dtype name, or a NumPy dtype/type to a DType."""
    value = type_value
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError(f"Cannot convert {value!r} to a dtype: expected one of {sorted(_BY_NAME)}")
    if value is float:
        return float32
    if value is int:
        return int32
    if value is bool:
        return bool_
    if value is complex:
        return complex64
    try:
        key = np.dtype(value)
    except TypeError:
        raise TypeError(f"Cannot convert {value!r} to a dtype") from None
    if key in _BY_NP:
        return _BY_NP[key]
    raise TypeError(
        f"Cannot convert {value!r} to a dtype: {key} is not supported "
        f"(supported: {', '.join(d.name for d in ALL)})"
    )


# tf.dtypes's names symgrad has (``bool_`` is ``tf.bool``; ``ALL`` is symgrad's own list).
__all__ = [
    "DType",
    "as_dtype",
    "complex64",
    "complex128",
    "double",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint32",
    "uint64",
]

__getattr__ = _missing.module_getattr("tf.dtypes")
