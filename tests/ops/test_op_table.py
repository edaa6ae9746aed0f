"""The op table: every case of every op record, checked the same way.

For each ``Case`` in ``OPS[op_type].cases``:

* forward values against the NumPy reference, for each dtype of the case;
* the static shape/dtype rule against the kernel's real output (fully known and unknown
  input shapes, through a Session);
* first and second order against float64 central differences, with the public checker
  ``symgrad.test.check_vjp``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.cases import Case
from symgrad.core.op_registry import BUILTIN_OPS, OPS, apply_op

ROWS = [(t, c) for t in sorted(BUILTIN_OPS) for c in OPS[t].cases]


def _id(row: tuple[str, Case]) -> str:
    t, c = row
    return f"{t}-{c.name}" if c.name else t


def _call(op_type: str, case: Case, tensors: list[Any]) -> list[Any]:
    result = (
        case.fn(*tensors)
        if case.fn is not None
        else apply_op(op_type, tensors, dict(case.attrs)).outputs
    )
    return list(result) if isinstance(result, list | tuple) else [result]


def _params(rows: list[tuple[str, Case]]) -> Any:
    return pytest.mark.parametrize("op_type,case", rows, ids=[_id(r) for r in rows])


@_params(ROWS)
def test_forward(op_type: str, case: Case) -> None:
    for dtype in case.dtypes:
        args = case.arrays(dtype)
        outs = _call(op_type, case, [tf.constant(a) for a in args])
        refs = case.ref(*args) if case.ref is not None else None
        refs = [] if refs is None else list(refs) if isinstance(refs, list | tuple) else [refs]
        for out, ref in zip(outs, refs, strict=True):
            value, ref = np.asarray(out.numpy()), np.asarray(ref)
            assert value.shape == ref.shape, f"shape {value.shape}, NumPy's {ref.shape}"
            assert value.dtype == out.dtype.np, (
                f"kernel dtype {value.dtype} differs from the declared {out.dtype.name}"
            )
            tol = 1e-2 if dtype == np.float16 else case.rtol
            np.testing.assert_allclose(
                value, ref.astype(value.dtype), rtol=tol, atol=max(case.atol, tol)
            )


@_params(ROWS)
def test_shape_rule(op_type: str, case: Case) -> None:
    args = case.arrays(case.dtypes[-1])
    eager = [np.asarray(o.numpy()) for o in _call(op_type, case, [tf.constant(a) for a in args])]
    for known in (True, False):
        with tf.Graph().as_default():
            feeds, tensors = {}, []
            for i, a in enumerate(args):
                if (case.diff is not None and i not in case.diff) or a.dtype.kind not in "fc":
                    tensors.append(tf.constant(a))  # attribute-like inputs stay constant
                    continue
                p = tf.placeholder(a.dtype, a.shape if known else None)
                feeds[p] = a
                tensors.append(p)
            outs = _call(op_type, case, tensors)
            with tf.Session() as sess:
                values = sess.run(outs, feed_dict=feeds)
        for o, v, e in zip(outs, values, eager, strict=True):
            v = np.asarray(v)
            assert v.dtype == o.dtype.np, f"kernel dtype {v.dtype}, rule's {o.dtype.name}"
            assert o.shape.is_compatible_with(v.shape), f"static {o.shape} vs real {v.shape}"
            if known:
                assert o.shape.dims == v.shape, f"static {o.shape} vs real {v.shape}"
            np.testing.assert_allclose(v, e, rtol=1e-6, atol=1e-6)


@_params([r for r in ROWS if r[1].order >= 1])
def test_gradient(op_type: str, case: Case) -> None:
    _check(op_type, case, 1)


@_params([r for r in ROWS if r[1].order >= 2])
def test_second_order(op_type: str, case: Case) -> None:
    _check(op_type, case, 2)


def _check(op_type: str, case: Case, order: int) -> None:
    args = case.arrays(case.grad_dtype)
    tf.test.check_vjp(
        lambda *ts: _call(op_type, case, list(ts)),
        args,
        diff=case.diff,
        order=order,
        rng=1,
        rtol=case.grad_rtol,
        atol=case.grad_atol,
        name=_id((op_type, case)),
    )
