"""``tf.Assert``: fail at run time, with a summary of some tensors, when a condition is false.

In a graph it is an ``Assert`` op with no outputs (stateful, so that it runs when a
``control_dependencies`` block or a fetch names it); its kernel raises TF's
``InvalidArgumentError("assertion failed: [msg] [1 2 3...]")``, each datum summarised as
TF's ``Tensor::SummarizeValue`` does (the first ``summarize`` elements, nested brackets
for higher ranks, ``...`` where it stops).  Eagerly it checks at once, with TF's eager
text.  ``case`` uses it for TF's run-time checks (no predicate true, ``exclusive``).
Python strings among the data are kept in the op's attrs: symgrad has no string tensors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core.cases import Case, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.core.op_registry import Spec, apply_op, apply_op1, register_op
from symgrad.ops.core import convert_to_tensor


def _assert_infer(inputs: Sequence[Tensor], **_: Any) -> list[Spec]:
    if inputs[0].dtype.name != "bool":
        raise TypeError(
            f"Input 'condition' of 'Assert' Op has type {inputs[0].dtype.name} that does not "
            "match expected type of bool."
        )
    return []


def _element(x: Any) -> str:
    """One element as TF's C++ prints it: bools as 1/0, floats in the shortest of
    %.6g/%.9g (float32) or %.15g/%.17g (float64) that reads back the same."""
    if isinstance(x, np.bool_):
        return str(int(x))
    if isinstance(x, np.floating):
        short, long = ("%.6g", "%.9g") if x.dtype.itemsize <= 4 else ("%.15g", "%.17g")
        text = short % x
        return text if x.dtype.type(text) == x else long % x
    return str(x)


def _summarize(a: np.ndarray, limit: int) -> str:
    """``Tensor::SummarizeValue``: at most ``limit`` elements, nested brackets per axis."""
    if a.ndim == 0:
        return _element(a[()])
    flat, shape, done, out = a.reshape(-1), a.shape, [0], []

    def dim(d: int) -> None:
        if done[0] >= limit:
            return
        if d == len(shape) - 1:
            for i in range(shape[d]):
                if done[0] >= limit:
                    out.append("..." if d else "")
                    return
                out.append((" " if i else "") + _element(flat[done[0]]))
                done[0] += 1
            return
        for _ in range(shape[d]):
            opened = done[0] < limit
            out.append("[" if opened else "")
            dim(d + 1)
            out.append("]" if opened else "")

    dim(0)
    return "".join(out) + ("..." if flat.size > limit else "")


def _assert_kernel(cond: np.ndarray, *data: np.ndarray, texts: Any, summarize: int) -> tuple:
    if bool(cond):
        return ()
    values = iter(data)
    limit = summarize if summarize >= 0 else max((d.size for d in data), default=0)
    parts = [t if t is not None else _summarize(next(values), limit) for t in texts]
    raise InvalidArgumentError("assertion failed: " + " ".join(f"[{p}]" for p in parts))


ASSERT = register_op(
    "Assert",
    _assert_infer,
    _assert_kernel,
    stateful=True,
    pure=False,
    batch="an assertion: a side effect with no output to batch",
    no_cases="no outputs to compare; tests/ops/test_assertion.py checks its texts against "
    "TF's, eagerly and in a Session",
)
ASSERT.no_gradient()


def _eager_text(value: np.ndarray, summarize: int) -> str:
    """TF's eager summary: the first ``summarize`` elements, flat, ', '-separated."""
    if value.ndim == 0:
        return str(value[()]) if summarize else ""
    flat = value.reshape(-1)
    items = [str(x) for x in (flat if summarize < 0 else flat[:summarize])]
    return ", ".join(items + (["..."] if len(items) < flat.size else []))


def tf_text(t: Tensor) -> str:
    """``str(t)`` as TF writes it in error texts: ``tf.Tensor(value, shape=..., dtype=...)``
    eagerly, ``Tensor("name", shape=..., dtype=...)`` in a graph (symgrad's own ``str``
    says ``symgrad.Tensor``)."""
    text = str(t).removeprefix("symgrad.")
    return f"tf.{text}" if t.has_value() else text


def Assert(
    condition: Any, data: Any, summarize: int | None = None, name: str | None = None
) -> Operation | None:
    """Fail with ``InvalidArgumentError`` when ``condition`` is false, summarising ``data``
    (a list of tensors and Python strings): at once eagerly (returns None), else when the
    returned ``Assert`` op runs."""
    summarize = 3 if summarize is None else int(summarize)
    cond = convert_to_tensor(condition)
    texts = [d if isinstance(d, str) else None for d in data]
    tensors = [convert_to_tensor(d) for d in data if not isinstance(d, str)]
    attrs = {"texts": tuple(texts), "summarize": summarize}
    if get_default_graph().eager and all(t.has_value() for t in (cond, *tensors)):
        _assert_infer([cond])
        if not bool(cond.eager_value):
            values = iter(tensors)
            shown = [
                repr(t.encode()) if t is not None else _eager_text(next(values).numpy(), summarize)
                for t in texts
            ]
            raise InvalidArgumentError(
                f"Expected '{tf_text(cond)}' to be true. Summarized data: " + "\n".join(shown)
            )
        return None
    return apply_op("Assert", [cond, *tensors], attrs, name or "Assert")


# --------------------------------------------------------------------------------------
# CheckNumerics: the identity that fails on a NaN or an Inf (tf.debugging.check_numerics)


def _check_numerics_kernel(x: np.ndarray, message: str) -> np.ndarray:
    if not np.isfinite(x).all():
        kinds = [k for k, bad in (("Inf", np.isinf(x).any()), ("NaN", np.isnan(x).any())) if bad]
        raise InvalidArgumentError(f"{message} : Tensor had {' and '.join(kinds)} values")
    return x


def _check_numerics_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    x = inputs[0]
    if not x.dtype.is_floating:
        raise TypeError(
            f"input 'tensor' has dtype {x.dtype.name}, expected one of: float16, float32, float64"
        )
    return x.shape, x.dtype


CHECK_NUMERICS = register_op(
    "CheckNumerics",
    _check_numerics_infer,
    _check_numerics_kernel,
    stateful=True,
    pure=False,
    elementwise=True,
    batch=batching.elementwise,  # the batch is checked as a whole
)


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Tensor:
    """``tensor``, after failing with ``InvalidArgumentError`` if it has a NaN or an Inf."""
    t = convert_to_tensor(tensor)
    if not (get_default_graph().eager and t.has_value()):
        return apply_op1("CheckNumerics", [t], {"message": str(message)}, name)
    try:
        return apply_op1("CheckNumerics", [t], {"message": str(message)}, name)
    except InvalidArgumentError as e:
        if e.message.startswith(f"{message} : Tensor had "):
            # TF's eager text adds the op and the name given (and, before, the device
            # symgrad has not: "{{function_node ..._device_/job:localhost/...}} ").
            raise InvalidArgumentError(
                f"{e.message} [Op:CheckNumerics] name: {name or ''}", e.op
            ) from None
        raise


CHECK_NUMERICS.add_cases(
    Case([randn(3, 4)], lambda x: x, lambda x: check_numerics(x, "checked")),
)


@CHECK_NUMERICS.gradient
def _check_numerics_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = check_numerics(g), as TF: a NaN in the gradient fails too (TF's text shows
    the forward message as the bytes of its attr)."""
    message = op.get_attr("message").encode()
    return check_numerics(
        grad, f"Not a number (NaN) or infinity (Inf) values detected in gradient. {message!r}"
    )
