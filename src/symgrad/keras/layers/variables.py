"""Keras 3's variable on symgrad: a ``tf.Variable`` that also knows its Keras ``name``
(``kernel``), ``path`` (``sequential/dense/kernel``), regularizer and constraint, and the
name scopes Keras puts around a layer's build and call."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from symgrad.core.context import init_scope
from symgrad.core.eager import VARIABLE_TYPES
from symgrad.keras import backend
from symgrad.keras import dtype_policies as _dtype_policies
from symgrad.ops.state.variables import Variable

_SCOPES: list[tuple[str, Any]] = []  # (name, caller) as Keras's backend.name_scope keeps them


@contextlib.contextmanager
def name_scope(name: str, caller: Any = None) -> Iterator[None]:
    """Keras's name scope: a layer re-entering its own scope does not add its name twice."""
    if _SCOPES and caller is not None and _SCOPES[-1][1] is caller:
        yield
        return
    _SCOPES.append((name, caller))
    try:
        yield
    finally:
        _SCOPES.pop()


def current_path() -> str:
    return "/".join(n for n, _ in _SCOPES)


class KerasVariable(Variable):
    """A layer's weight: ``name`` is Keras's (``kernel``), ``path`` the scoped one."""

    def __init__(
        self,
        initializer: Any,
        shape: Any,
        dtype: str,
        trainable: bool,
        name: str,
        regularizer: Any = None,
        constraint: Any = None,
    ) -> None:
        self._keras_name = name
        parent = current_path()
        self.path = f"{parent}/{name}" if parent else name
        self.regularizer, self.constraint = regularizer, constraint
        with init_scope():
            value = initializer(tuple(shape), dtype=dtype) if callable(initializer) else initializer
            super().__init__(value, trainable=trainable, name=self.path, dtype=dtype)

    @property
    def name(self) -> str:
        return self._keras_name

    _autocast = True  # Keras's add_weight(autocast=True)

    def _read_up(self, up: int) -> Any:
        """A read, cast to an enclosing mixed-precision layer's compute dtype
        (``AutocastScope``) where this is a float variable that allows it."""
        t = super()._read_up(up + 1)
        scope = _dtype_policies.get_autocast_scope()
        if scope is None or scope.dtype is None or not self._autocast:
            return t
        if not self.dtype.is_floating or self.dtype.name == scope.dtype:
            return t
        from symgrad.ops.array.structure import cast

        return cast(t, scope.dtype)

    def __repr__(self) -> str:
        """Keras 3's: the path, shape, dtype and, where there is one, the value."""
        value = "" if self._value is None else f", value={self._value}"
        return (
            f"<Variable path={self.path}, shape={tuple(self.shape.as_list())}, "
            f"dtype={self.dtype.name}{value}>"
        )


def make_variable(
    layer_name: str,
    owner: Any,
    shape: Any,
    initializer: Any,
    dtype: Any,
    trainable: bool,
    regularizer: Any,
    constraint: Any,
    name: str,
) -> KerasVariable:
    with name_scope(layer_name, caller=owner):
        return KerasVariable(
            initializer,
            shape,
            backend.standardize_dtype(dtype),
            trainable,
            name,
            regularizer,
            constraint,
        )


# Read as an operand by the elementwise and matmul wrappers' fast paths (``_read_up``:
# the read, cast where a mixed-precision layer's call asks).
VARIABLE_TYPES.add(KerasVariable)
