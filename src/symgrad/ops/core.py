"""Constants, conversion, placeholders, Identity/StopGradient, and op-declaration helpers.

This is the ground floor of ``ops``: it imports no sibling module (ops it needs, such as
the Sum of ``unbroadcast``, it applies by type).  Every op family module builds on the
helpers here:

* ``unary_op`` / ``binary_op`` declare an elementwise op (shape rule, dtype check,
  kernel, TF-named wrapper) in one line;
* ``binary_grad`` registers a gradient rule for a broadcasting binary op and reduces
  each returned gradient back to its input's shape (``unbroadcast``), so no rule repeats
  the broadcast dance.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, ints, randn
from symgrad.core.eager import EagerTensor
from symgrad.core.errors import InvalidArgumentError, ResourceExhaustedError
from symgrad.core.fast_path import FastOp, fast_apply, fast_binary, fast_unary
from symgrad.core.gradient_registry import RegisterGradient, array_rule, no_gradient
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.core.op_registry import (
    _DEFAULT_NAMES,
    OPS,
    ShapeError,
    Spec,
    apply_op,
    apply_op1,
    constant_value,
    default_name,
    register_op,
)
from symgrad.core.shapes import TensorShape, as_shape, broadcast_shapes

FLOATS = (dt.float16, dt.float32, dt.float64)
COMPLEX = (dt.complex64, dt.complex128)
INTS = (dt.int8, dt.int16, dt.int32, dt.int64, dt.uint8)
FLOAT_COMPLEX = FLOATS + COMPLEX
NUMERIC = FLOATS + INTS + COMPLEX
REAL = FLOATS + INTS
ALL = NUMERIC + (dt.bool_,)


# --------------------------------------------------------------------------------------
# Conversion


def _infer_dtype(value: Any, arr: np.ndarray | None = None) -> dt.DType:
    """TF's rule: Python floats -> float32, ints -> int32 (int64 if too big); NumPy keeps."""
    if isinstance(value, np.ndarray | np.generic):
        return dt.as_dtype(value.dtype)
    if arr is None:
        arr = _as_numbers(value, None, "value")
    kind = arr.dtype.kind
    if kind == "f":
        return dt.float32
    if kind in "iu":
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            return dt.int64
        return dt.int32
    if kind == "b":
        return dt.bool_
    if kind == "c":
        return dt.complex128
    raise TypeError(f"Cannot convert {value!r} to a tensor: unsupported element type {arr.dtype}")


def _as_numbers(value: Any, dtype: dt.DType | None, what: str) -> np.ndarray:
    """``np.asarray(value)``, refusing what is not a rectangular array of numbers with
    TF's errors (ragged lists, strings, None and other Python objects)."""
    try:
        arr = np.asarray(value)
    except ValueError:
        raise ValueError(
            f"Can't convert non-rectangular Python sequence to Tensor ({what} {value!r})."
        ) from None
    if arr.dtype != object and arr.dtype.kind not in "USV":
        return arr
    leaf = _first_non_number(value)
    to = f" of dtype {dtype.name}" if dtype is not None else ""
    if isinstance(leaf, str | bytes | np.str_ | np.bytes_):
        raise TypeError(
            f"Cannot convert {what} {value!r} to a tensor{to}: {leaf!r} is a "
            "string, and symgrad has no string dtype"
        )
    if isinstance(leaf, int):
        raise ValueError(
            "Can't convert Python sequence with out-of-range integer to Tensor "
            f"({what} {value!r}: {leaf} does not fit in 64 bits)."
        )
    within = f" {value!r}" if leaf is not value else ""
    raise ValueError(
        f"Attempt to convert a value ({leaf!r}) with an unsupported type "
        f"({type(leaf)}) to a Tensor ({what}{within}, expected numbers{to})."
    )


def _first_non_number(value: Any) -> Any:
    """The first leaf of a nested list that NumPy cannot hold as a number (or ``value``)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list | tuple):
            stack.extend(reversed(v))
        elif (isinstance(v, int) and not -(2**63) <= v < 2**64) or not isinstance(
            v, int | float | complex | np.number | np.bool_ | np.ndarray | Tensor
        ):
            return v
    return value


def to_array(value: Any, dtype: dt.DType | None = None, what: str = "value") -> np.ndarray:
    """A NumPy array of ``value`` in ``dtype``; refuses conversions that lose meaning
    (a fraction or NaN to an integer, an integer that does not fit, a complex to a real)."""
    if isinstance(value, Tensor):
        value = value.numpy()
    if type(value) is np.ndarray and dtype is not None and value.dtype == dtype.np:
        return value  # what the checks below return for it, unchanged
    if type(value) is list and dtype is not None and _small_ints(value, dtype):
        return np.array(value, dtype.np)  # axes and shapes: the checks below pass
    arr = _as_numbers(value, dtype, what)
    if dtype is None:
        dtype = _infer_dtype(value, arr)
    if arr.dtype != dtype.np:
        src, dst = arr.dtype.kind, dtype.np.kind
        lossy = (src == "c" and dst != "c") or (
            src == "f"
            and dst in "iub"  # (TF refuses any Python float: 1.0 is not an int32; an empty
            and arr.size > 0  # list has no float in it)
            and (not isinstance(value, np.ndarray | np.generic) or not np.all(np.mod(arr, 1) == 0))
        )
        if lossy or (src == "b" and dst != "b") or (dst == "b" and src != "b"):
            raise TypeError(f"Cannot convert {what} {value!r} to a tensor of dtype {dtype.name}")
        if src in "iu" and dst in "iu" and arr.size and not isinstance(value, np.ndarray):
            info = np.iinfo(dtype.np)
            if arr.min() < info.min or arr.max() > info.max:
                raise TypeError(
                    f"Cannot convert {what} {value!r} to a tensor of dtype "
                    f"{dtype.name}: out of its range [{info.min}, {info.max}]"
                )
        with np.errstate(over="ignore"):  # 1e5 as float16 is inf, silently, as in TF
            arr = arr.astype(dtype.np)
    return arr


def _small_ints(values: list[Any], dtype: dt.DType) -> bool:
    """A short list of Python ints that fit ``dtype`` (int32 or int64)?"""
    if len(values) > 8 or (dtype is not dt.int32 and dtype is not dt.int64):
        return False
    bound = 2**31 if dtype is dt.int32 else 2**63
    return all(type(v) is int and -bound <= v < bound for v in values)


def _const_infer(inputs: Sequence[Tensor], *, value: np.ndarray, dtype: dt.DType) -> Spec:
    return TensorShape.of_array(value.shape), dtype


_FAST_CONST = FastOp("Const", _const_infer, frozenset(), None, OPS, _DEFAULT_NAMES)
register_op(
    "Const",
    _const_infer,
    lambda *, value, dtype: value,
    batch="no inputs: never depends on the batched seed",
    no_cases="no inputs for a row to feed; every row builds its inputs with it, and "
    "conversion is tested in tests/test_graph.py (test_dtype_rules) and "
    "tests/test_eager_dispatch.py",
)
no_gradient("Const")


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Tensor:
    """A tensor holding ``value`` (Python scalars/lists, NumPy arrays, eager tensors)."""
    d = dt.as_dtype(dtype) if dtype is not None else None
    arr = to_array(value, d)
    if shape is not None:
        shape = tuple(as_shape(shape).as_list())
        if arr.size == 1:
            try:
                arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
            except MemoryError:
                raise ResourceExhaustedError(
                    f"OOM when allocating tensor with shape{list(shape)} and type "
                    f"{arr.dtype.name} for constant '{name}' (use fill or zeros, which "
                    "allocate only when run in a graph)"
                ) from None
        elif arr.size == int(np.prod(shape)):
            arr = arr.reshape(shape)
        else:
            raise TypeError(
                f"Eager execution of tf.constant with unsupported shape. Tensor "
                f"{value!r} (converted from {arr.shape}) has {arr.size} elements, "
                f"but got `shape` {shape} with {int(np.prod(shape))} elements)."
            )
    arr = np.array(arr, copy=True)
    arr.flags.writeable = False
    d = d if d is not None and arr.dtype == d.np else dt.as_dtype(arr.dtype)
    attrs = {"value": arr, "dtype": d}
    if name == "Const":  # core/eager.py's light tensor, if it can
        t = fast_apply(_FAST_CONST, (), attrs, None)
        if t is not None:
            return t
    return apply_op1("Const", [], attrs, name)


def convert_to_tensor(
    value: Any, dtype: Any = None, dtype_hint: Any = None, name: str | None = None
) -> Tensor:
    """A Tensor for ``value``: tensors pass through, Variables are read, the rest constant."""
    if dtype is None and type(value) in _TENSORS:
        return value  # the common case, as below
    d = dt.as_dtype(dtype) if dtype is not None else None
    if isinstance(value, Tensor):
        if d is not None and value.dtype is not d:
            raise ValueError(
                f"Tensor conversion requested dtype {d.name} for Tensor with "
                f"dtype {value.dtype.name}: {value!r}"
            )
        return value
    dense_tensor = getattr(value, "_dense_tensor", None)  # an IndexedSlices: densified
    if dense_tensor is not None:
        return dense_tensor(d, name)  # type: ignore[no-any-return]
    as_tensor = getattr(value, "_as_tensor", None)
    if as_tensor is not None:
        return convert_to_tensor(as_tensor(), dtype)
    if value is None:
        raise ValueError(
            "Attempt to convert a value (None) with an unsupported type "
            "(<class 'NoneType'>) to a Tensor. If this None is a gradient, the "
            "target does not depend on that source: symgrad.why_none(ys, xs) "
            "says why."
        )
    if type(value) in _SCALARS and name is None and dtype_hint is None:
        return _eager_scalar(value, d)
    if isinstance(value, list | tuple) and _holds_tensor(value):
        hint = dt.as_dtype(dtype_hint) if dtype_hint else None  # only where no tensor has
        return _autopack(value, d or _first_dtype(value) or hint, name)  # one (TF's rule)
    if d is None and dtype_hint is not None and not isinstance(value, np.ndarray | np.generic):
        try:
            return constant(value, dt.as_dtype(dtype_hint), name=name or "Const")
        except TypeError:
            pass
    return constant(value, d, name=name or "Const")


def _holds_tensor(values: Any) -> bool:
    return isinstance(values, list | tuple) and any(
        isinstance(v, Tensor) or hasattr(v, "_as_tensor") or _holds_tensor(v) for v in values
    )


def _autopack(values: Sequence[Any], d: dt.DType | None, name: str | None) -> Tensor:
    """A (nested) list that holds tensors, as TF's auto-packing makes it: one Pack op per
    level, the Python numbers in it taking the tensors' dtype (``[tf.shape(x)[0], -1]``)."""
    if d is None:
        d = _first_dtype(values)
    items = [_autopack(v, d, None) if _holds_tensor(v) else convert_to_tensor(v, d) for v in values]
    return apply_op1("Pack", items, {"N": len(items), "axis": 0}, name or "packed")


def _first_dtype(values: Any) -> dt.DType | None:
    """The dtype of the first tensor (or Variable) in a nested list, depth first."""
    for v in values:
        if isinstance(v, list | tuple):
            found = _first_dtype(v)
        elif isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
            found = v.dtype
        else:
            continue
        if found is not None:
            return found
    return None


_SCALARS = frozenset({int, float, bool})
_TENSORS = frozenset({Tensor, EagerTensor})
_SCALAR_CACHE_SIZE = 1024


def _eager_scalar(value: Any, d: dt.DType | None) -> Tensor:
    """A Python scalar as a constant; in eager mode the same constant is reused.

    Eager constants are immutable, so ``x * 1.01`` in a loop need not build a new one
    every time (half the cost of such an op).  Graphs always get their own Const.
    """
    graph = get_default_graph()
    if not graph.eager:
        return constant(value, d)
    sign = math.copysign(1.0, value) if type(value) is float else 0.0  # -0.0 is not 0.0
    key = (type(value), value, id(d), sign)  # dtypes are singletons: id hashes in C
    cache = graph.scalar_cache
    t = cache.get(key)
    if t is None:
        if len(cache) >= _SCALAR_CACHE_SIZE:
            cache.clear()
        t = cache[key] = constant(value, d)
    return t


def convert_n(values: Iterable[Any], what: str = "values") -> list[Tensor]:
    """Convert several values; Python values take the dtype of the first tensor among them.

    With no tensor among them, the first value's own dtype is the others' (TF's
    ``args_to_matching_eager``): ``tf.not_equal(np.array([1, 0]), 0)`` compares int64s,
    and ``tf.add(np.zeros(2, np.float32), np.ones(2))`` casts the float64s to float32."""
    values = list(values)
    like = next((v for v in values if _is_tensorish(v)), None)
    if like is None and values:
        first = convert_to_tensor(values[0])
        return [first, *(convert_to_tensor(v, first.dtype) for v in values[1:])]
    d = (
        None
        if like is None
        else like.dtype
        if isinstance(like, Tensor)
        else (convert_to_tensor(like).dtype)
    )
    return [
        v if isinstance(v, Tensor) else convert_to_tensor(v, None if _is_tensorish(v) else d)
        for v in values
    ]


def _is_tensorish(v: Any) -> bool:
    # (Python scalars first: hasattr on them raises and catches an AttributeError.)
    return isinstance(v, Tensor) or (type(v) not in _SCALARS and hasattr(v, "_as_tensor"))


def check_dtype(op_type: str, t: Tensor, allowed: Sequence[dt.DType], arg: str = "x") -> None:
    d = t.dtype
    for a in allowed:  # by identity first: ``in`` calls DType.__eq__ (Python) per miss
        if a is d:
            return
    if d not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(f"input '{arg}' has dtype {t.dtype.name}, expected one of: {names}")


def same_dtype(inputs: Sequence[Tensor], names: Sequence[str] = ("x", "y")) -> dt.DType:
    first = inputs[0].dtype
    for t, n in zip(inputs[1:], names[1:]):
        if t.dtype is not first:
            raise TypeError(
                f"input '{n}' has dtype {t.dtype.name} that does not match dtype "
                f"{first.name} of input '{names[0]}' (symgrad, like TensorFlow, "
                "never promotes dtypes implicitly: use cast)"
            )
    return first


def static_ints(t: Tensor, what: str) -> list[int] | None:
    """The integer values of an attribute-like input (axis, shape, perm) if known statically."""
    v = constant_value(t)
    if v is None:
        return None
    if type(v) is np.ndarray and v.dtype.kind in "iu":
        return v.ravel().tolist()  # type: ignore[no-any-return]  # Python ints, as below
    return [int(i) for i in np.ravel(v)]


def constant_value_as_shape(t: Tensor) -> TensorShape:
    """The shape a 1-D shape tensor is known to describe before it runs, in part where
    only some sizes are known (TF's ``tensor_util.constant_value_as_shape``):
    ``[tf.shape(x)[1], 2]`` describes ``(None, 2)``, ``tf.shape(x)`` the shape of ``x``,
    a concat the shapes of its parts; -1 is an unknown size."""
    v = constant_value(t)
    if v is not None and np.ndim(v) == 1:
        return TensorShape([None if int(d) < 0 else int(d) for d in v])
    op = t.op
    if op.type == "Shape":
        return op.inputs[0].shape
    if op.type == "Pack" and t.shape.rank == 1:
        sizes = [constant_value(x) for x in op.inputs]
        return TensorShape([None if d is None or int(d) < 0 else int(d) for d in sizes])
    if op.type == "ConcatV2":
        parts = [constant_value_as_shape(x) for x in op.inputs[:-1]]
        if all(p.rank is not None for p in parts):
            return TensorShape([d for p in parts for d in p.dims])  # type: ignore[union-attr]
    n = t.shape.dims[0] if t.shape.rank == 1 else None  # type: ignore[index]
    return TensorShape(None if n is None else [None] * n)


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1):
        raise ShapeError(
            f"{what} {axis} is out of range for a tensor of rank {rank} "
            f"(expected {-rank} <= {what} < {rank})"
        )
    return axis % rank if rank else 0


# --------------------------------------------------------------------------------------
# Placeholders, Identity, StopGradient


def _placeholder_infer(inputs: Sequence[Tensor], *, dtype: dt.DType, shape: TensorShape) -> Spec:
    return shape, dtype


def _placeholder_kernel(*, dtype: dt.DType, shape: TensorShape) -> Any:
    raise InvalidArgumentError("placeholder evaluated without a feed")  # plans catch this first


# No gradient entry, as in TF (``gradient_registry.lookup("Placeholder")`` raises): an op
# without inputs is a source, and backprop never looks up a rule for one.
register_op(
    "Placeholder",
    _placeholder_infer,
    _placeholder_kernel,
    symbolic=True,
    batch="no inputs: never depends on the batched seed",
    no_cases="has no value until fed, so a row cannot run it; the op-table's "
    "shape-rule check feeds one per row, and tests/runtime/test_session.py "
    "tests feeds and their errors",
)


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Tensor:
    """A tensor with no value until it is fed (``Session.run(..., feed_dict={x: ...})``)."""
    try:
        static = as_shape(shape)
    except (TypeError, ValueError) as e:
        raise type(e)(
            f"Error converting shape to a TensorShape: {e} (placeholder argument "
            f"`shape` = {shape!r})."
        ) from None
    return apply_op1(
        "Placeholder", [], {"dtype": dt.as_dtype(dtype), "shape": static}, name or "Placeholder"
    )


def _same_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    return inputs[0].shape, inputs[0].dtype


def _identity_kernel(x: Any) -> Any:
    return x


register_op(
    "Identity",
    _same_infer,
    _identity_kernel,
    elementwise=True,
    pass_through=True,
    view=True,
    batch=batching.elementwise,
    cases=[Case([randn(3, 4)], lambda x: x)],
)


def identity(input: Any, name: str | None = None) -> Tensor:
    return apply_op1("Identity", [convert_to_tensor(input)], name=name)


@RegisterGradient("Identity")
def _identity_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g."""
    return grad


@array_rule("Identity")
def _identity_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [grads[0]]


register_op(
    "StopGradient",
    _same_infer,
    _identity_kernel,
    elementwise=True,
    pass_through=True,
    view=True,
    batch=batching.elementwise,
    cases=[Case([randn(3, 4)], lambda x: x, order=0, note="no gradient by design")],
)
no_gradient("StopGradient")


def stop_gradient(input: Any, name: str | None = None) -> Tensor:
    """Identity forward; no gradient flows back through it (the result acts as a constant)."""
    return apply_op1("StopGradient", [convert_to_tensor(input)], name=name)


register_op(
    "PreventGradient",
    _same_infer,
    lambda x, *, message="": x,
    elementwise=True,
    pass_through=True,
    view=True,
    batch=batching.elementwise,
    cases=[
        Case(
            [randn(3, 4)],
            lambda x: x,
            attrs={"message": "no"},
            order=0,
            note="its rule raises LookupError by design (tf.prevent_gradient)",
        )
    ],
)


def prevent_gradient(input: Any, message: str = "", name: str | None = None) -> Tensor:
    return apply_op1("PreventGradient", [convert_to_tensor(input)], {"message": message}, name)


@RegisterGradient("PreventGradient")
def _prevent_gradient_grad(op: Any, grad: Tensor) -> Tensor:
    """Raises: the user asked that nothing differentiate through here."""
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.get_attr('message')}")


def tf_has_no_gradient(op_type: str) -> None:
    """Declare that TF registers no gradient for ``op_type``: differentiating through it
    raises LookupError naming the op, as TF's backprop does (not NoGradient's silent None)."""

    def rule(op: Any, *grads: Any) -> Any:
        """Raises: TensorFlow defines no gradient for this op type."""
        raise LookupError(
            f"No gradient defined for operation '{op.name}' (op type: {op.type}). "
            "TensorFlow registers no gradient for it either."
        )

    RegisterGradient(op_type)(rule)


# --------------------------------------------------------------------------------------
# Declaration helpers for elementwise ops


def _unary_infer(
    op_type: str, allowed: Sequence[dt.DType], out: Callable[[dt.DType], dt.DType] | None
) -> Callable[..., Spec]:
    ok = frozenset(map(id, allowed))  # dtypes are singletons; DType's hash is Python code

    def infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
        x = inputs[0]
        d = x.dtype
        if id(d) not in ok:
            check_dtype(op_type, x, allowed)
        return x.shape, out(d) if out else d

    return infer


def unary_op(
    op_type: str,
    kernel: Callable[..., Any],
    api_name: str,
    allowed: Sequence[dt.DType] = FLOAT_COMPLEX,
    out_dtype: Callable[[dt.DType], dt.DType] | None = None,
    *,
    cases: Sequence[Case] = (),
    **record: Any,
) -> Callable[..., Tensor]:
    """Declare an elementwise unary op and return its TF-named wrapper ``f(x, name=None)``.

    The record gets the elementwise trait and batching rule; ``cases`` without a ``fn``
    call the wrapper.  ``record`` sets any other ``OpDef`` field (``inplace``...).
    """

    infer = _unary_infer(op_type, allowed, out_dtype)
    fast = FastOp(op_type, infer, frozenset(map(id, allowed)), out_dtype, OPS, _DEFAULT_NAMES)

    def general(x: Any, name: str | None = None) -> Tensor:
        if type(x) not in _TENSORS:
            x = convert_to_tensor(x)
        return apply_op1(op_type, [x], name=name)

    # core/eager.py's light tensor in front, if it can
    wrapper = fast_unary(fast, general, apply_op1)
    wrapper.__name__ = api_name
    wrapper.__doc__ = f"Elementwise ``{api_name}`` (op type ``{op_type}``)."
    register_op(
        op_type,
        infer,
        kernel,
        elementwise=True,
        batch=batching.elementwise,
        cases=_with_fn(cases, wrapper),
        **record,
    )
    return wrapper


def _with_fn(cases: Sequence[Case], fn: Callable[..., Any]) -> list[Case]:
    return [c if c.fn is not None else dataclasses.replace(c, fn=fn) for c in cases]


def broadcast_infer(op_type: str, inputs: Sequence[Tensor]) -> TensorShape:
    out: TensorShape | None = inputs[0].shape
    if len(inputs) == 2:  # the common case, without the loop
        out = broadcast_shapes(out, inputs[1].shape)  # type: ignore[arg-type]
        if out is not None:
            return out
        out = inputs[0].shape
    for t in inputs[1:]:
        prev = out
        out = broadcast_shapes(out, t.shape)  # type: ignore[arg-type]
        if out is None:
            raise ShapeError(f"Incompatible shapes for broadcasting: {prev} and {t.shape}")
    return out  # type: ignore[return-value]


def _binary_infer(
    op_type: str, allowed: Sequence[dt.DType], out: dt.DType | None
) -> Callable[..., Spec]:
    ok = frozenset(map(id, allowed))  # dtypes are singletons; DType's hash is Python code

    def infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
        x, y = inputs
        d = x.dtype
        if y.dtype is not d or id(d) not in ok:
            same_dtype(inputs)
            check_dtype(op_type, x, allowed)
        return broadcast_infer(op_type, inputs), out or d

    return infer


def binary_op(
    op_type: str,
    kernel: Callable[..., Any],
    api_name: str,
    allowed: Sequence[dt.DType] = NUMERIC,
    out_dtype: dt.DType | None = None,
    op_name: str | None = None,
    *,
    fn_name: str | None = None,
    cases: Sequence[Case] = (),
    **record: Any,
) -> Callable[..., Tensor]:
    """Declare a broadcasting binary op and return its wrapper ``f(x, y, name=None)``.

    A Python/NumPy operand takes the dtype of the tensor operand; two tensors must agree.
    ``op_name`` is the default op name when it differs from the type (TF names ``a + b``
    "add"); ``fn_name`` the function's, where TF's differs from its operator's
    (``tf.multiply`` "Mul", ``x * y`` "mul"): then ``f.operator`` is the operator's wrapper.
    The record is filled as ``unary_op`` fills it.
    """

    infer = _binary_infer(op_type, allowed, out_dtype)
    fast = FastOp(op_type, infer, frozenset(map(id, allowed)), out_dtype, OPS, _DEFAULT_NAMES)

    def general(x: Any, y: Any, name: str | None = None) -> Tensor:
        if type(x) in _TENSORS:  # the common cases, as convert_n converts them
            if type(y) in _TENSORS:
                return apply_op1(op_type, [x, y], name=name)
            if type(y) in _SCALARS:  # ``x * 1.01``
                return apply_op1(op_type, [x, _eager_scalar(y, x.dtype)], name=name)
        elif type(x) in _SCALARS and type(y) is EagerTensor and name is None:  # ``lr * g``
            return operator(_eager_scalar(x, y.dtype), y)  # the fast path, as convert_n converts
        a, b = convert_n((x, y))
        return apply_op1(op_type, [a, b], name=name)

    # core/eager.py's light tensor in front, if it can
    wrapper = operator = fast_binary(fast, general, apply_op1, _SCALARS, _eager_scalar)
    if fn_name:  # the function: its own default name, the operator's wrapper beside it
        named = FastOp(op_type, infer, fast.ok, out_dtype, OPS, {op_type: fn_name})

        def by_name(x: Any, y: Any, name: str | None = None) -> Tensor:
            return general(x, y, name or fn_name)

        def apply_named(op: str, inputs: list[Any], name: str | None = None) -> Tensor:
            return apply_op1(op, inputs, name=name or fn_name)

        wrapper = fast_binary(named, by_name, apply_named, _SCALARS, _eager_scalar)
        wrapper.operator = operator  # type: ignore[attr-defined]
    wrapper.__name__ = api_name
    wrapper.__doc__ = f"Elementwise ``{api_name}`` with broadcasting (op type ``{op_type}``)."
    register_op(
        op_type,
        infer,
        kernel,
        elementwise=True,
        batch=batching.elementwise,
        cases=_with_fn(cases, wrapper),
        **record,
    )
    if op_name:
        default_name(op_type, op_name)
    return wrapper


# --------------------------------------------------------------------------------------
# Un-broadcasting: the one place gradients are reduced back to an input's shape


def _bga_infer(inputs: Sequence[Tensor]) -> list[Spec]:
    sx, sy = (constant_value(t) for t in inputs)
    if sx is None or sy is None:
        return [(TensorShape([None]), dt.int32), (TensorShape([None]), dt.int32)]
    rx, ry = reduction_axes(sx.tolist(), sy.tolist())
    return [(TensorShape([len(rx)]), dt.int32), (TensorShape([len(ry)]), dt.int32)]


def reduction_axes(sx: Sequence[int], sy: Sequence[int]) -> tuple[list[int], list[int]]:
    """BroadcastGradientArgs: the output axes each input was broadcast over."""
    n = max(len(sx), len(sy))
    px = [1] * (n - len(sx)) + list(sx)
    py = [1] * (n - len(sy)) + list(sy)
    rx = [i for i in range(n) if (px[i] == 1 and py[i] != 1) or i < n - len(sx)]
    ry = [i for i in range(n) if (py[i] == 1 and px[i] != 1) or i < n - len(sy)]
    return rx, ry


def _bga_kernel(sx: np.ndarray, sy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rx, ry = reduction_axes(sx.tolist(), sy.tolist())
    return np.array(rx, np.int32), np.array(ry, np.int32)


register_op(
    "BroadcastGradientArgs",
    _bga_infer,
    _bga_kernel,
    batch="integer shape arithmetic for un-broadcasting, not a function of the "
    "batched seed's values",
    cases=[
        Case(
            [ints([3, 1]), ints([2, 1, 4])],
            lambda sx, sy: [np.array([0, 2], np.int32), np.array([1], np.int32)],
            order=0,
            note="integer shapes in and out",
        )
    ],
)
no_gradient("BroadcastGradientArgs")


def static_broadcast_axes(
    x: Tensor, others: Sequence[Tensor], out: Tensor
) -> tuple[list[int], list[int]] | None:
    """The axes of ``out`` along which ``x`` was broadcast, if the static shapes decide it.

    Returns ``(dropped, kept)``: output axes ``x`` lacks (summed away) and axes where ``x``
    has size 1 but the output does not (summed, kept as 1).  None when an unknown
    dimension leaves it open (e.g. ``x`` and another input both of unknown size there).
    """
    xd, od = x.shape.dims, out.shape.dims
    if xd is None or od is None or any(t.shape.dims is None for t in others):
        return None
    n, k = len(od), len(xd)
    dropped, kept = list(range(n - k)), []
    for i in range(n - k, n):
        xi, oi = xd[i - (n - k)], od[i]
        if (xi == oi and xi is not None) or (xi is not None and xi != 1):
            continue  # x's size there is the output's
        if xi == 1:
            if oi is None:
                return None  # 1 against an unknown size: broadcast or not, only data says
            kept.append(i)
            continue
        # x's size is unknown: it is the output's when no other input can set that axis.
        for t in others:
            j = i - (n - t.shape.rank)  # type: ignore[operator]
            if j >= 0 and t.shape.dims[j] != 1:  # type: ignore[index]
                return None
    return dropped, kept


def unbroadcast(grad: Tensor, x: Tensor, others: Sequence[Tensor] = ()) -> Tensor:
    """Sum ``grad`` over the axes along which ``x`` was broadcast, back to ``x``'s shape.

    ``others`` are the op's other inputs: with them the axes are usually known statically
    (``[None, 64] + [64]``), and the gradient costs one Sum or nothing.  Otherwise the axes
    come from ``BroadcastGradientArgs`` at run time, as in TF.
    """
    gd = grad.shape.dims
    if gd is not None and gd == x.shape.dims and None not in gd:
        return grad  # same static shape: nothing was broadcast
    axes = static_broadcast_axes(x, others, grad) if others else None
    if axes is None and grad.shape.is_fully_defined() and x.shape.is_fully_defined():
        dropped, _ = reduction_axes(x.shape.dims, grad.shape.dims)  # type: ignore[arg-type]
        axes = [], dropped  # every axis is known: sum them all, reshape below
    if axes is not None:
        dropped, kept = axes
        if kept:
            grad = reduce("Sum", grad, kept, keep_dims=True)
        if dropped:
            grad = reduce("Sum", grad, dropped)
        gs = grad.shape
        if gs.dims != x.shape.dims and (
            gs.rank != x.shape.rank or not gs.is_compatible_with(x.shape)
        ):
            grad = _reshape(
                grad, constant(x.shape.dims, dt.int32) if x.shape.is_fully_defined() else _shape(x)
            )
        return grad
    rx, _ = (o for o in apply_op("BroadcastGradientArgs", [_shape(x), _shape(grad)]).outputs)
    return _reshape(reduce("Sum", grad, rx), _shape(x))


# The ops un-broadcasting needs, applied by type as their public functions in ops.array and
# ops.reduction apply them (this module imports no sibling).


def reduce(op_type: str, x: Tensor, axes: Any = None, keep_dims: bool = False) -> Tensor:
    """``op_type`` (``Sum``, ``Prod``, ...) of ``x`` over ``axes``, all axes when None: for
    the families below the reduction family, whose ``reduce_*`` take TF's full arguments."""
    if axes is None:
        rank = x.shape.rank
        if rank is None:
            n = apply_op1("Rank", [x])
            axes = apply_op1("Range", [constant(0), n, constant(1)], {"Tidx": dt.int32})
        else:
            axes = constant(list(range(rank)), dt.int32)
    elif not isinstance(axes, Tensor):
        axes = constant(axes, dt.int32)
    return apply_op1(op_type, [x, axes], {"keep_dims": keep_dims})


def _reshape(x: Tensor, shape: Tensor) -> Tensor:
    return apply_op1("Reshape", [x, shape])


def _shape(x: Tensor) -> Tensor:
    """A constant when the shape is static in a graph (eager shapes are always values)."""
    if x.shape.is_fully_defined() and not x.graph.eager:
        return constant(x.shape.as_list(), dt.int32, name="Shape")
    return apply_op1("Shape", [x], {"out_type": dt.int32})


def wanted(op: Any, *makers: Callable[[], Any]) -> tuple[Any, ...]:
    """Input i's gradient from ``makers[i]()``, built only if the backward pass needs it.

    Rules use it to honour ``op.skip_input_indices``: the gradient of ``x * 1.01`` with
    respect to the constant is never built.
    """
    skip = getattr(op, "skip_input_indices", None) or ()
    return tuple(None if i in skip else make() for i, make in enumerate(makers))


def binary_grad(op_type: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a broadcasting binary op's rule; its results are un-broadcast here."""

    def decorate(rule: Callable[..., Any]) -> Callable[..., Any]:
        def grad_fn(op: Any, grad: Tensor) -> list[Tensor | None]:
            grads = rule(op, grad)
            ins, skip = op.inputs, op.skip_input_indices or ()
            return [
                None if g is None or i in skip else unbroadcast(g, x, ins[:i] + ins[i + 1 :])
                for i, (g, x) in enumerate(zip(grads, ins))
            ]

        grad_fn.__name__ = rule.__name__
        grad_fn.__doc__ = rule.__doc__
        RegisterGradient(op_type)(grad_fn)
        return rule

    return decorate
