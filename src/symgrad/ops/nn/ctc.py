"""``tf.nn.ctc_loss`` with dense labels: TF's ``ctc_loss_dense`` (forward-backward in log
space) as one op, ``CTCLossDense``, whose second output is TF's gradient.

TF builds the loss from a few hundred ops (``_ctc_state_trans``, ``ctc_state_log_probs``, a
forward and a backward scan of logsumexps) under a ``custom_gradient`` whose gradient is
``softmax(logits) - exp(olabel log posteriors)``, masked past each sequence's length.  The
kernel here runs the same steps in the same order in float32 (NumPy's ``exp``/``log`` for
Eigen's), and the gradient rule is TF's: ``reshape(grad_loss, [1, -1, 1]) * grad``.
SparseTensor labels (TF's ``CTCLossV2`` path) are not supported: symgrad has no SparseTensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, fixed, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import ShapeError, Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import joining
from symgrad.ops.array import shape as shape_ops
from symgrad.ops.array import structure as array
from symgrad.ops.cast_select import cast, where
from symgrad.ops.core import check_dtype, convert_to_tensor
from symgrad.ops.reduction import reduce as reduction

_F = np.float32
_LOG0 = _F(np.log(np.float64(0) + 1e-307))  # TF's log_0: finite, so masked states stay finite


def _lse(x: np.ndarray, axis: int, keepdims: bool = False) -> np.ndarray:
    f = x.dtype.type
    """TF's reduce_logsumexp: log(sum(exp(x - m))) + m, m the max where finite, else 0."""
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, f(0))
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=keepdims))
    return (out + (m if keepdims else np.squeeze(m, axis))).astype(f)


def _log_softmax(x: np.ndarray) -> np.ndarray:
    f = x.dtype.type
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return (shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))).astype(f)


def _transitions(labels: np.ndarray, f: Any) -> np.ndarray:
    """[B, S, S] log transition probabilities, to-state by from-state (TF's _ctc_state_trans)."""
    b, n = labels.shape
    s = 2 * (n + 1)
    trans = np.eye(s, dtype=f)
    trans[1, 0] = 1  # start to the first label
    for k in range(1, n + 1):
        trans[k, n + k] = 1  # blank before label k to label k
    for k in range(n + 1):
        trans[n + 1 + k, k] = 1  # label k to the blank after it
    out = np.broadcast_to(trans, (b, s, s)).copy()
    repeats = labels[:, :-1] == labels[:, 1:]
    for k in range(2, n + 1):  # label to next label, unless it repeats
        out[:, k, k - 1] += 1 - repeats[:, k - 2].astype(f)
    with np.errstate(divide="ignore"):
        return np.log(out).astype(f)


def _forward_backward(
    trans: np.ndarray, init: np.ndarray, final: np.ndarray, obs: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """TF's _forward_backward_log: normalised forward and backward scans, their posteriors."""
    f = obs.dtype.type
    t_max = obs.shape[0]
    bwd_trans = np.swapaxes(trans, 1, 2)
    fwd = [init]
    for t in range(t_max):
        s = _lse(fwd[-1][:, None, :] + trans, -1) + obs[t]
        fwd.append((s - _lse(s, -1, True)).astype(f))
    bwd = [final]
    cum = np.zeros(obs.shape[1], f)
    for t in reversed(range(t_max)):
        s = (bwd[-1] + obs[t]).astype(f)
        s = _lse(s[:, None, :] + bwd_trans, -1)
        total = _lse(s, -1, True)
        s = (s - total).astype(f)
        cum = (cum + np.squeeze(total, -1) * mask[t]).astype(f)
        m = mask[t][:, None]
        bwd.append((s * m + final * (f(1) - m)).astype(f))
    bwd = bwd[::-1]
    both = (np.stack(fwd[1:]) + np.stack(bwd[1:])).astype(f)
    both = (both - _lse(both, 2, True)).astype(f)
    with np.errstate(divide="ignore"):
        both = (both + np.log(mask)[:, :, None]).astype(f)
    return both, (bwd[0][:, 0] + cum).astype(f)


def _olabels(labels: np.ndarray, c: int, states: np.ndarray, uniq: Any) -> np.ndarray:
    """Posteriors per output class: logsumexp over the label states holding each class."""
    f = states.dtype.type
    n = labels.shape[1]
    label_states, blank_states = states[:, :, 1 : n + 1], states[:, :, n + 1 :]
    t, b = states.shape[:2]
    out = np.full((t, b, c), -np.inf, f)
    if uniq is None:
        for cls in range(1, c):
            hit = np.where(labels == cls, f(0), f(-np.inf))  # TF's one_hot of labels - 1
            out[:, :, cls] = _lse(label_states + hit[None], 2)
    else:
        y, idx = uniq
        for d in range(n):
            hit = np.where(idx == d, f(0), f(-np.inf))
            summed = _lse(label_states + hit[None], 2)
            for row in range(b):
                if y[row, d] > 0:
                    out[:, row, y[row, d]] = summed[:, row]
    out[:, :, 0] = _lse(blank_states, 2)
    return out


def _ctc_kernel(
    logits: np.ndarray, labels: np.ndarray, label_len: np.ndarray, logit_len: np.ndarray, *uniq: Any
) -> tuple[np.ndarray, np.ndarray]:
    t_max, b, c = logits.shape
    n = labels.shape[1]
    if labels.shape[0] != b or label_len.shape != (b,) or logit_len.shape != (b,):
        raise InvalidArgumentError("ctc_loss: batch sizes of the inputs do not agree")
    f = logits.dtype.type  # float32 as TF; float64 for finite-difference checks
    x = logits
    ilp = _log_softmax(x)
    picked = np.take_along_axis(ilp, np.broadcast_to(labels[None], (t_max, b, n)) % c, 2)
    picked = np.where((labels >= 0) & (labels < c), picked, f(0))  # one_hot of nothing
    obs = np.concatenate(
        [np.full((t_max, b, 1), -np.inf, f), picked, np.repeat(ilp[:, :, :1], n + 1, 2)], 2
    )
    s = 2 * (n + 1)
    init = np.full((b, s), f(_LOG0), f)
    init[:, 0] = 0
    final = np.full((b, s), f(_LOG0), f)
    for row, length in enumerate(label_len.tolist()):
        if 0 <= length <= n:
            final[row, [length, n + 1 + length]] = 0
    mask = (np.arange(t_max)[:, None] < logit_len[None, :]).astype(f)
    states, loglik = _forward_backward(_transitions(labels, f), init, final, obs, mask)
    olabels = _olabels(labels, c, states, uniq if uniq else None)
    grad = ((np.exp(ilp) - np.exp(olabels)) * mask[:, :, None]).astype(f)
    return (-loglik).astype(logits.dtype), grad.astype(logits.dtype)


def _ctc_infer(inputs: Sequence[Tensor]) -> list[Spec]:
    logits, labels = inputs[0], inputs[1]
    check_dtype("CTCLossDense", logits, (dt.float32, dt.float64), "logits")
    for t, what in zip(inputs[1:], ("labels", "label_length", "logit_length"), strict=False):
        check_dtype("CTCLossDense", t, (dt.int32, dt.int64), what)
    if logits.shape.rank not in (3, None):
        raise ShapeError(f"logits must be rank 3 (time, batch, classes): {logits.shape}")
    if labels.shape.rank not in (2, None):
        raise ShapeError(f"labels must be rank 2 (batch, max label length): {labels.shape}")
    batch = logits.shape[1] if logits.shape.rank == 3 else None
    return [(TensorShape([batch]), logits.dtype), (logits.shape, logits.dtype)]


def _case_ref(x: np.ndarray, lab: np.ndarray, ll: np.ndarray, tl: np.ndarray) -> Any:
    return _ctc_kernel(x, lab, ll, tl)[0]


def _case_loss(*ts: Tensor) -> Tensor:
    """The loss only: the second output is the gradient, which TF never differentiates."""
    return apply_op("CTCLossDense", list(ts)).output(0)


CTC = register_op(
    "CTCLossDense",
    _ctc_infer,
    _ctc_kernel,
    batch="a scan over time per sequence: no batched form",
    cases=[
        Case(
            [
                randn(5, 2, 4),
                fixed([[1, 2, 2], [3, 1, 0]], np.int32),
                fixed([3, 2], np.int32),
                fixed([5, 4], np.int32),
            ],
            _case_ref,
            _case_loss,
            order=1,
            diff=[0],
            dtypes=(np.float32,),
            note="TF's custom gradient is a constant of the forward pass",
        )
    ],
)


@CTC.gradient
def _ctc_grad(op: Any, grad_loss: Tensor, _: Any) -> list[Tensor | None]:
    """d logits = reshape(grad_loss, [1, -1, 1]) · grad (TF's custom gradient)."""
    g = shape_ops.reshape(grad_loss, [1, -1, 1]) * op.outputs[1]
    return [g] + [None] * (len(op.inputs) - 1)


def ctc_loss(
    labels: Any,
    logits: Any,
    label_length: Any,
    logit_length: Any,
    logits_time_major: bool = True,
    unique: Any = None,
    blank_index: Any = None,
    name: str | None = None,
) -> Tensor:
    """Per-sequence CTC negative log likelihood of dense ``labels`` ([batch, max_len],
    padded) under ``logits`` ([time, batch, classes], or batch-major), TF's ctc_loss_dense."""
    if not isinstance(labels, (Tensor, np.ndarray, list, tuple)) and hasattr(labels, "indices"):
        raise NotImplementedError("ctc_loss: SparseTensor labels are not supported by symgrad")
    if blank_index is None:
        blank_index = 0
    with name_scope(name, "ctc_loss_dense"):
        x = convert_to_tensor(logits)
        lab = convert_to_tensor(labels)
        args = [lab, convert_to_tensor(label_length), convert_to_tensor(logit_length)]
        orig = x.dtype
        if orig is dt.float16:
            x = cast(x, dt.float32)
        if not logits_time_major:
            x = shape_ops.transpose(x, [1, 0, 2])
        if blank_index != 0:
            if blank_index < 0:
                blank_index += x.shape[2]
            x = joining.concat(
                [
                    x[:, :, blank_index : blank_index + 1],
                    x[:, :, :blank_index],
                    x[:, :, blank_index + 1 :],
                ],
                axis=2,
            )
            args[0] = where(lab < blank_index, lab + 1, lab)
        if unique:
            y, idx = (convert_to_tensor(u) for u in unique)
            if blank_index != 0:
                y = where(y < blank_index, y + 1, y)
                n = reduction.reduce_max(idx, axis=1) + 1
                steps = array.range(array.shape(y)[1], dtype=n.dtype)
                keep = shape_ops.expand_dims(steps, 0) < shape_ops.expand_dims(n, 1)
                y = where(keep, y, array.zeros_like(y))
            args += [y, idx]
        loss = apply_op("CTCLossDense", [x, *args]).output(0)
        return cast(loss, orig) if orig is dt.float16 else loss
