"""``GradientTape``: record the ops run while watching, then differentiate them.

The tape is only a recorder.  It remembers which tensors it watches and which ops it
recorded, in recording order: an op is recorded when one of its inputs of a
differentiable dtype is known to the tape, i.e. explicitly watched, a read of a watched
variable, or an output of a recorded op (``stop_gradient`` never is).  An eager op run
under a tape is recorded as its light tensor (``record_light``: no ``Operation`` is
built); others as their op.  A source the tape never saw gets None, as in TF.
``gradient`` runs the tape's own eager backward pass over the records
(``eager_backward``) where nothing else reads it; otherwise (nested tapes, in a
function, ``jacobian``, forward mode) it hands the ids of the recorded ops to the one
reverse engine, ``backprop``, which then walks only those.  Gradient ops are created
through the ordinary op API, so a tape that is active while another tape computes its
gradient records that computation: nested tapes give higher derivatives with no extra
machinery.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import warnings
import weakref
from collections.abc import Iterator, Sequence
from itertools import repeat
from operator import attrgetter, is_not
from sys import _getframe
from typing import Any

import numpy as np

from symgrad.autodiff import eager_backward
from symgrad.autodiff.backprop import backprop, key
from symgrad.autodiff.backward_plan import Wiring
from symgrad.autodiff.captures import stand_in, stand_ins
from symgrad.autodiff.eager_backward import Spent, tkey
from symgrad.autodiff.eager_backward import op_of as _op_of
from symgrad.autodiff.gradients import (
    UnconnectedGradients,
    finish,
    graph_of,
    in_graph,
    unconnected_mode,
)
from symgrad.autodiff.jacobians import batch_jacobian, jacobian
from symgrad.core import context, hooks, nest
from symgrad.core.eager import EagerTensor, _caller_site
from symgrad.core.eager_tensor import _site
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.ops.array.structure import ones_like
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math.elementwise import add_n, multiply
from symgrad.ops.state.variables import Variable

_log = logging.getLogger("symgrad")

_USED = (
    "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
)


class GradientTape:
    """Record operations for automatic differentiation (``tf.GradientTape``).

    A :class:`symgrad.core.context.Recorder`: while it records, the op constructor hands it
    every op created on this thread (``record``) and Variable reads report to it.

    >>> import symgrad as tf
    >>> x = tf.constant(3.0)
    >>> with tf.GradientTape() as g:
    ...     g.watch(x)
    ...     y = x * x
    >>> print(g.gradient(y, x))
    symgrad.Tensor(6.0, shape=(), dtype=float32)
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._recording = False
        self._entered = False
        self._used = False
        # Where the with block and each stop_recording began, for why_none's answers
        # (the block's as the fast path keeps a line, ``_caller_site``: read as ``_block``).
        self._block_site: tuple[Any, int] | None = None
        self._pauses: list[tuple[str, int]] = []
        # After a non-persistent tape's use: the ids it had recorded and watched (no
        # references: the ops are freed as TF's) and where it was used (read: ``_used_at``).
        self._spent: tuple[Spent, frozenset[tuple[int, int]]] | None = None
        self._used_site: tuple[Any, int] | None = None
        self._clear()

    def _clear(self) -> None:
        self._watched: set[tuple[int, int]] = set()
        self._keep: list[Any] = []  # watched tensors and their ops: keeps their ids unique
        # What was recorded, in recording order (a topological order): light eager tensors
        # (``record_light``) by id, and ``Operation``s by id.
        self._records: dict[int, Any] = {}
        # ``tkey`` of every tensor the tape knows (watched, or an output of a record) ->
        # its slot, numbered in the order they became known.
        self._known: dict[Any, int] = {}
        # Each record's (op type, its inputs' slots, its outputs' slots), in the order of
        # ``_records``: what the eager backward pass is planned from (backward_plan); an
        # input's slot is -1 where it is unknown to the tape or not differentiable.
        self._wiring: list[Wiring] = []
        self._reads: dict[int, list[int]] = {}  # a watched variable's id -> its reads' slots
        self._variables: dict[int, Any] = {}

    @property
    def _block(self) -> tuple[str, int] | None:
        """Where the with block began: (file, line)."""
        return None if self._block_site is None else _site(*self._block_site)

    @property
    def _used_at(self) -> tuple[str, int] | None:
        """Where a non-persistent tape was used: (file, line)."""
        return None if self._used_site is None else _site(*self._used_site)

    @property
    def _recorded(self) -> dict[int, Operation]:
        """The recorded ops by id, each light record's ``Operation`` built now (the
        general engine, ``jacobian``, ``why_none`` and nested tapes walk ops)."""
        return {id(op): op for op in map(_op_of, self._records.values())}

    # -- context
    def __enter__(self) -> GradientTape:
        if self._recording:
            raise ValueError(
                "Tape is still recording, This can happen if you try to re-enter "
                "an already-active tape."
            )
        self._entered = True
        self._block_site = _caller_site(_getframe(1))
        _RECENT.append(weakref.ref(self))
        del _RECENT[:-8]
        self._push()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._recording:
            self._pop()

    def _push(self) -> None:
        context.push_recorder(self)
        self._recording = True

    def _pop(self) -> None:
        context.remove_recorder(self)
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops run inside are not recorded: their results are constants to this tape."""
        if not self._entered:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        if not self._recording:
            raise ValueError("Tape is not recording.")
        caller = sys._getframe(2)  # past contextlib's __enter__: the with statement
        self._pauses.append((caller.f_code.co_filename, caller.f_lineno))
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        """Forget everything recorded and watched, as if a fresh tape had been entered."""
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._clear()
        self._used = False

    # -- the Recorder protocol: what the op constructor and Variable.value() call
    takes_light = True  # ``run_now`` hands this recorder light tensors (``record_light``)

    def record(self, op: Operation) -> None:
        """Record ``op`` if one of its inputs of a differentiable dtype is known to the tape
        (watched, or an output of a recorded op), as TF's tape does: an op fed only integers
        (the float cast of an int) is not recorded, nor is ``stop_gradient``, so their
        outputs are constants to the tape and a gradient w.r.t. them is None."""
        op_type = op.type
        op_id = id(op)
        if op_type == "StopGradient" or op_id in self._records:  # (an op handed twice:
            return  # one record, so one producer of its slots in the wiring)
        if op_type == "ReadVariableOp":
            var = id(op.get_attr("var"))
            if var not in self._variables:
                return
            ins: tuple[int, ...] | None = ()
        else:
            ins = self._slots(op.inputs)
            if ins is None:
                return
        self._records[op_id] = op
        known = self._known
        outs: tuple[int, ...] = ()  # (a tuple grown: a generator costs twice this loop)
        for i in range(len(op.output_dtypes)):
            outs += (known.setdefault((op_id, i), len(known)),)
        self._wiring.append((op_type, ins, outs))
        if op_type == "ReadVariableOp":
            self._read(var, outs[0])

    def record_light(self, t: EagerTensor) -> None:
        """``record`` for a light eager tensor (one output, its op not built): the tape
        keeps the tensor, which holds what the gradient rule reads.  A light read of a
        variable (``variable_eager.read``'s) is the variable's access too: the tape is
        told of it here (``variable_accessed``'s), not before."""
        op_type = t._type
        known = self._known
        if op_type == "ReadVariableOp":
            v = t._attrs["var"]
            var = id(v)
            variables = self._variables
            if var not in variables:  # (``variable_accessed``, inlined)
                if not (v.trainable and self._watch_accessed_variables):
                    return
                variables[var] = v
            k = id(t)
            self._records[k] = t
            known[k] = s = len(known)
            self._wiring.append((op_type, (), (s,)))
            self._reads.setdefault(var, []).append(s)  # (``_read``, inlined)
            return
        if op_type == "StopGradient":
            return
        slots: tuple[int, ...] = ()  # ``_slots``, inlined: this runs for every op under a
        wanted = False  # tape (a tuple grown: for one to three inputs, cheaper than a list)
        for i in t._inputs:  # type: ignore[union-attr]
            s = known.get(id(i) if type(i) is EagerTensor else (id(i.op), i.value_index), -1)
            if s >= 0:
                if i.dtype.is_differentiable:
                    wanted = True
                else:
                    s = -1
            slots += (s,)
        if wanted:
            k = id(t)
            self._records[k] = t
            known[k] = s = len(known)
            self._wiring.append((op_type, slots, (s,)))

    def _slots(self, inputs: Sequence[Tensor]) -> tuple[int, ...] | None:
        """Each input's slot (-1: unknown to the tape, or not differentiable); None where
        no input has one (the op is not recorded)."""
        known = self._known
        slots = []
        for t in inputs:
            s = known.get(id(t) if type(t) is EagerTensor else (id(t.op), t.value_index), -1)
            slots.append(s if s < 0 or t.dtype.is_differentiable else -1)
        return tuple(slots) if max(slots, default=-1) >= 0 else None

    def _read(self, var: int, slot: int) -> None:
        """A recorded read of the watched variable ``var`` (its id), its output in ``slot``."""
        reads = self._reads.get(var)
        if reads is None:
            self._reads[var] = [slot]
        else:
            reads.append(slot)

    def _knows(self, t: Tensor) -> bool:
        """Is ``t`` watched or an output of an op this tape recorded?"""
        return tkey(t) in self._known

    def variable_accessed(self, var: Any) -> None:
        if self._watch_accessed_variables:
            self._variables.setdefault(id(var), var)

    def would_record(self, inputs: Sequence[Tensor], variables: Sequence[Any]) -> bool:
        """Would this tape record an op with these inputs that reads these variables?"""
        if not self._recording:
            return False
        if any(self._knows(t) for t in inputs if t.dtype.is_differentiable):
            return True
        return any(
            id(v) in self._variables or (v.trainable and self._watch_accessed_variables)
            for v in variables
        )

    # -- public API
    def watch(self, tensor: Any) -> None:
        """Watch a tensor, a Variable, or a nested structure of them."""
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
                self._variables.setdefault(id(t), t)
            elif isinstance(t, Tensor):
                seen = stand_in(get_default_graph(), t)  # in a function: its capture too
                for w in (t,) if seen is t else (t, seen):
                    self._watched.add(key(w))
                    self._known.setdefault(tkey(w), len(self._known))
                    self._keep += (w, w.op)
            else:
                raise ValueError(
                    f"Passed in object {t} of type '{type(t).__name__}', not "
                    "tf.Tensor or tf.Variable or ExtensionType."
                )
            if not t.dtype.is_differentiable:
                _log.warning(
                    "The dtype of the watched tensor must be floating (e.g. tf.float32), got %s",
                    t.dtype.name,
                )

    def why_none(self, target: Any, sources: Any) -> Any:
        """Why ``self.gradient(target, sources)`` gives None, per source (symgrad's own,
        as ``symgrad.why_none(tape, target, sources)``)."""
        return hooks.hook("why_none")(self, target, sources)

    def watched_variables(self) -> tuple[Any, ...]:
        """The variables this tape watches, in order of creation."""
        return tuple(sorted(self._variables.values(), key=lambda v: v._uid))

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
    ) -> Any:
        """The gradient of ``sum(target · output_gradients)`` w.r.t. each source.

        ``target`` and ``sources`` may be nested; the result has the structure of
        ``sources``.  A non-scalar target means the gradient of its sum.
        """
        self._begin_use()
        at = _caller_site(_getframe(1))  # the user's line, read when wanted (``_site``)
        if target is None:
            raise TypeError(
                "Argument `target` should be a list or nested structure of Tensors, "
                "Variables or CompositeTensors to be differentiated, but received "
                "None."
            )
        mode = unconnected_mode(unconnected_gradients)
        flat_sources = self._sources(sources)
        result = None
        if type(target) is EagerTensor and output_gradients is None:
            result = self._eager_gradient(target, flat_sources, mode, at)
        if result is None:
            targets = [convert_to_tensor(t) for t in nest.flatten(target)]
            with in_graph(graph_of(targets)):
                seeds = _seeds(targets, output_gradients, self._records)
                pairs = [
                    (t, s) for t, s in zip(targets, seeds, strict=True) if t.dtype.is_differentiable
                ]
                tgts = [t for t, _ in pairs]
                grads = self.vjp(
                    tgts, [s for _, s in pairs], stand_ins(tgts, flat_sources), sparse=True
                )
                result = [finish(s, g, mode) for s, g in zip(flat_sources, grads, strict=True)]
        self._end_use(at)
        if flat_sources is sources:  # a flat list (``_sources``): its copy is its packing
            return result
        return nest.pack_sequence_as(sources, result)

    def _eager_gradient(
        self, target: EagerTensor, sources: list[Any], mode: Any, at: tuple[Any, int]
    ) -> Any:
        """``gradient``'s common case, one eager target and no output gradients, as the
        general steps would take it (the eager pass, a seed of ones, the sources as they
        are); None where those steps would do more (the target's graph not the default
        one, a target of an integer dtype, or the eager pass not usable)."""
        if (
            not target.dtype.is_differentiable
            or target.graph is not get_default_graph()
            or not eager_backward.usable(self._records, (target,))
        ):
            return None
        value = eager_backward.array_of(target)
        if value is None:
            return None
        seed = np.empty(value.shape, value.dtype)  # ``np.ones``'s body, as C calls only
        seed.fill(1)
        grads = self._lean((target,), (seed,), sources, at)
        # A variable's gradient is ``finish``'s result as it is (it shapes tensors'): where
        # every source is a variable that got one, the gradients (C loops: the common case).
        if _VARIABLES.issuperset(map(type, sources)) and all(map(is_not, grads, _NONES)):
            return grads
        return [
            g if g is not None and type(s) is Variable else finish(s, g, mode)
            for s, g in zip(sources, grads, strict=True)
        ]

    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """d target / d source, of shape ``target.shape + source.shape``, for each source.

        Vectorised (one batched reverse pass) where every op of the reverse pass has a
        batching rule; otherwise, or with ``experimental_use_pfor=False``, one reverse
        pass per element of ``target``.  The result can itself be differentiated.
        """
        t = convert_to_tensor(target)
        self._check_loop_allowed("jacobian", t, experimental_use_pfor)
        self._begin_use()
        mode = unconnected_mode(unconnected_gradients)
        flat_sources = self._sources(sources)
        with in_graph(t.graph):
            result = jacobian(t, flat_sources, mode, self.vjp, experimental_use_pfor)
        self._end_use()
        return nest.pack_sequence_as(sources, result)

    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Tensor:
        """Per-example Jacobians: target ``[b, y...]``, source ``[b, x...]`` → ``[b, y..., x...]``.

        Row ``i`` of the target must depend only on row ``i`` of the source.  As TF, an
        unconnected source gives zeros whatever ``unconnected_gradients`` says.
        """
        t = convert_to_tensor(target)
        self._check_loop_allowed("batch_jacobian", t, experimental_use_pfor)
        self._begin_use()
        unconnected_mode(unconnected_gradients)
        (s,) = self._sources(source)
        with in_graph(t.graph):
            result = batch_jacobian(t, s, self.vjp, experimental_use_pfor)
        self._end_use()
        return result

    def _check_loop_allowed(self, what: str, target: Tensor, use_pfor: bool) -> None:
        if not use_pfor and target.graph.eager and not self._persistent:
            raise RuntimeError(
                f"GradientTape must be created with persistent=True to compute "
                f"the {what} with eager execution enabled and "
                # TF's two texts put their double space in different places
                f"{'with  ' if what == 'jacobian' else ' with '}"
                "experimental_use_pfor set to False."
            )

    # -- helpers
    def _begin_use(self) -> None:
        if not self._entered or self._used:
            raise RuntimeError(_USED)
        if self._recording:
            if not self._persistent:
                self._pop()
            else:
                _log.warning(
                    "Calling GradientTape.gradient on a persistent tape inside its "
                    "context is significantly less efficient than calling it outside "
                    "the context (it causes the gradient ops to be recorded on the "
                    "tape, leading to increased CPU and memory usage)."
                )

    def _end_use(self, at: tuple[Any, int] | None = None) -> None:
        """Count a use (``at``: the user's line, as ``_caller_site`` gives it; found here
        if not given)."""
        if not self._persistent:
            self._used = True
            self._spent = (Spent(self._records.values()), frozenset(self._watched))
            self._used_site = at or _caller_site(_getframe(1))
            kept = self._variables  # as TF, watched_variables() still lists them afterwards
            self._clear()
            self._variables = kept

    def _sources(self, sources: Any) -> list[Any]:
        """The sources, flat: a list of tensors and variables (the common case) itself."""
        if type(sources) is list and _SOURCE_TYPES.issuperset(map(type, sources)):
            flat = sources  # (C loops: each of a type that has a dtype; all differentiable?)
            if all(map(_DIFFERENTIABLE, flat)):
                return flat
        else:
            flat = nest.flatten(sources)
        for s in flat:
            if type(s) not in _SOURCE_TYPES and not isinstance(s, Tensor | Variable):
                raise ValueError(
                    f"Sources must be Tensors or Variables, got {s!r} of type '{type(s).__name__}'."
                )
            if not s.dtype.is_differentiable:
                warnings.warn(
                    f"The dtype of the source tensor must be floating (e.g. "
                    f"tf.float32) when calling GradientTape.gradient, got "
                    f"{s.dtype.name}",
                    stacklevel=3,
                )
        return flat

    def vjp(
        self,
        targets: Sequence[Tensor],
        seeds: Sequence[Tensor],
        sources: Sequence[Any],
        sparse: bool = False,
    ) -> list[Tensor | None]:
        """Gradients of ``sum(target · seed)`` w.r.t. each source, over what this tape
        recorded, with no checks and no use counted (``gradient``, ``jacobian`` and
        ``ForwardAccumulator`` build on it; not part of TensorFlow's API).  Dense, unless
        ``sparse`` (``gradient``): then a gather's gradient stays an IndexedSlices."""
        if sparse and eager_backward.usable(self._records, targets):
            return self._lean(targets, seeds, sources, _caller_site(_getframe(1)))
        recorded = set(self._recorded)
        # A target the tape did not record is a constant to it (unless it is a source).
        stops = {id(t.op) for t in targets if id(t.op) not in recorded}
        diff = [s if s.dtype.is_differentiable else _Never() for s in sources]
        unknown = [i for i, s in enumerate(sources) if isinstance(s, Tensor) and not self._knows(s)]
        for i in unknown:  # a tensor the tape never saw is no source: its gradient is None
            diff[i] = _Never()
        grads = backprop(
            targets,
            seeds,
            diff,
            stop_ops=stops,
            recorded=recorded,
            use_override=False,
            sparse=sparse,
        )
        for i in unknown:  # ... unless it is itself a target (TF seeds it, see _own_seed)
            grads[i] = _own_seed(sources[i], targets, seeds, self._recorded)
        return grads

    def _lean(
        self,
        targets: Sequence[Tensor],
        seeds: Sequence[Any],
        sources: Sequence[Any],
        at: tuple[Any, int],
    ) -> list[Tensor | None]:
        """``vjp`` by the eager tape's own backward pass (``eager_backward``); ``at``: the
        user's line that asked (``_caller_site``)."""
        known, reads = self._known, self._reads
        unknown: list[int] = []  # the tensors the tape never saw: no source (as ``vjp``'s)
        slots: tuple[tuple[int, ...], ...]  # each source's slots (its reads', a variable's)
        if _VARIABLES.issuperset(map(type, sources)) and all(map(_DIFFERENTIABLE, sources)):
            # (C loops: the common case, every source a variable of a differentiable dtype)
            slots = tuple(map(tuple, map(reads.get, map(id, sources), _NO_READS)))
        else:
            slots = tuple(self._slots_of(sources, unknown))
        if slots and not slots[-1]:  # (the sources after the last that has a slot: none)
            slots = slots[: max((i + 1 for i, k in enumerate(slots) if k), default=0)]
        grads = eager_backward.backward(
            list(self._records.values()),
            self._wiring,
            slots,
            tuple([known.get(tkey(t), -1) for t in targets]),
            seeds,
            len(sources),
            at,
        )
        for i in unknown:  # as ``vjp``: an unknown source that is a target gets its seed
            seed = _own_seed(sources[i], targets, seeds, self._recorded)
            grads[i] = convert_to_tensor(seed) if isinstance(seed, np.ndarray) else seed
        return grads

    def _slots_of(self, sources: Sequence[Any], unknown: list[int]) -> Iterator[tuple[int, ...]]:
        """Each source's slots (none: it matches nothing), the indices of the tensors the
        tape never saw added to ``unknown``."""
        known, reads = self._known, self._reads
        for i, s in enumerate(sources):
            slots: Any = ()
            if isinstance(s, Tensor):
                k = known.get(tkey(s))
                if k is None:
                    unknown.append(i)
                else:
                    slots = (k,)
            elif isinstance(s, Variable):
                slots = reads.get(id(s), ())  # its recorded reads, in recording order
            yield tuple(slots) if slots and s.dtype.is_differentiable else ()


_SOURCE_TYPES = frozenset({Variable, Tensor, EagerTensor})  # ``_sources``'s common case
_VARIABLES = frozenset({Variable})
_NO_READS, _NONES = repeat(()), repeat(None)
_DIFFERENTIABLE = attrgetter("dtype.is_differentiable")

# The tapes entered last (weakly): symgrad.why_none(y, x) on eager tensors asks them.
_RECENT: list[weakref.ref[GradientTape]] = []


class _Never:
    """A source that matches nothing (an integer source: its gradient is always None)."""


def _own_seed(
    source: Tensor, targets: Sequence[Tensor], seeds: Sequence[Tensor], recorded: dict[int, Any]
) -> Tensor | None:
    """The gradient of an unknown source that is also a target: its seed, unless a recorded
    op the targets depend on consumes it (TF's tape then drops that gradient: None)."""
    k = key(source)
    own = [s for t, s in zip(targets, seeds, strict=True) if key(t) == k]
    if not own:
        return None
    todo = [t.op for t in targets if id(t.op) in recorded]
    seen: set[int] = set()
    while todo:
        op = todo.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        for t in op.inputs:
            if key(t) == k:
                return None
            if id(t.op) in recorded:
                todo.append(t.op)
    return own[0] if len(own) == 1 else add_n(own)


def _seeds(targets: list[Tensor], output_gradients: Any, records: dict[int, Any]) -> list[Any]:
    """The targets' seeds: the output gradients given, else ones (as TF), an array of
    ones where the eager pass (``eager_backward``) will take them: no op made."""
    given = [] if output_gradients is None else nest.flatten(output_gradients)
    seeds: list[Any] = []
    lean = len(given) < len(targets) and eager_backward.usable(records, targets)
    for i, y in enumerate(targets):
        if i >= len(given):  # as TF, missing output gradients default to ones
            value = eager_backward.array_of(y) if lean else None  # (all or none: see vjp)
            seeds.append(ones_like(y) if value is None else np.ones(value.shape, value.dtype))
            continue
        g = convert_to_tensor(given[i], dtype=None if isinstance(given[i], Tensor) else y.dtype)
        if g.dtype is not y.dtype:
            raise TypeError(
                f"output_gradients[{i}] has dtype {g.dtype.name} but target {i} "
                f"has dtype {y.dtype.name}; they must match."
            )
        if g.shape.rank == 0 and y.shape.rank != 0:
            g = multiply(g, ones_like(y))
        elif not y.shape.is_compatible_with(g.shape):
            raise InvalidArgumentError(
                f"Incompatible shapes: output_gradients[{i}] has shape "
                f"{g.shape} but target {i} has shape {y.shape}"
            )
        seeds.append(g)
    return seeds
