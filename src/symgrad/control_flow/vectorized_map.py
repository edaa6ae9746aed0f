"""tf.vectorized_map: ``fn`` built once for one element, then batched op by op.

The batching rules of the op records (``autodiff.vectorize``, the small ``pfor`` that
jacobians use) turn the ops ``fn`` builds on element 0 into ops over all elements at
once.  Where some op has no rule (or the number of elements is not known statically),
it falls back to ``map_fn``'s loop, as TF's ``fallback_to_while_loop`` does.  Run
eagerly, the work is traced into a ``function`` first, so a ``cond`` on an element
is an ``If`` op whose batching rule selects per element (eagerly it would take the
branch of element 0 only), as TF wraps its ``pfor`` in a ``tf.function``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from symgrad.autodiff.vectorize import vectorize
from symgrad.control_flow.functional_ops import map_fn
from symgrad.core import context, nest
from symgrad.core.batching import NotVectorizable
from symgrad.ops.core import convert_to_tensor
from symgrad.runtime.function import function

_log = logging.getLogger("symgrad")


def vectorized_map(
    fn: Callable[[Any], Any],
    elems: Any,
    fallback_to_while_loop: bool = True,
    warn: bool = True,
) -> Any:
    """``fn`` applied to each element of ``elems`` along axis 0, vectorised.

    >>> import symgrad as tf
    >>> print(tf.vectorized_map(lambda r: tf.reduce_sum(r * r), tf.ones([3, 2])).numpy())
    [2. 2. 2.]
    """
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if context.executing_eagerly():
        traced = function(lambda *xs: _batched(fn, elems, list(xs), fallback_to_while_loop, warn))
        return traced(*flat)
    return _batched(fn, elems, flat, fallback_to_while_loop, warn)


def _batched(
    fn: Callable[[Any], Any], elems: Any, flat: list[Any], fallback: bool, warn: bool
) -> Any:
    for e in flat:
        if e.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    seeds = [e[0] for e in flat]
    y = fn(nest.pack_sequence_as(elems, seeds))
    outs = [convert_to_tensor(t) for t in nest.flatten(y)]
    try:
        batched = vectorize(seeds, flat, outs)
    except NotVectorizable as e:
        if not fallback:
            raise ValueError(f"No pfor vectorization defined for {e.op_type} ({e})") from None
        if warn:
            _log.warning("Using a while_loop for converting %s", e)
        signature = nest.map_structure(lambda t: convert_to_tensor(t).dtype, y)
        packed = nest.pack_sequence_as(elems, flat)
        return map_fn(fn, packed, fn_output_signature=signature)
    return nest.pack_sequence_as(y, batched)
