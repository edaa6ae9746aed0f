"""The graph IR: Graph, Operation, Tensor, name scopes, and one walk over a graph.

This module knows nothing of NumPy kernels or of any particular op: an Operation is a
type name, input tensors, attributes, and per-output static metadata (dtype, shape)
plus, in eager mode, the output values computed when it was created.  Which graph is
the default, and the rest of the per-thread state, is kept in :mod:`symgrad.core.context`
(its functions are re-exported here).

Ownership runs one way, so nothing here needs the cycle collector: a Tensor holds its
Operation, an Operation holds its input Tensors, and an explicit Graph holds its
Operations.  An Operation does not hold its output Tensor objects; it keeps their
metadata and hands out the same Tensor while anyone still refers to it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import compress
from operator import call as _call
from operator import is_not
from typing import TYPE_CHECKING, Any

from symgrad.core import dtypes as dt
from symgrad.core import refcounts
from symgrad.core.context import (  # noqa: F401  (re-exported: the graph IR's public names)
    GraphScopes,
    current,
    executing_eagerly,
    get_default_graph,
    get_default_session,
    inside_function,
    remap_scope,
    set_top_level_graph,
)
from symgrad.core.shapes import TensorShape, as_shape

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")
_SUFFIXED = re.compile(r"_[0-9]+$").search


def user_frame(skip: int = 0) -> tuple[str, int]:
    """(file, line) of the innermost caller outside the symgrad package; ``skip``: the
    number of callers known to be inside it, not looked at."""
    return user_frame_of(sys._getframe(1 + skip))


def user_frame_of(frame: Any) -> tuple[str, int]:
    """``user_frame``'s walk, from ``frame`` outwards.  The outermost frame's file is
    classified too: a script's top-level loop is the user's code, which the eager fast
    path then finds by its code object (``eager._caller_site``)."""
    inside = _IN_PACKAGE
    while True:
        filename = frame.f_code.co_filename
        known = inside.get(filename)
        if known is None:
            if len(inside) >= _IN_PACKAGE_MAX:
                inside.clear()
            known = inside[filename] = filename.startswith(PACKAGE_DIR)
        back = frame.f_back
        if not known or back is None:
            return _site_of(frame, filename)
        frame = back


def _site_of(frame: Any, filename: str) -> tuple[str, int]:
    """``(filename, frame.f_lineno)``, remembered by (code, instruction): ``f_lineno``
    walks the line table from the code's start (5K instructions, four times a tape step).
    Not under a tracer, whose line is its own.  (The code held: its id is not reused.)"""
    code, key = frame.f_code, (id(frame.f_code), frame.f_lasti)
    hit = _SITES.get(key)
    if hit is not None and hit[0] is code and frame.f_trace is None:
        return hit[1]  # type: ignore[no-any-return]
    site = filename, frame.f_lineno
    if frame.f_trace is None:
        if len(_SITES) >= _IN_PACKAGE_MAX:
            _SITES.clear()
        _SITES[key] = (code, site)
    return site


# File name -> inside the package?  One dict lookup per frame instead of a prefix test:
# every op creation walks a few frames.  Keyed by the file name, whose hash a str caches,
# not by the code object, whose hash is computed afresh at every lookup over its bytecode,
# names and constants (creating an eager call's op: 42K -> 37.5K instructions).  Bounded
# (cleared when full) for a program that makes file names without end.
_IN_PACKAGE: dict[str, bool] = {}
_IN_PACKAGE_MAX = 1 << 12
_SITES: dict[tuple[int, int], tuple[Any, tuple[str, int]]] = {}  # bounded alike


class Operation:
    """A node of the graph: ``op.type``, ``op.name``, ``op.inputs``, ``op.outputs``.

    What other modules read: ``inputs`` (a tuple of Tensors), ``attrs`` / ``get_attr``,
    ``outputs`` / ``output(i)``, ``output_dtypes`` and ``output_shapes`` (one per output;
    read them, do not write: ``Tensor.set_shape`` refines a shape), ``output_values`` (the
    arrays an eager op computed, None for a symbolic op), ``control_inputs`` and
    ``gradient_override``.
    """

    __slots__ = (
        "__weakref__",
        "_attrs",
        "_gradient_op_type",
        "_outs",
        "control_inputs",
        "device",
        "graph",
        "inputs",
        "name",
        "output_dtypes",
        "output_shapes",
        "output_values",
        "skip_input_indices",
        "traceback",
        "type",
    )

    def __init__(
        self,
        graph: Graph,
        op_type: str,
        name: str,
        inputs: Sequence[Tensor],
        attrs: dict[str, Any],
        out_dtypes: Sequence[dt.DType],
        out_shapes: Sequence[TensorShape],
        values: list[Any] | None = None,
    ) -> None:
        scopes = graph._scopes
        self.graph = graph
        self.type = op_type
        self.name = name
        self.inputs: tuple[Tensor, ...] = tuple(inputs)
        self._attrs = attrs
        self.output_dtypes: list[dt.DType] = list(out_dtypes)
        self.output_shapes: list[TensorShape] = list(out_shapes)
        # An eager op's output arrays, computed before it was created (None: symbolic).
        self.output_values: list[Any] | None = values
        self._outs: list[Any] = [None] * len(self.output_dtypes)
        override = scopes.override
        self._gradient_op_type: str | None = override.get(op_type) if override else None
        deps = scopes.control_deps
        self.control_inputs: tuple[Operation, ...] = tuple(deps) if deps else ()
        self.traceback = current.frame or user_frame()
        self.device: str = current.device  # requested by tf.device ('' for none)
        # (core/eager.py builds an eager op's fields itself: a new field goes there too.)
        # While a gradient rule runs: the inputs whose gradient nobody needs (as TF's).
        self.skip_input_indices: tuple[int, ...] | None = None

    @property
    def outputs(self) -> list[Tensor]:
        return [self.output(i) for i in range(len(self.output_dtypes))]

    @property
    def gradient_override(self) -> str | None:
        """The op type whose gradient rule a ``gradient_override_map`` gave this op, if any."""
        return self._gradient_op_type

    @property
    def num_outputs(self) -> int:
        return len(self.output_dtypes)

    @property
    def node_def(self) -> str:
        return f"{{{{node {self.name}}}}} = {self.type}"

    def output(self, index: int) -> Tensor:
        """Output ``index`` (``op.outputs[index]`` without building the whole list)."""
        ref = self._outs[index]
        t = ref() if ref is not None else None
        if t is None:
            t = Tensor(self, index)
            self._outs[index] = weakref.ref(t)
        return t

    def get_attr(self, name: str) -> Any:
        try:
            return self._attrs[name]
        except KeyError:
            known = ", ".join(sorted(self._attrs)) or "none"
            raise ValueError(
                f"Operation '{self.name}' (type {self.type}) has no attr named '{name}'; "
                f"its attrs are: {known}"
            ) from None

    @property
    def attrs(self) -> dict[str, Any]:
        return dict(self._attrs)

    @property
    def location(self) -> str:
        """Where the user's code created this op, as ``file:line``."""
        return f"{self.traceback[0]}:{self.traceback[1]}"

    def describe(self) -> str:
        """``'MatMul_1' (type MatMul, created at model.py:12)`` for error messages."""
        return f"'{self.name}' (type {self.type}, created at {self.location})"

    def run(self, feed_dict: Any = None, session: Any = None) -> None:
        """Run this op in the default (or given) session, as TF1's ``Operation.run``."""
        _default_session_hook(session).run(self, feed_dict=feed_dict)

    def __repr__(self) -> str:
        return f"<symgrad.Operation '{self.name}' type={self.type}>"


class Tensor:
    """One output of an Operation: ``t.op``, ``t.name`` (``MatMul:0``), ``t.dtype``, ``t.shape``.

    In eager mode the tensor also carries the value computed when its op was created
    (``.numpy()``); a symbolic tensor has none and is evaluated by a Session or function.
    Arithmetic operators and indexing are installed by ``symgrad.ops``.
    """

    __slots__ = ("__weakref__", "op", "value_index")
    __array_priority__ = 100

    def __init__(self, op: Operation, value_index: int) -> None:
        self.op = op
        self.value_index = value_index

    @property
    def dtype(self) -> dt.DType:
        return self.op.output_dtypes[self.value_index]

    @property
    def shape(self) -> TensorShape:
        return self.op.output_shapes[self.value_index]

    def get_shape(self) -> TensorShape:
        return self.shape

    def set_shape(self, shape: Any) -> None:
        self.op.output_shapes[self.value_index] = self.shape.merge_with(as_shape(shape))

    @property
    def ndim(self) -> int | None:
        return self.shape.rank

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self) -> Graph:
        return self.op.graph

    @property
    def device(self) -> str:  # replaced by symgrad.core.devices (placement by tf.device)
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    @property
    def eager_value(self) -> Any:
        """The array computed when this tensor's op ran eagerly, or None if it is symbolic.

        Not a copy (``numpy()`` copies): an eager value is a snapshot, do not write to it.
        """
        values = self.op.output_values
        return None if values is None else values[self.value_index]

    def has_value(self) -> bool:
        return self.op.output_values is not None

    def numpy(self) -> Any:
        value = self.eager_value
        if value is None:
            raise ValueError(
                f"Tensor {self.name} is symbolic (it depends on a placeholder or was built "
                "inside a graph), so it has no value yet: evaluate it with Session.run, "
                "or call a symgrad.function."
            )
        return value[()] if value.ndim == 0 else value.copy()

    def eval(self, feed_dict: Any = None, session: Any = None) -> Any:
        """Evaluate in the default (or given) session, as TF1's ``Tensor.eval``."""
        return _default_session_hook(session).run(self, feed_dict=feed_dict)

    def ref(self) -> Tensor:
        return self

    if TYPE_CHECKING:  # installed by symgrad.ops, which the IR must not import

        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __floordiv__(self, other: Any) -> Tensor: ...
        def __rfloordiv__(self, other: Any) -> Tensor: ...
        def __mod__(self, other: Any) -> Tensor: ...
        def __rmod__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __getitem__(self, key: Any) -> Tensor: ...

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        value = self.eager_value
        if value is None:
            raise TypeError(
                f"Using a symbolic Tensor ({self.name}) as a Python bool is not allowed: "
                "its value is only known when the graph runs."
            )
        return bool(value)

    def __float__(self) -> float:
        return float(self._python_scalar("float"))

    def __int__(self) -> int:
        return int(self._python_scalar("int"))

    def __index__(self) -> int:
        if not self.dtype.is_integer:
            raise TypeError(
                f"Only integer tensors can be used as an index, got "
                f"{self.dtype.name} tensor {self.name}"
            )
        return int(self._python_scalar("index"))

    def _python_scalar(self, what: str) -> Any:
        value = self.eager_value
        if value is None:
            raise TypeError(
                f"{what}() of a symbolic Tensor ({self.name}) is not possible: its "
                "value is only known when the graph runs (Session.run or a "
                "function call)."
            )
        if value.size != 1:
            raise TypeError(
                f"{what}() needs a tensor with one element, got shape {self.shape} ({self.name})"
            )
        return value.reshape(())[()]

    def __len__(self) -> int:
        dims = self.shape.dims
        if not dims or dims[0] is None:
            raise TypeError(f"len is not well defined for a tensor of shape {self.shape}")
        return dims[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.shape.rank == 0:  # TF's text, raised by iter() itself
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(len(self)))  # type: ignore[index]

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        value = self.numpy()
        return np.asarray(value, dtype=dtype)

    def __repr__(self) -> str:
        value = self.eager_value
        if value is None:
            return f"<symgrad.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"
        return (
            f"<symgrad.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
            f"numpy={_np_repr(value)}>"
        )

    def __format__(self, spec: str) -> str:
        """TF's: a value formats as its NumPy value (``f"{loss:.4f}"``, ``f"{loss}"``)."""
        value = None if self.eager_value is None else self.numpy()
        return object.__format__(self, spec) if value is None else format(value, spec)

    def __str__(self) -> str:
        value = self.eager_value
        if value is None:
            return f'symgrad.Tensor("{self.name}", shape={self.shape}, dtype={self.dtype.name})'
        text = str(value)
        sep = "\n" if "\n" in text else ""
        return f"symgrad.Tensor({sep}{text}, shape={self.shape}, dtype={self.dtype.name})"


def _np_repr(value: Any) -> str:
    """TF's ``numpy_text(is_repr=True)``: a scalar as its item (0.10000000149011612)."""
    import numpy as np

    value = np.asarray(value)
    text = repr(value) if value.ndim else repr(value.item())
    return "\n" + text if "\n" in text else text


def _default_session_hook(session: Any) -> Any:
    if session is not None:
        return session
    s = get_default_session()
    if s is None:
        raise ValueError(
            "Cannot evaluate: no default session is registered. Use `with sess.as_default():`"
            " or create an InteractiveSession, or pass session=."
        )
    return s


# --------------------------------------------------------------------------------------
# Graphs


class Graph:
    """A dataflow graph. ``with Graph().as_default():`` builds ops without running them.

    The top-level eager graph (``eager=True``) does not keep its operations: each lives
    while a tensor, a tape or a user reference holds it.
    """

    def __init__(self, *, eager: bool = False) -> None:
        self.eager = eager
        self.building_function = False
        self.finalized = False  # finalize()
        self._ops: list[Operation] | None = None if eager else []
        # name -> op; in the eager graph name -> weak reference (ops live only while used)
        self._by_name: dict[str, Any] = {}
        self._names_in_use: dict[str, int] = {}
        self._suffixed = False  # eager: a name in use ends in "_<digits>" (core/eager.py)
        self._lock = threading.Lock()
        self._scopes = GraphScopes()
        self.variables: list[Any] = []
        self.collections: dict[str, list[Any]] = {}
        self.scalar_cache: dict[Any, Any] = {}  # eager only: Python scalars as constants
        # Eager only: weak references to the ops created, oldest first (a producer before
        # its consumers); swept, with history no one can differentiate through, by add_op.
        self._live: list[weakref.ref[Any]] = []  # ops and light tensors (core/eager.py)
        self._sweep_at = _SWEEP_MIN
        self._settled: Any = None  # what the last sweep leaves the next to skip (history)
        self._sweeping = threading.RLock()  # held by sweep, and by eager.materialize

    # -- per-thread scope state
    def get_name_scope(self) -> str:
        """The current name scope on this thread (``"outer/inner"``; ``""`` at the root)."""
        return self._scopes.name

    def set_name_scope(self, scope: str) -> str:
        """Make ``scope`` this thread's name scope, verbatim, and return the one it replaces.

        ``name_scope``'s low-level form, for hot loops (backprop enters one scope per
        gradient rule, and a context manager costs several times as much): no
        uniquifying, no checks.  Restore the returned scope in a ``finally``.
        """
        scopes = self._scopes
        old = scopes.name
        scopes.name = scope
        return old

    def gradient_overrides(self) -> dict[str, str]:
        """The ``gradient_override_map`` entries in force on this thread (a copy)."""
        return dict(self._scopes.override)

    # -- names
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        if name[-1:] == "/":  # TF's create_op: a name ending in "/" is the op's whole name
            if not self.eager and self._op_named(name[:-1]) is not None:
                raise ValueError(f"Duplicate node name in graph: '{name[:-1]}'")
            return name[:-1]
        scope = self._scopes.name
        full = f"{scope}/{name}" if scope else name
        key = full.lower()
        names = self._names_in_use
        if self.eager and mark_as_used:
            # Names of eager ops are labels for messages and drawings: no lock (two threads
            # may, rarely, both get a name; each op is still its own object).  A scoped
            # name (a gradient rule's ops, a name scope) is made unique among the live ops
            # only, so that a long eager loop does not remember every scope it ran.
            if scope:
                unique, count = full, 0
                while unique in self._by_name and self._by_name[unique]() is not None:
                    count += 1
                    unique = f"{full}_{count}"
                return unique
            count = names.get(key, 0)
            names[key] = count + 1
            if count == 0:
                if _SUFFIXED(key):  # a name that a counter may also make: look for it then
                    self._suffixed = True
                return full
            unique = f"{full}_{count}"
            if self._suffixed:  # else no name in use ends in "_<digits>": none to skip
                while unique.lower() in names:
                    count += 1
                    unique = f"{full}_{count}"
            return unique
        with self._lock:
            count = self._names_in_use.get(key, 0)
            if mark_as_used:
                self._names_in_use[key] = count + 1
            if count > 0:
                base = full
                while True:
                    full = f"{base}_{count}"
                    if full.lower() not in self._names_in_use:
                        break
                    count += 1
                if mark_as_used and not self.eager:
                    self._names_in_use[full.lower()] = 1
        return full

    def add_op(self, op: Operation) -> None:
        """Add a newly created op (the op constructor, ``apply_op``, calls this)."""
        if self._ops is None:
            # Eager: weak entries.  When as many ops were created since the last sweep as
            # were live after it, ``sweep`` runs: O(1) amortised per op.
            ref = weakref.ref(op)
            self._by_name[op.name] = ref
            live = self._live
            live.append(ref)
            if len(live) >= self._sweep_at:
                self.sweep()
            return
        if self.finalized and op.type != "ReadVariableOp":  # (TF's are made with the variable)
            raise RuntimeError("Graph is finalized and cannot be modified.")
        with self._lock:
            self._ops.append(op)
            self._by_name[op.name] = op

    def sweep(self) -> None:
        """Eager graph: forget dead ops, and drop the history no one can differentiate.

        The memory rule (docs/design.md, "Eager memory"): an input edge of a live eager op
        is kept only if a source is at or upstream of its producer; other edges are
        replaced by a frozen constant of the same value (``release_history``), so the
        history behind them is freed; a sweep that finds the history walked last time
        still held walks only what was added since (``history.incremental_sweep``).
        ``add_op`` calls this when due; calling it at any other time is safe.
        """
        if self._ops is not None or not self._sweeping.acquire(blocking=False):
            return  # an explicit graph keeps its ops; another thread is sweeping
        try:
            live, settled = self._live, None
            walked = len(live)  # other threads may add entries meanwhile: kept, not walked
            if not _keep_history and refcounts.trusted():  # else history is kept: correct
                from symgrad.core.history import sweep_history

                settled = sweep_history(live, walked, self._settled, self.scalar_cache)
            by_name = self._by_name
            for name, r in by_name.copy().items():  # one C copy: other threads add ops meanwhile
                if r() is None and by_name.get(name) is r:
                    by_name.pop(name, None)
            alive = list(map(_is_not_none, map(_call, live[:walked])))
            live = self._live = [*compress(live[:walked], alive), *live[walked:]]
            if settled is not None:  # what the next sweep may skip: the walked ones alive
                settled.n = alive.count(True)
            self._settled = settled
            self._sweep_at = max(_SWEEP_MIN, _SWEEP_GROWTH * len(live))
        finally:
            self._sweeping.release()

    def _op_named(self, name: str) -> Operation | None:
        entry = self._by_name.get(name)
        if self._ops is not None:
            return entry  # type: ignore[no-any-return]
        # An op, or a light eager tensor (core/eager.py): its op.  The elementwise fast
        # path's tensors (unscoped default names) are in the live list only: looked for
        # there, newest first.
        entry = entry() if entry is not None else None
        if entry is None:
            light = (e for e in reversed(self._live_now()) if type(e) is not Operation)
            entry = next((e for e in light if e.name == f"{name}:0"), None)
        return entry if entry is None or type(entry) is Operation else entry.op

    def _live_now(self) -> list[Any]:
        """The eager graph's live ops and light tensors, oldest first."""
        return [e for e in map(_call, list(self._live)) if e is not None]

    # -- lookup
    def get_operations(self) -> list[Operation]:
        if self._ops is None:
            return [e if type(e) is Operation else e.op for e in self._live_now()]
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings, got {type(name).__name__}")
        op = self._op_named(name)
        if op is None:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")
        return op

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str) or ":" not in name:
            raise ValueError(
                f"The name {name!r} looks like an Operation name, not a Tensor name: "
                "tensor names look like '<op_name>:<output_index>'."
            )
        op_name, _, index = name.rpartition(":")
        op = self._op_named(op_name)
        if op is None:
            raise KeyError(
                f"The name '{name}' refers to a Tensor which does not exist. "
                f"The operation, '{op_name}', does not exist in the graph."
            )
        i = int(index)
        if not 0 <= i < op.num_outputs:
            raise KeyError(
                f"The name '{name}' refers to a Tensor which does not exist. "
                f"The operation, '{op_name}', exists but only has "
                f"{op.num_outputs} outputs."
            )
        return op.output(i)

    def as_graph_element(self, obj: Any) -> Tensor | Operation:
        if isinstance(obj, Tensor | Operation):
            if obj.graph is not self:
                raise ValueError(f"{obj!r} is not an element of this graph.")
            return obj
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else self.get_operation_by_name(obj)
        if hasattr(obj, "_as_tensor"):  # a Variable: its value, TF's graph element for it
            return self.as_graph_element(obj._as_tensor())
        raise TypeError(f"Can not convert a {type(obj).__name__} into a Tensor or Operation.")

    # -- tensors of other graphs
    def capture(self, tensor: Tensor) -> Tensor:
        """The tensor standing in this graph for ``tensor`` of another graph.

        A plain graph has none: ops may only take tensors of their own graph.  A traced
        function's graph (``FuncGraph``) captures outer tensors as placeholders.
        """
        raise ValueError(
            f"Tensor {tensor.name} must be from the same graph as the op being built "
            f"({self!r}), but it belongs to {tensor.graph!r}. Create it inside the same "
            "`with graph.as_default():` block."
        )

    # -- context managers
    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        stack = current.graphs
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    def name_scope(self, name: str | None) -> NameScope:
        """``with g.name_scope("layer"):`` prefixes the names of ops created inside.

        The scope is made unique (``layer_1`` the second time); a name ending in ``/``
        re-enters that exact scope (``"outer/inner/"``), and ``None`` or ``""`` the root.
        Entering yields the scope with its trailing ``/``.
        """
        return NameScope(self, name)

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict[str, str]) -> Iterator[None]:
        """Ops of a mapped type created inside use the mapped type's gradient rule."""
        if not isinstance(op_type_map, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()
        ):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        scopes = self._scopes
        old = scopes.override
        scopes.override = {**old, **op_type_map}
        try:
            yield
        finally:
            scopes.override = old

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Sequence[Any] | None) -> Iterator[None]:
        """Ops created inside run after ``control_inputs`` (ops or tensors) when executed."""
        scopes = self._scopes
        old = scopes.control_deps
        if control_inputs is None:
            new: list[Operation] = []
        else:
            new = list(old)
            for c in control_inputs:
                c = getattr(c, "op", c)
                if not isinstance(c, Operation):
                    raise TypeError(f"Control input must be an Operation or a Tensor, got {c!r}")
                new.append(c)
        scopes.control_deps = new
        try:
            yield
        finally:
            scopes.control_deps = old

    def finalize(self) -> None:
        """No op may be added after this (the eager graph's still run, as they are made)."""
        for v in self.variables:  # (its handle and initializer, made when first asked for)
            v.op, v.initializer  # noqa: B018
        self.finalized = True

    def __repr__(self) -> str:
        kind = "eager" if self.eager else "graph"
        return f"<symgrad.Graph {kind} at {id(self):#x}>"


_is_not_none = partial(is_not, None)  # with _call, the sweep's filters run at C speed
_SWEEP_MIN = 1024
# The eager graph sweeps when it has made as many ops as lived after the last sweep.
# Not more: an op that uses a cached scalar in flight during a sweep is kept until the
# next one (release_history), so with a larger factor the live set would grow by it.
_SWEEP_GROWTH = 2

# Op types whose outputs are differentiation sources while the op lives, as user-held
# tensors are (a variable read: ``gradients(y, variable)`` finds its reads in y's
# history).  Filled by ``register_op`` from the records' ``source`` trait.
SOURCE_TYPES: set[str] = set()


_keep_history = False


def keep_eager_history(keep: bool = True) -> None:
    """Keep every edge of the eager graph's live ops (no ``release_history``), as TF's
    top level keeps its graph with eager execution disabled: a TF1 program's
    ``Session.run`` then re-runs a random draw behind an eager result, as TF's does.
    ``compat.v1.disable_eager_execution`` calls it."""
    global _keep_history
    _keep_history = bool(keep)


class NameScope:
    """``Graph.name_scope``'s; an eager graph's also keeps TF2's (``GraphScopes.path``)."""

    __slots__ = ("_old", "_path", "graph", "name")

    def __init__(self, graph: Graph, name: str | None) -> None:
        self.graph, self.name = graph, name

    def __enter__(self) -> str:
        name, scopes = self.name, self.graph._scopes
        if not name or name[-1] == "/":
            new = path = name[:-1] if name else ""
        elif not _VALID_NAME.match(name):
            raise ValueError(f"'{name}' is not a valid scope name")
        else:  # TF1's name made unique; TF2's eager path as entered
            new, path = self.graph.unique_name(name), f"{scopes.path}/{name}".lstrip("/")
        self._path, scopes.path = scopes.path, path if self.graph.eager else ""
        self._old = self.graph.set_name_scope(new)
        return new + "/" if new else ""

    def __exit__(self, *exc: object) -> None:
        self.graph.set_name_scope(self._old)
        self.graph._scopes.path = self._path


set_top_level_graph(Graph(eager=True))
_top_level_eager = True  # False after compat.v1.disable_eager_execution()


def set_top_level_eager(eager: bool) -> None:
    """A new top-level graph: eager (TF2), or a graph that builds ops and runs them only
    in ``Session.run`` (TF1, ``compat.v1.disable_eager_execution``)."""
    global _top_level_eager, _keep_history
    if bool(eager) != _top_level_eager:
        _top_level_eager = bool(eager)
        if _top_level_eager:  # the TF1 top level's kept history (keep_eager_history) ends
            _keep_history = False
        set_top_level_graph(Graph(eager=_top_level_eager))


def reset_default_graph() -> None:
    """Forget the top-level graph's names and variables (TF1's ``reset_default_graph``)."""
    if current.graphs:
        raise AssertionError("Do not use reset_default_graph() inside a Graph.as_default() block.")
    set_top_level_graph(Graph(eager=_top_level_eager))


def name_scope(name: str | None, default_name: str | None = None, values: Any = None) -> Any:
    """``with name_scope("layer1"):`` prefixes the names of ops created inside."""
    if name is None:
        name = default_name
    return get_default_graph().name_scope(name)


# --------------------------------------------------------------------------------------
# Walking a graph


def walk_ops(
    roots: Iterable[Operation],
    predecessors: Callable[[Operation], Iterable[Operation]] | None = None,
    *,
    topological: bool = True,
) -> list[Operation]:
    """Every op that ``roots`` depend on, once each, by a depth-first walk with no recursion
    (a 100,000-op chain takes no stack).

    With ``topological=True`` each op comes after all the ops it depends on (producers
    first: the order to run them in); with False, in the order the walk reaches them,
    which costs less.  ``predecessors(op)`` gives the ops ``op`` depends on (default: the
    producers of its inputs; a plan adds control inputs, backprop only the edges gradient
    can cross).  It is called once per op, when the walk reaches it, so a caller may note
    what it needs about each edge as it goes.  The walk keeps a stack: the roots, and each
    op's predecessors, are pushed in the order given, so the last one is walked first.
    """
    order: list[Operation] = []
    seen: set[Operation] = set()  # ops hash by identity
    # Ops to walk; None sits above an op whose predecessors are all in ``order`` below it.
    stack: list[Operation | None] = list(roots)
    push, pop, add = stack.append, stack.pop, seen.add
    while stack:
        op = pop()
        if op is None:
            order.append(pop())  # type: ignore[arg-type]
            continue
        if op in seen:
            continue
        add(op)
        if topological:
            push(op)
            push(None)
        else:
            order.append(op)
        if predecessors is None:
            for t in op.inputs:
                if t.op not in seen:
                    push(t.op)
        else:
            for p in predecessors(op):
                if p not in seen:
                    push(p)
    return order
