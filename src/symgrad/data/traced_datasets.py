"""``flat_map``/``interleave`` functions traced once, as TF traces them.

TF calls a ``map_func`` that returns a dataset once, on symbolic element tensors, and runs
the traced graph per element.  symgrad's datasets are built from values, so the trace here
records instead: while ``map_func`` runs on placeholders, a dataset source given a tensor
of the trace (``from_tensor_slices(x)``, ``range(x)``, ...) returns a ``SymbolicDataset``
that remembers the call, and methods on it (``batch``, ``repeat``, ``map`` ...) are
remembered too.  The traced function returns the tensors those calls used; per element,
symgrad runs it and replays the calls on the values.  So ``map_func``'s Python runs once
(its side effects happen once, as in TF); functions it hands to inner transformations
(``.map(g)`` inside it) are traced at each replay.  A function that does something the
recorder cannot replay (reads ``element_spec`` of a symbolic dataset, takes dataset
elements such as ``window``'s) runs eagerly per element, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.autograph import converter as autograph
from symgrad.core import nest
from symgrad.core.context import init_scope
from symgrad.core.graph import Tensor
from symgrad.data import structure
from symgrad.runtime.function import function

_ACTIVE: list[_Recording] = []


class CannotRecord(Exception):
    """The function did something a replay cannot repeat: run it eagerly instead."""


class _Recording:
    def __init__(self) -> None:
        self.tensors: list[Tensor] = []
        self.graph: Any = None

    def index(self, t: Tensor) -> int:
        for i, seen in enumerate(self.tensors):
            if seen is t:
                return i
        self.tensors.append(t)
        return len(self.tensors) - 1


def _symbolic(x: Any) -> bool:
    rec = _ACTIVE[-1] if _ACTIVE else None
    return rec is not None and isinstance(x, Tensor) and not x.has_value()


def recording(args: Any) -> bool:
    """Whether a dataset call on ``args`` must be recorded (it reads the trace)."""
    if not _ACTIVE:
        return False
    return any(_symbolic(x) or isinstance(x, SymbolicDataset) for x in nest.flatten(args))


def _template(args: Any) -> Any:
    """``args`` with the trace's tensors as indices into the recorded outputs."""
    rec = _ACTIVE[-1]

    def leaf(x: Any) -> Any:
        if _symbolic(x):
            return _Slot(rec.index(x))
        return x

    return nest.map_structure(leaf, args)


class _Slot:
    def __init__(self, index: int) -> None:
        self.index = index


def _resolve(template: Any, values: list[Any]) -> Any:
    def leaf(x: Any) -> Any:
        if isinstance(x, _Slot):
            return values[x.index]
        if isinstance(x, SymbolicDataset):
            return x.build(values)
        return x

    return nest.map_structure(leaf, template)


class SymbolicDataset:
    """A dataset call recorded during a trace, rebuilt from values by ``build``."""

    def __init__(self, build: Callable[[list[Any]], Any]) -> None:
        self.build = build

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in ("element_spec", "cardinality", "as_numpy_iterator"):
            raise CannotRecord(name)

        def method(*args: Any, **kwargs: Any) -> SymbolicDataset:
            template = _template((args, kwargs))

            def build(values: list[Any]) -> Any:
                a, k = _resolve(template, values)
                return getattr(self.build(values), name)(*a, **k)

            return SymbolicDataset(build)

        return method

    def __iter__(self) -> Any:
        raise CannotRecord("iteration")


def source(cls: Any, name: str, args: Any, kwargs: Any) -> SymbolicDataset:
    """A recorded ``Dataset.<name>(*args, **kwargs)`` (a static constructor)."""
    template = _template((args, kwargs))

    def build(values: list[Any]) -> Any:
        a, k = _resolve(template, values)
        return getattr(cls, name)(*a, **k)

    return SymbolicDataset(build)


def traced_call(
    fn: Callable[..., Any], spec: Any, unpack: bool
) -> Callable[[structure.Flat], Any] | None:
    """``fn`` traced once from ``spec``, as a function of a flat element returning the
    dataset it makes; None when it cannot be recorded (the caller runs it eagerly)."""
    from symgrad.data.windows import DatasetSpec

    if any(isinstance(s, DatasetSpec) for s in structure.flatten(spec)):
        return None
    specs = list(spec) if unpack else [spec]
    rec = _Recording()
    holder: dict[str, Any] = {}
    converted = autograph.convert(fn, strict=False)

    def body(*args: Any) -> Any:
        _ACTIVE.append(rec)
        try:
            out = converted(*args) if unpack else converted(args[0])
        finally:
            _ACTIVE.pop()
        holder["out"] = out
        return tuple(rec.tensors)

    body.__name__ = getattr(fn, "__name__", "map_func")
    try:
        with init_scope():
            cf = function(body, input_signature=specs).get_concrete_function()
    except Exception:  # not recordable (e.g. a real dataset given a traced tensor): the
        return None  # eager path runs it per element, and reports any real error there
    out = holder["out"]
    if not isinstance(out, SymbolicDataset):
        return None if not hasattr(out, "_iterate") else (lambda flat: out)

    def call(flat: structure.Flat) -> Any:
        tensors = [structure.to_tensors(s, a) for s, a in zip(specs, split(flat), strict=True)]
        values = [t.numpy() for t in nest.flatten(cf(*tensors))]
        return out.build(values)

    call.replays = True  # type: ignore[attr-defined]
    sizes = [len(structure.flatten(s)) for s in specs]

    def split(flat: structure.Flat) -> list[Any]:
        parts, i = [], 0
        for n in sizes:
            parts.append(flat[i : i + n])
            i += n
        return parts

    return call
