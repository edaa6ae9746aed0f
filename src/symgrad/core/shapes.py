"""Static shapes that may be partial: unknown rank, or unknown sizes (``None``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

Dim = int | None


class TensorShape:
    """A static shape as TensorFlow has it: ``TensorShape([None, 3])``.

    ``dims`` is ``None`` when even the rank is unknown.
    """

    __slots__ = ("dims",)

    def __init__(self, dims: Iterable[Any] | TensorShape | None) -> None:
        if isinstance(dims, TensorShape):
            self.dims: tuple[Dim, ...] | None = dims.dims
        elif dims is None:
            self.dims = None
        elif isinstance(dims, int):  # TF: a single size is a shape of rank 1
            self.dims = (as_dimension(dims),)
        else:
            self.dims = tuple(d if type(d) is int and d >= 0 else as_dimension(d) for d in dims)

    @classmethod
    def of_array(cls, shape: tuple[int, ...]) -> TensorShape:
        """The shape of an array value (``ndarray.shape``): every size known, no checks."""
        s = cls.__new__(cls)
        s.dims = shape
        return s

    @property
    def rank(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    ndims = rank

    def is_fully_defined(self) -> bool:
        return self.dims is not None and all(d is not None for d in self.dims)

    def as_list(self) -> list[Dim]:
        if self.dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self.dims)

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self.dims:  # type: ignore[union-attr]
            n *= d  # type: ignore[operator]
        return n

    def is_compatible_with(self, other: Any) -> bool:
        other = as_shape(other)
        if self.dims is None or other.dims is None:
            return True
        if len(self.dims) != len(other.dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self.dims, other.dims))

    def merge_with(self, other: Any) -> TensorShape:
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self.dims is None:
            return other
        if other.dims is None:
            return self
        return TensorShape(a if a is not None else b for a, b in zip(self.dims, other.dims))

    def __len__(self) -> int:
        if self.dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self.dims)

    def __iter__(self) -> Iterator[Dim]:
        if self.dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self.dims)

    def __getitem__(self, key: Any) -> Any:
        if self.dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self.dims[key])
        return self.dims[key]

    def __eq__(self, other: object) -> bool:
        try:
            other_shape = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self.dims == other_shape.dims

    def __hash__(self) -> int:
        return hash(self.dims)

    def __repr__(self) -> str:
        if self.dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self.dims)})"

    def __str__(self) -> str:
        if self.dims is None:
            return "<unknown>"
        if len(self.dims) == 1:
            return f"({self.dims[0]},)"
        return "(" + ", ".join(str(d) for d in self.dims) + ")"


def as_dimension(value: Any) -> Dim:
    """One size of a shape: a non-negative int, or None (also spelled -1) when unknown.

    As TF, a float, a string or a size below -1 is an error, never rounded or wrapped.
    """
    if value is None:
        return None
    index = getattr(type(value), "__index__", None)
    if index is None:
        raise TypeError(
            "Dimension value must be integer or None or have an __index__ method, "
            f"got value '{value!r}' with type '{type(value)}'"
        )
    d = int(index(value))
    if d == -1:
        return None
    if d < 0:
        raise ValueError(f"Dimension {d} must be >= 0")
    return d


def as_shape(value: Any) -> TensorShape:
    return value if isinstance(value, TensorShape) else TensorShape(value)


def broadcast_shapes(a: TensorShape, b: TensorShape) -> TensorShape | None:
    """The broadcast of two static shapes; None when they cannot broadcast.

    Unknown sizes broadcast optimistically, as TF's shape inference does.
    """
    if a.dims is None or b.dims is None:
        return TensorShape(None)
    if a.dims == b.dims or not b.dims:  # the common cases: nothing to broadcast
        return a
    if not a.dims:  # a scalar against a shape
        return b
    n = max(len(a.dims), len(b.dims))
    pa = (1,) * (n - len(a.dims)) + a.dims
    pb = (1,) * (n - len(b.dims)) + b.dims
    out: list[Dim] = []
    for x, y in zip(pa, pb):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            return None
    shape = _new_shape(TensorShape)  # (each size is one of a's or b's: checked already)
    shape.dims = tuple(out)
    return shape


_new_shape = TensorShape.__new__
