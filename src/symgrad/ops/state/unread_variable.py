"""What ``Variable.assign*`` and the scatter updates return: the variable, read where used.

As TF's ``_UnreadVariable``: ``x = v.assign_sub(a)`` holds no value of its own.  Every use
of ``x`` (as a tensor, ``numpy()``, ``read_value()``) reads ``v`` then, ordered after the
assignment: eagerly the value now; inside ``function`` the value at that point of the
program (``x = v.assign_sub(a); v.assign_sub(b); return x`` returns ``v`` after both); in
a TF1 graph a read created with the assignment, after it by a control edge, which is what
``Session.run(x)`` fetches.  ``x.op`` is the assignment, which ``control_dependencies([x])``
and ``group(x)`` take, as TF's.
"""

from __future__ import annotations

from typing import Any

from symgrad.core.eager import VARIABLE_TYPES, EagerTensor
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.ops.state.variables import Variable


class UnreadVariable(Variable):
    """``variable`` after ``parent_op`` (an assignment): shares the variable's state."""

    __slots__ = ("_graph_element", "_parent_op", "_variable")

    def __init__(self, variable: Variable, parent_op: Operation | EagerTensor) -> None:
        self.__dict__ = variable.__dict__  # the same value, graph, name: one variable
        # Ops take the variable itself (plans, tapes and runs key state by it).
        # (A plain Variable has no ``_variable``: asking would raise in its __getattr__.)
        self._variable: Variable = (
            variable if type(variable) is Variable else getattr(variable, "_variable", variable)
        )
        self._parent_op = parent_op  # an eager one's light tensor: its op built when asked
        graph = parent_op.graph
        self._graph_element: Tensor | None = None
        if not graph.eager and not graph.building_function:
            with graph.as_default(), graph.control_dependencies([parent_op]):
                self._graph_element = self._variable.value()

    def value(self) -> Tensor:
        """A read of the variable now, after the assignment (in a graph: a control edge)."""
        op = self._parent_op
        graph = get_default_graph()
        if graph.eager:
            if isinstance(op, Operation) and op.output_values is None and op.graph is graph:
                # An assignment fed by a placeholder at the eager top level (TF1 code
                # with eager execution on) waits for Session.run: its output, the value
                # it writes, stands for the read.
                return op.outputs[0]
            return self._variable.value()
        if graph is not op.graph:
            return self._variable.value()
        with graph.control_dependencies([op]):
            return self._variable.value()

    read_value = value
    _as_tensor = value

    @property
    def name(self) -> str:
        """TF's: in a TF1 graph the assignment's name, else ``"UnreadVariable"`` (eager, or
        inside ``function``), not the variable's."""
        return self._parent_op.name if self._graph_element is not None else "UnreadVariable"

    def _read_up(self, up: int) -> Tensor:
        """``value()``, for the wrappers' operand reads (``Variable._read_up``)."""
        return self.value()

    def _write(
        self, value: Any, mode: str, name: str | None, read_value: bool = True
    ) -> UnreadVariable | Operation:
        return self._variable._write(value, mode, name, read_value)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._variable.scatter_add(sparse_delta, use_locking, name)

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._variable.scatter_sub(sparse_delta, use_locking, name)

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._variable.scatter_update(sparse_delta, use_locking, name)

    def scatter_nd_update(self, indices: Any, updates: Any, name: Any = None) -> Any:
        return self._variable.scatter_nd_update(indices, updates, name)

    def scatter_nd_add(self, indices: Any, updates: Any, name: Any = None) -> Any:
        return self._variable.scatter_nd_add(indices, updates, name)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: Any = None) -> Any:
        return self._variable.scatter_nd_sub(indices, updates, name)

    @property
    def initializer(self) -> Operation:
        return self._variable.initializer

    @property
    def op(self) -> Operation:
        """The assignment, as TF's: ``control_dependencies([x])`` and ``group(x)`` order
        after it (not after a read of it)."""
        op = self._parent_op
        return op if isinstance(op, Operation) else op.op

    def __repr__(self) -> str:
        return super().__repr__().replace(f"'{self.name}'", "'UnreadVariable'", 1)


_new = UnreadVariable.__new__


def unread_now(variable: Variable, parent_op: EagerTensor) -> UnreadVariable:
    """``UnreadVariable(variable, parent_op)`` for an eager update's light tensor, made
    without ``__init__``'s branches (``variable`` is a variable, not an UnreadVariable)."""
    u = _new(UnreadVariable)
    u.__dict__ = variable.__dict__
    u._variable, u._parent_op, u._graph_element = variable, parent_op, None
    return u


VARIABLE_TYPES.add(UnreadVariable)  # read as an operand by the wrappers' fast paths
