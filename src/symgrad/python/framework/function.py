"""``tensorflow.python.framework.function``: TF1's graph functions, ``Defun``.

``@Defun(tf.float32, ...)`` turns a Python function into a graph function: calling it in
a graph adds one call op (symgrad's ``PartitionedCall`` on a trace of the body, made once
per graph, its inputs placeholders of the declared dtypes and unknown shapes).  Its
gradient is, in order of preference, ``python_grad_func(op, *dys)`` (a gradient function
as ``RegisterGradient`` takes), ``grad_func`` (another Defun called on ``inputs + dys``),
or the traced body's own gradient.  Without declared dtypes a Defun is traced per call's
dtypes (TF's "overloaded" function), and its ``grad_func`` per ``inputs + outputs`` dtypes.
"""

from __future__ import annotations

import contextlib
import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from symgrad.core import dtypes as dt
from symgrad.core.gradient_registry import RegisterGradient
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.ops.array.structure import zeros_like
from symgrad.ops.core import convert_to_tensor
from symgrad.runtime.concrete_function import ConcreteFunction, _partitioned_call_grad
from symgrad.runtime.function import Function, TensorSpec

__all__ = ["Defun"]

_GRAD_NAME = "SymgradDefunCall"


class Defun:
    """Decorator: ``Defun(*input_types, func_name=, grad_func=, python_grad_func=,
    out_names=, shape_func=)`` makes a graph function (TF1's ``function.Defun``).

    ``out_names`` and TF's other function attributes (``noinline``, ...) are accepted and
    have no effect: symgrad's call op names no outputs and has no attributes to set."""

    def __init__(self, *input_types: Any, **kwargs: Any) -> None:
        self._input_types = [dt.as_dtype(t) for t in input_types]
        self._func_name = kwargs.pop("func_name", None)
        self._grad_func = kwargs.pop("grad_func", None)
        self._python_grad_func = kwargs.pop("python_grad_func", None)
        self._out_names = kwargs.pop("out_names", None)
        self._shape_func = kwargs.pop("shape_func", None)
        self._extra_kwargs = kwargs

    def __call__(self, func: Callable[..., Any]) -> Any:
        if not callable(func):
            raise ValueError(f"Function {func} must be a callable.")
        spec = inspect.getfullargspec(func)
        if spec.varkw or spec.defaults:
            raise ValueError(
                "Functions with argument defaults or keywords arguments are not supported. "
                f"{func} has defaults {spec.defaults} and keywords {spec.varkw}."
            )
        min_args = len(spec.args) - (1 if inspect.ismethod(func) else 0)
        max_args = 1000000 if spec.varargs else min_args
        fields = (
            self._func_name,
            self._grad_func,
            self._python_grad_func,
            self._out_names,
            self._shape_func,
        )
        if self._input_types:
            num = len(self._input_types)
            if num < min_args or num > max_args:
                raise ValueError(
                    "The number of tf.function input types is not compatible with the "
                    f"allowed arguments of {func}. The tf.function have {num} input types, "
                    f"while the python function allows minimum {min_args} and maximum "
                    f"{max_args} arguments."
                )
            return _DefinedFunction(func, self._input_types, *fields)
        if max_args == 0:
            return _DefinedFunction(func, [], *fields)
        return _OverloadedFunction(func, *fields)


class _DefinedFunction:
    """A Defun with known input dtypes: traced once per graph it is called in."""

    def __init__(
        self,
        func: Callable[..., Any],
        input_types: Sequence[dt.DType],
        func_name: str | None = None,
        grad_func: Any = None,
        python_grad_func: Any = None,
        out_names: Any = None,
        shape_func: Any = None,
    ) -> None:
        self._func = func
        self._input_types = list(input_types)
        self._func_name: str = func_name or str(getattr(func, "__name__", "defun"))
        self._grad_func = grad_func
        self._python_grad_func = python_grad_func
        self._shape_func = shape_func
        self._traces: weakref.WeakKeyDictionary[Any, ConcreteFunction] = weakref.WeakKeyDictionary()

    @property
    def name(self) -> str:
        return self._func_name

    @property
    def grad_func_name(self) -> str | None:
        return self._grad_func.name if self._grad_func is not None else None

    @property
    def python_grad_func(self) -> Any:
        return self._python_grad_func

    @property
    def declared_input_types(self) -> tuple[dt.DType, ...]:
        return tuple(self._input_types)

    def add_to_graph(self, g: Any) -> None:
        """Trace the body for graph ``g`` (TF adds the definition to its library)."""
        if self._grad_func is not None and self._python_grad_func is not None:
            raise ValueError(f"Gradient defined twice for function {self._func_name}")
        self._trace(g)

    def _trace(self, g: Any) -> ConcreteFunction:
        cf = self._traces.get(g)
        if cf is None:
            specs = [TensorSpec(None, t) for t in self._input_types]
            with g.as_default():
                cf = Function(self._func, name=self._func_name).get_concrete_function(*specs)
            cf.defun = self  # type: ignore[attr-defined]  # read by the gradient below
            self._traces[g] = cf
        return cf

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        graph = get_default_graph()
        self.add_to_graph(graph)
        tensors = [convert_to_tensor(a) for a in args]
        if len(tensors) != len(self._input_types):
            raise ValueError(
                f"Defun {self._func_name} expected {len(self._input_types)} arguments, "
                f"got {len(tensors)}."
            )
        for i, (t, want) in enumerate(zip(tensors, self._input_types, strict=True)):
            if t.dtype is not want:
                raise ValueError(
                    f"Defun {self._func_name}: argument {i} has dtype {t.dtype.name}, "
                    f"expected {want.name}."
                )
        cf = self._trace(graph)
        name = kwargs.pop("name", None)
        scope = graph.name_scope(name) if name else contextlib.nullcontext()
        with graph.gradient_override_map({"PartitionedCall": _GRAD_NAME}), scope:
            result = cf.call_flat(tensors)
        outs = [t for t in _flat(result) if isinstance(t, Tensor)]
        if self._shape_func is not None and outs:
            shapes = self._shape_func(outs[0].op)
            for t, shape in zip(outs, shapes, strict=True):
                t.set_shape(shape)
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)


class _OverloadedFunction:
    """A Defun with no declared dtypes: one ``_DefinedFunction`` per call's input dtypes."""

    def __init__(self, func: Callable[..., Any], *fields: Any) -> None:
        self._func = func
        self._fields = fields
        self._overload: dict[tuple[dt.DType, ...], _DefinedFunction] = {}

    def instantiate(self, input_types: Sequence[dt.DType]) -> _DefinedFunction:
        key = tuple(input_types)
        defined = self._overload.get(key)
        if defined is None:
            func_name, grad_func, python_grad_func, out_names, shape_func = self._fields
            if func_name is not None:
                func_name = "_".join([func_name, *(t.name for t in key)])
            defined = _DefinedFunction(
                self._func, key, func_name, None, python_grad_func, out_names, shape_func
            )
            if grad_func is not None:
                outs = defined._trace(get_default_graph()).outputs
                defined._grad_func = grad_func.instantiate([*key, *(t.dtype for t in outs)])
            self._overload[key] = defined
        return defined

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tensors = [convert_to_tensor(a) for a in args]
        return self.instantiate([t.dtype for t in tensors])(*tensors, **kwargs)


def _flat(result: Any) -> list[Any]:
    if isinstance(result, list | tuple):
        return list(result)
    return [result]


@RegisterGradient(_GRAD_NAME)
def _defun_call_grad(op: Any, *grads: Any) -> list[Any]:
    """``python_grad_func(op, *dys)``, else ``grad_func(*inputs, *dys)``, else the body's
    gradient; unconnected float outputs get zeros, as TF's SymbolicGradient gives them."""
    f: ConcreteFunction = op.get_attr("f")
    defun: _DefinedFunction | None = getattr(f, "defun", None)
    if defun is None or (defun._python_grad_func is None and defun._grad_func is None):
        return _partitioned_call_grad(op, *grads)
    n_in, n_out = len(defun._input_types), len(f.outputs)
    dys = [
        zeros_like(op.outputs[i]) if g is None and op.outputs[i].dtype.is_differentiable else g
        for i, g in enumerate(grads[:n_out])
    ]
    if defun._python_grad_func is not None:
        got = defun._python_grad_func(op, *dys)
    else:
        got = defun._grad_func(*op.inputs[:n_in], *dys)
    got = list(got) if isinstance(got, list | tuple) else [got]
    return got + [None] * (len(op.inputs) - len(got))
