"""Nested structures of tensors (lists, tuples, namedtuples, dicts), as ``tf.nest``.

A leaf is anything that is not a list, tuple or dict.  Dicts flatten in sorted-key order
(TensorFlow's rule) and are rebuilt with their original key order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


def is_nested(value: Any) -> bool:
    return isinstance(value, list | tuple | dict)


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value[k] for k in _sorted_keys(value)]
    return list(value)


def _sorted_keys(d: dict[Any, Any]) -> list[Any]:
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def flatten(structure: Any) -> list[Any]:
    """The leaves of ``structure``, depth first (no recursion: structures may be deep)."""
    out: list[Any] = []
    stack = [structure]
    while stack:
        item = stack.pop()
        if is_nested(item):
            stack.extend(reversed(_children(item)))
        else:
            out.append(item)
    return out


def pack_sequence_as(structure: Any, flat: list[Any]) -> Any:
    """``structure`` with its leaves replaced, in order, by the items of ``flat``."""
    it = iter(flat)
    result = _pack(structure, it)
    if next(it, _END) is not _END:
        raise ValueError("pack_sequence_as: more values than the structure has leaves")
    return result


_END = object()


def _pack(structure: Any, it: Iterator[Any]) -> Any:
    if not is_nested(structure):
        value = next(it, _END)
        if value is _END:
            raise ValueError("pack_sequence_as: fewer values than the structure has leaves")
        return value
    if isinstance(structure, dict):
        packed = {k: _pack(structure[k], it) for k in _sorted_keys(structure)}
        return type(structure)((k, packed[k]) for k in structure)
    items = [_pack(s, it) for s in structure]
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*items)
    return type(structure)(items)


def map_structure(fn: Callable[[Any], Any], structure: Any) -> Any:
    return pack_sequence_as(structure, [fn(x) for x in flatten(structure)])
