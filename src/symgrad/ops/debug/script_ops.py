"""``tf.numpy_function`` and ``tf.compat.v1.py_func``: a Python function of NumPy arrays
as an op (op types ``PyFunc``, and ``PyFuncStateless`` for ``stateful=False``).

Eagerly TF calls the function at once, on ``np.array`` copies of the inputs, and returns
what it gave as tensors (``Tout`` is not read).  In a graph or a ``function`` it is one
op, with outputs of ``Tout``'s dtypes and unknown shapes, whose kernel calls the function
each time the op runs and checks what it returned as TF's kernel does: the count, then
each value's dtype, with TF's texts; an exception the function raises becomes TF's error
for its class, its text the exception and its traceback.  ``PyFunc`` is stateful (in a
``function`` it runs on every call, in program order); ``PyFuncStateless`` is pure, as in
TF: a plan may fold it (constant inputs: it runs once) and drops it when nothing reads
it.  Neither is differentiable: TF declares both ``NotDifferentiable`` (None gradients).

``tf.py_function`` (``EagerPyFunc``, ``autodiff/py_function.py``) shares the rest: the
token each call takes, ``Tout`` read into dtypes, the argument checks and decorator form,
and how an exception becomes TF's error.
"""

from __future__ import annotations

import functools
import itertools
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import nest
from symgrad.core.dtypes import DType, as_dtype
from symgrad.core.errors import (
    InternalError,
    InvalidArgumentError,
    OpError,
    OutOfRangeError,
    ResourceExhaustedError,
    UnimplementedError,
    UnknownError,
)
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.core.op_registry import Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.core import convert_to_tensor

_TOKENS = itertools.count()


def next_token() -> bytes:
    """TF's ``FuncRegistry`` token, ``pyfunc_<n>``: one per op made, counted per process."""
    return b"pyfunc_%d" % next(_TOKENS)


def check_args(
    script_op: Callable[..., Any], op_name: str, func: Any, inp: Any, Tout: Any, **kwargs: Any
) -> Any:
    """TF's ``_check_args_and_maybe_make_decorator``: the decorator when ``func`` is None."""
    if Tout is None:
        raise TypeError(
            "Missing required argument: 'Tout'\n"
            f"  If using {op_name} as a decorator, set `Tout`\n"
            "  **by name** above the function:\n"
            f"  `@{op_name}(Tout=tout)`"
        )
    if func is None:
        if inp is not None:
            raise TypeError(
                f"Don't set the `inp` argument when using {op_name} as a decorator (`func=None`)."
            )

        def decorator(fun: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(fun)
            def wrapper(*args: Any) -> Any:
                return script_op(fun, inp=args, Tout=Tout, **kwargs)

            return wrapper

        return decorator
    if inp is None:
        raise TypeError(
            "Missing argument `inp`:\n"
            "  You must set the `inp` argument (the list of arguments to the\n"
            f"  function), unless you use `{op_name}` as a decorator(`func=None`)."
        )
    return None


def output_dtypes(Tout: Any) -> tuple[list[DType], bool]:
    """``Tout`` as a list of dtypes, and whether it was a list (a single dtype: one tensor
    is returned).  A ``TensorSpec`` stands for its dtype, as in TF's ``py_function``."""
    is_list = isinstance(Tout, list | tuple)
    return [_as_dtype(t) for t in (Tout if is_list else [Tout])], is_list


def _as_dtype(t: Any) -> DType:
    spec_dtype = getattr(t, "dtype", None)
    return spec_dtype if isinstance(spec_dtype, DType) else as_dtype(t)


def check_callable(func: Any) -> None:
    if not callable(func):
        raise ValueError(
            f"Expected func to be callable. Received func={func} of type {type(func)}."
        )


# TF's C++ py_func maps Python's classes only: an OpError the function raised (TF's own
# InvalidArgumentError, a ValueError in symgrad) is an UnknownError, as any other class.
_KINDS: tuple[tuple[Any, type[OpError]], ...] = (
    (OpError, UnknownError),
    (ValueError | TypeError, InvalidArgumentError),
    (StopIteration, OutOfRangeError),
    (MemoryError, ResourceExhaustedError),
    (NotImplementedError, UnimplementedError),
)


def python_error(e: Exception) -> OpError:
    """TF's error for an exception the Python function raised: the kind by the
    exception's class, the text its first line, then the traceback as Python prints it."""
    kind = next((k for cls, k in _KINDS if isinstance(e, cls)), UnknownError)
    lines = traceback.format_exception(type(e), e, e.__traceback__)
    return kind(f"{type(e).__name__}: {e}\n" + "\n".join(lines) + "\n")


def call_python(fn: Callable[[], Any]) -> Any:
    """``fn()``, an exception it raises made TF's error (the refusals of ``_as_result``,
    TF's own errors, raised as they are)."""
    try:
        return fn()
    except _Refused as e:
        raise e.error from None
    except Exception as e:
        raise python_error(e) from e


class _Refused(Exception):
    """A returned value TF's runtime refuses, with its error (not the function's)."""

    def __init__(self, error: OpError) -> None:
        self.error = error


def check_count(token: bytes, n: int, dtypes: Sequence[DType]) -> None:
    if n != len(dtypes):
        raise InvalidArgumentError(
            f"{token.decode()} returns {n} values, but expects to see {len(dtypes)} values."
        )


def with_eager_text(e: OpError, op_type: str, name: str | None) -> OpError:
    """The error as TF's eager runtime words it: the op type and the name given added."""
    return type(e)(f"{e.message} [Op:{op_type}] name: {name or ''}", e.op)


# -- the kernel: TF's FuncRegistry.__call__ and the C++ checks of what it returns

_TF_NAMES = {"float16": "half", "float32": "float", "float64": "double"}
_UNSUPPORTED = {
    "M": "NPY_DATETIME",
    "m": "NPY_TIMEDELTA",
    "V": "NPY_VOID",
    "g": "NPY_LONGDOUBLE",
    "G": "NPY_CLONGDOUBLE",
}


def _type_name(d: np.dtype) -> str:
    """TF's ``DataTypeString`` of the tensor a NumPy array becomes."""
    return "string" if d.kind in "SUO" else _TF_NAMES.get(d.name, d.name)


def _as_result(x: Any) -> np.ndarray:
    """One returned value as an array, refused as TF's ``NdarrayToTensor`` refuses it."""
    a = np.asarray(x.numpy() if isinstance(x, Tensor) else x)
    if a.dtype.char in _UNSUPPORTED:
        raise _Refused(InternalError(f"Unsupported numpy type: {_UNSUPPORTED[a.dtype.char]}"))
    if a.dtype.kind == "O":
        for v in a.flat:
            if not isinstance(v, bytes | str):
                raise _Refused(InternalError(f"Unsupported object type {type(v).__name__}"))
    return a


def _results(ret: Any) -> list[np.ndarray]:
    """What the function returned as arrays: a list or tuple, one each; None, none."""
    if isinstance(ret, bytes):
        ret = [ret]
    if isinstance(ret, list | tuple):
        return [_as_result(x) for x in ret]
    a = _as_result(ret) if ret is not None else None
    return [] if a is None else [a]


def _py_func_kernel(
    *arrays: Any, func: Callable[..., Any], token: bytes, Tin: Any, Tout: list[DType]
) -> Any:
    values = call_python(lambda: _results(func(*[np.array(a) for a in arrays])))
    check_count(token, len(values), Tout)
    for i, (v, d) in enumerate(zip(values, Tout, strict=True)):
        if v.dtype != d.np:
            raise InvalidArgumentError(
                f"{i}-th value returned by {token.decode()} is {_type_name(v.dtype)}, "
                f"but expects {_type_name(np.dtype(d.np))}"
            )
    outs = [np.array(v) for v in values]  # the function may keep and change what it gave
    return outs[0] if len(outs) == 1 else tuple(outs)


def py_func_infer(inputs: Sequence[Tensor], *, Tout: list[DType], **_: Any) -> list[Spec]:
    return [(TensorShape(None), d) for d in Tout]  # TF: shape inference cannot see inside


_NO_CASES = (
    "calls the user's Python function; tests/ops/test_script_ops.py checks TF's values, "
    "errors and None gradients eagerly, in a function, in a Session and in tf.data"
)
_NO_BATCH = "calls the user's Python function on whole tensors (jacobians fall back to the loop)"

PY_FUNC = register_op(
    "PyFunc",
    py_func_infer,
    _py_func_kernel,
    stateful=True,
    pure=False,
    batch=_NO_BATCH,
    no_cases=_NO_CASES,
)
PY_FUNC.no_gradient()
PY_FUNC_STATELESS = register_op(
    "PyFuncStateless", py_func_infer, _py_func_kernel, batch=_NO_BATCH, no_cases=_NO_CASES
)
PY_FUNC_STATELESS.fast = False  # the eager fast path may run a kernel twice: not the user's
PY_FUNC_STATELESS.no_gradient()


def make_op(
    op_type: str,
    func: Any,
    inp: Any,
    dtypes: list[DType],
    attrs: dict[str, Any],
    name: Any,
    token: bytes | None = None,
) -> Operation:
    """The op of a script call, its inputs converted (a Variable read) and its token
    (TF's op attrs ``token``, ``Tin`` and ``Tout``; ``func`` the function called)."""
    tensors = [convert_to_tensor(x) for x in inp]
    token = next_token() if token is None else token
    attrs = {"func": func, "token": token, "Tin": [t.dtype for t in tensors], **attrs}
    return apply_op(op_type, tensors, {**attrs, "Tout": dtypes}, name)


def py_func_common(
    func: Any, inp: Any, Tout: Any, stateful: bool = True, name: str | None = None
) -> Any:
    """``numpy_function``'s and ``py_func``'s body, as TF's: eagerly a plain call."""
    if get_default_graph().eager:
        result = [
            x if x is None else convert_to_tensor(x)
            for x in nest.flatten(func(*map(np.array, inp)))
        ]
        return result[0] if len(result) == 1 else result
    check_callable(func)
    dtypes, is_list = output_dtypes(Tout)
    op = make_op("PyFunc" if stateful else "PyFuncStateless", func, inp, dtypes, {}, name)
    if not dtypes:
        return op
    return op.outputs if is_list else op.outputs[0]


def numpy_function(
    func: Any = None, inp: Any = None, Tout: Any = None, stateful: bool = True, name: Any = None
) -> Any:
    """Wrap ``func`` (NumPy arrays in, NumPy arrays out) as an op: called at once eagerly,
    each time the op runs in a graph or ``function``; not differentiable.  With
    ``func=None``, a decorator (``@tf.numpy_function(Tout=tf.float32)``).

    >>> import numpy as np
    >>> import symgrad as tf
    >>> @tf.function
    ... def f(x):
    ...     return tf.numpy_function(np.sinh, [x], tf.float32)
    >>> print(f(tf.constant([0.0, 1.0])))
    symgrad.Tensor([0.        1.1752012], shape=(2,), dtype=float32)
    """
    decorator = check_args(
        numpy_function, "tf.numpy_function", func, inp, Tout, stateful=stateful, name=name
    )
    if decorator is not None:
        return decorator
    return py_func_common(func, inp, Tout, stateful=stateful, name=name)


def py_func(func: Any, inp: Any, Tout: Any, stateful: bool = True, name: Any = None) -> Any:
    """``tf.compat.v1.py_func``: ``numpy_function`` with TF1's signature."""
    return py_func_common(func, inp, Tout, stateful, name=name)
