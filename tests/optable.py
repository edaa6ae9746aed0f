"""The op-table harness: one record per op, checked the same way for every op.

Each family's table module (``tests/ops/test_*_table.py``) defines ``CASES`` and calls
``parametrize(CASES)``.  For every row the harness checks

* forward values against the NumPy reference, for each dtype of the row;
* the static shape/dtype rule against the kernel's real output (fully known and unknown
  input shapes, through a Session);
* the VJP against float64 central differences in a random direction;
* second order (the VJP of the VJP) the same way, where the op is twice differentiable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import symgrad as tf

Gen = Callable[[np.random.Generator, Any], np.ndarray]


# -- input generators: fn(rng, dtype) -> array; distinct dimensions, never square
def randn(*shape: int) -> Gen:
    return lambda rng, d: rng.standard_normal(shape).astype(d)


def uniform(lo: float, hi: float, *shape: int) -> Gen:
    return lambda rng, d: rng.uniform(lo, hi, shape).astype(d)


def positive(*shape: int) -> Gen:
    return uniform(0.5, 2.0, *shape)


def fixed(value: Any, dtype: Any = None) -> Gen:
    """A constant argument (indices, axes, masks) whose dtype does not follow the row's."""
    arr = np.asarray(value, dtype=dtype)
    return lambda rng, d: arr.copy()


def complex_randn(*shape: int) -> Gen:
    return lambda rng, d: (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(d)


@dataclass(frozen=True)
class OpCase:
    """One row: ``fn(*tensors)`` builds the op; ``ref(*arrays)`` is NumPy's answer."""

    op_type: str
    fn: Callable[..., Any]
    ref: Callable[..., Any] | None
    inputs: Sequence[Gen]
    dtypes: Sequence[Any] = (np.float32, np.float64)
    grad: bool = True
    order2: bool = True
    diff: Sequence[int] | None = None  # args to differentiate; default: all float ones
    name: str = ""
    rtol: float = 1e-5
    atol: float = 1e-6
    grad_rtol: float = 1e-5
    grad_atol: float = 1e-6
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.op_type}-{self.name}" if self.name else self.op_type


def _args(case: OpCase, dtype: Any, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [g(rng, dtype) for g in case.inputs]


def _outputs(result: Any) -> list[Any]:
    return list(result) if isinstance(result, list | tuple) else [result]


def check_forward(case: OpCase) -> None:
    for dtype in case.dtypes:
        args = _args(case, dtype)
        outs = _outputs(case.fn(*[tf.constant(a) for a in args]))
        refs = _outputs(case.ref(*args)) if case.ref is not None else []
        for out, ref in zip(outs, refs):
            value = np.asarray(out.numpy())
            ref = np.asarray(ref)
            assert value.shape == ref.shape, f"{case.id}: shape {value.shape} vs {ref.shape}"
            assert value.dtype == out.dtype.np, f"{case.id}: kernel dtype {value.dtype} " \
                f"differs from the declared {out.dtype.name}"
            tol = 1e-2 if dtype == np.float16 else case.rtol
            np.testing.assert_allclose(value, ref.astype(value.dtype), rtol=tol,
                                       atol=max(case.atol, tol), err_msg=case.id)


def check_shape_rule(case: OpCase) -> None:
    dtype = case.dtypes[-1]
    args = _args(case, dtype)
    eager = [np.asarray(o.numpy()) for o in _outputs(case.fn(*[tf.constant(a) for a in args]))]
    for known in (True, False):
        with tf.Graph().as_default():
            feeds = {}
            tensors = []
            for i, a in enumerate(args):
                if case.diff is not None and i not in case.diff or a.dtype.kind not in "fc":
                    tensors.append(tf.constant(a))  # attribute-like inputs stay constant
                    continue
                p = tf.placeholder(a.dtype, a.shape if known else None)
                feeds[p] = a
                tensors.append(p)
            outs = _outputs(case.fn(*tensors))
            with tf.Session() as sess:
                values = sess.run(outs, feed_dict=feeds)
        for o, v, e in zip(outs, values, eager):
            v = np.asarray(v)
            assert v.dtype == o.dtype.np, f"{case.id}: kernel dtype {v.dtype} vs rule {o.dtype}"
            assert o.shape.is_compatible_with(v.shape), \
                f"{case.id}: static shape {o.shape} vs real {v.shape}"
            if known:
                assert o.shape.dims == v.shape, f"{case.id}: static {o.shape} vs real {v.shape}"
            np.testing.assert_allclose(v, e, rtol=1e-6, atol=1e-6)


def _diff_args(case: OpCase, args: list[np.ndarray]) -> list[int]:
    if case.diff is not None:
        return list(case.diff)
    return [i for i, a in enumerate(args) if a.dtype.kind in "fc"]


def _scalarize(fn: Callable[..., Any], cotangents: list[np.ndarray]) -> Callable[..., Any]:
    """sum over outputs of <u, out> as a symgrad function of the inputs."""
    def f(*ts: Any) -> Any:
        outs = _outputs(fn(*ts))
        terms = [tf.reduce_sum(tf.real(o * tf.constant(u)) if o.dtype.is_complex
                               else o * tf.constant(u))
                 for o, u in zip(outs, cotangents) if o.dtype.is_differentiable]
        return tf.add_n(terms) if len(terms) > 1 else terms[0]
    return f


def _numeric_directional(f: Callable[..., Any], args: list[np.ndarray], idx: list[int],
                         dirs: list[np.ndarray], eps: float) -> float:
    def at(sign: float) -> float:
        moved = list(args)
        for i, v in zip(idx, dirs):
            moved[i] = args[i] + sign * eps * v
        return float(np.real(f(*[tf.constant(a) for a in moved]).numpy()))
    return (at(1.0) - at(-1.0)) / (2 * eps)


def _analytic_directional(f: Callable[..., Any], args: list[np.ndarray], idx: list[int],
                          dirs: list[np.ndarray]) -> float:
    ts = [tf.constant(a) for a in args]
    grads = tf.gradients(f(*ts), [ts[i] for i in idx])
    total = 0.0
    for g, v in zip(grads, dirs):
        if g is not None:
            total += float(np.real(np.sum(np.conj(g.numpy()) * v)))
    return total


def check_grad(case: OpCase, order: int = 1) -> None:
    """<grad f(x), v> == d/de f(x + e v) for a random v, in float64 (and complex128)."""
    dtype = np.complex128 if any(np.dtype(d).kind == "c" for d in case.dtypes) else np.float64
    rng = np.random.default_rng(1)
    args = _args(case, dtype)
    idx = _diff_args(case, args)
    outs = _outputs(case.fn(*[tf.constant(a) for a in args]))
    us = [rng.standard_normal(np.shape(o.numpy())).astype(o.dtype.np) for o in outs]
    f = _scalarize(case.fn, us)
    if order == 2:
        ws = [rng.standard_normal(args[i].shape).astype(args[i].dtype) for i in idx]
        first = f

        def f(*ts: Any) -> Any:
            gs = tf.gradients(first(*ts), [ts[i] for i in idx])
            terms = [tf.reduce_sum(tf.real(g * tf.constant(w)) if g.dtype.is_complex
                                   else g * tf.constant(w)) for g, w in zip(gs, ws)
                     if g is not None]
            return tf.add_n(terms) if len(terms) > 1 else terms[0]
    dirs = [rng.standard_normal(args[i].shape).astype(args[i].dtype) for i in idx]
    num = _numeric_directional(f, args, idx, dirs, 1e-6)
    ana = _analytic_directional(f, args, idx, dirs)
    np.testing.assert_allclose(ana, num, rtol=case.grad_rtol * 100 if order == 2
                               else case.grad_rtol * 10, atol=case.grad_atol * 100,
                               err_msg=f"{case.id}: order-{order} gradient")


def parametrize(cases: Sequence[OpCase]) -> dict[str, Any]:
    """Module-level test functions for a family's table."""
    ids = [c.id for c in cases]
    grad_cases = [c for c in cases if c.grad]
    order2_cases = [c for c in cases if c.grad and c.order2]

    @pytest.mark.parametrize("case", cases, ids=ids)
    def test_forward(case: OpCase) -> None:
        check_forward(case)

    @pytest.mark.parametrize("case", cases, ids=ids)
    def test_shape_rule(case: OpCase) -> None:
        check_shape_rule(case)

    @pytest.mark.parametrize("case", grad_cases, ids=[c.id for c in grad_cases])
    def test_gradient(case: OpCase) -> None:
        check_grad(case, 1)

    @pytest.mark.parametrize("case", order2_cases, ids=[c.id for c in order2_cases])
    def test_second_order(case: OpCase) -> None:
        check_grad(case, 2)

    return {"test_forward": test_forward, "test_shape_rule": test_shape_rule,
            "test_gradient": test_gradient, "test_second_order": test_second_order}
