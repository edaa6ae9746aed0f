"""``function`` (``tf.function``): trace a Python function into a graph once per signature.

Tracing runs the Python function on placeholders inside a ``FuncGraph`` (building mode,
outer tapes paused).  Tensors from outside the function become captures: placeholders fed
with the outer tensor at each call.  Variables are captured by reference (their reads run
when the graph runs), and every stateful op (reads, assignments) is chained after the
previous one by a control edge (TF's automatic control dependencies), so the graph and
its plan keep the program's order of side effects.

A Variable created while tracing lives outside the function (TF's ``init_scope``), and
only the first trace may create one; when it does, the function is traced again with
creation forbidden, as TF does.  How a trace is called and differentiated:
``concrete_function``.
"""

from __future__ import annotations

import functools
import inspect
import logging
import operator
import threading
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import context, hooks, nest
from symgrad.core import dtypes as dt
from symgrad.core.graph import Operation, Tensor
from symgrad.core.shapes import as_shape
from symgrad.ops.core import convert_to_tensor, placeholder
from symgrad.ops.sparse.indexed_slices import IndexedSlices
from symgrad.ops.state.variables import Variable
from symgrad.runtime.concrete_function import TENSOR, ConcreteFunction, FuncGraph
from symgrad.runtime.xla import eager_call

_log = logging.getLogger("symgrad")
_RETRACE_WINDOW = 5


class TensorSpec:
    """The type of a tensor argument: ``TensorSpec(shape, dtype=float32, name=None)``."""

    def __init__(self, shape: Any, dtype: Any = dt.float32, name: str | None = None) -> None:
        self.shape = as_shape(shape)
        self.dtype = dt.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other: Any) -> bool:
        return (other.dtype is self.dtype) and self.shape.is_compatible_with(other.shape)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TensorSpec)
            and self.shape == other.shape
            and self.dtype is other.dtype
            and self.name == other.name
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype=tf.{self.dtype.name}, name={self.name!r})"


_SINGLETON = (
    "tf.function only supports singleton tf.Variables created on the first call. "
    "Make sure the tf.Variable is only created once or created outside "
    "tf.function. See https://www.tensorflow.org/guide/function"
    "#creating_tfvariables for more information."
)
_NON_FIRST = "Creating variables on a non-first call to a function decorated with tf.function."


# --------------------------------------------------------------------------------------
# Function: the decorator's object, a cache of traces keyed by the call's signature


def _leaf_key(x: Any) -> tuple[Any, ...]:
    if isinstance(x, Tensor | TensorSpec):
        return ("T", x.dtype.name, x.shape.dims)
    if isinstance(x, Variable):
        return ("V", id(x))
    if isinstance(x, np.ndarray):
        return ("A", x.dtype.str, x.shape)
    try:
        hash(x)
    except TypeError:
        return ("O", id(x))
    return ("P", type(x).__name__, x)


def _takes(general: tuple[Any, ...], call: tuple[Any, ...]) -> bool:
    """Does a trace of leaf keys ``general`` take a call of leaf keys ``call``: the same
    leaves, each tensor's shape as specific as the trace's or more (TF's subtype)?"""
    for g, c in zip(general, call, strict=True):
        if g == c:
            continue
        if g[0] != "T" or c[0] != "T" or g[1] != c[1]:
            return False
        if g[2] is not None and (
            c[2] is None
            or len(g[2]) != len(c[2])
            or any(d is not None and d != e for d, e in zip(g[2], c[2], strict=True))
        ):
            return False
    return True


def _common(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """TF's most specific common supertype of two calls' leaf keys: each tensor's shape
    with the sizes that differ unknown (a rank that differs: the rank); None where any
    other leaf differs (a dtype, a Python value)."""
    out = []
    for x, y in zip(a, b, strict=True):
        if x == y:
            out.append(x)
            continue
        if x[0] != "T" or y[0] != "T" or x[1] != y[1]:
            return None
        same_rank = x[2] is not None and y[2] is not None and len(x[2]) == len(y[2])
        dims = tuple(d if d == e else None for d, e in zip(x[2], y[2])) if same_rank else None
        out.append(("T", x[1], dims))
    return tuple(out)


# A tensor's class, dtype and dims (``Function._last``); AttributeError for most others.
_SPEC = operator.attrgetter("__class__", "dtype", "shape.dims")


def _tensors_key(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The dtypes and shapes of ``args`` if every one is a Tensor (or a composite tuple
    of tensors, such as a strategy's ``PerReplica``: its type, then its parts'), else
    None."""
    key: list[Any] = []
    for a in args:
        if isinstance(a, Tensor):
            key.append(a.dtype.name)  # a str: hashed once, where a DType hashes in Python
            key.append(a.shape.dims)
        elif _composite(a):
            key.append(type(a))  # a type, never equal to a dtype's name
            key += [(p.dtype.name, p.shape.dims) for p in a]
        else:
            return None
    return tuple(key)


def _composite(a: Any) -> bool:
    """A tuple subclass of tensors (not a plain tuple: its type is part of the key)."""
    return (
        isinstance(a, tuple)
        and type(a) is not tuple
        and not hasattr(a, "_fields")
        and bool(a)
        and all(isinstance(p, Tensor) for p in a)
    )


def _flat(args: tuple[Any, ...]) -> list[Any]:
    """``args`` (of a ``_tensors_key``) as the trace's flat tensor inputs."""
    flat: list[Any] = []
    for a in args:
        if isinstance(a, Tensor):
            flat.append(a)
        else:
            flat += a
    return flat


def _arg_names(fn: Any, structure: Any) -> list[str]:
    """The name of the parameter each leaf of ``(args, kwargs)`` is passed as, which TF
    gives the function's input placeholders (``x``; ``args_0`` for ``*args``), so errors
    about them read ``x:0``."""
    pargs, pkwargs = structure
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p.name for p in params if p.kind in kinds]
    var = next((p.name for p in params if p.kind is inspect.Parameter.VAR_POSITIONAL), "args")
    named = [
        positional[i] if i < len(positional) else f"{var}_{i - len(positional)}"
        for i in range(len(pargs))
    ]
    names = [[n] * len(nest.flatten(a)) for n, a in zip(named, pargs, strict=True)]
    names += [[k] * len(nest.flatten(v)) for k, v in pkwargs.items()]
    return [n for group in names for n in group]


def _canonical(fn: Any, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``(args, kwargs)`` as TF's ``structured_input_signature`` gives them: bound to
    ``fn``'s parameters, defaults filled in, every parameter that can be passed by
    position among the args."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return tuple(args), dict(kwargs)
    bound.apply_defaults()
    return bound.args, dict(bound.kwargs)


def _is_tensor_arg(x: Any) -> bool:
    return isinstance(x, Tensor | TensorSpec | np.ndarray)


class Function:
    """A Python function traced into graphs on demand (see the module docstring)."""

    def __init__(
        self,
        python_function: Callable[..., Any],
        input_signature: Sequence[Any] | None = None,
        name: str | None = None,
        autograph: bool = True,
        jit_compile: bool | None = None,
        reduce_retracing: bool = False,
    ) -> None:
        if not callable(python_function):
            raise TypeError(f"{python_function!r} is not a callable object")
        self.python_function = python_function
        self.autograph = autograph
        self.jit_compile = jit_compile
        self.reduce_retracing = reduce_retracing
        if jit_compile:
            from symgrad.runtime.xla import require

            require()  # without JAX: the ImportError naming the extra, at decoration
        self._converted: Callable[..., Any] | None = None  # python_function, autograph'd
        self.input_signature = _checked_signature(python_function, input_signature)
        self._name = str(name or getattr(python_function, "__name__", "function"))
        self._cache: dict[Any, ConcreteFunction] = {}
        self._trace_lock = threading.RLock()
        self._by_tensors: dict[Any, ConcreteFunction] = {}  # same traces, quicker keys
        # The trace of the last call of plain tensors and their (class, dtype, dims): a
        # call with the same (a training loop's) skips building the key.
        self._last: tuple[ConcreteFunction, tuple[Any, ...]] | None = None
        self._tracing_count = 0
        self._created_variables: bool | None = None  # None until the first trace
        self._history: deque[bool] = deque(maxlen=_RETRACE_WINDOW)
        self._retracing = False  # True in _history
        self._bound: weakref.WeakKeyDictionary[Any, Function] = weakref.WeakKeyDictionary()
        functools.update_wrapper(self, python_function)  # type: ignore[arg-type]

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        bound = self._bound.get(instance)
        if bound is None:
            method = self.python_function.__get__(instance, owner)
            bound = self._bound[instance] = Function(
                method,
                self.input_signature,
                self._name,
                self.autograph,
                self.jit_compile,
                self.reduce_retracing,
            )
        return bound

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        last = self._last
        if last is not None and not kwargs:
            try:  # (one C-level pass: a training step's call is this and the dispatch)
                same = tuple(map(_SPEC, args)) == last[1]
            except AttributeError:  # an argument that is no tensor
                same = False
            if same:  # the classes and types of the last call, all tensors: its trace
                traced = last[0]
                if traced.compiled and not self._retracing:  # (the training loop's call)
                    return eager_call.call(traced, list(args))
                return self._call_traced(traced, list(args))
        key = _tensors_key(args) if not kwargs and self.input_signature is None else None
        cf = self._by_tensors.get(key) if key is not None else None
        if cf is not None:  # the common call: positional tensors of a traced signature
            if all(isinstance(a, Tensor) for a in args):
                self._last = (cf, tuple(map(_SPEC, args)))
            return self._call_traced(cf, _flat(args))
        cf, flat = self._concrete(args, kwargs, record=True)
        if self.jit_compile is not False and cf.compiled is None:
            from symgrad.runtime.xla.jit_call import attach

            attach(cf, self.jit_compile)  # XLA runs the trace's eager calls from now on
        if key is not None:
            self._by_tensors[key] = cf
        return cf.call_flat(flat)

    def _call_traced(self, cf: ConcreteFunction, flat: list[Tensor]) -> Any:
        if self._retracing:  # (a call that traced nothing ends a retracing run)
            self._history.append(False)
            self._retracing = True in self._history
        if cf.compiled:  # XLA: at the eager top level with no tape, straight to it
            return eager_call.call(cf, flat)
        return cf.call_flat(flat)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (tensors or TensorSpecs), tracing if needed; with
        none, the trace of the ``input_signature`` (as TF)."""
        if not args and not kwargs and self.input_signature:
            args = tuple(self.input_signature)
        return self._concrete(args, kwargs, record=False)[0]

    def experimental_get_tracing_count(self) -> int:
        return self._tracing_count

    # -- tracing
    def _concrete(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], record: bool
    ) -> tuple[ConcreteFunction, list[Tensor]]:
        if self.input_signature is not None:
            args, kwargs = self._bind_signature(args, kwargs)
        structure = (list(args), dict(sorted(kwargs.items())))
        leaves = nest.flatten(structure)
        leaves = [
            convert_to_tensor(x) if isinstance(x, np.ndarray | np.generic) else x for x in leaves
        ]
        cache_key: Any = (
            "input_signature"
            if self.input_signature is not None
            else (repr(nest.map_structure(lambda _: 0, structure)), tuple(map(_leaf_key, leaves)))
        )
        cf = self._cache.get(cache_key)
        if cf is None and self.input_signature is None:
            cf = self._general(cache_key)
        traced = cf is None
        if cf is None:
            if self.input_signature is None:
                self._check_binding(args, kwargs)
            with self._trace_lock:  # threads first calling with one signature: one trace
                cf = self._cache.get(cache_key)
                traced = cf is None
                if cf is None and self.reduce_retracing and self.input_signature is None:
                    cache_key, relaxed = self._relaxed(cache_key, leaves)
                    cf = self._cache[cache_key] = self._trace_new(structure, relaxed)
                elif cf is None:
                    cf = self._cache[cache_key] = self._trace_new(structure, leaves)
        if record:
            self._note_call(traced)
        return cf, [x for x in leaves if isinstance(x, Tensor)]

    def _general(self, key: tuple[Any, Any]) -> ConcreteFunction | None:
        """A trace that takes a call of ``key`` (its shapes as specific or more), as TF
        dispatches: the most specific such trace (a ``[None]`` one that
        ``get_concrete_function`` or ``reduce_retracing`` made takes ``[3]``)."""
        takers = [  # (a copy made in one C call: another thread may be adding a trace)
            (k, cf)
            for k, cf in list(self._cache.items())
            if k[0] == key[0] and _takes(k[1], key[1])  # (the same structure)
        ]
        for k, cf in takers:
            if all(_takes(other, k[1]) for other, _ in takers):
                return cf
        return takers[0][1] if takers else None

    def _relaxed(self, key: tuple[Any, Any], leaves: list[Any]) -> tuple[Any, list[Any]]:
        """``reduce_retracing``'s key and leaves for a call no trace takes: its type made
        common with each earlier trace's of the same structure in turn, where they have
        one (TF's ``try_generalizing_function_type``); a tensor leaf whose shape that
        relaxes becomes a TensorSpec of the relaxed shape."""
        relaxed = key[1]
        for k in list(self._cache):
            if k[0] == key[0]:
                relaxed = _common(relaxed, k[1]) or relaxed
        out = [
            TensorSpec(None if r[2] is None else list(r[2]), x.dtype) if r != c else x
            for x, r, c in zip(leaves, relaxed, key[1], strict=True)
        ]
        return (key[0], relaxed), out

    def _bind_signature(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        specs: tuple[Any, ...] = self.input_signature or ()
        values = self._check_binding(args, kwargs)
        flat_specs = nest.flatten(specs)
        flat_values = _flatten_up_to(specs, values)
        if len(values) != len(specs) or flat_values is None:
            reason = (
                f"{self._name} was called with {len(values)} arguments but its input_signature "
                f"has {len(specs)}: {specs}"
            )
            raise self._binding_error(reason, args, kwargs)
        tensors = []
        for v, spec in zip(flat_values, flat_specs, strict=True):
            t: Any
            if isinstance(v, TensorSpec):
                t = v  # get_concrete_function(TensorSpec(...)): traced as the signature's spec
            else:
                try:
                    t = convert_to_tensor(v, dtype=None if isinstance(v, Tensor) else spec.dtype)
                except (TypeError, ValueError) as e:
                    raise self._binding_error(str(e), args, kwargs) from None
            if t.dtype is not spec.dtype or not _fits(t.shape, spec.shape):
                given = TensorSpec(t.shape, t.dtype, spec.name)
                raise self._binding_error(f"Can not cast {given} to {spec}", args, kwargs)
            tensors.append(t)
        return tuple(nest.pack_sequence_as(specs, tensors)), {}

    def _check_binding(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """The argument values in the order of the parameters; TF's TypeError when the
        call does not fit the Python function's parameters."""
        try:
            sig = inspect.signature(self.python_function)
        except (TypeError, ValueError):  # no signature to check (a builtin)
            return list(args) + list(kwargs.values())
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise self._binding_error(str(e), args, kwargs) from None
        return list(bound.args) + list(bound.kwargs.values())

    def _binding_error(self, reason: str, args: Any, kwargs: dict[str, Any]) -> TypeError:
        try:
            params = list(inspect.signature(self.python_function).parameters)
        except (TypeError, ValueError):
            params = []
        if self.input_signature is not None:
            params = [
                f"{p}: {s}" for p, s in zip(params, self.input_signature, strict=False)
            ] + params[len(self.input_signature) :]
        return TypeError(
            f"Binding inputs to tf.function failed due to `{reason}`. Received args: "
            f"{tuple(args)} and kwargs: {kwargs} for signature: ({', '.join(params)})."
        )

    def _trace_new(self, structure: Any, leaves: list[Any]) -> ConcreteFunction:
        """Trace under TF's variable rule: only the first trace may create variables.

        When it does, TF traces again with creation forbidden (so a variable created on
        every trace fails at once) and the second trace is the one that runs.
        """
        first = self._created_variables is None
        rule = None if first else _SINGLETON if self._created_variables else _NON_FIRST
        cf = self._trace(structure, leaves, rule)
        if first:
            self._created_variables = cf.graph.created_variables
            if self._created_variables:
                cf = self._trace(structure, leaves, _SINGLETON)
        return cf

    def _trace(self, structure: Any, leaves: list[Any], rule: str | None) -> ConcreteFunction:
        qualname = getattr(self.python_function, "__qualname__", None)
        graph = FuncGraph(self._name, rule, qualname)
        graph.jit_compile = bool(self.jit_compile)
        specs = nest.flatten(self.input_signature) if self.input_signature is not None else None
        self._tracing_count += 1
        try:
            with context.stop_recording(), graph.as_default():  # outer tapes are paused
                inputs: list[Tensor] = []
                spec_iter = iter(specs or [])
                args: list[Any] = []
                signature: list[Any] = []  # each leaf's TensorSpec, or its Python value
                names = _arg_names(self.python_function, structure)
                for x, arg_name in zip(leaves, names, strict=True):
                    if _is_tensor_arg(x):
                        s = next(spec_iter, None) or x
                        spec_name = s.name if isinstance(s, TensorSpec) else None
                        ph = placeholder(s.dtype, s.shape, spec_name or arg_name)
                        if isinstance(x, Tensor) and x.has_value():
                            graph.arg_values.append((ph, x.eager_value))
                        inputs.append(ph)
                        args.append(ph)
                        signature.append(TensorSpec(ph.shape, ph.dtype, spec_name or arg_name))
                    else:
                        args.append(x)
                        signature.append(x)
                pargs, pkwargs = nest.pack_sequence_as(structure, args)
                result = self._traced_function()(*pargs, **pkwargs)
                outputs: list[Tensor] = []
                template = nest.map_structure(
                    lambda y: _output(y, graph, outputs, self.python_function), result
                )
        finally:
            graph.tracing = False
        cf = ConcreteFunction(graph, inputs, template, outputs)
        sargs, skwargs = nest.pack_sequence_as(structure, signature)
        cf.structured_input_signature = _canonical(self.python_function, sargs, skwargs)
        return cf

    def _traced_function(self) -> Callable[..., Any]:
        """The function a trace runs: with ``autograph``, its control flow converted
        (tensor ``if`` / ``while`` / ``for`` into ``cond`` / ``while_loop``)."""
        if self._converted is None:
            f = self.python_function
            self._converted = hooks.hook("autograph")(f) if self.autograph else f
        return self._converted

    def _note_call(self, traced: bool) -> None:
        self._history.append(traced)
        self._retracing = True in self._history
        if traced and len(self._history) == _RETRACE_WINDOW and all(self._history):
            _log.warning(
                "%d out of the last %d calls to %r triggered tf.function retracing. Tracing "
                "is expensive and the excessive number of tracings could be due to (1) "
                "creating @tf.function repeatedly in a loop, (2) passing tensors with "
                "different shapes, (3) passing Python objects instead of tensors.",
                _RETRACE_WINDOW,
                _RETRACE_WINDOW,
                self.python_function,
            )

    def __repr__(self) -> str:
        return f"<symgrad.Function {self._name}>"


def _flatten_up_to(shallow: Any, values: Any) -> list[Any] | None:
    """The items of ``values`` at the leaves of ``shallow`` (None if they do not match)."""
    out: list[Any] = []
    stack = [(shallow, values)]
    while stack:
        s, v = stack.pop()
        if not nest.is_nested(s):
            out.append(v)
            continue
        if isinstance(s, dict):
            if not isinstance(v, dict) or set(v) != set(s):
                return None
            stack.extend((s[k], v[k]) for k in reversed(sorted(s)))
        elif not isinstance(v, list | tuple) or len(v) != len(s):
            return None
        else:
            stack.extend(reversed(list(zip(s, v, strict=True))))
    return out


def _output(y: Any, graph: FuncGraph, outputs: list[Tensor], fn: Any = None) -> Any:
    """A returned leaf: tensors (and Variables, read) become outputs; None stays None.

    A string stays a Python value (symgrad has no string dtype); with ``fn`` (a
    ``function``'s trace) any other object is TF's TypeError."""
    if y is None or isinstance(y, Operation):
        return None
    if isinstance(y, IndexedSlices):  # its tensors are outputs; the call rebuilds it
        parts = (y.values, y.indices, y.dense_shape)
        return IndexedSlices.from_parts(
            *[None if t is None else _output(t, graph, outputs) for t in parts]
        )
    if isinstance(
        y, (Tensor | Variable, int | float | complex | np.ndarray | np.generic)
    ) or hasattr(y, "_as_tensor"):
        t = convert_to_tensor(y)
        if t.graph is not graph:
            t = graph.capture(t)
        outputs.append(t)
        return TENSOR
    if fn is not None and not isinstance(y, str | bytes):
        raise TypeError(
            "To be compatible with tf.function, Python functions must return zero or more "
            f"Tensors or ExtensionTypes or None values; in compilation of {fn}, found return "
            f"value of type {type(y).__name__}, which is not a Tensor or ExtensionType."
        )
    return y


def _checked_signature(fn: Any, signature: Any) -> tuple[Any, ...] | None:
    """``input_signature`` as a tuple (TF's), checked as TF checks it when decorating: a
    list or tuple of (nested) TensorSpecs, one for each parameter without a default."""
    if signature is None:
        return None
    if not isinstance(signature, list | tuple):
        raise TypeError(f"input_signature must be either a tuple or a list, got {type(signature)}.")
    bad = [s for s in nest.flatten(list(signature)) if not isinstance(s, TensorSpec)]
    if bad:
        raise TypeError(
            "input_signature must be a possibly nested sequence of TensorSpec objects, got "
            f"invalid args {bad} with types {[type(b) for b in bad]}."
        )
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return tuple(signature)
    left = len(signature)
    for p in params:
        if p.name == "self" or p.kind is p.VAR_KEYWORD:
            continue
        if p.kind is p.VAR_POSITIONAL:
            left = 0
        elif p.kind is p.KEYWORD_ONLY and p.default is p.empty:
            raise TypeError(
                "Since input_signature is defined, keyword-only parameter"
                f" `{p.name}` must have a default value"
            )
        elif left:
            left -= 1
        elif p.default is p.empty:
            raise TypeError(f"input_signature missing type constraint for {p.name}")
    if left:
        raise TypeError(f"input_signature contains {left} extra type constraints.")
    return tuple(signature)


def _fits(shape: Any, spec_shape: Any) -> bool:
    """Is ``shape`` as specific as ``spec_shape`` or more (TF's "can cast")?"""
    if spec_shape.dims is None:
        return True
    if shape.dims is None or len(shape.dims) != len(spec_shape.dims):
        return False
    return all(s is None or d == s for d, s in zip(shape.dims, spec_shape.dims, strict=True))


def trace_graph(fn: Callable[[], Any], name: str, scope: str = "") -> ConcreteFunction:
    """Trace ``fn()`` (no arguments) into a graph of its own, outer tensors captured, its
    names in ``scope``.

    Used for the branches of ``cond``; outer tapes are paused while it traces."""
    graph = FuncGraph(name, control_flow=True, scope=scope)
    outputs: list[Tensor] = []
    try:
        with context.stop_recording(), graph.as_default():
            template = nest.map_structure(lambda y: _output(y, graph, outputs), fn())
    finally:
        graph.tracing = False
    return ConcreteFunction(graph, [], template, outputs)


def function(
    func: Callable[..., Any] | None = None,
    input_signature: Sequence[Any] | None = None,
    autograph: bool = True,
    jit_compile: Any = None,
    reduce_retracing: bool = False,
    experimental_implements: Any = None,
    experimental_autograph_options: Any = None,
    experimental_attributes: Any = None,
    experimental_relax_shapes: Any = None,
    experimental_compile: Any = None,
    experimental_follow_type_hints: Any = None,
) -> Any:
    """Compile ``func`` into a graph traced once per input signature (``tf.function``).

    >>> import symgrad as tf
    >>> @tf.function
    ... def f(x):
    ...     return x * x + 1.0
    >>> print(f(tf.constant(3.0)))
    symgrad.Tensor(10.0, shape=(), dtype=float32)
    """
    jit = jit_compile if jit_compile is not None else experimental_compile
    relax = bool(reduce_retracing or experimental_relax_shapes)
    if func is None:
        return lambda f: Function(f, input_signature, None, autograph, jit, relax)
    return Function(func, input_signature, None, autograph, jit, relax)
