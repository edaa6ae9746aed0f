"""A traced function as one ``jax.jit`` callable, and its call boundary.

The jitted function takes ``(feeds, read variables, written variables)`` and returns
``(fetches, new values of the written variables)``.  At each call the variables' values go
in and the written ones come back into the ``Variable`` objects, so after a call every
variable holds what the NumPy path would give it.  A value that came from the last call
is passed back as the device array it was (no transfer); on an accelerator the written
variables' buffers are donated (on the CPU the NumPy value is a view of the device
buffer, so it is never donated).  64-bit types are on for the trace and the call
(``jax.enable_x64``), so float64 and int64 keep their width.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.errors import FailedPreconditionError, InvalidArgumentError, OpError
from symgrad.ops.state.variables import _remember
from symgrad.runtime.xla import engine, host


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
        self.written = list(prog.written.values())
        self.read = [v for k, v in prog.variables.items() if k not in prog.written]
        ids = [id(v) for v in self.read + self.written]
        self._cache: dict[int, tuple[Any, Any]] = {}  # id(var): (NumPy value, device array)
        n_written = len(self.written)

        def fn(feeds: list[Any], read: list[Any], written: list[Any]) -> Any:
            ctx = engine.Ctx(dict(zip(ids, [*read, *written], strict=True)))
            outs = engine.run(prog, ctx, feeds)
            new = [ctx.state[i] for i in ids[len(ids) - n_written :]]
            return [jax.numpy.asarray(o) for o in outs], new

        # Host effects (prints, random draws) finish before the call returns, as in TF.
        self._effects = any(step[0].type in host.EFFECTS for step in _all_steps(prog))
        on_cpu = jax.default_backend() == "cpu"
        self._jax = jax
        self._x64 = _wide(prog, feeds)
        self._fed: list[tuple[Any, Any] | None] = [None] * len(feeds)  # (array, on device)
        self.jitted = jax.jit(fn, donate_argnums=() if on_cpu else (2,))

    def _values(self, variables: list[Any]) -> list[Any]:
        values = []
        for v in variables:
            cur = v._value
            if cur is None:
                raise FailedPreconditionError(
                    f"Could not read variable '{v.name}': it is uninitialized. Run "
                    "global_variables_initializer() (or the variable's initializer) first."
                )
            hit = self._cache.get(id(v))
            values.append(hit[1] if hit is not None and hit[0] is cur else cur)
        return values

    def _feeds(self, arrays: Sequence[Any]) -> list[Any]:
        """The feeds on the device: an array fed again (a constant's) is not sent again."""
        out = []
        for i, a in enumerate(arrays):
            hit = self._fed[i]
            if hit is None or hit[0] is not a:
                hit = self._fed[i] = (a, self._jax.device_put(a))
            out.append(hit[1])
        return out

    def _mode(self) -> Any:
        """64-bit types on when the program has any (else JAX's default, whose dispatch
        is quicker); held until results are ready, as host callbacks read it."""
        return self._jax.enable_x64(True) if self._x64 else contextlib.nullcontext()

    def __call__(self, arrays: Sequence[Any]) -> list[Any]:
        try:
            with self._mode():
                outs, new = self.jitted(
                    self._feeds(arrays), self._values(self.read), self._values(self.written)
                )
                results = [np.asarray(o) for o in outs]
                if self._effects:
                    self._jax.effects_barrier()
        except OpError as e:  # raised while tracing: without JAX's frames and notes
            raise type(e)(e.message, e.op) from None
        except Exception:
            if not host.FAILED:
                raise
            op, cause = host.FAILED.pop()  # a host kernel raised: TF's error, naming its op
            host.FAILED.clear()
            raise InvalidArgumentError(
                f"{op.type} op {op.describe()} failed: {type(cause).__name__}: {cause}", op
            ) from None
        for var, value in zip(self.written, new, strict=True):
            view = np.asarray(value)
            _remember(var)  # an atomic run that fails later puts the old value back
            var._value = view
            var._version += 1
            self._cache[id(var)] = (view, value)
        return results

    def lower_text(self, arrays: Sequence[Any]) -> str:
        """The StableHLO text of the program for these argument values (for inspection)."""
        with self._mode():
            lowered = self.jitted.lower(
                list(arrays), self._values(self.read), self._values(self.written)
            )
        return str(lowered.as_text())
