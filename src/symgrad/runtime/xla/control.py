"""JAX lowerings of state and control flow: variables, ``If``/``Case``, ``While``, lists.

* Variables: a read is the variable's current value in ``ctx.state``; an assignment or
  scatter replaces it (the call boundary writes the final values back).
* ``If``/``Case`` -> ``lax.switch`` over the branches' programs, the variables' values
  passed through so a branch may assign them.
* ``While`` -> ``lax.while_loop``, or ``lax.fori_loop`` when its trip count is static
  (``counted``).  When its gradient needs the per-iteration stacks, the loop needs that
  trip count or a static ``maximum_iterations`` (as TF's XLA bridge does): the stacks
  are fixed ``[trip count or maximum, ...]`` buffers written row by row, of which the
  gradient loop reads only the rows the forward loop wrote.
* TensorList buffers are fixed-size arrays: rows are read and written at run-time indices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from symgrad.core.errors import InvalidArgumentError
from symgrad.ops.array.slicing import _index
from symgrad.runtime.xla import counted
from symgrad.runtime.xla.engine import XlaLimitError, is_const
from symgrad.runtime.xla.host import static

Table = dict[str, Callable[..., Any]]


# --------------------------------------------------------------------------------------
# Variables


def _read(ctx: Any, op: Any) -> Any:
    return ctx.state[id(op.get_attr("var"))]


def _assign(ctx: Any, op: Any, value: Any) -> Any:
    var, mode = op.get_attr("var"), op.get_attr("mode")
    old = ctx.state[id(var)]
    value = jnp.asarray(value, var.dtype.np)
    new = value if mode == "assign" else old + value if mode == "assign_add" else old - value
    ctx.state[id(var)] = jnp.broadcast_to(new, old.shape)
    return ctx.state[id(var)]


def _scatter(kind: str) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, idx: Any, updates: Any) -> Any:
        var = op.get_attr("var")
        old = ctx.state[id(var)]
        updates = jnp.reshape(updates, idx.shape + old.shape[1:]).astype(old.dtype)
        at = old.at[idx]
        new = {
            "update": at.set,
            "add": at.add,
            "sub": lambda u: at.add(-u),
            "mul": at.multiply,
            "max": at.max,
            "min": at.min,
        }[kind](updates)
        ctx.state[id(var)] = new
        return new

    return lower


def _slice_assign(ctx: Any, op: Any, b: Any, e: Any, s: Any, value: Any) -> Any:
    """``v[key].assign(value)``: the slice (static bounds) set to ``value`` broadcast to
    its shape, as the kernel (``variable_slices``)."""
    var = op.get_attr("var")
    old = ctx.state[id(var)]
    masks = {k: v for k, v in op.attrs.items() if k != "var"}
    begin, end, strides = (static(op, b, "begin"), static(op, e, "end"), static(op, s, "strides"))
    where, shape = _index(old.shape, begin, end, strides, masks)
    value = jnp.broadcast_to(jnp.asarray(value, old.dtype), shape)
    new = old.at[where].set(jnp.reshape(value, old[where].shape))
    ctx.state[id(var)] = new
    return new


def _rng_skip(ctx: Any, op: Any, alg: Any, delta: Any) -> Any:
    """The generator's state [counter lo, counter hi, key] advanced by 256 per output."""
    var = op.get_attr("var")
    state = ctx.state[id(var)]
    words = state.astype(jnp.uint64)
    lo = words[0] + jnp.asarray(delta, jnp.uint64) * jnp.uint64(256)
    hi = words[1] + (lo < words[0]).astype(jnp.uint64)
    ctx.state[id(var)] = jnp.stack([lo, hi, words[2]]).astype(state.dtype)
    return state


# --------------------------------------------------------------------------------------
# Functional control flow


def _switch(ctx: Any, op: Any, index: Any, args: tuple[Any, ...], outs_of: Any) -> Any:
    branches, maps = op.get_attr("branches"), op.get_attr("maps")
    if is_const(index):  # a constant choice: just that branch
        i = int(index)
        return _branch(ctx, branches[i], maps[i], args, None)[0]
    dtypes = [t.dtype.np for t in op.outputs]
    wrapped = [_branch_fn(ctx, f, m, dtypes) for f, m in zip(branches, maps, strict=True)]
    try:
        outs, state = jax.lax.switch(outs_of(index), wrapped, (dict(ctx.state), tuple(args)))
    except TypeError as e:
        raise InvalidArgumentError(
            f"XLA needs the branches of {op.describe()} to return the same shapes: {e}", op
        ) from None
    ctx.state.update(state)
    return tuple(outs)


def _branch_fn(ctx: Any, f: Any, m: Any, dtypes: list[Any]) -> Callable[[Any], Any]:
    """Branch ``f`` as ``lax.switch`` calls it: (state, args) -> (outputs, state)."""

    def run(carry: Any) -> Any:
        return _typed(_branch(ctx, f, m, carry[1], carry[0]), dtypes)

    return run


def _typed(result: tuple[list[Any], dict[int, Any]], dtypes: list[Any]) -> Any:
    outs, state = result
    return [jnp.asarray(o, d) for o, d in zip(outs, dtypes, strict=True)], state


def _branch(ctx: Any, f: Any, m: Any, args: Any, state: Any) -> tuple[list[Any], dict[int, Any]]:
    from symgrad.runtime.xla.engine import Ctx

    inner = ctx if state is None else Ctx(dict(state))
    outs = inner.call(f, [args[j] for j in m])
    return outs, inner.state


def _if(ctx: Any, op: Any, pred: Any, *args: Any) -> Any:
    index = (lambda p: jnp.where(jnp.asarray(p) != 0, 0, 1)) if not is_const(pred) else None
    if index is None:
        return _unpacked(_switch(ctx, op, np.int32(0 if bool(pred) else 1), args, None))
    return _unpacked(_switch(ctx, op, pred, args, index))


def _case(ctx: Any, op: Any, index: Any, *args: Any) -> Any:
    n = len(op.get_attr("branches"))
    if is_const(index):
        i = int(index)
        return _unpacked(_switch(ctx, op, np.int32(i if 0 <= i < n else n - 1), args, None))
    clamp = lambda i: jnp.where((i >= 0) & (i < n), i, n - 1)  # noqa: E731
    return _unpacked(_switch(ctx, op, index, args, clamp))


def _unpacked(outs: Any) -> Any:
    outs = tuple(outs)
    return outs[0] if len(outs) == 1 else outs


def _while(ctx: Any, op: Any, *arrays: Any) -> Any:
    a = ctx.attrs(op)
    n_vars, n_cond = a["n_vars"], a["n_cond"]
    cond, body, recorder = a["cond"], a["body"], a["recorder"]
    run = body if recorder is None else recorder
    vars0 = [jnp.asarray(v, t.dtype.np) for v, t in zip(arrays[2 : 2 + n_vars], op.outputs[2:])]
    caps_c = list(arrays[2 + n_vars : 2 + n_vars + n_cond])
    caps_b = list(arrays[2 + n_vars + n_cond :])
    records = a["records"] if recorder is not None else ()
    keep = [bool(k) for k in a["accumulate"]] if a["accumulate"] else [False] * n_vars
    stacked = any(keep) or bool(records)
    maximum = arrays[1]
    trips = counted.trip_count(op, arrays)
    if stacked and trips is None and not (is_const(maximum) and int(maximum) >= 0):
        raise XlaLimitError(
            f"XLA compiles the gradient of {op.describe()} only with a static "
            "maximum_iterations (while_loop(..., maximum_iterations=n)) or a counted "
            "loop (i = constant; while i < constant; i += constant).",
            op,
        )
    limit = int(maximum) if is_const(maximum) and int(maximum) >= 0 else np.iinfo(np.int32).max
    # (at least one row: the gradient loop's body is traced even when it runs 0 times)
    rows = max(1, int(maximum) if trips is None else trips) if stacked else 0
    stacks = [jnp.zeros((rows if k else 0, *v.shape), v.dtype) for k, v in zip(keep, vars0)]
    rec_stacks = [jnp.zeros((rows, *[d or 0 for d in s.dims or ()]), d_.np) for s, d_ in records]

    def go(carry: Any) -> Any:
        c, vs, st, _, _ = carry
        inner = _ctx(ctx, st)
        ok = inner.call(cond, [c, *vs, *caps_c])[0]
        return (c < limit) & jnp.asarray(ok, bool).reshape(())

    def step(carry: Any) -> Any:
        c, vs, st, stk, rec = carry
        inner = _ctx(ctx, st)
        outs = inner.call(run, [c, *vs, *caps_b])
        stk = [s.at[c].set(v) if k else s for s, v, k in zip(stk, vs, keep, strict=True)]
        rec = [r.at[c].set(o) for r, o in zip(rec, outs[n_vars:], strict=True)]
        new = [jnp.asarray(o, v.dtype) for o, v in zip(outs[:n_vars], vs, strict=True)]
        return c + 1, new, inner.state, stk, rec

    c0 = jnp.asarray(arrays[0], jnp.int32)
    carry = (c0, vars0, dict(ctx.state), stacks, rec_stacks)
    count: Any
    if trips is None:
        count, vs, st, stk, rec = jax.lax.while_loop(go, step, carry)
    else:  # a counted loop: no condition to evaluate (see counted.py)
        _, vs, st, stk, rec = jax.lax.fori_loop(0, trips, lambda _, cr: step(cr), carry)
        count = np.int32(int(arrays[0]) + trips)  # a constant: a gradient loop counts it down
    ctx.state.update(st)
    unrun = [
        jnp.zeros((0, *[d or 0 for d in s.dims or ()]), d_.np)
        for s, d_ in a["records"][len(records) :]
    ]
    accs = (stk if a["accumulate"] else []) + rec + unrun
    return (count, jnp.asarray(arrays[1], jnp.int32), *vs, *accs)


def _ctx(ctx: Any, state: dict[int, Any]) -> Any:
    from symgrad.runtime.xla.engine import Ctx

    return Ctx(dict(state))


def _call(ctx: Any, op: Any, *arrays: Any) -> Any:
    f, n = op.get_attr("f"), op.get_attr("n_feeds")
    if op.attrs.get("recorded", True) and f._recorded:
        raise InvalidArgumentError(
            f"{op.describe()}: a call that records its stateful values is not lowered to "
            "XLA (inside a jit_compile function, calls are inlined instead)",
            op,
        )
    outs = ctx.call(f, list(arrays[:n]))
    return outs[0] if len(outs) == 1 else tuple(outs)


# --------------------------------------------------------------------------------------
# TensorList buffers (fixed-size arrays)


def _grown(op: Any, buf: Any) -> Any:
    """A buffer that may grow (``resize``), padded to the output's static length."""
    dims = op.outputs[0].shape.dims
    buf = jnp.asarray(buf)
    if op.attrs.get("resize") and dims and dims[0] is not None and dims[0] > buf.shape[0]:
        rows = dims[0] - buf.shape[0]
        return jnp.concatenate([buf, jnp.zeros((rows, *buf.shape[1:]), buf.dtype)])
    return buf


def _set_item(ctx: Any, op: Any, buf: Any, index: Any, item: Any) -> Any:
    return _grown(op, buf).at[index].set(item)


def _scatter_list(ctx: Any, op: Any, buf: Any, values: Any, idx: Any) -> Any:
    return _grown(op, buf).at[idx].set(values)


def _static_only(ctx: Any, op: Any, *xs: Any) -> Any:
    for i, x in enumerate(xs):
        static(op, x, f"input {i}")
    raise AssertionError("unreachable: constant inputs are folded")


def table() -> Table:
    return {
        "ReadVariableOp": _read,
        "AssignVariableOp": _assign,
        "ResourceScatterUpdate": _scatter("update"),
        "ResourceScatterAdd": _scatter("add"),
        "ResourceScatterSub": _scatter("sub"),
        "ResourceScatterMul": _scatter("mul"),
        "ResourceScatterMax": _scatter("max"),
        "ResourceScatterMin": _scatter("min"),
        "ResourceStridedSliceAssign": _slice_assign,
        "RngReadAndSkip": _rng_skip,
        "If": _if,
        "StatelessIf": _if,
        "Case": _case,
        "StatelessCase": _case,
        "While": _while,
        "StatelessWhile": _while,
        "PartitionedCall": _call,
        "TensorListGetItem": lambda ctx, op, buf, i: jnp.asarray(buf)[i],
        "TensorListGather": lambda ctx, op, buf, idx: jnp.asarray(buf)[idx],
        "TensorListSetItem": _set_item,
        "TensorListAddItem": lambda ctx, op, buf, i, item: jnp.asarray(buf).at[i].add(item),
        "TensorListScatterIntoExistingList": _scatter_list,
        "BroadcastGradientArgs": _static_only,
        "ReducedShape": _static_only,
        "InvertPermutation": _static_only,
        "Range": _static_only,
    }
