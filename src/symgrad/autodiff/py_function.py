"""``tf.py_function`` (op type ``EagerPyFunc``): a Python function of eager tensors as an
op, differentiable once.

The kernel runs the function eagerly (at the top level, whatever graph the op is in) on
eager constants of its inputs and converts what it returns to ``Tout`` as TF's
``EagerFunc`` does (``convert_to_tensor(value, dtype)``; a Variable refused; a list
longer than ``Tout`` cut to it).  Where a gradient may be asked for (a tape records on
the thread, or a gradient of the op was built in a graph) it runs under a tape of its
own that watches the float inputs, and the op's ``EagerFunc`` keeps that tape with the
inputs and outputs, as TF's ``tape_cache`` does.

The gradient, TF's ``_EagerPyFuncGrad``, is another ``EagerPyFunc``, run after the op (a
control dependency), whose function takes what was kept (once: a second gradient of the
same run is TF's ``KeyError``) and returns that tape's gradient of the outputs weighted
by the upstream ones: the ops the function ran, differentiated by their own rules.  An
input no gradient reaches gets a scalar 0, as in TF.  The gradient op is not
differentiable again (TF: "differentiable (once)"; a second order is None).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from symgrad.autodiff.tape import GradientTape
from symgrad.core import context
from symgrad.core.dtypes import DType
from symgrad.core.errors import OpError
from symgrad.core.graph import Graph, Tensor, get_default_graph
from symgrad.core.op_registry import register_op
from symgrad.ops.cast_select import zeros_like
from symgrad.ops.control import control_dependencies
from symgrad.ops.core import constant, convert_to_tensor
from symgrad.ops.debug import script_ops
from symgrad.ops.state.variables import Variable


class EagerFunc:
    """What an ``EagerPyFunc`` op holds: the function, its output dtypes, and what its
    last run kept for the gradient."""

    def __init__(
        self, func: Callable[..., Any], dtypes: list[DType], is_grad_func: bool, token: bytes
    ) -> None:
        self.func = func
        self.dtypes = dtypes
        self.is_grad_func = is_grad_func
        self.token = token
        self.graph_mode_gradient = False  # a graph holds this op's gradient: always keep
        self.kept: tuple[GradientTape, list[Tensor], list[Tensor]] | None = None

    def __call__(self, *arrays: Any) -> list[Tensor]:
        keep = self.graph_mode_gradient or bool(context.current.recorders)
        with _eagerly():
            args = [constant(a) for a in arrays]
            if not keep:
                return self._call(args)
            with GradientTape() as tape:
                for t in args:
                    if t.dtype.is_differentiable:
                        tape.watch(t)
                outputs = self._call(args)
        self.kept = (tape, args, outputs)
        return outputs

    def take(self) -> tuple[GradientTape, list[Tensor], list[Tensor]]:
        """What the last run kept, once (TF pops its ``tape_cache`` entry)."""
        kept, self.kept = self.kept, None
        if kept is None:
            raise KeyError(self.token)
        return kept

    def _call(self, args: list[Tensor]) -> list[Tensor]:
        ret = self.func(*args)
        if isinstance(ret, list | tuple):
            return [self._convert(x, d) for x, d in zip(ret, self.dtypes)]
        return [] if ret is None else [self._convert(ret, self.dtypes[0])]

    def _convert(self, value: Any, dtype: DType) -> Tensor:
        if isinstance(value, Variable):
            raise RuntimeError(
                "Attempting to return a variable from an eagerly executed py_func. Only "
                "numeric data structures like Tensors or NumPy arrays should be returned; "
                "to return the value of a variable, make sure to obtain the Tensor backing "
                "it by calling `.read_value()` on the variable in question: "
                f"{value}"
            )
        if value is None and self.is_grad_func:
            # TF's constant(0.0, dtype): a scalar zero, which an integer dtype refuses.
            if not dtype.is_differentiable:
                raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name}")
            return constant(0.0, dtype)
        return convert_to_tensor(value, dtype=dtype)


@contextlib.contextmanager
def _eagerly() -> Iterator[None]:
    """Run eagerly, where no outer tape sees the function's ops: at the top level (TF's
    ``context.eager_mode()``), or in an eager graph of its own when the top level is a
    TF1 graph (``compat.v1.disable_eager_execution``)."""
    if context.top_level_graph().eager:
        with context.init_scope():
            yield
        return
    global _EAGER_GRAPH
    if _EAGER_GRAPH is None:
        _EAGER_GRAPH = Graph(eager=True)
    with context.stop_recording(), _EAGER_GRAPH.as_default():
        yield


_EAGER_GRAPH: Graph | None = None


def _kernel(*arrays: Any, func: EagerFunc, token: bytes, **_: Any) -> Any:
    outputs = script_ops.call_python(lambda: func(*arrays))
    script_ops.check_count(token, len(outputs), func.dtypes)
    values = [t.numpy().copy() for t in outputs]  # the op's own arrays
    return values[0] if len(values) == 1 else tuple(values)


EAGER_PY_FUNC = register_op(
    "EagerPyFunc",
    script_ops.py_func_infer,
    _kernel,
    stateful=True,
    pure=False,
    batch="calls the user's Python function on whole tensors (jacobians fall back to the loop)",
    no_cases="calls the user's Python function; tests/autodiff/test_py_function.py checks TF's "
    "values, errors and gradients eagerly, in a function, in a Session and in tf.data",
)


def internal_py_func(
    func: Any, inp: Any, Tout: Any, is_grad_func: bool = False, name: str | None = None
) -> Any:
    """The ``EagerPyFunc`` op of a call (TF's ``_internal_py_func``): its outputs as a
    list for a list ``Tout``, else the one output; eagerly, errors in TF's eager text."""
    script_ops.check_callable(func)
    dtypes, is_list = script_ops.output_dtypes(Tout)
    token = script_ops.next_token()
    eager_func = EagerFunc(func, dtypes, is_grad_func, token)
    attrs = {"is_async": False}
    try:
        op = script_ops.make_op("EagerPyFunc", eager_func, list(inp), dtypes, attrs, name, token)
    except OpError as e:
        if not get_default_graph().eager:
            raise
        raise script_ops.with_eager_text(e, "EagerPyFunc", name) from None
    if not dtypes and not get_default_graph().eager:
        return op
    return op.outputs if is_list else op.outputs[0]


@EAGER_PY_FUNC.gradient
def _eager_py_func_grad(op: Any, *dy: Tensor | None) -> Any:
    """dx = the kept tape's gradient of the outputs, weighted by dy (an EagerPyFunc)."""
    func: EagerFunc = op.get_attr("func")

    def eagerly_executed_grad(*dy: Tensor) -> list[Any]:
        tape, inputs, outputs = func.take()
        wanted = [t for t in inputs if t.dtype.is_differentiable]
        got = iter(tape.gradient(outputs, wanted, output_gradients=list(dy)) if wanted else [])
        return [next(got) if t.dtype.is_differentiable else None for t in inputs]

    dy_full = [g if g is not None else zeros_like(t) for g, t in zip(dy, op.outputs)]
    with control_dependencies(op.outputs):
        grads = internal_py_func(
            eagerly_executed_grad, dy_full, [t.dtype for t in op.inputs], is_grad_func=True
        )
    if not get_default_graph().eager:
        func.graph_mode_gradient = True  # TF's set_support_graph_mode_gradient
    return grads


def py_function(func: Any = None, inp: Any = None, Tout: Any = None, name: Any = None) -> Any:
    """Wrap ``func`` (eager tensors in, tensors out) as an op that runs it eagerly, each
    time the op runs, and is differentiable (once) through the ops it runs.  With
    ``func=None``, a decorator (``@tf.py_function(Tout=tf.float32)``).

    >>> import symgrad as tf
    >>> x = tf.constant(3.0)
    >>> with tf.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = tf.py_function(lambda a: a**2, [x], tf.float32)
    >>> print(y, tape.gradient(y, x))
    symgrad.Tensor(9.0, shape=(), dtype=float32) symgrad.Tensor(6.0, shape=(), dtype=float32)
    """
    decorator = script_ops.check_args(py_function, "tf.py_function", func, inp, Tout, name=name)
    if decorator is not None:
        return decorator
    return internal_py_func(func, inp, Tout, name=name)
