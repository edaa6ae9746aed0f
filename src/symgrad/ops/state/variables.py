"""Variables: mutable state read by ``ReadVariableOp`` and written by ``Assign*`` ops.

A Variable owns its current value, a NumPy array.  Every earlier read stays a valid
snapshot: an update writes into the array only when nothing else refers to it (counted
by reference, see ``_unshared``), and replaces it otherwise.  A read is an op whose
``var`` attr is the Variable: in eager mode it runs at once; in a graph it reads
whatever the value is when the plan runs.  ``gradients(y, v)`` and the tape find a
Variable's reads through that attr.

Every assignment is checked, when it is made and again when it runs: the value must
have the variable's dtype and a shape compatible with the variable's (an update by
``assign_add``/``assign_sub`` the exact shape of the current value), with TensorFlow's
error texts.  A run (``atomic``) is all or nothing: the first write of a variable in a
run remembers the array it replaces, and a run that raises puts every such array back.
Holding that array makes the first in-place update of the run a copy (``_unshared``
counts the reference), so the remembered value is never written over.
"""

from __future__ import annotations

import functools
import itertools
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from symgrad.core import context, devices, refcounts
from symgrad.core import dtypes as dt
from symgrad.core.eager import VARIABLE_TYPES, EagerTensor
from symgrad.core.errors import FailedPreconditionError, InvalidArgumentError
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Graph, Operation, Tensor, _np_repr, get_default_graph
from symgrad.core.op_registry import Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.ops import control
from symgrad.ops.array import gather as gather_ops
from symgrad.ops.array import structure as array
from symgrad.ops.core import constant, convert_to_tensor, to_array
from symgrad.ops.state import variable_eager, variable_scatter
from symgrad.ops.state.variable_enums import VariableAggregation, VariableSynchronization

_uid = itertools.count()
_TENSORS = (Tensor, EagerTensor)
_ndarray = np.ndarray  # (one global read, not two, in the update kernels' tests)
_getrefcount = sys.getrefcount
T = TypeVar("T")


# --------------------------------------------------------------------------------------
# Atomic runs: the values a run replaced, put back if it raises


class _Journal(threading.local):
    """Per thread: the variables the current run has written, with their value and
    version before it (None when no run is under way)."""

    undo: dict[int, tuple[Variable, np.ndarray | None, int]] | None = None


_journal = _Journal()
WRITES = [0]  # bumped before each write of a variable (runtime.xla.compiled reads it)
_atomic_runs = True


def set_atomic_runs(enabled: bool) -> None:
    """Turn atomic runs on (the default) or off, for every thread.

    With them on, a ``Session.run`` or ``function`` call that raises leaves every variable
    as it was before the run. The price is memory: a run's first in-place update of a
    variable writes a new array while the journal holds the old one. Memory-bound
    training that can live with TF's behaviour, where a failed run may leave some updates
    applied, turns them off (``tf.config.set_atomic_runs(False)``).
    """
    global _atomic_runs
    _atomic_runs = bool(enabled)


def atomic_runs_enabled() -> bool:
    """Whether runs are atomic (see ``set_atomic_runs``)."""
    return _atomic_runs


def atomic(run: Callable[[T], Any], arg: T) -> Any:
    """``run(arg)``; if it raises, every variable it wrote gets back its value from before.

    A run inside a run (a function called by a plan that a Session runs) is part of the
    outer one, which alone keeps or undoes the writes of both.  With atomic runs off
    (``set_atomic_runs(False)``) no journal is kept, and a failed run keeps the writes it
    made, as in TF.
    """
    journal = _journal
    if journal.undo is not None or not _atomic_runs:
        return run(arg)
    undo: dict[int, tuple[Variable, np.ndarray | None, int]] = {}
    journal.undo = undo
    try:
        return run(arg)
    except BaseException:
        for var, value, version in undo.values():
            var._value, var._version = value, version
        WRITES[0] += 1
        raise
    finally:
        journal.undo = None


def _remember(var: Variable) -> None:
    """Before a run's first write of ``var``: keep the value it replaces (see ``atomic``)."""
    WRITES[0] += 1
    undo = _journal.undo
    if undo is not None and id(var) not in undo:
        undo[id(var)] = (var, var._value, var._version)


# --------------------------------------------------------------------------------------
# Reads


def _read_infer(inputs: Sequence[Tensor], *, var: Variable) -> Spec:
    return var.shape, var.dtype


def _read_kernel(*, var: Variable) -> np.ndarray:
    value = var._value
    if value is None:
        raise FailedPreconditionError(
            f"Could not read variable '{var.name}': it is uninitialized. Run "
            "global_variables_initializer() (or the variable's initializer) first."
        )
    return value


def _bind_read(*, var: Variable) -> Callable[[], np.ndarray]:
    def read() -> np.ndarray:
        value = var._value
        return value if value is not None else _read_kernel(var=var)

    return read


READ_VARIABLE = register_op(
    "ReadVariableOp",
    _read_infer,
    _read_kernel,
    stateful=True,
    variable="read",
    view=True,
    source=True,
    bind=_bind_read,
    batch="it has no tensor inputs, so it never depends on the seed a jacobian batches",
    no_cases="its input is a Variable, not an array: reads, and gradients collected at "
    "the Variable, are covered by tests/runtime/test_session.py, "
    "tests/autodiff/test_tape.py and tests/runtime/test_atomic_runs.py",
)


@READ_VARIABLE.gradient
def _read_grad(op: Any, grad: Tensor) -> list[Tensor]:
    """A read has no tensor inputs: the gradient stops at the Variable (collected there)."""
    return []


@array_rule("ReadVariableOp")
def _read_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return []


# --------------------------------------------------------------------------------------
# Assignments: checked when made (``_check_static``) and when run (``_check_value``)


def _shape_mismatch(var: Variable, shape: Any) -> str:
    return (
        f"Cannot assign value to variable ' {var.name}': Shape mismatch.The variable "
        f"shape {var.shape}, and the assigned value shape {as_shape(shape)} are "
        "incompatible."
    )


def _update_mismatch(var: Variable, have: Any, got: Any) -> str:
    return (
        f"Cannot update variable with shape {_debug(have)} using a Tensor with shape "
        f"{_debug(got)}, shapes must be equal. (variable '{var.name}')"
    )


def _debug(shape: Any) -> str:
    """A shape as TensorFlow's kernels print it: ``[2,3]``, ``[?,3]``, ``<unknown>``."""
    dims = as_shape(shape).dims
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _check_static(var: Variable, value: Tensor, mode: str) -> None:
    """TensorFlow's checks at the call: the dtype, and a shape compatible with the
    variable's (for an update: its shape, which a later run checks exactly)."""
    if value.dtype is not var.dtype:
        raise ValueError(
            f"Tensor conversion requested dtype {var.dtype.name} for Tensor "
            f"with dtype {value.dtype.name}: {value!r}"
        )
    if not var.shape.is_compatible_with(value.shape):
        if mode == "assign":
            raise ValueError(_shape_mismatch(var, value.shape))
        raise InvalidArgumentError(_update_mismatch(var, var.shape, value.shape))


def _check_value(var: Variable, value: Any, mode: str) -> np.ndarray:
    """``value`` as an array, if an assignment of it to ``var`` may run; else raise.

    The kernels call it only when their one-line test of the common case (an array of
    the variable's dtype and shape) fails."""
    if type(value) is not np.ndarray:
        value = np.asarray(value)
    if value.dtype != var._np_dtype:
        raise InvalidArgumentError(
            f"Trying to assign variable with wrong dtype. Expected {var.dtype.name} got "
            f"{value.dtype.name} (variable '{var.name}')"
        )
    if mode == "assign":
        if not var.shape.is_compatible_with(value.shape):
            raise InvalidArgumentError(_shape_mismatch(var, value.shape))
    else:
        have = _read_kernel(var=var).shape
        if value.shape != have:
            raise InvalidArgumentError(_update_mismatch(var, have, value.shape))
    return value


def _assign_infer(inputs: Sequence[Tensor], *, var: Variable, mode: str) -> Spec:
    _check_static(var, inputs[0], mode)
    return var.shape, var.dtype


def _assign_kernel(value: np.ndarray, *, var: Variable, mode: str) -> np.ndarray:
    return _UPDATES[mode](var, value)


# Each update reads, computes and writes under one lock: threads updating a variable at
# once (one graph run from several threads) lose no update, as TF's resource variables,
# which lock for each update.
_UPDATE_LOCK = threading.Lock()
_WRITE_NAMES = {"assign": "Assign", "assign_add": "AssignAdd", "assign_sub": "AssignSub"}


def _assign(var: Variable, value: Any) -> np.ndarray:
    with _UPDATE_LOCK:
        if (
            type(value) is not _ndarray
            or value.dtype is not var._np_dtype
            or value.shape != var._dims
        ):
            value = _check_value(var, value, "assign")
        _remember(var)
        var._value = new = np.array(value, copy=True)
        var._version += 1
        return new


def _combine(ufunc: Any, mode: str, var: Variable, value: Any) -> np.ndarray:
    """``assign_add``/``assign_sub`` (``mode``): the variable's value ``ufunc`` ``value``,
    written over the old value where nothing else holds it (``_unshared``)."""
    with _UPDATE_LOCK:
        old = var._value
        if (
            old is None
            or type(value) is not _ndarray
            or value.dtype is not var._np_dtype
            or value.shape != old.shape
        ):
            value, old = _check_value(var, value, mode), _read_kernel(var=var)
        _remember(var)
        var._value = new = ufunc(old, value, out=old) if _unshared(old) else ufunc(old, value)
        var._version += 1
        return new  # type: ignore[no-any-return]


_UPDATES: dict[str, Callable[[Variable, Any], np.ndarray]] = {
    "assign": _assign,
    "assign_add": functools.partial(_combine, np.add, "assign_add"),
    "assign_sub": functools.partial(_combine, np.subtract, "assign_sub"),
}


def _unshared(a: np.ndarray) -> bool:
    """True when only the variable (and the caller's local) refers to ``a``.

    Then an in-place update is invisible: no earlier read, fetched value, view or
    pending input holds the old value, nor does a run that may still have to put it
    back (``atomic``).  (References here: the variable, the caller's ``old``, this
    parameter, and getrefcount's own argument.)
    """
    return (
        type(a) is _ndarray
        and a.base is None
        and a.flags.writeable
        and _getrefcount(a) <= 4
        and refcounts.trusted()  # the count checked at import (below); no tracer
    )


class _Held:
    _value: Any = None


def _unshared_probe() -> str | None:
    """``_unshared``'s pattern: unshared reads so; with another holder, it does not."""
    var = _Held()
    var._value = np.zeros(2)
    old = var._value
    if not _unshared(old):
        return "an unshared value read as shared"
    other = [old]
    wrong = "a shared value read as unshared" if _unshared(old) else None
    del other
    return wrong


refcounts.calibrate("variables", _unshared_probe)


ASSIGN_VARIABLE = register_op(
    "AssignVariableOp",
    _assign_infer,
    _assign_kernel,
    stateful=True,
    variable="write",
    bind=lambda *, var, mode: functools.partial(_UPDATES[mode], var),
    batch="it writes a variable: a batched value would be K writes, and no jacobian "
    "flows into an assignment",
    no_cases="it writes state and has no gradient: its values, checks and atomic runs are "
    "covered by tests/runtime/test_atomic_runs.py and tests/runtime/test_session.py",
)
ASSIGN_VARIABLE.no_gradient()

# ``v.op``: the op standing for the variable itself, named as it is (TF1 code reads
# ``v.op.name`` for the variable's name without ":0").  TF's VarHandleOp outputs the
# variable's resource handle; symgrad has no resource dtype, so this one has no outputs
# and running it does nothing, as running TF's fetches a handle no program reads.
VAR_HANDLE = register_op(
    "VarHandleOp",
    lambda inputs, **attrs: [],
    lambda **attrs: (),
    stateful=True,
    source=True,
    batch="no inputs and no outputs: never depends on the batched seed",
    no_cases="no inputs and no outputs, nothing for a row to compare; "
    "tests/test_variable_handle.py reads its name, type and graph entry",
)
VAR_HANDLE.no_gradient()


def _lifted_value(initial_value: Any) -> Any:
    """A traced tensor as initial value is computed now (TF lifts its initializer out)."""
    if isinstance(initial_value, Tensor):
        evaluate = getattr(initial_value.graph, "evaluate", None)
        if evaluate is not None:
            return evaluate(initial_value)
    return initial_value


class DeviceValues:
    """The values one compiled XLA call (``runtime.xla.compiled``) left the variables it
    writes, on its device, kept for all of them at once.

    Each such variable has ``_device_value = (values, index, base)`` and neither ``_value``
    nor ``_version`` of its own, so the next call of the same program (a training loop)
    replaces ``values`` and counts ``calls`` without touching a variable.  The class
    attributes ``Variable._value`` and ``Variable._version`` answer for such a variable:
    a NumPy view of its device array (made at the first read after a call, and kept until
    the next), and ``base + calls``.  A write on the NumPy path gives the variable its own
    ``_value`` and ``_version`` again, which come first (descriptors without ``__set__``).
    """

    __slots__ = ("calls", "state")

    def __init__(self) -> None:
        self.calls = 0
        self.state: tuple[Any, list[Any]] = ((), [])  # (device arrays, NumPy views or None)

    def put(self, arrays: Sequence[Any]) -> None:
        """A call's new values (one object swapped: a reader sees the old or the new)."""
        self.state = (arrays, [None] * len(arrays))
        self.calls += 1

    def device(self, i: int) -> Any:
        return self.state[0][i]

    def array(self, i: int) -> np.ndarray:
        """Value ``i`` as a NumPy view of its device buffer, made once a call."""
        arrays, views = self.state
        view = views[i]
        if view is None:
            view = views[i] = np.asarray(arrays[i])
        return view  # type: ignore[no-any-return]


def device_array(var: Any) -> Any:
    """The device array a compiled call left ``var`` (None: its value is NumPy's)."""
    state = var.__dict__
    bound = state.get("_device_value")
    return None if bound is None or "_value" in state else bound[0].device(bound[1])


class _DeviceValue:
    """``Variable._value`` of a variable whose value a compiled XLA call left on its
    device (``DeviceValues``): the NumPy path's reads stay a plain attribute read for
    every other variable, and a variable that only compiled calls use never leaves the
    device.  (A ``__getattr__`` would do the same, but would make every attribute read
    of a variable take the slow path, five times a plain one's cost.)"""

    def __get__(self, var: Any, owner: Any = None) -> Any:
        if var is None:
            return self
        held, i, _ = _bound(var, "_value")
        return held.array(i)


class _DeviceVersion:
    """``Variable._version`` of such a variable: one more for each call that wrote it."""

    def __get__(self, var: Any, owner: Any = None) -> Any:
        if var is None:
            return self
        held, _, base = _bound(var, "_version")
        return base + held.calls


def _bound(var: Any, name: str) -> tuple[DeviceValues, int, int]:
    """``var``'s place in its ``DeviceValues``; none: it has no attribute ``name``."""
    bound = var.__dict__.get("_device_value")
    if bound is None:
        raise AttributeError(f"'{type(var).__name__}' object has no attribute '{name}'")
    return bound  # type: ignore[no-any-return]


# Set by symgrad.distribute (its mirrored_vars module): how a variable made under a
# strategy's scope is written from a replica.  None until tf.distribute is imported.
replica_hooks: Any = None


class Variable:
    """A mutable tensor-like value: ``Variable(initial_value, trainable=True, name=...)``.

    Usable wherever a tensor is: every use is a read of the current value.  Created
    while a ``function`` traces, it lives outside the function (see ``FuncGraph``).
    ``shape`` (by default the initial value's) is what every assignment is checked
    against: ``shape=TensorShape(None)`` or ``[None, 3]`` lets assignments change the
    sizes left open.  ``validate_shape=False`` is accepted and changes nothing: TF2 then
    skips its run-time check, symgrad always checks against ``shape``.
    """

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool | None = None,
        validate_shape: bool = True,
        caching_device: Any = None,
        name: str | None = None,
        variable_def: Any = None,
        dtype: Any = None,
        import_scope: Any = None,
        constraint: Any = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
        shape: Any = None,
        experimental_enable_variable_lifting: Any = None,
        **kwargs: Any,
    ) -> None:
        # TF's signature (its metaclass's ``_variable_call``; caching_device, variable_def,
        # import_scope, constraint and the distribution arguments are accepted and unused:
        # one device, no SavedModel).  TF1's extra keywords (collections ...) are
        # tf.compat.v1.Variable's; any other keyword is an error, as in TF.
        for key in kwargs:
            if key not in ("expected_shape", "collections", "use_resource"):
                raise TypeError(f"Variable.__init__() got an unexpected keyword argument '{key}'")
        trainable = True if trainable is None else trainable
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        graph = get_default_graph()
        lift = getattr(graph, "lift_variable", None)
        if lift is not None:  # inside a traced function: the variable lives outside it
            graph = lift(name or "Variable")
            initial_value = _lifted_value(initial_value)
        # Where a tf.distribute strategy updates it from a replica (distribute/mirrored_vars).
        self._aggregation, self._synchronization = aggregation, synchronization
        # As TF's ``init_scope``: made with the control dependencies in force cleared, so
        # an initializer run alone runs no training op (``with tf.control_dependencies(
        # update_ops): opt.minimize(loss)`` makes the optimizer's slots in there).
        with graph.as_default(), graph.control_dependencies(None):
            self._create(graph, initial_value, trainable, name, dtype, shape)

    def _create(
        self,
        graph: Graph,
        initial_value: Any,
        trainable: bool,
        name: str | None,
        dtype: Any,
        shape: Any,
    ) -> None:
        if callable(initial_value):
            initial_value = initial_value()
        self.graph: Graph = graph
        self.trainable = bool(trainable)
        base = name or "Variable"
        self._op_name = graph.unique_name(base)
        self._uid = next(_uid)
        d = dt.as_dtype(dtype) if dtype is not None else None
        if isinstance(initial_value, Tensor) or hasattr(initial_value, "_as_tensor"):
            init = convert_to_tensor(initial_value)
            init = array.cast(init, d) if d is not None else init
        else:
            arr = to_array(initial_value, d, what="initial_value")
            init = constant(arr, name=f"{base}/Initializer")
        self._dtype = init.dtype
        self._shape = init.shape if shape is None else as_shape(shape)
        if not init.shape.is_compatible_with(self._shape):
            raise ValueError(
                f"In this `tf.Variable` creation, the initial value's shape "
                f"({init.shape}) is not compatible with the explicitly supplied "
                f"`shape` argument ({shape})."  # as given, as TF prints it
            )
        self._np_dtype = self._dtype.np  # what an assigned array must have (_check_value)
        self._dims = self._shape.dims
        # A variable made at top level from a known value is ready at once (TF2 style);
        # one made in a graph waits for its initializer (TF1 style).
        self._value = np.array(init.eager_value) if graph.eager and init.has_value() else None
        self._initial_value = init
        self._initializer: Operation | None = None
        self._version = 0  # counts assignments: a call op checks its reads are still current
        self._device = devices.current_device()  # requested by tf.device
        self._strategy = None  # the tf.distribute strategy whose scope made it
        if replica_hooks is not None:
            replica_hooks.created(self)
        graph.variables.append(self)

    # -- identity
    @property
    def name(self) -> str:
        return f"{self._op_name}:0"

    @property
    def device(self) -> str:
        """Where the variable lives: a full device name (eager), the request (a graph)."""
        return devices.eager_name(self._device) if self.graph.eager else self._device

    @property
    def dtype(self) -> dt.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    @property
    def op(self) -> Operation:
        """The op standing for the variable (TF1's VarHandleOp), named as the variable:
        ``v.op.name`` is its name without ":0".  Made when first asked for."""
        op = self._handle_op
        if op is None:
            graph = self.graph
            with graph.as_default(), graph.control_dependencies(None), graph.name_scope(None):
                attrs = {"dtype": self.dtype, "shape": self.shape, "shared_name": self._op_name}
                op = self._handle_op = apply_op("VarHandleOp", [], attrs, f"{self._op_name}/")
        return op

    _handle_op: Operation | None = None

    @property
    def initializer(self) -> Operation:
        """An op that (re)sets the variable to its initial value when run."""
        if self._initializer is None:  # made when first asked for: outside any control
            graph = self.graph  # dependency or name scope in force then
            with graph.as_default(), graph.control_dependencies(None), graph.name_scope(None):
                init = self._initial_value
                if init is None:
                    init = constant(self._value if self._value is not None else 0, self.dtype)
                self._initializer = apply_op(
                    "AssignVariableOp",
                    [init],
                    {"var": self, "mode": "assign"},
                    f"{self._op_name}/Assign",
                )
        return self._initializer

    @property
    def initial_value(self) -> Tensor:
        return self._initial_value if self._initial_value is not None else constant(self._value)

    def is_initialized(self) -> bool:
        return self._value is not None

    # Not an IndexedSlices: ``convert_to_tensor`` asks every value for this, and a class
    # attribute answers without an AttributeError raised (a third of a read's conversion).
    _dense_tensor = None

    # Where the instance has no ``_value`` (a compiled call's): an array, or None until
    # initialised, as mypy sees it.
    _value: np.ndarray | None = _DeviceValue()  # type: ignore[assignment]
    _version: int = _DeviceVersion()  # type: ignore[assignment]

    # -- reads
    def value(self) -> Tensor:
        """A read of the current value (an eager snapshot at top level)."""
        return self._read_up(4)

    read_value = value
    _as_tensor = value

    # ``value()``, its user's line looked for ``up`` frames out (variable_eager's: the
    # method is that function, so the eager read takes one frame)
    _read_up = variable_eager.read_up

    def numpy(self) -> Any:
        value = _read_kernel(var=self)
        return value.copy() if value.ndim else value[()]

    def eval(self, session: Any = None) -> Any:
        return self.value().eval(session=session)

    # -- writes
    # ``assign*``: the update (at the eager top level in one step, variable_eager's: the
    # method is that function, so the update takes one frame), else ``_write_general``
    _write = variable_eager.update

    def _write_general(
        self, value: Any, mode: str, name: str | None, read_value: bool = True
    ) -> UnreadVariable | Operation:
        """``assign*``: the update, then, as TF's, the variable read where used
        (``read_value``: an access, which a tape watching accessed variables watches),
        else the update's op."""
        hooks = replica_hooks
        if (
            hooks is not None
            and self._strategy is not None  # (only a strategy's variable is intercepted)
            and hooks.intercepts(self)  # a replica writing a mirrored one
        ):
            u = hooks.write(self, value, mode, name)
        else:
            u = self._write_now(value, mode, name)
        if not read_value:
            return u.op
        variable_eager.accessed(self, context.current.recorders)
        return u

    def _write_now(self, value: Any, mode: str, name: str | None) -> UnreadVariable:
        if type(value) in _TENSORS and value.dtype is self._dtype:
            v = value  # what the conversion gives back (the common case: no call)
        else:
            v = convert_to_tensor(value, dtype=self.dtype)
        if v.shape.dims != self._dims or v.dtype is not self._dtype:
            _check_static(self, v, mode)  # here, so the error is TF's text alone
        attrs = {"var": self, "mode": mode}
        name = name or _WRITE_NAMES[mode]
        graph = get_default_graph()
        op = variable_eager.write(graph, v, attrs, name, _UPDATES[mode]) if graph.eager else None
        if op is None:
            op = apply_op("AssignVariableOp", [v], attrs, name)
        return UnreadVariable(self, op)

    def assign(
        self,
        value: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        return self._write(value, "assign", name, read_value)

    def assign_add(
        self,
        delta: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        return self._write(delta, "assign_add", name, read_value)

    def assign_sub(
        self,
        delta: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        return self._write(delta, "assign_sub", name, read_value)

    def sparse_read(self, indices: Any, name: str | None = None) -> Tensor:
        """Rows ``indices`` of the current value (its gradient: IndexedSlices)."""
        return gather_ops.gather(self, indices, name=name)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Add IndexedSlices rows into this variable (a duplicate index adds twice)."""
        return UnreadVariable(
            self, variable_scatter.scatter(self, sparse_delta, "ResourceScatterAdd", name).op
        )

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Subtract IndexedSlices rows from this variable."""
        return UnreadVariable(
            self, variable_scatter.scatter(self, sparse_delta, "ResourceScatterSub", name).op
        )

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Set the rows of this variable named by an IndexedSlices."""
        return UnreadVariable(
            self, variable_scatter.scatter(self, sparse_delta, "ResourceScatterUpdate", name).op
        )

    def scatter_max(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Each row named by an IndexedSlices becomes the maximum of it and the update."""
        return variable_scatter.scatter(self, sparse_delta, "ResourceScatterMax", name)

    def scatter_min(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return variable_scatter.scatter(self, sparse_delta, "ResourceScatterMin", name)

    def scatter_mul(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return variable_scatter.scatter(self, sparse_delta, "ResourceScatterMul", name)

    def __int__(self) -> int:
        """``int(v)`` of a scalar variable: its current value (TF's, through a read)."""
        return int(self.value())

    def __float__(self) -> float:
        return float(self.value())

    def scatter_nd_update(self, indices: Any, updates: Any, name: Any = None) -> Any:
        """Set the slices at nd-``indices`` (tf.tensor_scatter_nd_update, assigned)."""
        return variable_scatter.scatter_nd(self, indices, updates, "update", name)

    def scatter_nd_add(self, indices: Any, updates: Any, name: Any = None) -> Any:
        return variable_scatter.scatter_nd(self, indices, updates, "add", name)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: Any = None) -> Any:
        return variable_scatter.scatter_nd(self, indices, updates, "sub", name)

    def __repr__(self) -> str:
        if self._value is None:
            return f"<symgrad.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"
        return (  # TF's text of the value (a scalar as its item, an array on its own lines)
            f"<symgrad.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}, "
            f"numpy={_np_repr(self._value)}>"
        )

    def __hash__(self) -> int:
        return id(self)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self.numpy(), dtype=dtype)


VARIABLE_TYPES.add(Variable)  # the elementwise and matmul wrappers read it as an operand

# isort: split
from symgrad.ops.state.unread_variable import UnreadVariable, unread_now  # noqa: E402  (a subclass)

variable_eager.register(_UPDATES, unread_now)


def global_variables() -> list[Variable]:
    return list(get_default_graph().variables)


def trainable_variables() -> list[Variable]:
    return [v for v in get_default_graph().variables if v.trainable]


def global_variables_initializer() -> Operation:
    """One op that initializes every variable of the default graph (NoOp when none)."""
    return variables_initializer(global_variables())


def variables_initializer(var_list: Sequence[Variable], name: str = "init") -> Operation:
    return control.group(*[v.initializer for v in var_list], name=name)


initialize_all_variables = global_variables_initializer


def _variable(ref: Any, what: str) -> Variable:
    if not isinstance(ref, Variable):
        raise TypeError(
            f"tf.compat.v1.{what}: `ref` must be a tf.Variable, got {type(ref).__name__} {ref!r}"
        )
    return ref  # type: ignore[no-any-return]


def assign(
    ref: Any,
    value: Any,
    validate_shape: Any = None,
    use_locking: Any = None,
    name: str | None = None,
) -> UnreadVariable:
    """``tf.compat.v1.assign(ref, value)``: ``ref.assign(value)`` (checked the same way)."""
    return _variable(ref, "assign").assign(value, name=name)


def assign_add(
    ref: Any, value: Any, use_locking: Any = None, name: str | None = None
) -> UnreadVariable:
    """``tf.compat.v1.assign_add(ref, value)``: ``ref.assign_add(value)``."""
    return _variable(ref, "assign_add").assign_add(value, name=name)


def assign_sub(
    ref: Any, value: Any, use_locking: Any = None, name: str | None = None
) -> UnreadVariable:
    """``tf.compat.v1.assign_sub(ref, value)``: ``ref.assign_sub(value)``."""
    return _variable(ref, "assign_sub").assign_sub(value, name=name)
