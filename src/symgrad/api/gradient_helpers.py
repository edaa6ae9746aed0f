"""Gradient helpers built on ``custom_gradient``: ``recompute_grad`` and ``grad_pass_through``.

``recompute_grad(f)`` keeps none of ``f``'s intermediate tensors for the backward pass:
its forward runs with tapes paused, and its gradient runs ``f`` again under a fresh tape
(on identities of the inputs, so the recomputation is a new subgraph, and in the variable
scope of the call, so ``get_variable`` finds the same variables) and differentiates that
copy.  ``grad_pass_through(f)`` gives ``f`` the identity gradient, for ops that have
none (an assignment, a rounding) standing in for an identity in straight-through estimators.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from symgrad.api.variable_scope import get_variable_scope, variable_scope
from symgrad.autodiff.custom_gradient import custom_gradient
from symgrad.autodiff.gradients import UnconnectedGradients
from symgrad.autodiff.tape import GradientTape
from symgrad.core import nest
from symgrad.ops.core import identity


def recompute_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` with the same value and gradient, whose forward pass is recomputed in the
    backward pass instead of being kept (``tf.recompute_grad``).

    Positional arguments must be tensors; gradients flow to them and to the variables
    ``f`` reads.  As TF, an input ``f`` does not use gets a zero gradient, not None.

    >>> import symgrad as tf
    >>> layer = tf.recompute_grad(lambda x: tf.sin(x) * x)
    >>> x = tf.constant(1.0)
    >>> with tf.GradientTape() as t:
    ...     t.watch(x)
    ...     y = layer(x)
    >>> print(t.gradient(y, x))
    symgrad.Tensor(1.3817732, shape=(), dtype=float32)
    """

    @custom_gradient
    def inner(*args: Any, **kwargs: Any) -> Any:
        scope = get_variable_scope()  # the recomputation must find the same variables
        result = f(*args, **kwargs)

        def grad_fn(*dresult: Any, variables: Any = None) -> Any:
            with variable_scope(scope):
                return _recomputed_grads(f, args, kwargs, dresult, variables)

        return result, grad_fn

    return functools.wraps(f)(inner)


def _recomputed_grads(
    f: Callable[..., Any], args: Any, kwargs: dict[str, Any], dresult: Any, variables: Any
) -> Any:
    """Run ``f`` again on identities of ``args`` under a tape and differentiate it."""
    with GradientTape() as tape:
        id_args = nest.map_structure(identity, args)
        tape.watch(id_args)
        if variables is not None:
            tape.watch(variables)
        recomputed = f(*id_args, **kwargs)
    flat_args = nest.flatten(id_args)
    var_list = list(variables or [])
    grads = tape.gradient(
        recomputed,
        flat_args + var_list,
        output_gradients=list(dresult),
        unconnected_gradients=UnconnectedGradients.ZERO,
    )
    input_grads = grads[: len(flat_args)]
    return (input_grads, grads[len(flat_args) :]) if variables is not None else input_grads


def grad_pass_through(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` whose gradient is the identity: the upstream gradient passes to its inputs
    unchanged, and the variables it reads get none (``tf.grad_pass_through``).

    >>> import symgrad as tf
    >>> truncate = lambda x: tf.cast(tf.cast(x, tf.int32), tf.float32)  # no gradient
    >>> x = tf.constant([1.4, 2.6])
    >>> with tf.GradientTape() as t:
    ...     t.watch(x)
    ...     y = tf.grad_pass_through(truncate)(x) * x
    >>> print(t.gradient(y, x))
    symgrad.Tensor([2.4 4.6], shape=(2,), dtype=float32)
    """

    @custom_gradient
    def passed(*args: Any, **kwargs: Any) -> Any:
        def grad_fn(*dys: Any, variables: Any = None) -> Any:
            if variables is not None:
                return list(dys), [None] * len(variables)
            return list(dys)

        return f(*args, **kwargs), grad_fn

    return functools.wraps(f)(passed)
