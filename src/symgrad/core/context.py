"""Per-thread context: which graph ops go to, which session runs them, who records them.

Everything symgrad remembers about "what this thread is doing now" lives in one object,
``current`` (a ``threading.local``: each thread sees its own attributes):

* ``graphs``: the default-graph stack, outermost first (``Graph.as_default`` pushes).
  Empty means the top level, where ops go to the top-level graph and run eagerly;
* ``sessions``: the default-session stack (``Session.as_default``, ``InteractiveSession``);
* ``recorders``: the active :class:`Recorder` objects (``GradientTape``): the op
  constructor hands every op it creates on this thread to each of them;
* ``remap``: while a replayed function body's closures run (:func:`remap_scope`), outer
  tensors to use in place of the body's own;
* ``frame``: while a built-in gradient rule runs, the user's ``(file, line)`` that asked
  for the gradient; the rule's ops are attributed to it.

A graph's name scope, gradient override map and control dependencies are per thread
too; they belong to the graph (``Graph.name_scope`` ...), since each graph has its own.

The public functions are TensorFlow's: :func:`get_default_graph`,
:func:`executing_eagerly`, :func:`inside_function`, :func:`init_scope`,
:func:`get_default_session`, plus :func:`default_graph_stack`.  This module sits below
the graph IR: it imports nothing from the package (the graph module hands it the
top-level graph, :func:`set_top_level_graph`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from symgrad.core.graph import Graph, Operation, Tensor


class Recorder(Protocol):
    """What watches the ops created on a thread (a ``GradientTape`` is one).

    While a recorder is in ``current.recorders``, the op constructor calls
    ``record(op)`` for every op it creates, after the op has run (eager) or been built.
    """

    def record(self, op: Operation) -> None:
        """Note ``op``, just created (its output values are set if it ran)."""

    def variable_accessed(self, var: Any) -> None:
        """A trainable Variable was read (before its read op is created)."""

    def would_record(self, inputs: Sequence[Tensor], variables: Sequence[Any]) -> bool:
        """Would an op with these inputs, reading these variables, be recorded?

        A traced function's call asks, to choose between one call op and re-creating
        its body op by op (which recorders can then see)."""


class ThreadContext(threading.local):
    """The calling thread's context (see the module docstring)."""

    # Every attribute has a default: a ``threading.local`` lookup that misses costs a
    # caught AttributeError.

    def __init__(self) -> None:
        self.graphs: list[Graph] = []
        self.sessions: list[Any] = []
        self.recorders: list[Recorder] = []
        # One of ``recorders`` takes no light tensors (no ``takes_light``): it wants every
        # op built.  Read by the fast path for each op; kept by the functions below that
        # change ``recorders``, and by whatever else replaces it (``custom_gradient``).
        self.heavy = False
        self.remap: dict[tuple[int, int], Any] | None = None
        self.frame: tuple[str, int] | None = None
        self.device = ""  # the innermost tf.device block's device ('' outside any)
        self.quiet_run: Any = None  # core/errstate.py's quiet_run, made on first use


current = ThreadContext()


class GraphScopes(threading.local):
    """One graph's per-thread scopes, read and set through the graph's methods
    (``name_scope``, ``gradient_override_map``, ``control_dependencies``)."""

    def __init__(self) -> None:
        self.name = ""  # the current name scope, without a trailing "/"
        self.path = ""  # an eager graph's: TF2's scope, each name as entered (NameScope)
        self.override: dict[str, str] = {}
        self.control_deps: list[Operation] = []


_top_level: Any = None  # the top-level (eager) Graph, set by the graph module


def set_top_level_graph(graph: Graph) -> None:
    """Make ``graph`` the graph of the top level (``reset_default_graph`` replaces it)."""
    global _top_level
    _top_level = graph


def top_level_graph() -> Graph:
    """The graph ops go to when no graph is made default: the eager one."""
    return _top_level  # type: ignore[no-any-return]


# --------------------------------------------------------------------------------------
# Graphs and modes


def get_default_graph() -> Graph:
    """The graph ops are created in: the innermost ``as_default()`` one, else the top level."""
    stack = current.graphs
    return stack[-1] if stack else _top_level  # type: ignore[no-any-return]


def default_graph_stack() -> list[Graph]:
    """The graphs made default on this thread (``as_default``, traces), outermost first.

    Empty at the top level.  ``init_scope()`` pushes the top-level graph itself.
    """
    return list(current.graphs)


def executing_eagerly() -> bool:
    """True where ops run as they are created: at the top level, not in a graph or a trace.

    >>> import symgrad as tf
    >>> tf.executing_eagerly()
    True
    >>> with tf.Graph().as_default():
    ...     tf.executing_eagerly()
    False
    """
    return get_default_graph().eager


def inside_function() -> bool:
    """True while a ``function`` is being traced (the default graph builds a function)."""
    return get_default_graph().building_function


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """Run ops eagerly at the top level from inside a graph being built (``tf.init_scope``).

    As TensorFlow's: the name scope in force is kept, control dependencies are cleared
    and recorders (tapes) are paused.  Unlike TensorFlow's, it lifts out of a TF1
    ``Graph().as_default()`` block too: symgrad's top level is always eager, and
    ``init_scope`` is how code inside a graph gets a value now (variable initial values,
    test checks).

    >>> import symgrad as tf
    >>> with tf.Graph().as_default():
    ...     with tf.init_scope():
    ...         print(tf.executing_eagerly(), tf.constant(2.0) * 3.0)
    True symgrad.Tensor(6.0, shape=(), dtype=float32)
    """
    outer = get_default_graph()
    with stop_recording():
        if outer is _top_level:
            yield
            return
        scope = outer.get_name_scope()
        with (
            _top_level.as_default(),
            _top_level.name_scope(scope + "/" if scope else ""),
            _top_level.control_dependencies(None),
        ):
            yield


# --------------------------------------------------------------------------------------
# Recorders, sessions, remapping


def push_recorder(recorder: Recorder) -> None:
    """Start handing this thread's new ops to ``recorder``."""
    current.recorders.append(recorder)
    current.heavy = current.heavy or not getattr(recorder, "takes_light", False)


def remove_recorder(recorder: Recorder) -> None:
    """Stop handing ops to ``recorder`` (its innermost entry; nothing if absent)."""
    recorders = current.recorders
    for i in range(len(recorders) - 1, -1, -1):
        if recorders[i] is recorder:
            del recorders[i]
            break
    current.heavy = current.heavy and not all(getattr(r, "takes_light", 0) for r in recorders)


@contextlib.contextmanager
def stop_recording() -> Iterator[None]:
    """No recorder sees the ops created inside (TF's ``record.stop_recording``)."""
    saved = current.recorders, current.heavy
    current.recorders, current.heavy = [], False
    try:
        yield
    finally:
        current.recorders, current.heavy = saved


def get_default_session() -> Any:
    """The innermost session made default on this thread, or None."""
    return current.sessions[-1] if current.sessions else None


@contextlib.contextmanager
def remap_scope(remap: dict[tuple[int, int], Any] | None) -> Iterator[None]:
    """While active, an op input from another graph found in ``remap`` (keyed by
    ``(id(op), output index)``) is replaced by the mapped tensor.  A traced function's
    body is replayed into its caller's graph; this lets Python closures over the body's
    tensors (a custom_gradient's grad_fn) build their ops from the replayed copies."""
    old = current.remap
    current.remap = {**old, **remap} if old and remap else remap or old
    try:
        yield
    finally:
        current.remap = old
