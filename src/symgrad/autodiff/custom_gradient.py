"""``custom_gradient``: a function whose gradient is given by the user, not derived.

The decorated ``f(*x)`` runs with every tape paused (only the variables it reads are
noted); its flat outputs then pass through one ``CustomGradient`` op whose inputs are
``outputs + x + reads of those variables`` and whose kernel forwards the outputs.  The
op carries the user's ``grad_fn``; its registered gradient rule calls it, so tapes,
``gradients()`` and traced functions all find it through the ordinary registry, and a
``grad_fn`` written with differentiable ops can itself be differentiated.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from symgrad.core import context, nest
from symgrad.core.context import remap_scope
from symgrad.core.gradient_registry import runs_user_code
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.core.op_registry import Spec, apply_op, register_op
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.state.variables import Variable


def _infer(inputs: Sequence[Tensor], *, n_out: int, grad_fn: Any, remap: Any = None) -> list[Spec]:
    return [(t.shape, t.dtype) for t in inputs[:n_out]]


def _kernel(*xs: Any, n_out: int, grad_fn: Any, remap: Any = None) -> Any:
    # One output is one array, not a 1-tuple: plans take a single output's value as is.
    return xs[0] if n_out == 1 else tuple(xs[:n_out])


CUSTOM_GRADIENT = register_op(
    "CustomGradient",
    _infer,
    _kernel,
    batch="carries the user's grad_fn, written for one example: batching the op would need "
    "that function vectorised (jacobians fall back to the loop)",
    no_cases="carries the Python grad_fn of tf.custom_gradient, which a row cannot supply; "
    "tests/autodiff/test_custom_gradient.py covers it (check a grad_fn with "
    "symgrad.test.check_vjp)",
)


class _VariableWatcher:
    """Stands in for the tapes while ``f`` runs: records nothing, notes variable reads."""

    def __init__(self) -> None:
        self.variables: dict[int, Any] = {}
        self._recording = True

    def record(self, op: Any) -> None:
        pass

    def variable_accessed(self, var: Any) -> None:
        self.variables.setdefault(id(var), var)

    def would_record(self, inputs: Any, variables: Sequence[Any]) -> bool:
        return bool(variables)


class _GradFn:
    """What the op stores: the user's grad_fn and the variables it must account for."""

    def __init__(self, fn: Callable[..., Any], n_inputs: int, variables: list[Any]) -> None:
        self.fn = fn
        self.n_inputs = n_inputs
        self.variables = variables

    def __call__(self, grads: Sequence[Tensor]) -> list[Any]:
        if self.variables:
            result = self.fn(*grads, variables=self.variables)
            if not isinstance(result, list | tuple) or len(result) != 2:
                raise ValueError(
                    "Must return gradient for each variable from @custom_gradient grad_fn."
                )
            input_grads, var_grads = result
            var_grads = list(var_grads) if isinstance(var_grads, list | tuple) else [var_grads]
            if len(var_grads) != len(self.variables):
                raise ValueError(
                    "Must return gradient for each variable from @custom_gradient grad_fn."
                )
        else:
            input_grads, var_grads = self.fn(*grads), []
        # As TF, the input gradients may mirror a nested input structure: flattened alike.
        input_grads = nest.flatten(input_grads)
        if len(input_grads) != self.n_inputs:
            raise ValueError(
                f"custom_gradient function expected to return {self.n_inputs} "
                f"gradients but returned {len(input_grads)} instead."
            )
        return input_grads + var_grads


@CUSTOM_GRADIENT.gradient
@runs_user_code
def _custom_gradient_grad(op: Any, *grads: Tensor) -> list[Any]:
    """(None for each forwarded output) + grad_fn(*grads)."""
    fn: _GradFn = op.get_attr("grad_fn")
    with remap_scope(op.get_attr("remap")):
        return [None] * op.get_attr("n_out") + fn(list(grads))


def _split_result(f: Callable[..., Any], result: Any) -> tuple[Any, Callable[..., Any]]:
    """``(y, grad_fn)`` from what the decorated function returned, or a TypeError naming it."""
    if not isinstance(result, list | tuple) or len(result) != 2 or not callable(result[1]):
        got = (
            type(result).__name__
            if not isinstance(result, list | tuple)
            else f"{type(result).__name__} of {len(result)} items"
        )
        raise TypeError(
            f"@custom_gradient function {getattr(f, '__qualname__', f)!s} must "
            f"return a pair (y, grad_fn) with a callable grad_fn, but returned a "
            f"{got}."
        )
    return result[0], result[1]


def _accepts_variables(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)


def custom_gradient(f: Callable[..., Any] | None = None) -> Any:
    """Decorate ``f(*x) -> (y, grad_fn)`` so that the gradient of y is ``grad_fn(*dy)``.

    ``grad_fn`` gets one upstream gradient per flattened output of ``y`` and returns one
    gradient per positional input (a single tensor for one input).  If ``f`` reads
    variables that are not inputs, ``grad_fn`` must take a ``variables`` keyword and
    return ``(input_grads, variable_grads)``.

    >>> import symgrad as tf
    >>> @tf.custom_gradient
    ... def clip(x):
    ...     return tf.identity(x), lambda dy: tf.minimum(dy, 0.5)
    >>> x = tf.constant(2.0)
    >>> with tf.GradientTape() as t:
    ...     t.watch(x)
    ...     y = clip(x) * 3.0
    >>> print(t.gradient(y, x))
    symgrad.Tensor(0.5, shape=(), dtype=float32)
    """
    if f is None:
        return custom_gradient
    return _Bindable(f, _call_custom)


class _Bindable:
    """A decorated function that binds like the function it wraps (as TF's ``Bind``).

    Used on a method, ``self`` is bound before the call, so it is never taken for a
    differentiable input: only the remaining arguments are.
    """

    def __init__(self, f: Callable[..., Any], call: Callable[..., Any]) -> None:
        functools.update_wrapper(self, f)
        self._f, self._call = f, call

    def __get__(self, instance: Any, owner: Any = None) -> _Bindable:
        return _Bindable(self._f.__get__(instance, owner), self._call)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(self._f, args, kwargs)


def _as_input(a: Any) -> Any:
    return a if isinstance(a, Variable) else convert_to_tensor(a)


def _call_custom(f: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    """Run ``f`` with tapes paused and route its flat outputs through one CustomGradient
    op whose differentiable inputs are the flattened (possibly nested) positional args."""
    flat_args = [_as_input(a) for a in nest.flatten(args)]
    args = nest.pack_sequence_as(args, flat_args)
    st = context.current
    saved, heavy, watcher = st.recorders, st.heavy, _VariableWatcher()
    st.recorders, st.heavy = [watcher], True  # (the watcher takes no light tensors)
    try:
        result = f(*args, **kwargs)
    finally:
        st.recorders, st.heavy = saved, heavy
    y, grad_fn = _split_result(f, result)
    arg_ids = {id(a) for a in flat_args}
    variables = [v for v in watcher.variables.values() if id(v) not in arg_ids]
    if variables and (saved or not get_default_graph().eager) and not _accepts_variables(grad_fn):
        names = [v.name for v in variables]
        raise TypeError(
            "@tf.custom_gradient grad_fn must accept keyword argument "
            f"'variables', since function uses variables: {names}"
        )
    inputs = [a.value() if isinstance(a, Variable) else a for a in flat_args]
    flat = [convert_to_tensor(v) for v in nest.flatten(y)]
    reads = [v.value() for v in variables]
    attrs = {
        "n_out": len(flat),
        "grad_fn": _GradFn(grad_fn, len(inputs), variables),
        "remap": None,
    }
    op = apply_op("CustomGradient", flat + inputs + reads, attrs, "CustomGradient")
    return nest.pack_sequence_as(y, op.outputs)
