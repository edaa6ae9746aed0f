"""TF1's variable management: ``variable_scope``, ``get_variable`` and graph collections.

Each graph has one variable store (name -> Variable) that ``get_variable`` consults, so
weights are shared by name exactly as in a TF1 graph: ``reuse=True`` requires the variable,
``reuse=False`` (the default) refuses a second one, ``AUTO_REUSE`` creates or returns it.
symgrad's top-level graph keeps its store too, so a TF1 program run at top level shares
variables as its graph would.  (TF2's eager mode does not share: every ``get_variable``
there makes a new variable.  A TF2 program that relies on that gets the "already exists"
error here; the fix is a ``tf.Module`` or ``AUTO_REUSE``.)

A ``variable_scope`` opens a name scope for the ops created inside (uniquified, so a
second ``variable_scope("layer")`` puts its ops under ``layer_1/``) while variable names
use the variable scope's own name (``layer/w``), as in TF.
"""

from __future__ import annotations

import contextlib
import re
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from symgrad.api.init_ops import Initializer, glorot_uniform_initializer, zeros_initializer
from symgrad.core import dtypes as dt
from symgrad.core.graph import Graph, Tensor, get_default_graph, name_scope
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.state.variable_enums import VariableAggregation, VariableSynchronization
from symgrad.ops.state.variables import Variable


class _ReuseMode:
    """``tf.compat.v1.AUTO_REUSE``: create the variable if missing, else return it."""

    def __repr__(self) -> str:
        return "AUTO_REUSE"


AUTO_REUSE: Any = _ReuseMode()


class GraphKeys:
    """Standard collection names (``tf.compat.v1.GraphKeys``)."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    VARIABLES = GLOBAL_VARIABLES


# -------------------------------------------------------------------------------------
# Collections: variables come from the graph's own list; other keys from graph.collections


def _variables_of(graph: Graph, key: str) -> list[Any] | None:
    if key == GraphKeys.GLOBAL_VARIABLES:
        local = {id(v) for v in graph.collections.get(GraphKeys.LOCAL_VARIABLES, ())}
        return [v for v in graph.variables if id(v) not in local]
    if key == GraphKeys.TRAINABLE_VARIABLES:
        return [v for v in graph.variables if v.trainable]
    return None


def get_collection_ref(key: str) -> list[Any]:
    """The default graph's list for ``key`` itself (appending to it adds to the collection);
    the variable collections are read from the graph's variables and cannot be held so."""
    return _collection_ref(get_default_graph(), key)


def _collection_ref(graph: Graph, key: str) -> list[Any]:
    if _variables_of(graph, key) is not None:
        raise ValueError(
            f"get_collection_ref({key!r}): symgrad keeps this collection from the "
            "graph's variables; read it with get_collection"
        )
    return graph.collections.setdefault(key, [])


def get_collection(key: str, scope: str | None = None) -> list[Any]:
    """A copy of the collection ``key``; with ``scope``, the items whose name matches it
    from the start (``re.match``), as TF filters."""
    return _collection(get_default_graph(), key, scope)


def _collection(graph: Graph, key: str, scope: str | None = None) -> list[Any]:
    items = _variables_of(graph, key)
    if items is None:
        items = list(graph.collections.get(key, ()))
    if scope is None:
        return items
    pattern = re.compile(scope)
    return [x for x in items if pattern.match(getattr(x, "name", "") or "")]


def global_variables(scope: str | None = None) -> list[Any]:
    """The graph's global variables (not the local ones, as metrics make) whose name
    matches ``scope`` (``re.match``)."""
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope: str | None = None) -> list[Any]:
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope: str | None = None) -> list[Any]:
    """The graph's local variables (``LOCAL_VARIABLES``: the metrics' running state)."""
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def add_to_collection(name: str, value: Any) -> None:
    _add(get_default_graph(), name, value)


def add_to_collections(names: Any, value: Any) -> None:
    _add_all(get_default_graph(), names, value)


def _add(graph: Graph, name: str, value: Any) -> None:
    if _variables_of(graph, name) is None:
        _collection_ref(graph, name).append(value)


def _add_all(graph: Graph, names: Any, value: Any) -> None:
    for name in [names] if isinstance(names, str) else set(names):
        _add(graph, name, value)


def _all_keys(graph: Graph) -> list[str]:
    """TF's ``get_all_collection_keys``: the keys of the graph's collections, the variable
    collections among them once the graph has variables."""
    keys = [k for k in graph.collections if isinstance(k, str)]
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES):
        if _variables_of(graph, key) and key not in keys:
            keys.append(key)
    return keys


def _clear(graph: Graph, name: str) -> None:
    _collection_ref(graph, name)  # (the variable collections cannot be cleared so)
    graph.collections.pop(name, None)


# ``Graph``'s collection methods (TF's), installed here beside the functions of the
# default graph (as the ops install Tensor's operators).
for _name, _method in {
    "get_collection": _collection,
    "get_collection_ref": _collection_ref,
    "add_to_collection": _add,
    "add_to_collections": _add_all,
    "get_all_collection_keys": _all_keys,
    "clear_collection": _clear,
}.items():
    setattr(Graph, _name, _method)


# -------------------------------------------------------------------------------------
# Variable scopes


@dataclass
class VariableScope:
    """A variable scope: its name (the prefix of variable names), reuse flag, defaults."""

    reuse: Any
    name: str = ""
    initializer: Any = None
    regularizer: Any = None
    dtype: dt.DType = dt.float32
    original_name_scope: str = ""

    def reuse_variables(self) -> None:
        """Share variables from now on in this scope (TF's ``scope.reuse_variables()``)."""
        self.reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self.initializer = initializer

    def set_regularizer(self, regularizer: Any) -> None:
        self.regularizer = regularizer

    def set_dtype(self, dtype: Any) -> None:
        self.dtype = dt.as_dtype(dtype)

    def get_variable(
        self,
        name: str,
        shape: Any = None,
        dtype: Any = None,
        initializer: Any = None,
        **kwargs: Any,
    ) -> Variable:
        with _entered(self):
            return get_variable(name, shape, dtype, initializer, **kwargs)


class _Scopes(threading.local):
    def __init__(self) -> None:
        self.stack: list[VariableScope] = [VariableScope(reuse=False)]


@dataclass
class _Store:
    """Per graph: the variables get_variable made, the open scopes (per thread), and how
    often each scope name was opened (for default names)."""

    variables: dict[str, Variable] = field(default_factory=dict)
    scopes: _Scopes = field(default_factory=_Scopes)
    opened: dict[str, int] = field(default_factory=dict)


_STORES: weakref.WeakKeyDictionary[Graph, _Store] = weakref.WeakKeyDictionary()


def _store() -> _Store:
    """The store of the graph variables are made in (a traced function's is its caller's)."""
    graph = get_default_graph()
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph  # type: ignore[attr-defined]
    store = _STORES.get(graph)
    if store is None:
        store = _STORES[graph] = _Store()
    return store


def get_variable_scope() -> VariableScope:
    return _store().scopes.stack[-1]


@contextlib.contextmanager
def _entered(scope: VariableScope) -> Iterator[VariableScope]:
    stack = _store().scopes.stack
    stack.append(scope)
    try:
        yield scope
    finally:
        stack.pop()


def _open(store: _Store, full: str) -> None:
    """Count ``full`` as opened; entering a scope again restarts the default names of its
    sub-scopes, so a second pass with ``reuse=True`` finds ``blk`` where the first made it
    (TF resets them when the scope closes: the same names)."""
    store.opened[full] = store.opened.get(full, 0) + 1
    prefix = full + "/"
    for key in [k for k in store.opened if k.startswith(prefix)]:
        store.opened[key] = 0


def _unique_default(store: _Store, parent: str, base: str) -> str:
    name, i = base, 0
    while store.opened.get(f"{parent}/{name}" if parent else name, 0) > 0:
        i += 1
        name = f"{base}_{i}"
    return name


def _current_name_scope() -> str:
    scope = get_default_graph().get_name_scope()
    return scope + "/" if scope else ""


def _truthy(reuse: Any) -> bool:
    return reuse is True or reuse is AUTO_REUSE


@contextlib.contextmanager
def variable_scope(
    name_or_scope: Any,
    default_name: str | None = None,
    values: Any = None,
    initializer: Any = None,
    regularizer: Any = None,
    caching_device: Any = None,
    partitioner: Any = None,
    custom_getter: Any = None,
    reuse: Any = None,
    dtype: Any = None,
    use_resource: Any = None,
    constraint: Any = None,
    auxiliary_name_scope: bool = True,
) -> Iterator[VariableScope]:
    """``with variable_scope("layer", reuse=...):`` names variables ``layer/...``.

    ``reuse`` True / AUTO_REUSE is inherited by inner scopes; None or False inherits the
    outer flag.  ``initializer`` and ``dtype`` become the defaults of get_variable inside.
    Passing a captured ``VariableScope`` re-enters it (its name scope too).
    """
    if partitioner is not None or custom_getter is not None:
        raise NotImplementedError(
            "variable_scope: symgrad has no partitioned variables or "
            "custom getters; create the variables directly"
        )
    if name_or_scope is None and default_name is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    store = _store()
    parent = get_variable_scope()
    captured = isinstance(name_or_scope, VariableScope)
    if captured:
        base, full = name_or_scope, name_or_scope.name
        flag = reuse if _truthy(reuse) else name_or_scope.reuse
        ns = full.split("/")[-1]  # a new name scope named as the scope (TF's choice)
    else:
        base = parent
        local = (
            name_or_scope
            if name_or_scope is not None
            else _unique_default(store, parent.name, default_name)  # type: ignore[arg-type]
        )
        full = f"{parent.name}/{local}" if parent.name else local
        flag = reuse if _truthy(reuse) else (parent.reuse if _truthy(parent.reuse) else False)
        ns = name_or_scope if name_or_scope is not None else default_name
    _open(store, full)
    scope_ctx = (
        name_scope(ns) if auxiliary_name_scope else contextlib.nullcontext(_current_name_scope())
    )
    with scope_ctx as opened:
        scope = VariableScope(
            reuse=flag,
            name=full,
            initializer=initializer if initializer is not None else base.initializer,
            regularizer=regularizer if regularizer is not None else base.regularizer,
            dtype=dt.as_dtype(dtype) if dtype is not None else base.dtype,
            original_name_scope=name_or_scope.original_name_scope if captured else opened,
        )
        with _entered(scope):
            yield scope


# -------------------------------------------------------------------------------------
# get_variable


def _default_initializer(name: str, d: dt.DType) -> Any:
    if d.is_floating:
        return glorot_uniform_initializer()
    if d.is_integer or d.is_bool or d.is_complex:
        return zeros_initializer()
    raise ValueError(f"An initializer for variable {name} of {d.name} is required")


def _initial_value(
    name: str, shape: TensorShape | None, d: dt.DType, initializer: Any
) -> Callable[[], Any]:
    """A callable for Variable: the initializer's ops go under ``<name>/Initializer``."""
    if isinstance(initializer, type) and issubclass(initializer, Initializer):
        initializer = initializer()
    if callable(initializer) and not isinstance(initializer, Tensor):
        if shape is None or not shape.is_fully_defined():
            raise ValueError(
                f"Variable {name} did not get an initializer, so its `shape` "
                "argument must be specified."
                if initializer is None
                else f"The shape of variable {name} must be fully defined: {shape}"
            )
        dims = shape.as_list()

        def make() -> Any:
            with name_scope(f"{name}/Initializer/"):
                return initializer(dims, dtype=d)

        return make
    if shape is not None:
        raise ValueError("If initializer is a constant, do not specify shape.")
    return lambda: convert_to_tensor(initializer, dtype=d)


def _check_shared(
    name: str, v: Variable, shape: TensorShape | None, d: dt.DType | None, initializer: Any
) -> None:
    if shape is None and initializer is not None and not callable(initializer):
        shape = convert_to_tensor(initializer).shape
    if shape is not None and not shape.is_compatible_with(v.shape):
        raise ValueError(
            f"Trying to share variable {name}, but specified shape "
            f"{tuple(shape.as_list())} and found shape "
            f"{tuple(v.shape.as_list())}."
        )
    if d is not None and d is not v.dtype:
        raise ValueError(
            f"Trying to share variable {name}, but specified dtype {d.name} "
            f"and found dtype {v.dtype.name}."
        )


def get_variable(
    name: str,
    shape: Any = None,
    dtype: Any = None,
    initializer: Any = None,
    regularizer: Any = None,
    trainable: bool | None = None,
    collections: Any = None,
    caching_device: Any = None,
    partitioner: Any = None,
    validate_shape: bool = True,
    use_resource: Any = None,
    custom_getter: Any = None,
    constraint: Any = None,
    synchronization: Any = VariableSynchronization.AUTO,
    aggregation: Any = VariableAggregation.NONE,
) -> Variable:
    """The variable ``<scope>/name``: made on first use, shared under ``reuse``."""
    if partitioner is not None or custom_getter is not None:
        raise NotImplementedError(
            "get_variable: symgrad has no partitioned variables or custom getters"
        )
    scope = get_variable_scope()
    full = f"{scope.name}/{name}" if scope.name else name
    given_shape = as_shape(shape) if shape is not None else None
    given_dtype = dt.as_dtype(dtype) if dtype is not None else None
    store = _store().variables
    found = store.get(full)
    if found is not None:
        if scope.reuse is False:
            raise ValueError(
                f"Variable {full} already exists, disallowed. Did you mean to set "
                "reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
            )
        # TF checks a shared variable against the scope's dtype (float32 by default) when
        # none is given, even where the initializer's dtype made the variable.
        _check_shared(full, found, given_shape, given_dtype or scope.dtype, initializer)
        return found
    if scope.reuse is True:
        raise ValueError(
            f"Variable {full} does not exist, or was not created with "
            "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
            "VarScope?"
        )
    return _create(
        store,
        full,
        given_shape,
        given_dtype,
        initializer,
        scope,
        regularizer,
        trainable,
        collections,
    )


def _create(
    store: dict[str, Variable],
    full: str,
    shape: TensorShape | None,
    d: dt.DType | None,
    initializer: Any,
    scope: VariableScope,
    regularizer: Any,
    trainable: bool | None,
    collections: Any,
) -> Variable:
    if initializer is None:
        initializer = scope.initializer
    if d is None:
        d = (
            convert_to_tensor(initializer).dtype
            if initializer is not None and not callable(initializer)
            else scope.dtype
        )
    if initializer is None:
        if shape is None:
            raise ValueError(
                f"Variable {full} did not get an initializer, so its `shape` "
                "argument must be specified."
            )
        initializer = _default_initializer(full, d)
    value = _initial_value(full, shape, d, initializer)
    local = (
        collections is not None
        and GraphKeys.GLOBAL_VARIABLES not in collections
        and GraphKeys.TRAINABLE_VARIABLES not in collections
    )
    trainable = (not local) if trainable is None else trainable
    with name_scope(None):  # the variable's name is its scope's, whatever the name scope
        v = Variable(value, trainable=trainable, name=full, dtype=d)
        store[full] = v
        for key in collections or ():
            add_to_collection(key, v)
        regularizer = regularizer or scope.regularizer
        if regularizer is not None:
            with name_scope(f"{full}/Regularizer/"):
                loss = regularizer(v)
            if loss is not None:
                add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return v


def name_scope_v2(name: str) -> Any:
    """``tf.name_scope(name)`` (TF2's signature; ``tf.compat.v1.name_scope`` is TF1's)."""
    return name_scope(name)


def get_current_name_scope() -> str:
    """``tf.get_current_name_scope()``: the name scope in force, without a trailing "/"
    (``""`` at the root).  At the eager top level TF2's, no name made unique (a loop's
    ``name_scope("train")`` is ``train`` each time), while the ops' names in it stay TF1's
    (``train_1/...``: the top level is also TF1's default graph); in a graph or a
    function, the graph's (``train_1`` the second time)."""
    graph = get_default_graph()
    return graph._scopes.path if graph.eager else graph.get_name_scope()  # type: ignore[no-any-return]
