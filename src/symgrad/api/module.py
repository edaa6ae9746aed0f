"""``tf.Module``: a named container whose attributes hold variables and sub-modules.

``variables``, ``trainable_variables`` and ``submodules`` walk the attributes as TF's
``_flatten_module`` does: attribute names in sorted order, each value flattened as
``tf.nest`` does (lists and tuples in order, dicts by sorted key), every object reported
once, the module's own leaves before those of its sub-modules (taken in the order found).

Names: a module's name scope is taken when it is made (``dense/``), and re-entered by
``with module.name_scope:`` and by methods decorated with ``tf.Module.with_name_scope``.
At top level, as in TF2's eager mode, scopes are not made unique (two ``Dense`` modules both
use ``dense/``); in a graph they are (``dense/``, ``dense_1/``), as TF1 graph mode does.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from symgrad.core.graph import get_default_graph, name_scope
from symgrad.ops.state.variables import Variable

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


def _current_scope() -> str:
    scope: str = get_default_graph().get_name_scope()
    return scope + "/" if scope else ""


class Module:
    """Base class for models: assign Variables and Modules to attributes (directly or in
    lists, tuples and dicts) and they are found by ``variables``, ``trainable_variables``,
    ``submodules`` and by ``tf.train.Checkpoint``."""

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid "
                "Python identifiers (e.g. a valid class name)."
            )
        self._name = name
        if get_default_graph().eager:
            self._scope_name = _current_scope() + name + "/"
        else:
            with name_scope(name) as scope:
                self._scope_name = scope

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> Any:
        """A context manager that re-enters this module's name scope."""
        return _ModuleScope(self._scope_name)

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every variable of this module and its sub-modules (see the module docstring)."""
        return tuple(self._flatten(predicate=lambda x: isinstance(x, Variable)))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        return tuple(self._flatten(predicate=lambda x: isinstance(x, Variable) and x.trainable))

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        return tuple(self._flatten(predicate=lambda x: isinstance(x, Variable) and not x.trainable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(
        self,
        recursive: bool = True,
        predicate: Callable[[Any], bool] | None = None,
        attribute_traversal_key: Callable[[str], Any] | None = None,
        with_path: bool = False,
        expand_composites: bool = False,
    ) -> Iterator[Any]:
        """Leaves of the module tree that satisfy ``predicate`` (with their attribute paths
        when ``with_path``; paths repeat an object reachable more than one way, as TF's)."""
        return _flatten_module(
            self,
            recursive,
            predicate or (lambda _: True),
            attribute_traversal_key,
            with_path,
            (),
            None,
            [],
        )

    @classmethod
    def with_name_scope(cls, method: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: the method runs inside its module's name scope."""

        @functools.wraps(method)
        def method_with_name_scope(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object named {self._name!r}>"


class _ModuleScope:
    """``module.name_scope``: re-enters the scope absolutely; ``.name`` is its name."""

    def __init__(self, scope: str) -> None:
        self.name = scope
        self._ctx: Any = None

    def __enter__(self) -> str:
        self._ctx = name_scope(self.name)
        return self._ctx.__enter__()  # type: ignore[no-any-return]

    def __exit__(self, *exc: Any) -> None:
        self._ctx.__exit__(*exc)


def _is_module(x: Any) -> bool:
    return isinstance(x, Module)


def _leaves(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, leaf) pairs of a nested value, as ``nest.flatten_with_tuple_paths``."""
    stack = [(path, value)]
    while stack:
        p, item = stack.pop()
        if isinstance(item, dict):
            try:
                keys = sorted(item)
            except TypeError:
                keys = list(item)
            stack.extend((p + (k,), item[k]) for k in reversed(keys))
        elif isinstance(item, list | tuple):
            stack.extend((p + (i,), v) for i, v in reversed(list(enumerate(item))))
        else:
            yield p, item


def _flatten_module(
    module: Module,
    recursive: bool,
    predicate: Callable[[Any], bool],
    key: Callable[[str], Any] | None,
    with_path: bool,
    module_path: tuple[Any, ...],
    seen: set[int] | None,
    recursion_stack: list[int],
) -> Iterator[Any]:
    if seen is None:
        seen = {id(module)}
    if id(module) in recursion_stack:
        recursive = False
    submodules = []
    attrs = vars(module)
    for name in sorted(attrs, key=key):
        for leaf_path, leaf in _leaves(attrs[name], (name,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + leaf_path, leaf))
    recursion_stack.append(id(module))
    for sub_path, sub in submodules:
        yield from _flatten_module(
            sub, recursive, predicate, key, with_path, sub_path, seen, recursion_stack
        )
    recursion_stack.pop()
