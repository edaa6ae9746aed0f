"""``tensorflow.python.eager.backprop``: the functional eager gradient API.

TF's own tests (and pre-2.0 eager code, as ``tfe.*``) differentiate functions rather than
taped blocks: ``gradients_function(f)(*args)`` is ``f``'s gradient w.r.t. its arguments,
``implicit_grad(f)(*args)`` w.r.t. the trainable variables ``f`` reads.  Each is a thin
wrapper over one ``GradientTape``: the arguments to differentiate are watched, ``f`` runs
under the tape, and the flattened result is differentiated (a list result: its sum).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from symgrad.autodiff.tape import GradientTape
from symgrad.core import nest
from symgrad.ops.core import convert_to_tensor, identity

__all__ = [
    "GradientTape",
    "gradients_function",
    "implicit_grad",
    "implicit_val_and_grad",
    "implicit_value_and_gradients",
    "make_vjp",
    "val_and_grad_function",
    "value_and_gradients_function",
]


def _returned(f: Callable[..., Any], result: Any) -> Any:
    if result is None:
        name = getattr(f, "__name__", repr(f))
        raise ValueError(
            "Cannot differentiate a function that returns None; "
            f"did you forget to return a value from {name}?"
        )
    return result


def implicit_val_and_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """``g(*args) -> (f(*args), [(gradient, variable), ...])`` over the trainable variables
    ``f`` read while it ran (in the order they were created)."""

    def grad_fn(*args: Any, **kwargs: Any) -> Any:
        with GradientTape() as tape:
            end_node = _returned(f, f(*args, **kwargs))
        variables = list(tape.watched_variables())
        if not variables:
            raise ValueError(
                "No trainable variables were accessed while the function was being computed."
            )
        grads = tape.gradient(nest.flatten(end_node), variables)
        return end_node, list(zip(grads, variables, strict=True))

    return grad_fn


def implicit_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """``g(*args) -> [(gradient, variable), ...]``: ``implicit_val_and_grad`` less the value."""

    def grad_fn(*args: Any, **kwargs: Any) -> Any:
        return implicit_val_and_grad(f)(*args, **kwargs)[1]

    return grad_fn


def _arg_positions(f: Callable[..., Any], params: Any, args: Sequence[Any]) -> Sequence[int]:
    """The positions in ``args`` to differentiate: all (less ``self``), or ``params`` given
    as argument names or indices."""
    try:
        names = [
            p.name
            for p in inspect.signature(f).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError) as e:
        if params is None:
            return range(len(args))
        if all(isinstance(p, int) for p in params):
            return list(params)
        raise ValueError(
            "Either callable provided is not a function or could not inspect its "
            f"arguments by name: {f}. Original error: {e}"
        ) from None
    if params is None:
        if not names:
            return range(len(args))
        return range(len(names) - 1) if names[0] == "self" else range(len(names))
    if all(isinstance(p, str) for p in params):
        return [names.index(p) for p in params]
    if all(isinstance(p, int) for p in params):
        return list(params)
    raise ValueError(f"params must be all strings or all integers; got {params}.")


def make_vjp(f: Callable[..., Any], params: Any = None, persistent: bool = True) -> Any:
    """``g(*args) -> (f(*args), vjp)`` where ``vjp(dy=None)`` is the gradient of
    ``sum(f · dy)`` (``dy`` ones by default) w.r.t. the chosen arguments."""

    def decorated(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise ValueError("The gradient function can't take keyword arguments.")
        positions = _arg_positions(f, params, args)
        args_l = [convert_to_tensor(a) if i in positions else a for i, a in enumerate(args)]
        seen: set[int] = set()
        for i in positions:  # the same tensor twice is two independent arguments
            if id(args_l[i]) in seen:
                args_l[i] = identity(args_l[i])
            seen.add(id(args_l[i]))
        sources = [args_l[i] for i in positions]
        tape = GradientTape(persistent=persistent)
        with tape:
            tape.watch(sources)
            result = _returned(f, f(*args_l))
            result = nest.map_structure(identity, result)

        def vjp(dy: Any = None) -> Any:
            seeds = None if dy is None else [convert_to_tensor(d) for d in nest.flatten(dy)]
            return tape.gradient(nest.flatten(result), sources, output_gradients=seeds)

        return result, vjp

    return decorated


def val_and_grad_function(f: Callable[..., Any], params: Any = None) -> Callable[..., Any]:
    """``g(*args, dy=None) -> (f(*args), [gradient per chosen argument])``."""

    def decorated(*args: Any, **kwargs: Any) -> Any:
        dy = kwargs.pop("dy", None)
        if kwargs:
            raise ValueError("Functions to be differentiated cannot receive keyword arguments.")
        val, vjp = make_vjp(f, params)(*args)
        return val, vjp(dy=dy)

    return decorated


def gradients_function(f: Callable[..., Any], params: Any = None) -> Callable[..., Any]:
    """``g(*args, dy=None) -> [gradient of f per chosen argument]``.

    >>> import symgrad as tf
    >>> from symgrad.python.eager import backprop
    >>> dx, dy = backprop.gradients_function(lambda x, y: x * x * y)(2.0, 3.0)
    >>> print(dx.numpy(), dy.numpy())
    12.0 4.0
    """

    def decorated(*args: Any, **kwargs: Any) -> Any:
        return val_and_grad_function(f, params)(*args, **kwargs)[1]

    return decorated


# The names tfe (tf.contrib.eager) exported them under.
value_and_gradients_function = val_and_grad_function
implicit_value_and_gradients = implicit_val_and_grad
