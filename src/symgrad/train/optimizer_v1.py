"""TF1's ``tf.compat.v1.train.Optimizer``: compute_gradients, apply_gradients, minimize,
slots, with TF's names and order of work.

Updates are Variable assigns, so one optimizer serves every mode: at top level (TF2 eager,
or TF1 code whose loss has values) the assigns run as they are made; in a graph they are
ops grouped into the train op that ``Session.run`` executes; inside a ``function`` they are
part of the traced body.  Each optimizer writes its update with the same float32 operations,
in the same order, as TensorFlow's fused kernel (``training_ops.cc``), so the variables take
the same values.

Sparse gradients: ``apply_gradients`` sends an IndexedSlices gradient to
``_apply_sparse_duplicate_indices``, which sums duplicate rows and hands them to the
optimizer's ``_apply_sparse``: only the touched rows of the variable (and of its slots,
except Adam's, which TF decays whole) change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from symgrad.api.variable_scope import GraphKeys, add_to_collection
from symgrad.autodiff.gradients import gradients
from symgrad.autodiff.tape import GradientTape
from symgrad.core import dtypes as dt
from symgrad.core.graph import Graph, Operation, Tensor, get_default_graph, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.array.gather import unsorted_segment_sum
from symgrad.ops.control import control_dependencies, group
from symgrad.ops.core import constant, convert_to_tensor
from symgrad.ops.sparse.indexed_slices import IndexedSlices
from symgrad.ops.state.variable_scatter import unique
from symgrad.ops.state.variables import Variable, trainable_variables
from symgrad.train.variable_io import assign_values, check_values, outermost

_VALID = (dt.float16, dt.float32, dt.float64)


def is_slices(g: Any) -> bool:
    return isinstance(g, IndexedSlices)


def var_name(v: Variable) -> str:
    """The variable's op name (``w`` for ``w:0``), which slot names are built from."""
    return v.name.rsplit(":", 1)[0]


class Optimizer:
    """Base class of the TF1 optimizers; subclasses write ``_create_slots``, ``_prepare``,
    ``_apply_dense`` and perhaps ``_finish``."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(
        self, use_locking: bool, name: str, use_own_namescope_for_non_slot_vars: bool = False
    ) -> None:
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict[str, dict[int, Variable]] = {}
        self._non_slot_dict: dict[tuple[str, Graph], Variable] = {}
        self._slot_owners: list[Variable] = []  # slots are keyed by id(var): keep var alive
        self._pending: dict[Any, Any] = {}  # checkpoint values for variables not made yet

    def get_name(self) -> str:
        return self._name

    # -- the three entry points
    def minimize(
        self,
        loss: Any,
        global_step: Variable | None = None,
        var_list: Sequence[Variable] | None = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        name: str | None = None,
        grad_loss: Any = None,
    ) -> Operation:
        """compute_gradients then apply_gradients: one op (or, eagerly, one update done)."""
        grads_and_vars = self.compute_gradients(
            loss,
            var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            grad_loss=grad_loss,
        )
        if not [v for g, v in grads_and_vars if g is not None]:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                f"support gradients, between variables {[str(v) for _, v in grads_and_vars]} "
                f"and loss {loss}."
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(
        self,
        loss: Any,
        var_list: Sequence[Variable] | None = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        grad_loss: Any = None,
    ) -> list[tuple[Any, Variable]]:
        """[(gradient, variable)]: a callable ``loss`` runs under a GradientTape (TF2 style),
        a tensor is differentiated with ``gradients`` (TF1 style)."""
        if callable(loss):
            with GradientTape() as tape:
                if var_list is not None:
                    tape.watch(list(var_list))
                loss_value = loss()
            vars_ = list(var_list) if var_list is not None else list(tape.watched_variables())
            grads = tape.gradient(loss_value, vars_, grad_loss)
            return list(zip(grads, vars_))
        if gate_gradients not in (self.GATE_NONE, self.GATE_OP, self.GATE_GRAPH):
            raise ValueError(
                "gate_gradients must be one of: Optimizer.GATE_NONE, "
                f"Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not {gate_gradients}"
            )
        loss = convert_to_tensor(loss)
        self._assert_valid_dtypes([loss])
        vars_ = list(trainable_variables() if var_list is None else _flatten(var_list))
        if not vars_:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, vars_, grad_ys=grad_loss, aggregation_method=aggregation_method)
        pairs = list(zip(grads, vars_))
        self._assert_valid_dtypes([v for g, v in pairs if g is not None])
        return pairs

    def apply_gradients(
        self, grads_and_vars: Any, global_step: Variable | None = None, name: str | None = None
    ) -> Operation:
        """Update each variable from its gradient (None: skipped), then, if given, add one
        to ``global_step``; returns the op that does all of it."""
        pairs = _checked(tuple(grads_and_vars))
        var_list = [v for g, v in pairs if g is not None]
        if not var_list:
            raise ValueError(
                f"No gradients provided for any variable: {[str(v) for _, v in pairs]}."
            )
        self._create_slots(var_list)
        with name_scope(name, self._name) as scope:
            self._prepare()
            update_ops = []
            for grad, var in pairs:
                if grad is None:
                    continue
                with name_scope("update_" + var_name(var)):
                    update_ops.append(self._update(grad, var))
            if global_step is None:
                train_op = self._finish(update_ops, scope or self._name)  # "Adam/": "Adam"
            else:
                with control_dependencies([self._finish(update_ops, "update")]):
                    train_op = global_step.assign_add(
                        convert_to_tensor(1, dtype=global_step.dtype),
                        name=scope or None,
                    ).op
        if not get_default_graph().eager:
            add_to_collection(GraphKeys.TRAIN_OP, train_op)
        return train_op

    def _update(self, grad: Any, var: Variable) -> Operation:
        if is_slices(grad):
            return self._apply_sparse_duplicate_indices(grad, var)
        return self._apply_dense(grad, var)

    # -- what subclasses provide
    def _create_slots(self, var_list: list[Variable]) -> None:
        pass

    def _prepare(self) -> None:
        pass

    def _apply_dense(self, grad: Tensor, var: Variable) -> Operation:
        raise NotImplementedError

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Variable) -> Operation:
        """The sparse path: as TF's resource variables, the rows of duplicate indices are
        summed first (Unique, UnsortedSegmentSum), then ``_apply_sparse`` updates the
        touched rows only."""
        unique_indices, positions = unique(grad.indices)
        summed = unsorted_segment_sum(grad.values, positions, array.size(unique_indices))
        return self._apply_sparse(IndexedSlices(summed, unique_indices, grad.dense_shape), var)

    def _apply_sparse(self, grad: IndexedSlices, var: Variable) -> Operation:
        raise NotImplementedError(
            f"{type(self).__name__} has no sparse (IndexedSlices) update (variable "
            f"{var.name}); pass tf.convert_to_tensor(grad) to apply it as a dense gradient"
        )

    def _finish(self, update_ops: list[Operation], name_scope: str) -> Operation:
        return group(*update_ops, name=name_scope)

    # -- slots
    def get_slot(self, var: Any, name: str) -> Variable | None:
        """The slot variable ``name`` (``"m"``, ``"momentum"`` ...) made for ``var``."""
        return self._slots.get(name, {}).get(id(var))

    def get_slot_names(self) -> list[str]:
        return sorted(self._slots)

    def variables(self) -> list[Variable]:
        """The optimizer's own variables (non-slot, then slots) of the default graph,
        sorted by name as TF returns them."""
        graph = outermost(get_default_graph())
        own = [v for (_, g), v in self._non_slot_dict.items() if g is graph]
        own += [v for slots in self._slots.values() for v in slots.values() if v.graph is graph]
        return sorted(own, key=lambda v: v.name)

    def _slot(
        self, var: Variable, slot_name: str, init: Callable[[], Any], op_name: str | None = None
    ) -> Variable:
        """The slot for ``var``, made on first use as ``<var>/<op_name>``, by default the
        optimizer's name (TF's naming: a second slot of the same name becomes
        ``<var>/<name>_1``)."""
        named = self._slots.setdefault(slot_name, {})
        slot = named.get(id(var))
        if slot is None:
            if not var.shape.is_fully_defined():
                raise ValueError(
                    f"{self._name}: the shape of {var.name} must be fully defined to make its slots"
                )
            with var.graph.as_default(), name_scope(None):
                slot = Variable(
                    init,
                    trainable=False,
                    name=f"{var_name(var)}/{op_name or self._name}",
                    dtype=var.dtype,
                )
            named[id(var)] = slot
            self._slot_owners.append(var)
            self._restore_pending((slot_name, id(var)), slot)
        return slot

    def _zeros_slot(self, var: Variable, slot_name: str, op_name: str | None = None) -> Variable:
        shape, d = var.shape.as_list(), var.dtype
        return self._slot(var, slot_name, lambda: array.zeros(shape, d), op_name)

    def _filled_slot(
        self, var: Variable, slot_name: str, value: float, op_name: str | None = None
    ) -> Variable:
        """A slot starting at ``value`` everywhere (TF's constant initializer)."""
        shape, d = var.shape.as_list(), var.dtype
        return self._slot(var, slot_name, lambda: constant(value, d, shape), op_name)

    def _create_non_slot_variable(
        self, initial_value: Any, name: str, colocate_with: Variable
    ) -> Variable:
        graph = colocate_with.graph
        v = self._non_slot_dict.get((name, graph))
        if v is None:
            with graph.as_default(), name_scope(None):
                v = Variable(initial_value, trainable=False, name=name)
            self._non_slot_dict[(name, graph)] = v
            self._restore_pending(name, v)
        return v

    def _get_non_slot_variable(self, name: str, graph: Graph) -> Variable:
        return self._non_slot_dict[(name, graph)]

    # -- checkpoints: non-slot variables by name; slots under their variable (see
    # train.checkpoint.walk); values for ones not made yet wait here until they are
    def _checkpoint_children(self) -> list[tuple[str, Any]]:
        graph = outermost(get_default_graph())
        return sorted((name, v) for (name, g), v in self._non_slot_dict.items() if g is graph)

    def _checkpoint_slots(self) -> list[tuple[str, Variable, Variable]]:
        owners = {id(v): v for v in self._slot_owners}
        return [
            (slot_name, owners[key], slot)
            for slot_name in sorted(self._slots)
            for key, slot in self._slots[slot_name].items()
        ]

    def _checkpoint_defer(self, key: str, value: Any) -> bool:
        if "/" in key:
            return False
        self._pending[key] = value
        return True

    def _checkpoint_defer_slot(self, var: Variable, slot_name: str, value: Any) -> bool:
        self._pending[(slot_name, id(var))] = value
        self._slot_owners.append(var)  # its id keys the value: keep it alive
        return True

    def _checkpoint_pending(self) -> int:
        return len(self._pending)

    def _restore_pending(self, key: Any, v: Variable) -> None:
        value = self._pending.pop(key, None)
        if value is not None:
            check_values([(str(key), v, value)])
            assign_values([(v, value)])

    def _assert_valid_dtypes(self, tensors: Sequence[Any]) -> None:
        for t in tensors:
            if t.dtype not in _VALID:
                raise ValueError(
                    f"Invalid type {t.dtype!r} for {t.name}, expected: {[d.name for d in _VALID]}."
                )

    @staticmethod
    def _call_if_callable(param: Any) -> Any:
        return param() if callable(param) else param


def _flatten(var_list: Any) -> list[Any]:
    out: list[Any] = []
    for v in var_list:
        out.extend(_flatten(v) if isinstance(v, list | tuple) else [v])
    return out


def _checked(pairs: tuple[Any, ...]) -> list[tuple[Any, Variable]]:
    """The (gradient, variable) pairs with gradients as tensors (or slices, or None)."""
    if not pairs:
        raise ValueError("No variables provided.")
    out = []
    for g, v in pairs:
        if not isinstance(v, Variable):
            raise NotImplementedError(
                f"Trying to update a Tensor {v!r}: apply_gradients needs Variables"
            )
        if g is not None and not is_slices(g):
            try:
                g = convert_to_tensor(g)
            except (TypeError, ValueError):
                raise TypeError(
                    f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {g}"
                ) from None
        out.append((g, v))
    return out


def hyper(value: Any, name: str) -> Tensor:
    """A hyperparameter as TF's ``_prepare`` makes it: a Python float becomes float32."""
    return convert_to_tensor(value)


def cast_to(t: Tensor, d: dt.DType) -> Tensor:
    """TF casts float32 hyperparameters to each variable's dtype (a float64 variable sees
    float64(float32(lr)), as in TF)."""
    return t if t.dtype is d else array.cast(t, d)
