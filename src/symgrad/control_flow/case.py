"""``case``: the fn of the first true predicate, as a chain of ``cond``s (TF 2's way).

Arguments are checked as TF checks them; TF's run-time checks (no predicate true and no
``default``; more than one true under ``exclusive``) are ``Assert`` ops the result
depends on, with TF's texts.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable
from typing import Any

from symgrad.control_flow.cond import Fn, cond
from symgrad.core import dtypes as dt
from symgrad.core import nest
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.ops.array.joining import stack
from symgrad.ops.array.structure import cast
from symgrad.ops.control import control_dependencies
from symgrad.ops.core import identity
from symgrad.ops.debug.assertion import Assert
from symgrad.ops.reduction.reduce import reduce_sum


def case(
    pred_fn_pairs: Any,
    default: Fn | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str = "case",
) -> Any:
    """The fn of the first true predicate, else ``default``; without ``default``, the
    last pair's fn, which fails at run time unless its predicate is true.  With
    ``exclusive``, more than one true predicate fails at run time.  As TF 2 does, a
    chain of ``cond``s, the checks ``Assert`` ops that the result depends on.

    >>> import symgrad as tf
    >>> x = tf.constant(3.0)
    >>> print(float(tf.case([(x > 5.0, lambda: x), (x > 2.0, lambda: x * 2.0)])))
    6.0
    """
    pairs = _case_pairs(pred_fn_pairs, exclusive)
    if not pairs:  # TF fails unpacking zip(*[]); say what is missing
        raise ValueError("'pred_fn_pairs' must hold at least one (pred, fn) pair.")
    preds = [p for p, _ in pairs]
    if default is None:
        *pairs, (last, action) = pairs
        default = functools.partial(
            _checked,
            [last, ["Input error: None of conditions evaluated as True:", stack(preds)]],
            action,
        )

    def chain(i: int) -> Any:
        if i == len(pairs):
            return default()  # type: ignore[misc]
        pred, fn = pairs[i]
        return cond(pred, fn, functools.partial(chain, i + 1))

    with get_default_graph().name_scope(name):  # TF's names: case/cond, case_1/cond
        return chain(0) if not exclusive else _exclusive(pairs, chain)


def _exclusive(pairs: list[tuple[Any, Fn]], chain: Callable[[int], Any]) -> Any:
    """``chain(0)`` after TF's check: at most one true among the predicates left of the
    chain (the last pair's is left out when it stands in for ``default``), those shown."""
    preds = [p for p, _ in pairs]
    eager = get_default_graph().eager
    names = ", ".join("?" if eager else p.name for p in preds)
    text = f"Input error: exclusive=True: more than 1 conditions ({names}) evaluated as True:"
    count = reduce_sum(cast(stack(preds), dt.int32))
    return _checked([count <= 1, [text, stack(preds)], len(preds)], lambda: chain(0))


def _checked(check: list[Any], fn: Fn) -> Any:
    """``fn()``, its results made to depend on ``Assert(*check)`` (eagerly: checked first)."""
    op = Assert(*check)
    with control_dependencies([op] if op is not None else []):
        return nest.map_structure(identity, fn())


def _case_pairs(pred_fn_pairs: Any, exclusive: bool) -> list[tuple[Any, Fn]]:
    """``case``'s pairs, checked as TF checks them; a plain dict is taken in the order of
    its predicates' names when building a graph (TF's rule: its order is not the user's)."""
    if not isinstance(pred_fn_pairs, list | tuple | dict):
        raise TypeError(
            f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}"
        )
    if isinstance(pred_fn_pairs, dict):
        pairs = list(pred_fn_pairs.items())
        if not isinstance(pred_fn_pairs, collections.OrderedDict):
            if get_default_graph().eager and not exclusive:
                raise ValueError(
                    "Unordered dictionaries are not supported for the 'pred_fn_pairs' argument "
                    "when `exclusive=False` and eager mode is enabled."
                )
            if not get_default_graph().eager:
                pairs.sort(key=lambda item: item[0].name)
    else:
        pairs = list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if pred.dtype.name != "bool":
            raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    return pairs
