"""Compare every name symgrad exports with TensorFlow 2.21's object at the same path.

``symgrad.tools.api.walk()`` lists the names (the walk the README's API table is made
from); :func:`differences` returns, for each, what differs from TF: a missing name, or the
signature's parameter names, order, kinds and defaults (a class by its ``__init__``).
"""

from __future__ import annotations

import enum
import inspect
import math
import types
from typing import Any

import tensorflow as tf

from symgrad.tools import api

# TF's tf.compat.v1.flags.FLAGS parses sys.argv (pytest's) at its first attribute lookup,
# inspect's included; marked parsed, it answers introspection without parsing.
tf.compat.v1.flags.FLAGS.mark_as_parsed()

_EMPTY = inspect.Parameter.empty
_VAR_POS, _VAR_KW = inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD


def tf_object(path: str) -> Any:
    """TF's object at ``path`` ("tf.nn.dropout"), or raises AttributeError."""
    obj: Any = tf
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def signature(obj: Any) -> inspect.Signature | None:
    """The signature users call: a class's ``__init__`` (without self), a function's
    own after TF's decorators (``inspect.signature`` follows ``__wrapped__``)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    kinds = [p.kind for p in sig.parameters.values()]
    if isinstance(obj, type) and kinds == [_VAR_POS, _VAR_KW]:
        # a metaclass's __call__: tf.Variable's calls _variable_call (the order positional
        # arguments take in TF 2.21), other classes their own __init__
        if hasattr(obj, "_variable_call"):  # a classmethod: bound, no cls
            return inspect.signature(obj._variable_call)
        init = inspect.signature(obj.__init__)
        return init.replace(parameters=list(init.parameters.values())[1:])
    return sig


def _default(value: Any) -> Any:
    """A comparable form of a default (dtypes by name, enums by name)."""
    if value is _EMPTY or value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return float(value) if not math.isnan(value) else "nan"
    if isinstance(value, (tuple, list)):
        return tuple(_default(v) for v in value)
    if hasattr(value, "is_floating") and hasattr(value, "name"):
        return f"dtype {value.name}"
    if isinstance(value, enum.Enum):
        return f"enum {value.name}"
    if isinstance(value, types.FunctionType):
        return f"function {value.__name__}"
    return f"object {type(value).__name__}"


def describe(sig: inspect.Signature) -> list[tuple[str, str, Any]]:
    return [(p.name, p.kind.name, _default(p.default)) for p in sig.parameters.values()]


def difference(path: str, ours: Any) -> str | None:
    """What differs between symgrad's object at ``path`` and TF's; None when they agree."""
    try:
        theirs = tf_object(path)
    except (AttributeError, ImportError):
        return "TensorFlow 2.21 has no such name"
    if not callable(ours) or isinstance(ours, types.ModuleType):
        return None
    if not callable(theirs):
        return f"TF's {path} is not callable ({type(theirs).__name__})"
    mine, tfs = signature(ours), signature(theirs)
    if mine is None or tfs is None:
        return None if mine is tfs else f"signature: ours {mine}, TF's {tfs}"
    a, b = describe(mine), describe(tfs)
    if a == b:
        return None
    return f"ours {_show(a)}\n  TF's {_show(b)}"


def _show(params: list[tuple[str, str, Any]]) -> str:
    parts = []
    for name, kind, default in params:
        prefix = {"VAR_POSITIONAL": "*", "VAR_KEYWORD": "**"}.get(kind, "")
        suffix = "" if default is _EMPTY else f"={default!r}"
        parts.append(("kw:" if kind == "KEYWORD_ONLY" else "") + prefix + name + suffix)
    return "(" + ", ".join(parts) + ")"


def tf_path(path: str) -> str:
    """Where TF has the name: the path itself, or under tf.compat.v1 for a TF1-only one
    (``tf.placeholder`` is TF's ``tf.compat.v1.placeholder``)."""
    return path if api.kind(path) == api.TF2 else "tf.compat.v1." + api.rest(path)


def differences() -> dict[str, str]:
    """``{path: what differs}`` over every name the walk finds (symgrad's own excluded)."""
    found = {}
    for path, obj in api.walk().items():
        if api.kind(path) == api.SYMGRAD:
            continue
        diff = difference(tf_path(path), obj)
        if diff is not None:
            found[path] = diff
    return found


def has(path: str) -> bool:
    try:
        tf_object(path)
    except (AttributeError, ImportError):
        return False
    return True


def wrong_kinds() -> dict[str, str]:
    """Walked names whose kind (TF 2.21 / TF1-only / own) TF does not confirm."""
    wrong = {}
    for path, obj in api.walk().items():
        k, r = api.kind(path), api.rest(path)
        if k == api.TF2 and not (has(path) and has("tf." + r)):
            wrong[path] = "listed as TF 2.21's, but TF 2.21 has no tf." + r
        elif k == api.TF1 and (has("tf." + r) or not has("tf.compat.v1." + r)):
            wrong[path] = "listed as TF1-only, but TF has tf." + r
        elif k == api.SYMGRAD and has(path) and not isinstance(obj, types.ModuleType):
            wrong[path] = "listed as symgrad's own, but TF has it"
    return wrong
