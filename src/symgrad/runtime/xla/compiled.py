"""A traced function as one ``jax.jit`` callable, and its call boundary.

The jitted function takes the feeds, then the variables' values (those only read, those
written and donated, the other written ones), each a positional argument, and returns
``(fetches, new values of the written variables)``.
The written values stay on the device, kept for all the variables at once
(``DeviceValues``), and a variable's becomes a NumPy array only when something on the
NumPy path reads it, so a loop of compiled calls never copies its variables.  The written
variables' buffers are donated (XLA updates them in place), but for those XLA would
copy aside on every call (``donation``), and unless the program calls back to the host,
whose kernels may raise after the buffers are gone; a buffer NumPy still views is kept
by XLA, which then copies.  A call that raises writes nothing, so every variable keeps
its old value.  64-bit types are on for the trace and the call (``jax.enable_x64``), so
float64 and int64 keep their width.
"""

from __future__ import annotations

import contextlib
import operator
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.context import current as _thread
from symgrad.core.errors import FailedPreconditionError, InvalidArgumentError, OpError
from symgrad.ops.state.variables import WRITES, DeviceValues, _journal, _remember
from symgrad.runtime.xla import donation, engine, host, placement


def _wide(prog: engine.Program, feeds: Sequence[Any]) -> bool:
    """Does any value of the program (nested graphs too) have a 64-bit type?"""
    tensors = [t for step in _all_steps(prog) for t in step[0].outputs] + list(feeds)
    return any(t.dtype.np.itemsize == 8 and t.dtype.np.kind in "fiu" for t in tensors) or any(
        t.dtype.np.itemsize == 16 for t in tensors
    )


def _all_steps(prog: engine.Program) -> list[Any]:
    """The program's steps and those of every graph its ops run (branches, bodies)."""
    steps, stack, seen = [], [prog], set()
    while stack:
        p = stack.pop()
        steps += p.steps
        for step in p.steps:
            for f in engine.nested_functions(step[0]):
                if id(f) not in seen:
                    seen.add(id(f))
                    stack.append(engine.program_of(f))
    return steps


_IS = operator.is_
_NO_MODE = contextlib.nullcontext()  # (reusable, and one less object per call)
_LOCK = threading.Lock()  # a call reads, donates and writes its variables as one step


class Compiled:
    """``Compiled(fetches, feeds, targets, name)(arrays) -> fetched arrays``."""

    def __init__(
        self,
        fetches: Sequence[Any],
        feeds: Sequence[Any],
        targets: Sequence[Any] = (),
        name: str = "graph",
    ) -> None:
        import jax

        from symgrad.runtime.xla import table

        table.install()
        self.name = name
        self.program = prog = engine.build(fetches, targets, feeds, name)
        # The written variables, those XLA updates in place first (see donation.py).
        copied = donation.copied(prog)
        written = sorted(prog.written.values(), key=lambda v: id(v) in copied)
        self.written = written
        self._n_donated = sum(id(v) not in copied for v in written)
        self.read = [v for k, v in prog.variables.items() if k not in prog.written]
        self._vars = self.read + self.written
        # The written variables' own dicts (an object's __dict__ is never replaced).
        self._dicts = [v.__dict__ for v in written]
        self._held = DeviceValues()  # the values the last call left them
        # The count of variable writes after the last call and the values it left the
        # variables (see ``_run``); None: ask each variable.
        self._stamp: int | None = None
        self._last: list[Any] = []
        self._n_read = len(self.read)
        ids = [id(v) for v in self._vars]
        n_feeds, n_written = len(feeds), len(self.written)

        def fn(*args: Any) -> Any:
            ctx = engine.Ctx(dict(zip(ids, args[n_feeds:], strict=True)))
            outs = engine.run(prog, ctx, list(args[:n_feeds]))
            new = [ctx.state[i] for i in ids[len(ids) - n_written :]]
            return [jax.numpy.asarray(o) for o in outs], new

        steps = _all_steps(prog)
        # Host effects (prints, random draws) finish before the call returns, as in TF.
        self._effects = any(step[0].type in host.EFFECTS for step in steps)
        on_host = (host.host, host.host_effect)
        self._host = any(st[0].type in host.HOST_REASONS or st[1] in on_host for st in steps)
        self._jax = jax
        self._x64 = _wide(prog, feeds)
        self._fed: list[Any] = [None] * len(feeds)  # the arrays last fed, and
        self._on_device: list[Any] = [None] * len(feeds)  # their copies on the device
        first = n_feeds + len(self.read)  # the donated variables' positions follow
        donate = () if self._host else tuple(range(first, first + self._n_donated))
        # A strategy step sharded over a mesh (``spmd``): every value the call takes or
        # gives is on all of the mesh's devices (the variables replicated, as mirrored
        # copies), so no call moves them to one device and back.
        self._on: Any = _replicated([st[0] for st in steps])
        self.jitted = jax.jit(fn, donate_argnums=donate, **_shardings(self._on))
        # May a call take ``_repeat``'s way when nothing has changed since the last? The
        # program's part, and with the place's (JAX's default device: see _place).
        self._repeatable = bool(written) and not (self._x64 or self._host or self._on is not None)
        self._repeatable_here = self._repeatable
        # Where the last call ran (``placement``): the tf.device block's name it was
        # found for (None: no call yet), the JAX device (None: JAX's default device).
        self._request: str | None = None
        self._pinned: Any = None
        self.report: str | None = None  # TF's name of it, where a light output needs it

    # A writing call with one output of static shape: (the graph of its last eager call,
    # the op's inputs after the feeds, the output's dtype and shape, the op's attributes),
    # the same for every call in that graph (``eager_call``).
    again: Any = None

    def _feeds(self, arrays: Sequence[Any]) -> list[Any]:
        """The feeds on the device: an array fed again (a constant's) is not sent again."""
        fed, on_device = self._fed, self._on_device
        on = self._on if self._on is not None else self._pinned
        for i, a in enumerate(arrays):
            if a is not fed[i]:
                on_device[i] = self._jax.device_put(a, on)
                fed[i] = a
        return on_device

    def _mode(self) -> Any:
        """64-bit types on when the program has any (else JAX's default, whose dispatch
        is quicker), held until results are ready, as host callbacks read it; and the
        device the call is placed on, where it is not JAX's default."""
        if self._pinned is None:
            return self._jax.enable_x64(True) if self._x64 else _NO_MODE
        stack = contextlib.ExitStack()
        if self._x64:
            stack.enter_context(self._jax.enable_x64(True))
        stack.enter_context(self._jax.default_device(self._pinned))
        return stack

    def _place(self, request: str) -> None:
        """Place the calls made in a ``tf.device(request)`` block (TF's placement,
        ``placement``); a new device re-sends the feeds and checks the variables."""
        if self._on is None:  # (a sharded strategy step places itself on its mesh)
            at = placement.resolve(request)
            if self._request is None or at.pinned is not self._pinned:
                placement.check_variables(self._vars, at, self.name)
                self._pinned = at.pinned
                self._repeatable_here = self._repeatable and at.pinned is None
                self._fed = [None] * len(self._fed)
                self._stamp = None  # (the values move with the next call)
            self.report = at.report
        self._request = request

    def __call__(self, arrays: Sequence[Any]) -> list[Any]:
        return self.finish(self.start(arrays))

    def start(self, arrays: Sequence[Any]) -> list[Any]:
        """Dispatch one run on ``arrays``; the written variables get their new values.

        Returns the fetches as device arrays that may still be computing (on a GPU,
        or a CPU client started asynchronous: ``set_synchronous_execution(False)``), so
        a caller can do its own bookkeeping meanwhile; ``finish`` turns them into NumPy
        arrays.  A program with host kernels, which
        may fail, is waited for before any variable is written."""
        request = _thread.device
        try:
            with _LOCK:
                # A training loop's call: the place and the variables' values of the last
                # (no atomic run under way: a thread-local, read last).
                if (
                    WRITES[0] == self._stamp
                    and request == self._request
                    and self._repeatable_here
                    and _journal.undo is None
                ):
                    return self._repeat(arrays)
                if request != self._request:
                    self._place(request)
                if self._x64 or self._pinned is not None:
                    with self._mode():
                        return self._run(arrays)
                return self._run(arrays)  # (JAX's default mode: no context, a quicker dispatch)
        except Exception as e:
            if self._host:  # (the call, or _wait, raised a host kernel's failure)
                _settle(self._jax)
            err = _translated(e)
            if err is e:
                raise
            raise err from None

    def _repeat(self, arrays: Sequence[Any]) -> list[Any]:
        """``_run`` where nothing has changed since the last call: no variable written
        (its values are the ones that call left), the same place, JAX's default mode, no
        host kernel and no atomic run: only the dispatch and the new values' binding."""
        last = self._last
        same = all(map(_IS, arrays, self._fed))
        outs, new = self.jitted(*(self._on_device if same else self._feeds(arrays)), *last)
        self._held.put(new)
        last[self._n_read :] = new  # (the read variables' values stay in front)
        WRITES[0] += 1
        stamp = self._stamp + 1  # type: ignore[operator]
        self._stamp = stamp if WRITES[0] == stamp else None  # (another thread wrote)
        return outs  # type: ignore[no-any-return]

    def _run(self, arrays: Sequence[Any]) -> list[Any]:
        """Dispatch, then the bookkeeping (which overlaps XLA's run where the dispatch
        is asynchronous).

        The work before the dispatch is the minimum: where no variable has been written
        since the last call (a training loop: the count of writes, ``WRITES``, is the
        one this call's own writes left), the values that call left them are its
        arguments, without asking each variable (``_values``)."""
        stamp = WRITES[0]
        bound = stamp == self._stamp  # (then the written variables hold the last call's)
        values = self._last if bound else _values(self._vars)
        same = all(map(_IS, arrays, self._fed))  # (a loop over one batch: no Python loop)
        if _journal.undo is not None and self.written:  # an atomic run: the old values,
            for var in self.written:  # to put back if it fails, read before XLA takes
                _remember(var)  # their buffers (a NumPy view keeps one from donation)
        outs, new = self.jitted(*(self._on_device if same else self._feeds(arrays)), *values)
        if self._host:
            outs = self._wait(outs, new)
        if self.written:
            self._hold(new, bound)
            stamp += 1
        # (A read variable's value here may be a NumPy array that a later assignment
        # replaces: this list keeps it alive until the next call.)
        self._last = values[: self._n_read] + new
        # Another write since ``stamp`` was read (another thread's, or this call's
        # in an atomic run): the next call asks each variable.
        self._stamp = stamp if WRITES[0] == stamp else None
        return outs  # type: ignore[no-any-return]

    def _hold(self, new: list[Any], bound: bool) -> None:
        """Give the written variables their new values, left on the device
        (``DeviceValues``).  ``bound``: nothing has written a variable since the last
        call, so each still answers from ``_held`` (a training loop's call: no variable
        touched); else each is bound to it again, its version counting on."""
        held, written = self._held, self.written
        if bound:
            held.put(new)
        else:
            versions = [v._version for v in written]
            held.put(new)
            calls = held.calls
            for i, (state, version) in enumerate(zip(self._dicts, versions)):
                state["_device_value"] = (held, i, version + 1 - calls)  # first: a reader
                state.pop("_value", None)  # never finds neither
                state.pop("_version", None)
        WRITES[0] += 1  # after the versions: a call that sees it sees them

    def finish(self, outs: list[Any]) -> list[Any]:
        """``start``'s fetches as NumPy arrays, converted in place in ``outs``."""
        try:
            for i, o in enumerate(outs):
                outs[i] = np.asarray(o)
        except Exception as e:
            err = _translated(e)
            if err is e:
                raise
            raise err from None
        return outs

    def finish1(self, out: Any) -> Any:
        """``finish`` of a program's one fetch: its NumPy array."""
        try:
            return np.asarray(out)
        except Exception as e:
            err = _translated(e)
            if err is e:
                raise
            raise err from None

    def _wait(self, outs: list[Any], new: list[Any]) -> list[Any]:
        """The results, once the program and its host effects are done."""
        results = [np.asarray(o) for o in outs]
        self._jax.block_until_ready(new)
        if self._effects:
            self._jax.effects_barrier()
        return results

    def lower_text(self, arrays: Sequence[Any]) -> str:
        """The StableHLO text of the program for these argument values (for inspection)."""
        with self._mode():
            lowered = self.jitted.lower(*arrays, *_values(self._vars))
        return str(lowered.as_text())

    def hlo_text(self, arrays: Sequence[Any]) -> str:
        """The optimized HLO XLA runs for these argument values (for inspection: the
        fusions, copies and buffer aliases of the program the calls run)."""
        with self._mode():
            lowered = self.jitted.lower(*arrays, *_values(self._vars))
        return str(lowered.compile().as_text())


def _settle(jax: Any) -> None:
    """After a host kernel failed: its error can stay in the device's runtime token in
    JAX (seen on the H100 host), which every later ``effects_barrier`` raises again, this
    boundary's for a later program's prints and JAX's own at exit ("Exception ignored
    in atexit callback"); the failure is reported once, here, so drop it."""
    try:
        jax.effects_barrier()
    except Exception:
        try:  # (JAX keeps a failed token: nothing public clears it)
            from jax._src import dispatch

            dispatch.runtime_tokens.clear()
        except Exception:  # another JAX: keep the user's error, not this one
            pass


def _replicated(ops: list[Any]) -> Any:
    """Replicated on the mesh of the program's sharded strategy step (None: no mesh)."""
    mesh = next((op.get_attr("mesh") for op in ops if op.type == "ReplicaCall"), None)
    if mesh is None:
        return None
    from jax.sharding import NamedSharding, PartitionSpec

    return NamedSharding(mesh, PartitionSpec())


def _shardings(on: Any) -> dict[str, Any]:
    return {} if on is None else {"in_shardings": on, "out_shardings": on}


def _translated(e: Exception) -> Exception:
    """The error to raise for ``e``: an OpError raised while tracing, without JAX's
    frames and notes; a host kernel's failure as TF's error naming its op; else ``e``."""
    if isinstance(e, OpError):
        return type(e)(e.message, e.op)
    if not host.FAILED:
        return e
    op, cause = host.FAILED.pop()
    host.FAILED.clear()
    return InvalidArgumentError(
        f"{op.type} op {op.describe()} failed: {type(cause).__name__}: {cause}", op
    )


def _values(variables: list[Any]) -> list[Any]:
    """The variables' values for a call: the device array a compiled call left, unless
    the NumPy path has assigned the variable since (then its NumPy value)."""
    values = []
    for v in variables:
        state = v.__dict__
        cur = state.get("_value")
        bound = state.get("_device_value")
        if bound is not None:
            if cur is None:
                values.append(bound[0].device(bound[1]))
                continue
            del state["_device_value"]  # the NumPy path wrote it since: drop the binding
        if cur is None:
            raise FailedPreconditionError(
                f"Could not read variable '{v.name}': it is uninitialized. Run "
                "global_variables_initializer() (or the variable's initializer) first."
            )
        values.append(cur)
    return values
