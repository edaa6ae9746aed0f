"""``tf.debugging``: run-time checks (``assert_*``, ``check_numerics``, ``Assert``) and the
NaN locator behind TF's names (``enable_check_numerics``).

Each assert follows TF's ``check_ops``: eagerly it checks at once and raises TF's error
with TF's text (``InvalidArgumentError`` for values, ``ValueError`` for a static rank or
shape, ``TypeError`` for a dtype); in a graph or a ``function`` a check whose answer is
known from static shapes, dtypes or constants is made at once, and the others become an
``Assert`` op that runs with the step (put it in ``control_dependencies``, or let a
``function`` run it in program order) and fails with TF's graph text.  The TF1 signatures
(``data=`` before ``summarize``) are in ``symgrad.compat.v1.debugging``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core import hooks
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.core.op_registry import constant_value
from symgrad.ops.array import shape as shape_ops
from symgrad.ops.control import no_op
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.debug.assertion import Assert, tf_text
from symgrad.ops.debug.assertion import check_numerics as check_numerics
from symgrad.ops.math import elementwise as math_ops
from symgrad.ops.reduction.reduce import reduce_all, reduce_any

Result = Operation | None

__all__ = [
    "Assert",
    "assert_all_finite",
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_integer",
    "assert_less",
    "assert_less_equal",
    "assert_near",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_scalar",
    "assert_shapes",
    "assert_type",
    "check_numerics",
    "disable_check_numerics",
    "enable_check_numerics",
    "is_numeric_tensor",
]


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Raise ``InvalidArgumentError`` at the first op whose float output has a NaN or Inf
    (the NaN locator of ``symgrad.tools``, which provides it)."""
    hooks.hook("enable_check_numerics")(stack_height_limit, path_length_limit)


def disable_check_numerics() -> None:
    """Undo :func:`enable_check_numerics`."""
    hooks.hook("disable_check_numerics")()


def _eager(*ts: Tensor) -> bool:
    return get_default_graph().eager and all(t.has_value() for t in ts)


def _prefix(message: str | None) -> str:
    return f"{message}.  " if message else ""


def _described(x: Tensor) -> str:
    """TF's name for x in a message: its shape and dtype eagerly, else its name."""
    if _eager(x):
        return f"shape={x.shape} dtype={x.dtype.name}"
    return x.name


def _pretty(item: Any, summarize: int) -> str:
    """TF's eager ``_pretty_print``: a tensor as a list of its first elements' texts."""
    if isinstance(item, Tensor):
        arr = item.numpy()
        if np.ndim(arr) == 0:
            return str(arr)
        flat = np.asarray(arr).reshape(-1)
        items = [str(v) for v in flat[:summarize]]
        return str(items + (["..."] if len(items) < flat.size else []))
    return str(item)


def _pair(x: Any, y: Any) -> tuple[Tensor, Tensor]:
    x = convert_to_tensor(x)
    y = y if isinstance(y, Tensor) else convert_to_tensor(y, dtype=x.dtype)
    return x, y


# --------------------------------------------------------------------------------------
# Comparisons


def _binary(
    sym: str,
    test: Callable[[Any, Any], Any],
    x: Any,
    y: Any,
    data: Any,
    summarize: int | None,
    message: str | None,
) -> Result:
    x, y = _pair(x, y)
    if _eager(x, y):
        passed = np.asarray(test(x.numpy(), y.numpy()))
        if passed.all():
            return None
        n = 3 if summarize is None else (10**9 if summarize < 0 else summarize)
        items = list(data) if data is not None else _failed_data(sym, x, y, n, passed)
        items = [message, *items] if message is not None else items
        raise InvalidArgumentError("\n".join(_pretty(d, n) for d in items))
    if data is None:
        data = [f"Condition x {sym} y did not hold element-wise:"]
        data += [f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
    data = [message, *data] if message is not None else list(data)
    xs, ys = constant_value(x), constant_value(y)
    if xs is not None and ys is not None and not np.all(test(xs, ys)):
        static = [constant_value(d) if isinstance(d, Tensor) else d for d in data]
        raise InvalidArgumentError("\n".join(str(d) for d in static))
    return Assert(reduce_all(_TESTS[sym](x, y)), data, summarize=summarize)


def _failed_data(sym: str, x: Tensor, y: Tensor, n: int, passed: np.ndarray) -> list[Any]:
    """TF's eager ``_make_assert_msg_data``: where x and y differ, and their first values."""
    xv, yv = np.asarray(x.numpy()), np.asarray(y.numpy())
    data: list[Any] = [f"Condition x {sym} y did not hold."]
    if n <= 0:
        return data
    if xv.shape == yv.shape and xv.ndim:
        failed = ~passed
        indices = np.argwhere(failed)
        k = min(n, indices.shape[0])
        data += [f"Indices of first {k} different values:", indices[:k]]
        data += ["Corresponding x values:", xv[failed].reshape(-1)[:k]]
        data += ["Corresponding y values:", yv[failed].reshape(-1)[:k]]
    xf, yf = xv.reshape(-1), yv.reshape(-1)
    data += [f"First {min(xf.size, n)} elements of x:", xf[:n]]
    data += [f"First {min(yf.size, n)} elements of y:", yf[:n]]
    return data


_TESTS: dict[str, Callable[[Any, Any], Any]] = {
    "==": math_ops.equal,
    "!=": math_ops.not_equal,
    "<": math_ops.less,
    "<=": math_ops.less_equal,
    ">": math_ops.greater,
    ">=": math_ops.greater_equal,
}
_NP: dict[str, Callable[[Any, Any], Any]] = {
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


def _comparison(sym: str, doc: str) -> Callable[..., Result]:
    def check(
        x: Any, y: Any, message: str | None = None, summarize: int | None = None, name: Any = None
    ) -> Result:
        return _binary(sym, _NP[sym], x, y, None, summarize, message)

    check.__doc__ = f"Assert ``{doc}`` element-wise (broadcasting)."
    return check


assert_equal = _comparison("==", "x == y")
assert_less = _comparison("<", "x < y")
assert_less_equal = _comparison("<=", "x <= y")
assert_greater = _comparison(">", "x > y")
assert_greater_equal = _comparison(">=", "x >= y")
for _f, _n in [
    (assert_equal, "assert_equal"),
    (assert_less, "assert_less"),
    (assert_less_equal, "assert_less_equal"),
    (assert_greater, "assert_greater"),
    (assert_greater_equal, "assert_greater_equal"),
]:
    _f.__name__ = _f.__qualname__ = _n


def assert_none_equal(
    x: Any, y: Any, summarize: int | None = None, message: str | None = None, name: Any = None
) -> Result:
    """Assert ``x != y`` element-wise (TF 2 puts ``summarize`` before ``message`` here)."""
    return _binary("!=", np.not_equal, x, y, None, summarize, message)


def _sign_check(sym: str, text: str) -> Callable[..., Result]:
    def check(
        x: Any, message: str | None = None, summarize: int | None = None, name: Any = None
    ) -> Result:
        return sign_check(sym, text, x, None, summarize, message)

    return check


def sign_check(
    sym: str, text: str, x: Any, data: Any, summarize: int | None, message: str | None
) -> Result:
    """``x sym 0`` as TF writes it: 0 compared with x, x named by shape or name."""
    x = convert_to_tensor(x)
    if data is None:
        data = [_prefix(message), *text.format(x=_described(x)).split("\n")]
        data.append(x)
    zero = convert_to_tensor(0, dtype=x.dtype)
    flipped = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}[sym]
    return _binary(flipped, _NP[flipped], zero, x, data, summarize, None)


assert_positive = _sign_check(">", "Condition x > 0 did not hold element-wise:\nx ({x}) = ")
assert_negative = _sign_check("<", "Condition x < 0 did not hold element-wise:\nx ({x}) = ")
assert_non_negative = _sign_check(">=", "Condition x >= 0 did not hold element-wise:\nx ({x}) = ")
# TF's text lacks the line break here (two string literals joined)
assert_non_positive = _sign_check("<=", "Condition x <= 0 did not hold element-wise:x ({x}) = ")
for _f, _n in [
    (assert_positive, "assert_positive"),
    (assert_negative, "assert_negative"),
    (assert_non_negative, "assert_non_negative"),
    (assert_non_positive, "assert_non_positive"),
]:
    _f.__name__ = _f.__qualname__ = _n
    _f.__doc__ = f"Assert ``{_n[7:].replace('_', '-')}`` element-wise."


def assert_near(
    x: Any,
    y: Any,
    rtol: Any = None,
    atol: Any = None,
    message: str | None = None,
    summarize: int | None = None,
    name: Any = None,
) -> Result:
    """Assert ``|x - y| <= atol + rtol * |y|`` element-wise (default tolerances: 10 eps)."""
    return near(x, y, rtol, atol, None, summarize, message)


def near(
    x: Any, y: Any, rtol: Any, atol: Any, data: Any, summarize: int | None, message: Any
) -> Result:
    x, y = _pair(x, y)
    eps = float(np.finfo(x.dtype.np).eps) if x.dtype.is_floating else 0.0
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=x.dtype)
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=x.dtype)
    if data is None:
        data = [
            message or "",
            f"x and y not equal to tolerance rtol = {tf_text(rtol)}, atol = {tf_text(atol)}",
            f"x ({_described(x)}) = ",
            x,
            f"y ({_described(y)}) = ",
            y,
        ]
    ok = math_ops.abs(x - y) <= atol + rtol * math_ops.abs(y)
    return Assert(reduce_all(ok), data, summarize=summarize)


# --------------------------------------------------------------------------------------
# Static checks: ranks, shapes, dtypes


def _static_ok() -> Result:
    return None if get_default_graph().eager else no_op("static_checks_determined_all_ok")


def _rank_check(
    x: Any,
    what: str,
    ok: Callable[[int], bool],
    dynamic: Callable[[Tensor], Tensor],
    shown: Any,
    message: str | None,
) -> Result:
    """A rank known statically is checked at once; else an Assert on ``dynamic(rank)``."""
    x = convert_to_tensor(x)
    name = "" if _eager(x) else x.name
    rank = x.shape.rank
    if rank is not None:
        if not ok(rank):
            raise ValueError(
                f"{_prefix(message)}Tensor {name} must have rank {what}.  Received rank "
                f"{rank}, shape {x.shape}"
            )
        return _static_ok()
    data = [message or "", f"Tensor {x.name} must have rank", shown]
    return Assert(dynamic(shape_ops.rank(x)), [*data, "Received shape: ", shape_ops.shape(x)])


def assert_rank(x: Any, rank: int, message: str | None = None, name: Any = None) -> Result:
    """Assert that ``x`` has rank ``rank`` (statically when the rank is known)."""
    return _rank_check(
        x, f"{rank}", lambda r: r == rank, lambda r: math_ops.equal(r, rank), rank, message
    )


def assert_rank_at_least(x: Any, rank: int, message: str | None = None, name: Any = None) -> Result:
    """Assert that ``x`` has rank ``rank`` or more."""
    return _rank_check(
        x,
        f"at least {rank}",
        lambda r: r >= rank,
        lambda r: math_ops.greater_equal(r, rank),
        rank,
        message,
    )


def assert_rank_in(x: Any, ranks: Any, message: str | None = None, name: Any = None) -> Result:
    """Assert that the rank of ``x`` is one of ``ranks``."""
    ranks = tuple(int(r) for r in ranks)

    def dynamic(r: Tensor) -> Tensor:
        return reduce_any(math_ops.equal(r, convert_to_tensor(list(ranks), dtype=r.dtype)))

    return _rank_check(x, f"in {ranks}", lambda r: r in ranks, dynamic, list(ranks), message)


def assert_scalar(tensor: Any, message: str | None = None, name: Any = None) -> None:
    """``ValueError`` unless ``tensor`` is statically a scalar."""
    scalar(tensor, message)


def scalar(tensor: Any, message: str | None) -> Tensor:
    """``tensor`` if it is statically a scalar (TF1's ``assert_scalar`` returns it)."""
    t = convert_to_tensor(tensor)
    rank = t.shape.rank
    if rank is None or rank != 0:
        where = "" if _eager(t) else f" for {t.name}"
        raise ValueError(f"{_prefix(message)}Expected scalar shape{where}, saw shape: {t.shape}.")
    return t


def assert_type(tensor: Any, tf_type: Any, message: str | None = None, name: Any = None) -> None:
    """``TypeError`` unless ``tensor`` has dtype ``tf_type``."""
    t = convert_to_tensor(tensor)
    want = dt.as_dtype(tf_type)
    if t.dtype is not want:
        who = "tensor" if _eager(t) else t.name
        raise TypeError(f"{_prefix(message)}{who} must be of type {want!r}; got {t.dtype!r}")


def assert_integer(x: Any, message: str | None = None, name: Any = None) -> None:
    """``TypeError`` unless ``x`` has an integer dtype."""
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        who = "tensor" if _eager(t) else t.name
        raise TypeError(
            f'{_prefix(message)}Expected "x" to be integer type.  Found: {who} of dtype {t.dtype}'
        )


def assert_shapes(
    shapes: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: Any = None,
) -> Result:
    """Assert that tensors have the ranks and sizes named by ``shapes``: pairs
    ``(tensor, spec)`` where each entry of ``spec`` is a size or a symbol, equal symbols
    meaning equal sizes; a leading ``'...'`` allows any leading axes.  Checked against
    static shapes (an unknown size is not checked)."""
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    bound: dict[str, tuple[int, Tensor, int]] = {}
    for tensor, spec in pairs:
        x = convert_to_tensor(tensor)
        spec = list(spec)
        if x.shape.rank is None:
            continue
        full = x.shape.as_list()
        dims = full
        if spec[:1] == ["..."]:
            spec = spec[1:]
            dims = dims[len(dims) - len(spec) :] if len(spec) <= len(dims) else dims
        else:
            assert_rank(x, len(spec), message=message)
        offset = len(full) - len(dims)
        for i, (want, got) in enumerate(zip(spec, dims, strict=False)):
            _check_size(x, offset + i, want, got, bound, message)
    return _static_ok()


def _check_size(
    x: Tensor,
    axis: int,
    want: Any,
    got: int | None,
    bound: dict[str, tuple[int, Tensor, int]],
    message: str | None,
) -> None:
    if got is None or want in (".", None):
        return
    if isinstance(want, str):
        if want not in bound:
            bound[want] = (got, x, axis)
            return
        size, owner, owner_axis = bound[want]
        source = f"Specified by tensor {_described(owner)} dimension {owner_axis}"
    else:
        size, source = int(want), "Specified explicitly"
    if got != size:
        raise ValueError(
            f"{_prefix(message)}{source}.  Tensor {_described(x)} dimension {axis} must "
            f"have size {size}.  Received size {got}, shape {x.shape}"
        )


def assert_all_finite(x: Any, message: str, name: str | None = None) -> Tensor:
    """``x``, after failing with ``InvalidArgumentError`` on a NaN or an Inf."""
    return check_numerics(x, message, name=name)


def is_numeric_tensor(tensor: Any) -> bool:
    """Whether ``tensor`` is a Tensor of a number type (not bool)."""
    return isinstance(tensor, Tensor) and not tensor.dtype.is_bool
