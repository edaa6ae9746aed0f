"""The op table through both backends: every row's forward, first- and second-order
values computed by the NumPy plan and by the XLA-compiled program must agree.

Tolerances (both backends compute the same formulas; XLA fuses and may reorder sums):
float32 rtol 2e-5 / atol 2e-5 (1e-4 for gradients), float64 rtol 1e-10 / atol 1e-10,
integers and booleans exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax")

import symgrad as tf
from symgrad.core.cases import Case
from symgrad.core.op_registry import BUILTIN_OPS, OPS, apply_op
from symgrad.runtime import xla
from symgrad.runtime.xla.host import EFFECTS
from symgrad.runtime.xla.table import NO_LOWERING

ROWS = [(t, c) for t in sorted(BUILTIN_OPS) for c in OPS[t].cases]
TOL = {np.dtype(np.float32): (2e-5, 2e-5), np.dtype(np.float64): (1e-10, 1e-10)}


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


def _graph(op_type: str, case: Case, dtype: Any, order: int) -> tuple[list[Any], dict[Any, Any]]:
    """Fetches (outputs, then gradients up to ``order``) and feeds of one row."""
    args = case.arrays(dtype)
    feeds, tensors, diff = {}, [], []
    for i, a in enumerate(args):
        if (case.diff is not None and i not in case.diff) or a.dtype.kind not in "fc":
            tensors.append(tf.constant(a))
            continue
        p = tf.placeholder(a.dtype, a.shape)
        feeds[p] = a
        tensors.append(p)
        diff.append(p)
    outs = [o for o in _call(op_type, case, tensors) if o is not None]
    fetches, level = list(outs), [o for o in outs if o.dtype.is_floating]
    rng = np.random.default_rng(7)
    for _ in range(order):
        if not level or not diff:
            break
        y = tf.add_n(
            [
                tf.reduce_sum(t * rng.standard_normal(t.shape.as_list()).astype(t.dtype.np))
                for t in level
            ]
        )
        level = [tf.convert_to_tensor(g) for g in tf.gradients(y, diff) if g is not None]
        fetches += level
    return fetches, feeds


def _compare(fetches: list[Any], feeds: dict[Any, Any], grads_from: int) -> None:
    with tf.Session() as sess:
        want = sess.run(fetches, feed_dict=feeds)
    compiled = xla.compile_graph(fetches, list(feeds))
    got = compiled(list(feeds.values()))
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (i, g.shape, w.shape, g.dtype, w.dtype)
        if w.dtype.kind in "fc":
            rtol, atol = TOL.get(
                np.dtype(w.dtype.char.lower() if w.dtype.kind == "c" else w.dtype), (2e-5, 2e-5)
            )
            if w.dtype.kind == "c":
                rtol, atol = (2e-5, 2e-5) if w.dtype == np.complex64 else (1e-10, 1e-10)
            if i >= grads_from and w.dtype in (np.float32, np.complex64):
                atol = 1e-4
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"fetch {i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"fetch {i}")


@pytest.mark.parametrize("op_type,case", ROWS, ids=[_id(r) for r in ROWS])
def test_both_backends(op_type: str, case: Case) -> None:
    if op_type in NO_LOWERING:
        pytest.skip(f"{op_type}: {NO_LOWERING[op_type]}")
    if op_type in EFFECTS and op_type not in ("Print", "PrintV2"):
        pytest.skip(
            "each run draws new numbers from the op's stream "
            "(tests/runtime/test_xla_function.py compares a draw)"
        )
    for dtype in case.dtypes:
        if np.dtype(dtype) == np.float16:
            continue  # XLA on CPU computes float16 in float32 and rounds once
        order = case.order if np.dtype(dtype) == np.float64 else min(case.order, 1)
        with tf.Graph().as_default():
            fetches, feeds = _graph(op_type, case, dtype, order)
            n_out = len(fetches)
            try:
                _compare(fetches, feeds, grads_from=n_out)
            except xla.UnsupportedOpError as e:
                if not isinstance(e, xla.XlaLimitError) and not any(
                    t in str(e) for t in NO_LOWERING
                ):
                    raise
                pytest.skip(str(e)[:200])  # as TF's XLA bridge: see the error's text
