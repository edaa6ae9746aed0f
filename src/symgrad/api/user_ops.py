"""Declare a new op type from a NumPy function: ``symgrad.custom_op``.

TensorFlow needs C++ to add an op type; symgrad needs one call.  The op gets a shape and
dtype rule (so graphs built on placeholders know their static shapes), a NumPy kernel
(run eagerly at top level, or by ``Session.run``), and a TF-style wrapper.  Its gradient
is registered exactly as in TensorFlow, with ``@tf.RegisterGradient("OpType")`` on
``fn(op, grad)`` returning one gradient per input (see docs/custom_ops.md), or with the
``grad=`` argument here.  ``symgrad.test.check_gradient("OpType", *inputs)`` checks it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from symgrad.core import dtypes as dt
from symgrad.core.gradient_registry import RegisterGradient
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.ops.core import convert_n, same_dtype

__all__ = ["custom_op"]

ShapeFn = Callable[..., Any]
DTypeFn = Callable[..., Any]


def custom_op(
    op_type: str,
    kernel: Callable[..., Any],
    shape_fn: ShapeFn | None = None,
    dtype_fn: DTypeFn | None = None,
    *,
    num_outputs: int = 1,
    attrs: dict[str, Any] | None = None,
    grad: Callable[..., Any] | None = None,
    api_name: str | None = None,
) -> Callable[..., Any]:
    """Declare op type ``op_type`` and return its wrapper ``f(*inputs, name=None, **attrs)``.

    * ``kernel(*arrays, **attrs)`` computes the output array (a tuple of ``num_outputs``
      arrays when there are several); it is converted to the declared dtype.
    * ``shape_fn(*shapes, **attrs)`` gets each input's static ``TensorShape`` (sizes may be
      None) and returns the output shape (a tuple/list with None for unknown sizes; a list
      of shapes for several outputs).  Raise ValueError for bad input: the message reaches
      the user prefixed with the op.  Without it, or when an input's rank is unknown, the
      static shape is unknown until the kernel runs.
    * ``dtype_fn(*dtypes, **attrs)`` returns the output dtype(s); by default every input
      must share one dtype and the outputs have it.
    * ``attrs`` declares the attributes and their defaults; the wrapper accepts them as
      keywords and gradient functions read them with ``op.get_attr(name)``.
    * ``grad(op, *grads)`` registers the gradient now (same as ``@RegisterGradient``).

    A second declaration of the same op type raises KeyError, as for gradients.

    >>> import numpy as np, symgrad as tf
    >>> cube = tf.custom_op("DocCube", lambda x: x ** 3, shape_fn=lambda s: s)
    >>> _ = tf.RegisterGradient("DocCube")(lambda op, g: g * 3 * tf.square(op.inputs[0]))
    >>> cube(tf.constant([1.0, 2.0])).numpy()
    array([1., 8.], dtype=float32)
    >>> x = tf.constant(2.0)
    >>> float(tf.gradients(cube(x), x)[0].numpy())
    12.0
    """
    defaults = dict(attrs or {})
    register_op(
        op_type, _infer(shape_fn, dtype_fn, num_outputs), _kernel(kernel, num_outputs, op_type)
    )
    if grad is not None:
        RegisterGradient(op_type)(grad)

    def wrapper(*inputs: Any, name: str | None = None, **kwargs: Any) -> Any:
        unknown = sorted(set(kwargs) - set(defaults))
        if unknown:
            raise TypeError(
                f"{wrapper.__name__}() got unexpected attribute(s) {unknown}; "
                f"op type '{op_type}' declares {sorted(defaults) or 'none'}"
            )
        tensors = convert_n(inputs)
        op = apply_op(op_type, tensors, {**defaults, **kwargs}, name)
        return op.output(0) if num_outputs == 1 else op.outputs

    wrapper.__name__ = api_name or _snake(op_type)
    wrapper.__doc__ = f"User op ``{op_type}`` (declared with symgrad.custom_op)."
    wrapper.op_type = op_type  # type: ignore[attr-defined]
    return wrapper


def _infer(shape_fn: ShapeFn | None, dtype_fn: DTypeFn | None, n: int) -> Callable[..., list[Spec]]:
    def infer(inputs: Sequence[Tensor], **attrs: Any) -> list[Spec]:
        if dtype_fn is not None:
            dtypes = _per_output(dtype_fn(*[t.dtype for t in inputs], **attrs), n, "dtype_fn")
            out_dtypes = [dt.as_dtype(d) for d in dtypes]
        else:
            if not inputs:
                raise TypeError("an op without inputs needs a dtype_fn")
            out_dtypes = [same_dtype(inputs, [f"input {i}" for i in range(len(inputs))])] * n
        shapes: list[Any] = [None] * n
        if shape_fn is not None and all(t.shape.rank is not None for t in inputs):
            got = shape_fn(*[t.shape for t in inputs], **attrs)
            shapes = [got] if n == 1 else _per_output(got, n, "shape_fn")
        return [
            (as_shape(s) if s is not None else TensorShape(None), d)
            for s, d in zip(shapes, out_dtypes, strict=True)
        ]

    return infer


def _per_output(value: Any, n: int, what: str) -> list[Any]:
    values = list(value) if isinstance(value, list | tuple) else [value]
    if len(values) != n:
        raise TypeError(f"{what} returned {len(values)} value(s) for an op with {n} output(s)")
    return values


def _kernel(kernel: Callable[..., Any], n: int, op_type: str) -> Callable[..., Any]:
    def run(*arrays: Any, **attrs: Any) -> Any:
        out = kernel(*arrays, **attrs)
        if n > 1 and (not isinstance(out, tuple | list) or len(out) != n):
            raise ValueError(f"the kernel of '{op_type}' must return a tuple of {n} arrays")
        return tuple(out) if n > 1 else out

    return run


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()
