"""``keras.ops`` control flow as Keras 3's TensorFlow backend runs it: ``fori_loop`` (a
``while_loop`` over ``(i, val)``), ``scan`` (each step's ``ys`` stacked, in the structure
of ``init``, a step without ys a row of zeros; ``reverse`` walks from the end and writes
each step at its own index), ``vectorized_map`` (``tf.vectorized_map``) and
``convert_to_numpy``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.control_flow.vectorized_map import vectorized_map as _vectorized_map
from symgrad.control_flow.while_loop import while_loop
from symgrad.core import nest
from symgrad.ops.array.joining import stack
from symgrad.ops.array.structure import zeros, zeros_like
from symgrad.ops.core import convert_to_tensor


def fori_loop(lower: Any, upper: Any, body_fun: Callable[..., Any], init_val: Any) -> Any:
    return while_loop(
        lambda i, val: i < upper, lambda i, val: (i + 1, body_fun(i, val)), (lower, init_val)
    )[1]


def vectorized_map(function: Callable[..., Any], elements: Any) -> Any:
    return _vectorized_map(function, elements)


def convert_to_numpy(x: Any) -> Any:
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def scan(
    f: Any, init: Any, xs: Any = None, length: Any = None, reverse: bool = False, unroll: Any = 1
) -> Any:
    """``(final carry, stacked ys)``; the steps run in Python (the length must be static),
    so under ``tf.function`` the loop is unrolled."""
    if not callable(f):
        raise TypeError(f"`f` should be a callable. Received: f={f}")
    if not isinstance(unroll, bool) and (not isinstance(unroll, int) or unroll < 1):
        raise ValueError(
            f"`unroll` must be an positive integer or boolean. Received: unroll={unroll}"
        )
    if xs is None and length is None:
        raise ValueError("Got no `xs` to scan over and `length` not provided.")
    xs_flat = [] if xs is None else [convert_to_tensor(x) for x in nest.flatten(xs)]
    n = int(length) if length is not None else xs_flat[0].shape[0]
    if n is None:
        raise ValueError("symgrad's keras.ops.scan needs a static length (xs's first axis)")

    def pack_output(flat: list[Any]) -> Any:
        return nest.pack_sequence_as(init, flat) if nest.is_nested(init) else flat[0]

    carry_flat = [convert_to_tensor(c) for c in nest.flatten(init)]
    first = carry_flat
    ys: list[Any] = [None] * n
    for i in reversed(range(n)) if reverse else range(n):
        x = None
        if xs_flat:
            items = [x_[i] for x_ in xs_flat]
            x = nest.pack_sequence_as(xs, items) if nest.is_nested(xs) else items[0]
        carry, y = f(pack_output(carry_flat), x)
        if y is not None:
            ys[i] = [convert_to_tensor(v) for v in nest.flatten(y)]
        if carry is not None:
            carry_flat = [convert_to_tensor(c) for c in nest.flatten(carry)]
    # A step that gave no ys leaves its row as zeros (Keras's TensorArray, unwritten).
    stacked = [
        stack([zeros_like(c) if step is None else step[k] for step in ys])
        if n
        else zeros((0, *c.shape), c.dtype)
        for k, c in enumerate(first)
    ]
    return pack_output(carry_flat), pack_output(stacked)
