"""``v[key].assign(value)``: a strided slice of a variable written in place of the old
(``ResourceStridedSliceAssign``).

As TF's ``_slice_helper``: indexing a variable gives the slice's value, a tensor that
also has an ``assign`` method (no other tensor has one: ``hasattr(t, "assign")`` is
False for them).  ``assign(value)`` writes ``value``, converted to the variable's dtype
and broadcast to the slice's shape (TF's rule), into that slice and returns the
variable read where used (an ``UnreadVariable``), as ``Variable.assign`` does.  Like
``AssignVariableOp`` it writes in place only when nothing else holds the old array, and
a run that raises puts the old value back (``variables.atomic``).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import Spec, apply_op, register_op
from symgrad.ops.array import slicing
from symgrad.ops.array.boolean_mask import boolean_mask
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.state import variables as variables_mod  # (variables.py imports this one)

# id(slice tensor) -> (a weak reference to it, the variable, begin/end/strides, masks):
# what its ``assign`` writes.  An entry goes when its tensor does.
_SLICES: dict[int, tuple[weakref.ref[Tensor], Any, list[Tensor], dict[str, int]]] = {}


def getitem(var: Any, key: Any) -> Tensor:
    """``var[key]``: the slice's value, which ``assign`` writes back (a boolean key:
    ``boolean_mask`` of the value, which has no ``assign``, as TF's)."""
    if isinstance(key, bool) or (
        isinstance(key, (Tensor, np.ndarray)) and getattr(key.dtype, "name", None) == "bool"
    ):
        return boolean_mask(var, key)
    packed, masks = slicing.slice_spec(key)
    t = slicing._strided_slice(var, packed, masks, "strided_slice")
    k = id(t)

    def forget(_: Any) -> None:
        _SLICES.pop(k, None)

    _SLICES[k] = (weakref.ref(t, forget), var, packed, masks)
    return t


def _assign_of(t: Tensor) -> Any:
    """``t.assign``: the slice's writer where ``t`` is a variable's slice, else TF's
    AttributeError (so ``hasattr`` says no)."""
    entry = _SLICES.get(id(t))
    if entry is None or entry[0]() is not t:
        raise AttributeError(f"'{type(t).__name__}' object has no attribute 'assign'")
    _, var, packed, masks = entry

    def assign(value: Any, name: str | None = None) -> Any:
        v = convert_to_tensor(value, dtype=var.dtype)
        attrs = {"var": var, **masks}
        op = apply_op("ResourceStridedSliceAssign", [*packed, v], attrs, name or _name(t))
        return variables_mod.UnreadVariable(var, op)

    return assign


def _name(t: Tensor) -> str:
    """TF's name of the slice's writer: ``strided_slice/_assign`` for ``strided_slice:0``."""
    return t.name.rsplit(":", 1)[0] + "/_assign"


setattr(Tensor, "assign", property(_assign_of))  # noqa: B010  (installed, as the operators)


def _infer(inputs: Sequence[Tensor], *, var: Any, **masks: int) -> Spec:
    return var.shape, var.dtype


def _kernel(
    b: np.ndarray, e: np.ndarray, s: np.ndarray, value: np.ndarray, *, var: Any, **masks: int
) -> np.ndarray:
    with variables_mod._UPDATE_LOCK:
        old = variables_mod._read_kernel(var=var)
        index, shape = slicing._index(old.shape, b, e, s, masks)
        try:
            value = np.broadcast_to(value, shape)
        except ValueError:
            have, want = (",".join(map(str, x)) for x in (value.shape, shape))
            raise InvalidArgumentError(
                f"Cannot broadcast input shape [{have}] into final shape [{want}]"
            ) from None
        variables_mod._remember(var)
        new = old if variables_mod._unshared(old) else old.copy()
        new[index] = value.reshape(new[index].shape)
        var._value = new
        var._version += 1
        return new


register_op(
    "ResourceStridedSliceAssign",
    _infer,
    _kernel,
    stateful=True,
    variable="write",
    batch="it writes a variable: a batched value would be K writes, and no jacobian "
    "flows into an assignment",
    no_cases="it writes state and has no gradient: its values, broadcasts and errors are "
    "covered by tests/test_variable_slices.py",
).no_gradient()
