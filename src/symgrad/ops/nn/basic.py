"""Neural-network ops: Relu, Softmax, LogSoftmax, Softplus, L2Loss and the cross entropies.

The softmax family works on the last axis, as TF's kernels do; the public functions move
another ``axis`` to the end with transposes, and the cross entropies flatten to
``[batch, classes]`` with Reshape ops, exactly where TF's Python wrappers do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core import dtypes as dt
from symgrad.core.batching import Call
from symgrad.core.cases import Case, away, ints, labels, randn, uniform
from symgrad.core.eager import EagerTensor
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.fast_path import FastOp, fast_apply, fast_op
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import _DEFAULT_NAMES, OPS, ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import slicing
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import ADD, MUL, NEG, SUB, SUM, ZEROS_LIKE, int32s, kernel
from symgrad.ops.core import FLOATS, REAL, check_dtype, constant, convert_to_tensor, same_dtype
from symgrad.ops.math.elementwise import exp, negative, sigmoid
from symgrad.ops.reduction.reduce import reduce_sum

_LABELS = (dt.int32, dt.int64)


def _elementwise_infer(op_type: str, allowed: Sequence[dt.DType], min_rank: int = 0) -> Any:
    def infer(inputs: Sequence[Tensor]) -> Spec:
        x = inputs[0]
        check_dtype(op_type, x, allowed, "features" if op_type != "L2Loss" else "t")
        if x.shape.rank is not None and x.shape.rank < min_rank:
            raise ShapeError(f"logits must have >= {min_rank} dimension, got {x.shape}")
        return x.shape, x.dtype

    return infer


def _unary(op_type: str, x: Any, name: str | None) -> Tensor:
    return apply_op1(op_type, [convert_to_tensor(x)], name=name)


# NumPy references for the op-table rows


def _softmax_ref(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)  # type: ignore[no-any-return]


def _log_softmax_ref(x: np.ndarray, axis: int = -1) -> np.ndarray:
    s = x - x.max(axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis, keepdims=True))  # type: ignore[no-any-return]


# --------------------------------------------------------------------------------------
# Relu and ReluGrad


def _relu_grad_infer(inputs: Sequence[Tensor]) -> Spec:
    g, f = inputs
    return g.shape.merge_with(f.shape), same_dtype(inputs, ("gradients", "features"))


def _relu_specialize(op: Any, consts: list[Any]) -> Any:
    zero = op.outputs[0].dtype.np.type(0)  # made once per plan, not once per run
    return lambda x: np.maximum(x, zero)


_REAL_IDS = frozenset(map(id, REAL))  # dtypes are singletons: id hashes in C
_relu_checked = _elementwise_infer("Relu", REAL)


def _relu_infer(inputs: Sequence[Tensor]) -> Spec:
    """Relu's rule, ``_elementwise_infer``'s: its common case (a real dtype, which it
    checks by identity first) inline, else the rule in full (its error)."""
    x = inputs[0]
    if id(x.dtype) in _REAL_IDS:
        return x.shape, x.dtype
    return _relu_checked(inputs)  # type: ignore[no-any-return]


RELU = register_op(
    "Relu",
    _relu_infer,
    lambda x: np.maximum(x, x.dtype.type(0)),
    specialize=_relu_specialize,
    inplace=lambda x, out: np.maximum(x, x.dtype.type(0), out=out),
    elementwise=True,
    batch=batching.elementwise,
    cases=[
        Case([away(3, 4)], lambda x: np.maximum(x, 0)),
        Case(
            [uniform(-5, 5, 3, 4)],
            lambda x: np.maximum(x, 0),
            dtypes=(np.int32, np.int64),
            order=0,
            name="int",
            note="integer: not differentiable",
        ),
    ],
)


def _relu_grad_kernel(g: np.ndarray, f: np.ndarray) -> Any:
    return g * (f > 0)


RELU_GRAD = register_op(
    "ReluGrad",
    _relu_grad_infer,
    _relu_grad_kernel,
    inplace=lambda g, f, out: np.multiply(g, f > 0, out=out),
    elementwise=True,
    batch=batching.same_shape,
    cases=[Case([randn(3, 4), away(3, 4)], lambda g, f: np.where(f > 0, g, 0))],
)


def relu(features: Any, name: str | None = None) -> Tensor:
    """max(features, 0) elementwise (op type ``Relu``)."""
    if type(features) is EagerTensor and name is None:  # core/eager.py's light tensor
        t = fast_apply(_FAST_RELU, (features,), {}, RELU.kernel)
        if t is not None:
            return t
    return _unary("Relu", features, name)


_FAST_RELU = FastOp("Relu", RELU.infer, frozenset(), None, OPS, _DEFAULT_NAMES)


@RELU.gradient
def _relu_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g where y > 0 else 0; relu'(0) = 0, as TF (a unit at 0 stays off)."""
    return apply_op1("ReluGrad", [grad, op.outputs[0]])


@array_rule("Relu")
def _relu_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    g = grads[0]
    dx = _relu_grad_kernel(g, ys[0])  # ReluGrad's kernel without its wrapper (as much again)
    return [dx if type(dx) is np.ndarray and dx.dtype == g.dtype else _RELU_GRAD(g, ys[0])]


@RELU_GRAD.gradient
def _relu_grad_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """d gradients = ReluGrad(g, features); d features = 0 (piecewise constant)."""
    features = op.inputs[1]
    return apply_op1("ReluGrad", [grad, features]), array.zeros_like(features)


# --------------------------------------------------------------------------------------
# Softplus, L2Loss


SOFTPLUS = register_op(
    "Softplus",
    _elementwise_infer("Softplus", FLOATS),
    lambda x: np.logaddexp(np.zeros_like(x), x),  # log(1 + e^x) without overflow
    elementwise=True,
    batch=batching.elementwise,
    cases=[Case([randn(3, 4)], lambda x: np.log1p(np.exp(x)))],
)


def softplus(features: Any, name: str | None = None) -> Tensor:
    """log(1 + exp(features)), computed stably (op type ``Softplus``)."""
    return _unary("Softplus", features, name)


@SOFTPLUS.gradient
def _softplus_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g · sigmoid(x)."""
    return grad * sigmoid(op.inputs[0])


@array_rule("Softplus")
def _softplus_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [MUL(grads[0], _SIGMOID(xs[0]))]


def log_sigmoid(x: Any, name: str | None = None) -> Tensor:
    """log(1 / (1 + exp(-x))), computed as -softplus(-x) as TF does (no overflow)."""
    return negative(softplus(negative(x)), name=name)


L2_LOSS = register_op(
    "L2Loss",
    lambda i: (TensorShape([]), _elementwise_infer("L2Loss", FLOATS)(i)[1]),
    lambda x: np.asarray(np.sum(x * x) / 2, x.dtype),
    cases=[Case([randn(3, 4)], lambda x: np.sum(x * x) / 2)],
)


@L2_LOSS.batching
def _l2_loss_batch(c: Call) -> list[Tensor]:
    """sum(x²) / 2 over each example's axes (all but the batch axis)."""
    x = c.xs[0]
    return [reduce_sum(x * x, list(range(1, c.rank(0) + 1))) / 2]


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    """sum(t²) / 2 (op type ``L2Loss``)."""
    return _unary("L2Loss", t, name)


@L2_LOSS.gradient
def _l2_loss_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = x · g."""
    return op.inputs[0] * grad


@array_rule("L2Loss")
def _l2_loss_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [MUL(xs[0], grads[0])]


# --------------------------------------------------------------------------------------
# Softmax, LogSoftmax (last axis)


def _softmax_kernel(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - np.max(x, -1, keepdims=True))
    return e / np.sum(e, -1, keepdims=True)  # type: ignore[no-any-return]


def _log_softmax_kernel(x: np.ndarray) -> np.ndarray:
    s = x - np.max(x, -1, keepdims=True)
    return s - np.log(np.sum(np.exp(s), -1, keepdims=True))  # type: ignore[no-any-return]


# The batch axis leaves the last axis alone: the elementwise rule is right for both.
# A non-last axis needs a known rank (TF's wrapper too): the rows reshape, so that the
# op-table's run on inputs of unknown shape still knows it.
SOFTMAX = register_op(
    "Softmax",
    _elementwise_infer("Softmax", FLOATS, 1),
    _softmax_kernel,
    batch=batching.elementwise,
    cases=[
        Case([randn(2, 3, 4)], _softmax_ref),
        Case(
            [randn(2, 3, 4)],
            lambda x: _softmax_ref(x, 1),
            fn=lambda x: softmax(array.reshape(x, [2, 3, 4]), axis=1),
            name="axis1",
        ),
    ],
)
LOG_SOFTMAX = register_op(
    "LogSoftmax",
    _elementwise_infer("LogSoftmax", FLOATS, 1),
    _log_softmax_kernel,
    batch=batching.elementwise,
    cases=[
        Case([randn(3, 4)], _log_softmax_ref),
        Case(
            [randn(3, 4)],
            lambda x: _log_softmax_ref(x, 0),
            fn=lambda x: log_softmax(array.reshape(x, [3, 4]), axis=0),
            name="axis0",
        ),
    ],
)


def _on_last_axis(op_type: str, logits: Any, axis: Any, name: str | None) -> Tensor:
    """Apply a last-axis op along ``axis``: swap it with the last axis and back, as TF."""
    x = convert_to_tensor(logits)
    n = x.shape.rank
    ax = -1 if axis is None else int(axis)
    if ax == -1 or (n is not None and ax == n - 1):
        return apply_op1(op_type, [x], name=name)
    if n is None:
        raise ValueError(f"{op_type} along axis {ax} needs a tensor of known rank")
    if not -n <= ax < n:
        raise InvalidArgumentError(
            f"`dim` must be in the range [{-n}, {n}) where {n} is the number of dimensions in "
            f"the input. Received: dim={ax}"
        )
    perm = list(range(n))
    perm[ax], perm[-1] = perm[-1], perm[ax]
    y = apply_op1(op_type, [array.transpose(x, perm)])
    return array.transpose(y, perm, name=name)


def softmax(logits: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """exp(logits) / sum(exp(logits), axis) (op type ``Softmax``; default axis -1)."""
    return _on_last_axis("Softmax", logits, axis, name)


def log_softmax(logits: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """logits - log(sum(exp(logits), axis)) (op type ``LogSoftmax``; default axis -1)."""
    return _on_last_axis("LogSoftmax", logits, axis, name)


@SOFTMAX.gradient
def _softmax_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = (g - sum(g · y, -1)) · y."""
    y = op.outputs[0]
    return (grad - reduce_sum(grad * y, -1, keepdims=True)) * y


@array_rule("Softmax")
def _softmax_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [_softmax_term(grads[0], ys[0])]


def _softmax_term(g: Any, y: Any) -> Any:
    """(g - sum(g · y, -1)) · y, as the ops of ``_softmax_grad``."""
    return MUL(SUB(g, SUM(MUL(g, y), int32s(-1), keep_dims=True)), y)


@LOG_SOFTMAX.gradient
def _log_softmax_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g - sum(g, -1) · exp(y)."""
    return grad - reduce_sum(grad, -1, keepdims=True) * exp(op.outputs[0])


@array_rule("LogSoftmax")
def _log_softmax_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    g = grads[0]
    return [SUB(g, MUL(SUM(g, int32s(-1), keep_dims=True), _EXP(ys[0])))]


# --------------------------------------------------------------------------------------
# SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits
# Two outputs: loss [batch] and backprop [batch, classes] = softmax(logits) - labels.


def _xent_infer(inputs: Sequence[Tensor]) -> list[Spec]:
    logits, labels = inputs
    d, s = logits.dtype, logits.shape
    dims = s.dims
    if (  # the common case: [batch, classes] of one float dtype, every size known
        labels.dtype is d
        and id(d) in _FLOAT_IDS
        and dims is not None
        and len(dims) == 2
        and None not in dims
        and labels.shape.dims == dims
    ):
        return [(TensorShape.of_array(dims[:1]), d), (s, d)]  # type: ignore[arg-type]
    return _xent_infer_checked(inputs)


def _xent_infer_checked(inputs: Sequence[Tensor]) -> list[Spec]:
    """The rule in full: partial shapes, and the errors for bad input."""
    logits, labels = inputs
    d = same_dtype(inputs, ("features", "labels"))
    check_dtype("SoftmaxCrossEntropyWithLogits", logits, FLOATS, "features")
    for t in inputs:
        if t.shape.rank not in (None, 2):
            raise ShapeError(
                "logits and labels must be either 2-dimensional, or broadcasted "
                f"to be 2-dimensional; got shapes {logits.shape} and {labels.shape}"
            )
    if not logits.shape.is_compatible_with(labels.shape):
        raise ShapeError(
            f"logits and labels must be broadcastable: logits_size="
            f"{_tf_list(logits.shape)} labels_size={_tf_list(labels.shape)}"
        )
    s = logits.shape.merge_with(labels.shape)
    return [(TensorShape(None if s.rank is None else [s[0]]), d), (s, d)]


def _xent_kernel(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TF's formulas: with s = logits - max and e = exp(s),
    loss = sum(labels * (log(sum e) - s)) and backprop = e / sum(e) - labels."""
    s = logits - np.maximum.reduce(logits, -1, keepdims=True)
    e = np.exp(s)
    total = np.add.reduce(e, -1, keepdims=True)
    np.subtract(np.log(total), s, out=s)
    s *= labels
    e /= total
    e -= labels
    return np.add.reduce(s, -1), e


def _tf_list(s: TensorShape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in s.dims or ()) + "]"


def _sparse_xent_infer(inputs: Sequence[Tensor]) -> list[Spec]:
    logits, labels = inputs
    check_dtype("SparseSoftmaxCrossEntropyWithLogits", logits, FLOATS, "features")
    check_dtype("SparseSoftmaxCrossEntropyWithLogits", labels, _LABELS, "labels")
    if logits.shape.rank not in (None, 2) or labels.shape.rank not in (None, 1):
        raise ShapeError(
            f"logits must be 2-D and labels 1-D, got shapes {logits.shape} and {labels.shape}"
        )
    batch = TensorShape([None] if logits.shape.rank is None else [logits.shape[0]])
    if not batch.is_compatible_with(labels.shape):
        raise ShapeError(
            f"logits and labels must have the same first dimension, got logits "
            f"shape {logits.shape} and labels shape {labels.shape}"
        )
    batch = batch.merge_with(labels.shape)
    c = logits.shape[1] if logits.shape.rank is not None else None
    return [(batch, logits.dtype), (TensorShape([batch[0], c]), logits.dtype)]


def _sparse_xent_kernel(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = logits.shape[-1]
    bad = (labels < 0) | (labels >= n)
    if np.any(bad):
        raise InvalidArgumentError(
            f"Received a label value of {labels[bad][0]} which is outside the valid range of "
            f"[0, {n}).  Label values: {' '.join(str(v) for v in labels.ravel())}"
        )
    rows = np.arange(len(labels))
    s = logits - np.max(logits, -1, keepdims=True)
    lse = np.log(np.sum(np.exp(s), -1))
    backprop = np.exp(s - lse[:, None])
    backprop[rows, labels] -= 1
    return lse - s[rows, labels], backprop


_FLOAT_IDS = frozenset(map(id, FLOATS))  # dtypes are singletons: id hashes in C
XENT = register_op("SoftmaxCrossEntropyWithLogits", _xent_infer, _xent_kernel)
_FAST_XENT = FastOp(XENT.type, _xent_infer, frozenset(), None, OPS, _DEFAULT_NAMES)
SPARSE_XENT = register_op(
    "SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_infer, _sparse_xent_kernel
)


@XENT.batching
def _xent_batch(c: Call) -> list[Tensor]:
    """The examples' [batch, classes] rows stacked into one call, then split back."""
    b, n = c.dims(0)
    loss, backprop = c.apply([array.reshape(c.full(i), [c.k * b, n]) for i in (0, 1)])
    return [array.reshape(loss, [c.k, b]), array.reshape(backprop, [c.k, b, n])]


@SPARSE_XENT.batching
def _sparse_xent_batch(c: Call) -> list[Tensor]:
    """As the dense rule, with each example's labels stacked alike."""
    b, n = c.dims(0)
    loss, backprop = c.apply(
        [array.reshape(c.full(0), [c.k * b, n]), array.reshape(c.full(1), [c.k * b])]
    )
    return [array.reshape(loss, [c.k, b]), array.reshape(backprop, [c.k, b, n])]


def _xent_logits_grad(op: Any, grad_loss: Tensor, grad_backprop: Tensor) -> Tensor:
    """g_loss · backprop, plus (g_bp - sum(g_bp · p, -1)) · p when backprop is used (p=softmax)."""
    grad = array.expand_dims(grad_loss, -1) * op.outputs[1]
    if not array.is_zeros(grad_backprop):
        p = softmax(op.inputs[0])
        grad = grad + (grad_backprop - reduce_sum(grad_backprop * p, -1, keepdims=True)) * p
    return grad


@XENT.gradient
def _xent_grad(op: Any, grad_loss: Tensor, grad_backprop: Tensor) -> tuple[Tensor, Tensor]:
    """d logits = g·(softmax - labels) (+ second-order term); d labels = g·(-log_softmax)."""
    d_labels = array.expand_dims(grad_loss, -1) * -log_softmax(op.inputs[0])
    return _xent_logits_grad(op, grad_loss, grad_backprop), d_labels


@array_rule("SoftmaxCrossEntropyWithLogits")
def _xent_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    g_loss, g_bp = grads
    if g_loss is None:  # the rule's engine fills in zeros
        g_loss = ZEROS_LIKE(ys[0])
    d_labels = None
    if needs[1]:
        d_labels = MUL(_expand_last(g_loss), NEG(_LOG_SOFTMAX(xs[0])))
    return [_xent_logits_array(xs, ys, [g_loss, g_bp]) if needs[0] else None, d_labels]


def _xent_logits_array(xs: Any, ys: Any, grads: Any) -> Any:
    """``_xent_logits_grad`` on arrays."""
    g_loss, g_bp = grads
    if g_loss is None:  # the rule's engine fills in zeros
        g_loss = ZEROS_LIKE(ys[0])
    e = _expand_last(g_loss)
    grad = np.multiply(e, ys[1])  # Mul's kernel, without its wrapper (``MUL``): its dtype
    if type(grad) is not np.ndarray or grad.dtype != e.dtype:
        grad = np.asarray(grad, dtype=e.dtype)
    if g_bp is not None and np.any(g_bp):  # ``is_zeros``: a zero gradient adds nothing
        grad = ADD(grad, _softmax_term(g_bp, _SOFTMAX(xs[0])))
    return grad


def _expand_last(g: np.ndarray) -> np.ndarray:
    """The ExpandDims kernel at axis -1 (``np.expand_dims``: a view), without its Python cost."""
    return g.reshape(g.shape + (1,))


@SPARSE_XENT.gradient
def _sparse_xent_grad(op: Any, grad_loss: Tensor, grad_backprop: Tensor) -> tuple[Tensor, None]:
    """d logits = g·(softmax - one_hot(labels)) (+ second-order term); labels: None."""
    return _xent_logits_grad(op, grad_loss, grad_backprop), None


@array_rule("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [_xent_logits_array(xs, ys, grads), None]


def _outer_shape(x: Tensor) -> list[int] | Tensor:
    """x's shape without its last axis (static if known, else a Slice of Shape, as TF)."""
    dims = x.shape.dims
    if dims is not None and all(d is not None for d in dims[:-1]):
        return [int(d) for d in dims[:-1]]  # type: ignore[arg-type]
    return slicing.slice(array.shape(x), [0], array.reshape(array.rank(x) - 1, [1]))


def _flat_shape(x: Tensor) -> Any:
    """[-1, classes]: the shape that flattens x's outer axes."""
    dims = x.shape.dims
    if dims is not None and dims[-1] is not None:
        return [-1, int(dims[-1])]
    c = slicing.slice(array.shape(x), array.reshape(array.rank(x) - 1, [1]), [1])
    return c * np.array([0, 1], np.int32) + np.array([-1, 0], np.int32)


def _precise(logits: Tensor) -> Tensor:
    return array.cast(logits, dt.float32) if logits.dtype is dt.float16 else logits


def softmax_cross_entropy_with_logits(
    labels: Any, logits: Any, axis: int = -1, name: str | None = None
) -> Tensor:
    """-sum(labels · log_softmax(logits), axis); one loss per row (other axes kept)."""
    if (  # the lines below' common eager call, the op made as they make it (fast_op)
        name is None
        and type(logits) is EagerTensor
        and type(labels) is EagerTensor
        and not XENT.fast
        and axis in (-1, 1)
        and labels.dtype is logits.dtype
        and logits.dtype is not dt.float16  # (_precise: no cast)
        and len(logits.shape.dims or ()) == 2
        and labels.shape.dims == logits.shape.dims
    ):  # (no name scope entered: fast_op takes its name and the op's name in it)
        op = fast_op(_FAST_XENT, (logits, labels), XENT.kernel, "softmax_cross_entropy_with_logits")
        if op is not None:
            return op.output(0)
    with name_scope(name, "softmax_cross_entropy_with_logits"):
        x = convert_to_tensor(logits)
        y = convert_to_tensor(labels)
        px = _precise(x)
        y = array.cast(y, px.dtype) if y.dtype is not px.dtype else y
        n = px.shape.rank
        if n == 0:
            raise ValueError(f"`logits` cannot be a scalar. Received logits={x}")
        if axis != -1 and n is None:
            raise ValueError(
                f"softmax_cross_entropy_with_logits along axis {axis} needs logits of known rank"
            )
        if n is not None and axis not in (-1, n - 1):
            ax = axis % n
            perm = [i for i in range(n) if i != ax] + [ax]
            px, y = array.transpose(px, perm), array.transpose(y, perm)
        if not px.shape.is_compatible_with(y.shape):
            raise InvalidArgumentError(
                f"logits and labels must be broadcastable: logits_size="
                f"{_tf_list(px.shape)} labels_size={_tf_list(y.shape)}"
            )
        if px.shape.rank == 2 and y.shape.rank == 2:  # already [batch, classes]
            # core/eager.py's op, if it can, once run_now has learned the type has two
            # outputs (its ``fast`` flag cleared at the first eager call)
            op = None if XENT.fast else fast_op(_FAST_XENT, (px, y), XENT.kernel)
            cost = op.output(0) if op is not None else apply_op1(XENT.type, [px, y])
        else:
            out_shape = _outer_shape(px)
            cost = apply_op1(
                "SoftmaxCrossEntropyWithLogits",
                [array.reshape(px, _flat_shape(px)), array.reshape(y, _flat_shape(px))],
            )
            cost = array.reshape(cost, out_shape)
            if px.shape.rank is not None and cost.shape.rank is None:
                cost.set_shape(px.shape[:-1])  # as TF: the loss keeps the outer axes' rank
        return array.cast(cost, x.dtype) if px is not x and x.dtype is dt.float16 else cost


def sparse_softmax_cross_entropy_with_logits(
    labels: Any, logits: Any, name: str | None = None
) -> Tensor:
    """-log_softmax(logits)[labels] per row; ``labels`` are int class indices."""
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits"):
        y = convert_to_tensor(labels)
        x = convert_to_tensor(logits)
        px = _precise(x)
        rx, ry = x.shape.rank, y.shape.rank
        if rx == 0:
            raise ValueError(f"`logits` cannot be a scalar. Received logits={x}`")
        if rx is not None and ry is not None and ry != rx - 1:
            raise ValueError(
                "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                f"labels.shape={y.shape} of rank {ry} and logits.shape={x.shape} of rank {rx}"
            )
        if (
            x.shape.is_fully_defined()
            and y.shape.is_fully_defined()
            and y.shape.dims != x.shape.dims[:-1]  # type: ignore[index]
        ):
            raise ValueError(
                "`labels.shape` must equal `logits.shape` except for the last "
                f"dimension. Received: labels.shape={y.shape} and "
                f"logits.shape={x.shape}"
            )
        if rx == 2:
            cost = apply_op1("SparseSoftmaxCrossEntropyWithLogits", [px, y], name=name)
        else:
            flat = [array.reshape(px, _flat_shape(px)), array.reshape(y, [-1])]
            cost = apply_op1("SparseSoftmaxCrossEntropyWithLogits", flat, name=name)
            cost = array.reshape(
                cost, y.shape.as_list() if y.shape.is_fully_defined() else array.shape(y)
            )
        return array.cast(cost, x.dtype) if px is not x else cost


# --------------------------------------------------------------------------------------
# Op-table rows of the cross entropies


def _xent_ref(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return -np.sum(labels * _log_softmax_ref(logits), -1), _softmax_ref(logits) - labels


def _sparse_ref(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    onehot = np.eye(logits.shape[-1])[labels]
    return _xent_ref(logits, onehot.astype(logits.dtype))


def _dense_api(y: Tensor, x: Tensor) -> Tensor:
    return softmax_cross_entropy_with_logits(labels=y, logits=x)


_LABELS_ORDER1 = "TF's rule drops the backprop output's dependence on labels: first order"
XENT.add_cases(
    # the op itself: both outputs get cotangents; labels get TF's first-order rule only
    Case(
        [randn(3, 5), labels(3, 5)],
        _xent_ref,
        diff=[0],
        note="labels get TF's first-order rule only (diff=logits)",
    ),
    Case(
        [labels(3, 5), randn(3, 5)],
        lambda y, x: _xent_ref(x, y)[0],
        fn=_dense_api,
        name="api",
        order=1,
        note=_LABELS_ORDER1,
    ),
    Case(
        [
            lambda rng, d: np.moveaxis(_softmax_ref(rng.standard_normal((2, 3, 4))), 2, 1).astype(
                d
            ),
            randn(2, 4, 3),
        ],
        lambda y, x: -np.sum(y * _log_softmax_ref(x, 1), 1),
        fn=lambda y, x: softmax_cross_entropy_with_logits(
            labels=array.reshape(y, [2, 4, 3]), logits=array.reshape(x, [2, 4, 3]), axis=1
        ),
        name="rank3_axis1",
        order=1,
        note=_LABELS_ORDER1,
    ),
    Case(
        [labels(3, 5), randn(3, 5)],
        lambda y, x: _xent_ref(x, y)[0],
        fn=_dense_api,
        diff=[1],
        name="order2_logits",
    ),
)
SPARSE_XENT.add_cases(
    Case([randn(4, 3), ints([2, 0, 1, 2])], _sparse_ref),
    Case(
        [randn(2, 3, 5)],
        lambda x: _sparse_ref(x.reshape(6, 5), np.array([0, 4, 1, 3, 3, 2]))[0].reshape(2, 3),
        fn=lambda x: sparse_softmax_cross_entropy_with_logits(
            labels=constant([[0, 4, 1], [3, 3, 2]], dt.int64), logits=x
        ),
        name="rank3",
    ),
)


# The kernels the array rules above run (``array_vjp.kernel``: looked up when called).
_RELU_GRAD, _EXP = kernel("ReluGrad"), kernel("Exp")
_SOFTMAX, _LOG_SOFTMAX = kernel("Softmax"), kernel("LogSoftmax")
_SIGMOID = kernel("Sigmoid")
