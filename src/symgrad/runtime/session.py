"""TF1-style execution: ``Session.run(fetches, feed_dict)`` and ``InteractiveSession``."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgrad.core.context import current
from symgrad.core.graph import Graph, Operation, Tensor, get_default_graph
from symgrad.core.op_registry import OPS
from symgrad.ops.core import to_array
from symgrad.ops.sparse.indexed_slices import IndexedSlices, IndexedSlicesValue
from symgrad.ops.state.variables import Variable
from symgrad.runtime.plan import Plan, tensor_key

_MAX_PLANS = 256


class Session:
    """Runs a graph: ``with Session() as sess: sess.run(fetches, feed_dict={x: value})``."""

    def __init__(self, target: str = "", graph: Graph | None = None, config: Any = None) -> None:
        self.graph = graph if graph is not None else get_default_graph()
        self._closed = False
        self._plans: dict[Any, Plan] = {}
        self._calls: dict[tuple[int, ...], _Call] = {}
        self._reads: dict[int, Tensor] = {}
        self._lock = threading.Lock()

    # -- lifecycle
    def close(self) -> None:
        self._closed = True
        self._plans.clear()
        self._calls.clear()

    def __enter__(self) -> Session:
        current.sessions.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        sessions = current.sessions
        if sessions and sessions[-1] is self:
            sessions.pop()
        self.close()

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Session]:
        current.sessions.append(self)
        try:
            yield self
        finally:
            current.sessions.pop()

    # -- running
    def run(
        self, fetches: Any, feed_dict: Any = None, options: Any = None, run_metadata: Any = None
    ) -> Any:
        """Evaluate ``fetches`` (a tensor, op, name, or nested list/tuple/dict of them)."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        key = _identity_key(fetches, feed_dict)
        call = self._calls.get(key) if key is not None else None
        if call is None:
            call = self._prepare(fetches, feed_dict)
            if key is not None:
                with self._lock:
                    if len(self._calls) >= _MAX_PLANS:
                        self._calls.pop(next(iter(self._calls)))
                    self._calls[key] = call
        feed_values = (
            []
            if not feed_dict
            else [
                _read_only(
                    v
                    if type(v) is np.ndarray and v.dtype == dtype and v.shape == shape
                    else self._feed_value(t, v)
                )
                for (t, dtype, shape), v in zip(call.feeds, feed_dict.values(), strict=True)
            ]
        )
        it = iter(call.plan.run(feed_values))
        out = [
            (_to_user(next(it)) if kind == 1 else _copied(next(it))) if kind else None
            for kind in call.tensor_leaves
        ]
        flat = call.flat  # one fetch, or a flat list/tuple of them: no rebuild closures
        if flat is list:
            return out
        if flat is tuple:
            return tuple(out)
        return out[0] if flat is object else call.rebuild(iter(out))

    def _prepare(self, fetches: Any, feed_dict: Any) -> _Call:
        """What a run needs that depends only on what is fetched and fed, not on values."""
        leaves: list[Tensor | Operation] = []
        rebuild = _flatten(fetches, lambda f: leaves.append(self._element(f)))
        feeds = [self._feed_key(k) for k in feed_dict] if feed_dict else []
        tensors = [x for x in leaves if isinstance(x, Tensor)]
        targets = [x for x in leaves if isinstance(x, Operation)]
        key = (
            tuple(tensor_key(t) for t in tensors),
            tuple(id(o) for o in targets),
            tuple(tensor_key(t) for t in feeds),
        )
        plan = self._plans.get(key)
        if plan is None:
            plan = Plan(tensors, targets, feeds)
            with self._lock:
                if len(self._plans) >= _MAX_PLANS:
                    self._plans.pop(next(iter(self._plans)))
                self._plans[key] = plan
        kind = type(fetches)
        items = tuple(fetches) if kind in (list, tuple) else (fetches,)
        nested = any(isinstance(f, list | tuple | dict | IndexedSlices) for f in items)
        flat = None if nested else kind if kind in (list, tuple) else object
        return _Call(
            (items, tuple(feed_dict or ())),
            plan,
            rebuild,
            [(2 if _aliases_a_variable(x) else 1) if isinstance(x, Tensor) else 0 for x in leaves],
            [(t, t.dtype.np, _static_shape(t)) for t in feeds],
            flat,
        )

    def _element(self, fetch: Any) -> Tensor | Operation:
        if fetch is None:
            raise TypeError(
                'Argument `fetch` = None has invalid type "NoneType". Cannot be '
                "None. If it is a gradient, the target does not depend on that "
                "source: symgrad.why_none(ys, xs) says why."
            )
        if isinstance(fetch, Variable):
            read = getattr(fetch, "_graph_element", None)  # an assignment's read after it
            if read is not None:
                return read  # type: ignore[no-any-return]
            read = self._reads.get(id(fetch))
            if read is None:
                with self.graph.as_default():
                    read = self._reads[id(fetch)] = fetch.value()
            return read
        if isinstance(fetch, Tensor | Operation):
            if fetch.graph is not self.graph:
                raise ValueError(
                    f"Fetch {fetch!r} is not an element of this session's graph "
                    f"({self.graph!r}); it belongs to {fetch.graph!r}."
                )
            return fetch
        if isinstance(fetch, str):
            try:
                return self.graph.as_graph_element(fetch)
            except (KeyError, ValueError) as e:
                raise ValueError(
                    f"Fetch argument {fetch!r} cannot be interpreted as a Tensor or Operation: {e}"
                ) from None
        raise TypeError(
            f"Fetch argument {fetch!r} has invalid type {type(fetch).__name__!r}: "
            "must be a Tensor, Operation, Variable or a name string, or a "
            "list/tuple/dict of them."
        )

    def _feed_key(self, k: Any) -> Tensor:
        t = self.graph.as_graph_element(k) if isinstance(k, str) else k
        if not isinstance(t, Tensor):
            raise TypeError(
                f"Cannot feed {k!r}: feed_dict keys must be Tensors (such as "
                "placeholders) or tensor names like 'x:0', got "
                f"{type(k).__name__}."
            )
        if t.graph is not self.graph:
            raise ValueError(f"Cannot feed {t.name}: it is not an element of this session's graph.")
        return t

    @staticmethod
    def _feed_value(t: Tensor, v: Any) -> np.ndarray:
        """``v`` as an array of ``t``'s dtype, checked against ``t``'s static shape."""
        if isinstance(v, Tensor) and not v.has_value():
            raise TypeError(
                f"The value of a feed cannot be a symbolic Tensor ({v.name}). "
                "Acceptable feed values include Python scalars, lists, NumPy "
                "arrays and eager tensors."
            )
        try:
            arr = to_array(v, t.dtype, what=f"the value fed to {t.name}")
        except (TypeError, ValueError) as e:
            raise type(e)(f"{e} (the fed tensor {t.name} has dtype {t.dtype.name})") from None
        if not t.shape.is_compatible_with(arr.shape):
            raise ValueError(
                f"Cannot feed value of shape {arr.shape} for Tensor {t.name}, "
                f"which has shape {t.shape}"
            )
        return arr


@dataclass(frozen=True)
class _Call:
    """A prepared ``Session.run``: reused while the same objects are fetched and fed.

    ``held`` keeps those objects alive, so the ids in the cache key stay theirs.
    """

    held: Any
    plan: Plan
    rebuild: Callable[[Iterator[Any]], Any]
    tensor_leaves: list[int]  # 0: an op; 1: a tensor; 2: one that may be a variable's array
    feeds: list[tuple[Tensor, np.dtype[Any], tuple[int, ...] | None]]
    flat: type | None  # list, tuple, object (a single fetch), or None: use ``rebuild``


def _identity_key(fetches: Any, feed_dict: Any) -> tuple[int, ...] | None:
    """A key for a run that fetches one object or a flat list/tuple of objects (not
    names: a string's id says nothing) and feeds a dict; None for anything else."""
    kind = type(fetches)
    key = [id(kind)]
    for x in fetches if kind is list or kind is tuple else (fetches,):
        t = type(x)
        if t is str or t is list or t is tuple or t is dict:
            return None
        key.append(id(x))
    if feed_dict is not None:
        if type(feed_dict) is not dict:
            return None
        key.append(-1)
        key.extend(map(id, feed_dict))
    return tuple(key)


def _static_shape(t: Tensor) -> tuple[int, ...] | None:
    dims = t.shape.dims
    return None if dims is None or None in dims else tuple(dims)  # type: ignore[arg-type]


class InteractiveSession(Session):
    """A Session that installs itself as the default (``t.eval()``, ``op.run()``)."""

    def __init__(self, target: str = "", graph: Graph | None = None, config: Any = None) -> None:
        super().__init__(target, graph, config)
        current.sessions.append(self)

    def close(self) -> None:
        sessions = current.sessions
        if self in sessions:
            sessions.remove(self)
        super().close()


def _read_only(arr: np.ndarray) -> np.ndarray:
    """A read-only view of a fed array, as constants are: a fetched value that is the
    feed or a view of it (identity, reshape, slice) is then copied by ``_to_user``, so it
    does not change when the caller later writes into the array they fed (TF copies feeds)."""
    view = arr.view()
    view.flags.writeable = False
    return view


def _aliases_a_variable(t: Tensor) -> bool:
    """Whether ``t``'s value may be a variable's own array: a read, or a view of one."""
    op = t.op
    while OPS[op.type].view:
        if OPS[op.type].variable == "read":
            return True
        if not op.inputs:
            return False
        op = op.inputs[0].op
    return False


def _copied(value: Any) -> Any:
    """A fetched read for the user: a copy, as TF's (a write into it leaves the variable)."""
    if isinstance(value, np.ndarray) and value.ndim:
        return value.copy()
    return _to_user(value)


def _to_user(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    if isinstance(value, np.ndarray):
        return value.copy() if not value.flags.writeable else value
    return value


def _flatten(fetches: Any, visit: Callable[[Any], None]) -> Callable[[Iterator[Any]], Any]:
    """Visit the leaves of a nested fetch; return a function that rebuilds the structure."""
    if isinstance(fetches, list):
        parts = [_flatten(f, visit) for f in fetches]
        return lambda it: [p(it) for p in parts]
    if isinstance(fetches, tuple):
        parts = [_flatten(f, visit) for f in fetches]
        if hasattr(fetches, "_fields"):  # namedtuple
            return lambda it: type(fetches)(*[p(it) for p in parts])
        return lambda it: tuple(p(it) for p in parts)
    if isinstance(fetches, dict):
        items = [(k, _flatten(v, visit)) for k, v in fetches.items()]
        return lambda it: type(fetches)((k, p(it)) for k, p in items)
    if isinstance(fetches, IndexedSlices):  # fetched as TF1 does: IndexedSlicesValue
        values, indices = (_flatten(f, visit) for f in (fetches.values, fetches.indices))
        shape = None if fetches.dense_shape is None else _flatten(fetches.dense_shape, visit)
        return lambda it: IndexedSlicesValue(values(it), indices(it), shape and shape(it))
    visit(fetches)
    return lambda it: next(it)
