"""Batching rules in the op records: one vectorised run equals a loop over the examples.

* For each op-table case of every record with a batching rule, each float (or bool)
  argument in turn is the batched seed: ``vectorize`` rebuilds the case's ops for K
  examples of it at once, and every example's slice must equal the case run on that
  example alone (or the rule declines, and jacobians loop).
* For every differentiable case of every record, the jacobian is vectorised (no op of its
  reverse pass falls back to the loop) and equals the loop's.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.autodiff.jacobians import _plain_vjp, jacobian, jacobian_rows
from symgrad.autodiff.vectorize import NotVectorizable, vectorize
from symgrad.core.cases import Case
from symgrad.core.op_registry import BUILTIN_OPS, OPS, apply_op

K = 3
# Every record with a batching rule.
OP_TYPES = sorted(t for t in BUILTIN_OPS if callable(OPS[t].batch))


def _rows() -> list[Any]:
    rows = []
    for op_type in OP_TYPES:
        assert callable(OPS[op_type].batch), f"{op_type} has no batching rule"
        for case in OPS[op_type].cases:
            dtype = np.float64 if np.float64 in case.dtypes else case.dtypes[-1]
            args = case.arrays(dtype)
            for i, a in enumerate(args):
                if a.dtype.kind in "fcb":
                    name = f"{op_type}-{case.name or 'case'}-arg{i}"
                    rows.append(pytest.param(op_type, case, dtype, i, id=name))
    return rows


def _call(op_type: str, case: Case, tensors: list[Any]) -> list[Any]:
    result = (
        case.fn(*tensors)
        if case.fn is not None
        else apply_op(op_type, tensors, dict(case.attrs)).outputs
    )
    return list(result) if isinstance(result, list | tuple) else [result]


@pytest.mark.parametrize("op_type,case,dtype,i", _rows())
def test_vectorised_equals_the_loop(op_type: str, case: Case, dtype: Any, i: int) -> None:
    args = case.arrays(dtype)
    examples = np.stack([case.arrays(dtype, seed=k)[i] for k in range(K)])
    with tf.Graph().as_default():
        seed = tf.placeholder(args[i].dtype, args[i].shape)
        tensors = [seed if j == i else tf.constant(a) for j, a in enumerate(args)]
        outs = _call(op_type, case, tensors)
        try:
            batched = vectorize(seed, tf.constant(examples), outs)
        except NotVectorizable as e:  # a rule may decline: jacobians then loop
            pytest.skip(f"declined: {e}")
        with tf.Session() as sess:
            values = sess.run(batched)
    for k in range(K):
        one = [examples[k] if j == i else a for j, a in enumerate(args)]
        expected = _call(op_type, case, [tf.constant(a) for a in one])
        for v, e in zip(values, expected, strict=True):
            np.testing.assert_allclose(v[k], e.numpy(), rtol=1e-12, atol=1e-12)


DIFFERENTIABLE = [
    pytest.param(t, c, id=f"{t}-{c.name}" if c.name else t)
    for t in sorted(BUILTIN_OPS)
    for c in OPS[t].cases
    if c.order >= 1
]


@pytest.mark.parametrize("op_type,case", DIFFERENTIABLE)
def test_jacobian_is_vectorised_and_equals_the_loop(op_type: str, case: Case, caplog: Any) -> None:
    caplog.set_level(logging.DEBUG, logger="symgrad")
    args = case.arrays(case.grad_dtype)
    ts = [tf.constant(a) for a in args]
    diff = (
        case.diff
        if case.diff is not None
        else [i for i, a in enumerate(args) if a.dtype.kind in "fc"]
    )
    sources = [ts[i] for i in diff]
    for y in (o for o in _call(op_type, case, ts) if o.dtype.is_differentiable):
        fast = jacobian(y, sources, tf.UnconnectedGradients.NONE, _plain_vjp)
        assert "not vectorised" not in caplog.text, caplog.text
        slow = jacobian_rows(y, sources, tf.UnconnectedGradients.NONE, _plain_vjp)
        for f, s in zip(fast, slow, strict=True):
            assert (f is None) == (s is None)
            if f is not None:
                np.testing.assert_allclose(f.numpy(), s.numpy(), rtol=1e-12, atol=1e-12)
