"""Row updates of a Variable: ``ResourceScatterAdd``, ``ResourceScatterSub``,
``ResourceScatterUpdate`` -- how sparse (IndexedSlices) gradients are applied --,
``ResourceScatterMax``/``Min``/``Mul`` (``Variable.scatter_max`` ...) and ``Unique``,
with which optimizers sum the rows of duplicate indices first.

Each op writes only the rows named by ``indices`` (a duplicate index is applied once per
occurrence, in order, as TF's CPU kernels do) and outputs the variable's new value.  Like
``AssignVariableOp`` it writes in place only when nothing else holds the old array, and a
run that raises puts the old value back (``variables.atomic``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, ints
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import Spec, apply_op, apply_op1, constant_value, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.array import tensor_scatter
from symgrad.ops.core import check_dtype, convert_to_tensor, tf_has_no_gradient
from symgrad.ops.state import (
    variables as variables_mod,  # (a module: variables.py imports this one)
)

_MODES = {
    "ResourceScatterAdd": "add",
    "ResourceScatterSub": "sub",
    "ResourceScatterUpdate": "update",
    "ResourceScatterMax": "max",
    "ResourceScatterMin": "min",
    "ResourceScatterMul": "mul",
}
# The modes that fold each row in with a ufunc (duplicates fold in turn, as TF's kernels).
_UFUNCS = {
    "add": np.add,
    "sub": np.subtract,
    "max": np.maximum,
    "min": np.minimum,
    "mul": np.multiply,
}


def _scatter_infer(inputs: Sequence[Tensor], *, var: Any) -> Spec:
    idx, updates = inputs
    if updates.dtype is not var.dtype:
        raise ValueError(
            f"Tensor conversion requested dtype {var.dtype.name} for Tensor with dtype "
            f"{updates.dtype.name}: {updates!r}"
        )
    dims, var_dims = idx.shape.dims, var.shape.dims
    want = None if dims is None or not var_dims else TensorShape([*dims, *var_dims[1:]])
    if want is not None and not want.is_compatible_with(updates.shape):
        raise ValueError(
            f"Shapes of updates {updates.shape} and indices {idx.shape} do not fit variable "
            f"'{var.name}' of shape {var.shape}: updates must be indices.shape + "
            f"var.shape[1:] = {want}"
        )
    return var.shape, var.dtype


def _scatter_kernel(op_type: str) -> Any:
    mode = _MODES[op_type]

    def kernel(idx: np.ndarray, updates: np.ndarray, *, var: Any) -> np.ndarray:
        old = variables_mod._read_kernel(var=var)
        rows = old.shape[0]
        bad = (idx < 0) | (idx >= rows)
        if bad.any():
            pos = tuple(np.argwhere(bad)[0])
            where = f"indices[{','.join(map(str, pos))}]" if pos else "indices"
            raise InvalidArgumentError(f"{where} = {idx[pos]} is not in [0, {rows})")
        variables_mod._remember(var)
        new = old if variables_mod._unshared(old) else old.copy()
        updates = updates.reshape(idx.shape + old.shape[1:])
        if mode == "update":
            new[idx] = updates
        else:
            _UFUNCS[mode].at(new, idx, updates)
        var._value = new
        var._version += 1
        return new

    return kernel


for _type in _MODES:
    register_op(
        _type,
        _scatter_infer,
        _scatter_kernel(_type),
        stateful=True,
        variable="write",
        batch="it writes a variable: a batched value would be K writes, and no jacobian "
        "flows into an assignment",
        no_cases="it writes state and has no gradient: its values are covered by "
        "tests/test_indexed_slices.py and the sparse optimizer tests in tests/train",
    ).no_gradient()


def scatter(var: Any, sparse_delta: Any, op_type: str, name: str | None = None) -> Tensor:
    """Apply an IndexedSlices ``sparse_delta`` to the rows of ``var``; its new value."""
    values = getattr(sparse_delta, "values", None)
    indices = getattr(sparse_delta, "indices", None)
    if values is None or indices is None:
        raise TypeError(
            f"sparse_delta is not IndexedSlices: {sparse_delta!r} (Variable.{_method(op_type)} "
            "takes the rows to change as tf.IndexedSlices(values, indices))"
        )
    idx = array.int_tensor(indices, "indices")
    updates = convert_to_tensor(values, dtype=var.dtype)
    return apply_op1(op_type, [idx, updates], {"var": var}, name or op_type)


def scatter_nd(var: Any, indices: Any, updates: Any, mode: str, name: Any = None) -> Any:
    """``Variable.scatter_nd_{mode}``: the variable assigned its tensor scatter, whose
    value it returns (as TF's ResourceScatterNd* ops followed by a read)."""
    scatters: dict[str, Callable[..., Any]] = {
        "update": tensor_scatter.tensor_scatter_nd_update,
        "add": tensor_scatter.tensor_scatter_nd_add,
        "sub": tensor_scatter.tensor_scatter_nd_sub,
    }
    scattered = scatters[mode](var, indices, updates)
    return var.assign(scattered, name=name)


def _method(op_type: str) -> str:
    return "scatter_" + _MODES[op_type]


# --------------------------------------------------------------------------------------
# Unique: the distinct values in order of first appearance, and where each element went


def _unique_infer(inputs: Sequence[Tensor], *, out_idx: dt.DType = dt.int32) -> list[Spec]:
    (x,) = inputs
    if x.shape.rank is not None and x.shape.rank != 1:
        raise ValueError(f"unique expects a 1D vector, got shape {x.shape}")
    known = constant_value(x)
    count = None if known is None else len(np.unique(known))
    return [(TensorShape([count]), x.dtype), (TensorShape(x.shape.dims or [None]), out_idx)]


def _unique_kernel(x: np.ndarray, *, out_idx: dt.DType = dt.int32) -> tuple[np.ndarray, ...]:
    values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # np.unique sorts; TF keeps first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return values[order], rank[inverse.reshape(-1)].astype(out_idx.np)


UNIQUE = register_op(
    "Unique",
    _unique_infer,
    _unique_kernel,
    batch="its output length depends on the values: there is no batched form",
    cases=[
        Case(
            [ints([4, 1, 4, 0, 1])],
            lambda x: (np.array([4, 1, 0], np.int32), np.array([0, 1, 0, 2, 1], np.int32)),
            dtypes=(np.int32,),
            attrs={"out_idx": dt.int32},
            order=0,
            note="integer output: not differentiable",
        )
    ],
)


def _unique_counts_infer(inputs: Sequence[Tensor], *, out_idx: dt.DType = dt.int32) -> list[Spec]:
    y, idx = _unique_infer(inputs, out_idx=out_idx)
    return [y, idx, (y[0], out_idx)]


def _unique_counts_kernel(x: np.ndarray, *, out_idx: dt.DType = dt.int32) -> tuple[np.ndarray, ...]:
    y, idx = _unique_kernel(x, out_idx=out_idx)
    return y, idx, np.bincount(idx, minlength=len(y)).astype(out_idx.np)


register_op(
    "UniqueWithCounts",
    _unique_counts_infer,
    _unique_counts_kernel,
    batch="its output length depends on the values: there is no batched form",
    cases=[
        Case(
            [ints([4, 1, 4, 0, 1, 4])],
            lambda x: (
                np.array([4, 1, 0], np.int32),
                np.array([0, 1, 0, 2, 1, 0], np.int32),
                np.array([3, 2, 1], np.int32),
            ),
            dtypes=(np.int32,),
            attrs={"out_idx": dt.int32},
            order=0,
            note="integer output: not differentiable",
        )
    ],
)


class Unique(NamedTuple):
    """``tf.unique``'s result, a named pair as in TF."""

    y: Tensor
    idx: Tensor


def unique(x: Any, out_idx: Any = dt.int32, name: str | None = None) -> Unique:
    """``(y, idx)``: the distinct values of 1-D ``x`` in order of first appearance, and
    ``x[i] == y[idx[i]]`` (``tf.unique``, op type ``Unique``)."""
    t = convert_to_tensor(x)
    check_dtype("Unique", t, (*array.INDEX, dt.float32, dt.float64), "x")
    op = apply_op("Unique", [t], {"out_idx": dt.as_dtype(out_idx)}, name)
    return Unique(op.output(0), op.output(1))


class UniqueWithCounts(NamedTuple):
    """``tf.unique_with_counts``'s result, a named triple as in TF."""

    y: Tensor
    idx: Tensor
    count: Tensor  # type: ignore[assignment]  # TF's field name (shadows tuple.count)


def unique_with_counts(
    x: Any, out_idx: Any = dt.int32, name: str | None = None
) -> UniqueWithCounts:
    """``(y, idx, count)``: ``unique``'s pair and how often each value of ``y`` occurs in
    ``x`` (``tf.unique_with_counts``, op type ``UniqueWithCounts``)."""
    t = convert_to_tensor(x)
    check_dtype("UniqueWithCounts", t, (*array.INDEX, dt.float32, dt.float64), "x")
    op = apply_op("UniqueWithCounts", [t], {"out_idx": dt.as_dtype(out_idx)}, name)
    return UniqueWithCounts(op.output(0), op.output(1), op.output(2))


# As in TF, differentiating through Unique or UniqueWithCounts (``y`` is float for a float
# ``x``) is a LookupError.
tf_has_no_gradient("Unique")
tf_has_no_gradient("UniqueWithCounts")
