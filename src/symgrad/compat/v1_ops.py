"""TF1's signatures for the ``tf.compat.v1`` functions whose arguments TF2 changed.

Each has TF1's parameter names, order and defaults (TF1's deprecated spellings
``keep_dims``, ``reduction_indices``, ``dim``, ``squeeze_dims`` ... included) and forwards
by keyword to the one implementation, so a positional TF1 call means what it meant in TF1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.api.variable_scope import global_variables as global_variables
from symgrad.api.variable_scope import (
    local_variables,
)
from symgrad.api.variable_scope import trainable_variables as trainable_variables
from symgrad.compat._args import one_of
from symgrad.control_flow import while_loop as _while
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, executing_eagerly
from symgrad.ops import core as _core
from symgrad.ops.array import gather as _gather
from symgrad.ops.array import shape as _shape
from symgrad.ops.array import slicing as _slicing
from symgrad.ops.array import structure as _array
from symgrad.ops.reduction import norms as _norms
from symgrad.ops.reduction import reduce as _red
from symgrad.ops.reduction import statistics as _stats
from symgrad.ops.reduction.bincount import bincount as _bincount
from symgrad.ops.sparse.indexed_slices import IndexedSlices
from symgrad.ops.state import variables as _vars


def _reduce_v1(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def reduce(
        input_tensor: Any,
        axis: Any = None,
        keepdims: bool | None = None,
        name: str | None = None,
        reduction_indices: Any = None,
        keep_dims: bool | None = None,
    ) -> Tensor:
        axis = one_of(axis, reduction_indices, "axis", "reduction_indices")
        keep = one_of(keepdims, keep_dims, "keepdims", "keep_dims")
        return fn(input_tensor, axis=axis, keepdims=bool(keep), name=name)

    reduce.__name__ = reduce.__qualname__ = fn.__name__
    reduce.__doc__ = fn.__doc__
    return reduce


reduce_sum = _reduce_v1(_red.reduce_sum)
reduce_mean = _reduce_v1(_red.reduce_mean)
reduce_max = _reduce_v1(_red.reduce_max)
reduce_min = _reduce_v1(_red.reduce_min)
reduce_prod = _reduce_v1(_red.reduce_prod)
reduce_any = _reduce_v1(_red.reduce_any)
reduce_all = _reduce_v1(_red.reduce_all)
reduce_logsumexp = _reduce_v1(_stats.reduce_logsumexp)


def argmax(
    input: Any,
    axis: Any = None,
    name: str | None = None,
    dimension: Any = None,
    output_type: Any = dt.int64,
) -> Tensor:
    axis = one_of(axis, dimension, "axis", "dimension")
    return _red.argmax(input, axis=axis, output_type=output_type, name=name)


def argmin(
    input: Any,
    axis: Any = None,
    name: str | None = None,
    dimension: Any = None,
    output_type: Any = dt.int64,
) -> Tensor:
    axis = one_of(axis, dimension, "axis", "dimension")
    return _red.argmin(input, axis=axis, output_type=output_type, name=name)


def count_nonzero(
    input_tensor: Any = None,
    axis: Any = None,
    keepdims: bool | None = None,
    dtype: Any = dt.int64,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: bool | None = None,
    input: Any = None,
) -> Tensor:
    x = one_of(input_tensor, input, "input_tensor", "input")
    axis = one_of(axis, reduction_indices, "axis", "reduction_indices")
    keep = one_of(keepdims, keep_dims, "keepdims", "keep_dims")
    return _stats.count_nonzero(x, axis=axis, keepdims=keep, dtype=dtype, name=name)


def bincount(
    arr: Any,
    weights: Any = None,
    minlength: Any = None,
    maxlength: Any = None,
    dtype: Any = dt.int32,
) -> Tensor:
    return _bincount(arr, weights=weights, minlength=minlength, maxlength=maxlength, dtype=dtype)


def norm(
    tensor: Any,
    ord: Any = "euclidean",
    axis: Any = None,
    keepdims: bool | None = None,
    name: str | None = None,
    keep_dims: bool | None = None,
) -> Tensor:
    keep = one_of(keepdims, keep_dims, "keepdims", "keep_dims")
    return _norms.norm(tensor, ord=ord, axis=axis, keepdims=keep, name=name)


def constant(
    value: Any,
    dtype: Any = None,
    shape: Any = None,
    name: str = "Const",
    verify_shape: bool = False,
) -> Tensor:
    """TF1's constant: with ``verify_shape``, ``value``'s shape must be ``shape``."""
    if verify_shape and shape is not None:
        import numpy as np

        got = tuple(np.shape(value))
        if got != tuple(shape):
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {got}.")
    return _core.constant(value, dtype=dtype, shape=shape, name=name)


def convert_to_tensor(
    value: Any,
    dtype: Any = None,
    name: str | None = None,
    preferred_dtype: Any = None,
    dtype_hint: Any = None,
) -> Tensor:
    hint = one_of(dtype_hint, preferred_dtype, "dtype_hint", "preferred_dtype")
    return _core.convert_to_tensor(value, dtype=dtype, name=name, dtype_hint=hint)


def expand_dims(input: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Tensor:
    axis = one_of(axis, dim, "axis", "dim")
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return _shape.expand_dims(input, axis, name=name)


def squeeze(
    input: Any, axis: Any = None, name: str | None = None, squeeze_dims: Any = None
) -> Tensor:
    axis = one_of(axis, squeeze_dims, "axis", "squeeze_dims")
    return _shape.squeeze(input, axis, name=name)


def shape(input: Any, name: str | None = None, out_type: Any = None) -> Tensor:
    return _shape.shape(input, out_type=dt.int32 if out_type is None else out_type, name=name)


def size(input: Any, name: str | None = None, out_type: Any = None) -> Tensor:
    return _shape.size(input, out_type=dt.int32 if out_type is None else out_type, name=name)


def transpose(a: Any, perm: Any = None, name: str = "transpose", conjugate: bool = False) -> Tensor:
    """TF1's order: ``name`` third, ``conjugate`` fourth."""
    return _shape.transpose(a, perm, conjugate=conjugate, name=name)


def pad(
    tensor: Any,
    paddings: Any,
    mode: str = "CONSTANT",
    name: str | None = None,
    constant_values: Any = 0,
) -> Tensor:
    return _slicing.pad(tensor, paddings, mode=mode, constant_values=constant_values, name=name)


def gather(
    params: Any,
    indices: Any,
    validate_indices: Any = None,
    name: str | None = None,
    axis: Any = None,
    batch_dims: int = 0,
) -> Tensor:
    return _gather.gather(params, indices, axis=axis, batch_dims=batch_dims, name=name)


def gather_nd(
    params: Any,
    indices: Any,
    name: str | None = None,
    batch_dims: int = 0,
    bad_indices_policy: str = "",
) -> Tensor:
    return _gather.gather_nd(params, indices, batch_dims=batch_dims, name=name)


def ones_like(
    tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True
) -> Tensor:
    return _array.ones_like(tensor, dtype=dtype, name=name)


def zeros_like(
    tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True
) -> Tensor:
    return _array.zeros_like(tensor, dtype=dtype, name=name)


def local_variables_initializer() -> Any:
    """One op that initializes every local variable (a NoOp when there is none)."""
    return _vars.variables_initializer(local_variables())


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
    maximum_iterations: Any = None,
    return_same_structure: bool = False,
) -> Any:
    """TF1's while_loop: in a graph (``function``, ``Session``), one loop variable in a
    list comes back bare unless ``return_same_structure``; eagerly TF returns the list."""
    out = _while.while_loop(
        cond,
        body,
        loop_vars,
        shape_invariants=shape_invariants,
        parallel_iterations=parallel_iterations,
        back_prop=back_prop,
        swap_memory=swap_memory,
        maximum_iterations=maximum_iterations,
        name=name,
    )
    single = isinstance(out, (list, tuple)) and len(out) == 1
    if single and not return_same_structure and not executing_eagerly():
        return out[0]
    return out


# TF1's functional forms of the variable row updates (``ref`` is a Variable).


def scatter_update(
    ref: Any, indices: Any, updates: Any, use_locking: bool = True, name: str | None = None
) -> Tensor:
    return ref.scatter_update(IndexedSlices(updates, indices), use_locking, name)


def scatter_add(
    ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    return ref.scatter_add(IndexedSlices(updates, indices), use_locking, name)


def scatter_sub(
    ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    return ref.scatter_sub(IndexedSlices(updates, indices), use_locking, name)


def scatter_nd_update(
    ref: Any, indices: Any, updates: Any, use_locking: bool = True, name: str | None = None
) -> Tensor:
    return ref.scatter_nd_update(indices, updates, name)
