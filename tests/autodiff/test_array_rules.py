"""Array rules (``gradient_registry.array_rule``) against the gradient rules they mirror.

For every op type in ``ARRAY_RULES`` (a rule added later is checked by the same loop, and
fails the completeness test until it has a row here), over the dtypes its forward op
takes, several shapes (broadcasting, scalars, empty) and special values (inf, nan, -0.0):
the array rule's results equal, bit for bit in dtype, shape and value, what the registered
rule gives when its ops run eagerly, for every subset of the wanted inputs.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.core import dtypes as dt
from symgrad.core.gradient_registry import ARRAY_RULES, array_rule_for, gradient_registry
from symgrad.core.op_registry import apply_op
from symgrad.ops.core import constant

FLOATS = (np.float16, np.float32, np.float64)
COMPLEX = (np.complex64, np.complex128)
INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8)
NUMERIC = FLOATS + COMPLEX + INTS
_SPECIAL = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1.0, -1.0])

Maker = Callable[[np.random.Generator, Any], tuple[list[np.ndarray], dict[str, Any]]]


def values(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Random values of ``dtype``, with inf/nan/-0.0/0 among floats (where there is room)."""
    d = np.dtype(dtype)
    if d.kind in "iu":
        lo = 0 if d.kind == "u" else -3
        return rng.integers(lo, 4, size=shape).astype(d)
    parts = [_with_special(rng, shape) for _ in range(1 + (d.kind == "c"))]
    x = np.empty(shape, d)
    if d.kind == "c":
        x.real, x.imag = parts
    else:
        x[...] = parts[0]
    return x


def _with_special(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    flat = rng.standard_normal(shape).reshape(-1) * 2
    n = min(flat.size // 3, len(_SPECIAL))
    if n:
        flat[rng.choice(flat.size, n, replace=False)] = rng.permutation(_SPECIAL)[:n]
    return flat.reshape(shape)


def ins(*shapes: tuple[int, ...], **attrs: Any) -> Maker:
    """Inputs of ``shapes``, all of the row's dtype."""
    return lambda rng, d: ([values(rng, s, d) for s in shapes], dict(attrs))


def with_ints(shape: tuple[int, ...], ints: Any, d: Any = np.int32, **attrs: Any) -> Maker:
    """An input of ``shape`` and an integer one (axis, shape, perm, multiples)."""
    return lambda rng, dtype: ([values(rng, shape, dtype), np.asarray(ints, d)], dict(attrs))


def _cast(src: Any, dst: Any, shape: tuple[int, ...] = (3, 4)) -> Maker:
    attrs = {"SrcT": dt.as_dtype(src), "DstT": dt.as_dtype(dst)}
    return lambda rng, dtype: ([values(rng, shape, src)], attrs)


_CASTS = [
    _cast(a, b)
    for a, b in [
        (np.float32, np.float64),
        (np.float64, np.float16),
        (np.float16, np.float32),
        (np.float32, np.complex64),
        (np.complex128, np.float32),
        (np.complex64, np.complex128),
        (np.int32, np.float32),
        (np.float32, np.int32),
    ]
] + [_cast(np.float64, np.float32, ()), _cast(np.float64, np.float32, (0, 2))]
_REDUCTIONS = [
    with_ints((2, 3, 4), axes, d, keep_dims=keep)
    for axes, d in (([1], np.int32), ([0, 2], np.int64), (-1, np.int32), ([], np.int32))
    for keep in (False, True)
] + [
    with_ints((2, 3, 4), [0, 1, 2]),
    with_ints((), []),
    with_ints((0, 3), [0]),
    with_ints((0, 3), [1], keep_dims=True),
]
_SOFTMAX = ("Softmax", "LogSoftmax")
_UNARY = [ins((3, 4)), ins(()), ins((0, 5)), ins((2, 3, 4))]
_BINARY = [
    ins((3, 4), (3, 4)),
    ins((2, 3, 4), (3, 1)),
    ins((3, 1), (1, 4)),
    ins((), (3, 4)),
    ins((3, 4), ()),
    ins((0, 4), (4,)),
    ins((2, 1, 4), (3, 1)),
    ins((1, 1), ()),
]

# op type -> (dtypes tried: those its forward refuses are skipped, makers of inputs).
ROWS: dict[str, tuple[tuple[Any, ...], list[Maker]]] = {
    **{t: (NUMERIC, _UNARY) for t in ("Neg", "Square", "Abs")},
    **{
        t: (FLOATS + COMPLEX, _UNARY)
        for t in ("Exp", "Log", "Sqrt", "Rsqrt", "Sin", "Cos", "Tanh", "Sigmoid", "Reciprocal")
    },
    **{
        t: (NUMERIC, _BINARY)
        for t in ("AddV2", "Sub", "Mul", "RealDiv", "Pow", "Maximum", "Minimum")
    },
    "SquaredDifference": (NUMERIC, _BINARY),
    "Identity": (NUMERIC, _UNARY),
    "Relu": (FLOATS + INTS, _UNARY),
    **{t: (FLOATS, [ins((3, 4)), ins((2, 3, 4)), ins((0, 4)), ins((4,))]) for t in _SOFTMAX},
    "SoftmaxCrossEntropyWithLogits": (
        FLOATS,
        [ins((3, 4), (3, 4)), ins((0, 4), (0, 4)), ins((8, 5), (8, 5)), ins((12, 3), (12, 3))],
    ),
    "MatMul": (
        NUMERIC,
        [
            ins((4, 3) if ta else (3, 4), (5, 4) if tb else (4, 5), transpose_a=ta, transpose_b=tb)
            for ta in (False, True)
            for tb in (False, True)
        ]
        + [ins((0, 4), (4, 5), transpose_a=False, transpose_b=False)]
        + [ins((3, 0), (5, 0), transpose_a=False, transpose_b=True)],
    ),
    "BiasAdd": (
        NUMERIC,
        [
            ins((2, 3, 4), (4,)),
            ins((2, 3, 4, 2), (3,), data_format="NCHW"),
            ins((5, 4), (4,), data_format="NHWC"),
            ins((0, 4), (4,)),
        ],
    ),
    **{t: (NUMERIC, _REDUCTIONS) for t in ("Sum", "Mean")},
    "Cast": ((np.float32,), _CASTS),
    "Reshape": (
        NUMERIC,
        [
            with_ints((2, 3, 4), [6, 4]),
            with_ints((), [1, 1]),
            with_ints((0, 3), [3, 0]),
            with_ints((2, 3), [-1], np.int64),
        ],
    ),
    "ExpandDims": (NUMERIC, [with_ints((3, 4), -1), with_ints((3, 4), 0), with_ints((), 0)]),
    "Squeeze": (NUMERIC, [ins((3, 1, 4), squeeze_dims=(1,)), ins((1, 3, 1)), ins((1,))]),
    "Transpose": (
        NUMERIC,
        [
            with_ints((2, 3, 4), [2, 0, 1]),
            with_ints((3, 4), [1, 0], np.int64),
            with_ints((0, 3), [1, 0]),
            with_ints((), []),
        ],
    ),
    "Tile": (
        NUMERIC,
        [
            with_ints((2, 3), [2, 1]),
            with_ints((2, 1, 3), [2, 2, 1]),
            with_ints((3,), [0]),
            with_ints((), []),
        ],
    ),
}

# Gradient variants for ops of several outputs: an output's gradient None (the rule is
# handed zeros) or zero-valued (a rule may skip it).
VARIANTS: dict[str, list[tuple[str, int]]] = {
    "SoftmaxCrossEntropyWithLogits": [("none", 1), ("none", 0), ("zero", 1)],
}


def _run_registered(op: Any, grads: list[np.ndarray | None]) -> list[np.ndarray | None]:
    fn = gradient_registry.lookup(op.type)
    gts = [
        constant(g) if g is not None else tf.zeros_like(op.outputs[i]) for i, g in enumerate(grads)
    ]
    out = fn(op, *gts)
    out = list(out) if isinstance(out, list | tuple) else [out]
    return [None if r is None else np.asarray(r.numpy()) for r in out]


def assert_same_bits(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """Equal dtype, shape and bits; nan matches nan at the same place, any payload."""
    assert type(got) is np.ndarray, f"{what}: {type(got)} is not an array"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if got.dtype.kind == "c":
        got, want = (np.stack([a.real, a.imag]) for a in (got, want))
    if got.dtype.kind == "f":
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan, err_msg=f"{what}: nan positions")
        bits = np.dtype(f"u{got.dtype.itemsize}")
        np.testing.assert_array_equal(
            got[~nan].view(bits), want[~nan].view(bits), err_msg=f"{what}: bits"
        )
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _cases() -> list[tuple[str, Any, int]]:
    return [
        (t, d, i)
        for t in sorted(ARRAY_RULES)
        if t in ROWS
        for d in ROWS[t][0]
        for i in range(len(ROWS[t][1]))
    ]


def test_every_array_rule_has_a_row() -> None:
    assert sorted(set(ARRAY_RULES) - set(ROWS)) == []
    assert {"Mul", "AddV2", "Sin", "Tanh"} <= set(ARRAY_RULES)


def _forward(op_type: str, xs: list[np.ndarray], attrs: dict[str, Any]) -> Any:
    try:
        return apply_op(op_type, [constant(x) for x in xs], attrs)
    except (TypeError, ValueError, tf.errors.InvalidArgumentError):
        return None  # a dtype (or value) the forward op refuses


@pytest.mark.parametrize(("op_type", "dtype", "row"), _cases())
def test_array_rule_matches_registered_rule(op_type: str, dtype: Any, row: int) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{op_type} {np.dtype(dtype).name} {row}".encode()))
    xs, attrs = ROWS[op_type][1][row](rng, dtype)
    op = _forward(op_type, xs, attrs)
    if op is None:
        assert np.dtype(dtype) not in (np.float32, np.float64), f"{op_type} refused {dtype}"
        pytest.skip(f"{op_type} does not take {np.dtype(dtype).name}")
    ys = [np.asarray(v) for v in op.output_values]
    grads: list[np.ndarray | None] = [values(rng, y.shape, y.dtype) for y in ys]
    for kind, i in [("", 0)] + VARIANTS.get(op_type, []):
        if kind:
            grads = [values(rng, y.shape, y.dtype) for y in ys]
            grads[i] = None if kind == "none" else np.zeros_like(ys[i])
        _check_needs(op, xs, ys, grads)


def _check_needs(op: Any, xs: list[np.ndarray], ys: list[np.ndarray], grads: list[Any]) -> None:
    """The array rule against the registered one, for every non-empty subset of inputs."""
    op_type, dtype = op.type, xs[0].dtype
    rule = array_rule_for(op_type)
    assert rule is not None
    for needs in itertools.product((True, False), repeat=len(xs)):
        if not any(needs):
            continue
        op.skip_input_indices = tuple(i for i, n in enumerate(needs) if not n) or None
        with np.errstate(all="ignore"):
            try:
                want = _run_registered(op, grads)
            except (tf.errors.InvalidArgumentError, TypeError):  # an integer Pow's
                with pytest.raises((ValueError, TypeError)):
                    rule(xs, ys, dict(op.attrs), grads, needs)
                continue
            got = list(rule(xs, ys, dict(op.attrs), grads, needs))
        assert len(got) == len(xs)
        for i, need in enumerate(needs):
            if need and want[i] is None:
                assert got[i] is None, f"{op_type} input {i}: the rule gives None"
            elif need:
                assert got[i] is not None, f"{op_type} input {i}: None"
                assert_same_bits(got[i], want[i], f"{op_type} {np.dtype(dtype).name} input {i}")


def test_array_rule_stands_down_when_the_registry_holds_another_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert array_rule_for("Mul") is ARRAY_RULES["Mul"][1]
    entry = gradient_registry.entry("Mul")
    assert entry is not None
    monkeypatch.setitem(gradient_registry._registry, "Mul", (lambda op, g: (g, g), entry[1]))
    assert array_rule_for("Mul") is None
    monkeypatch.setitem(gradient_registry._registry, "Mul", entry)
    assert array_rule_for("Mul") is ARRAY_RULES["Mul"][1]
    assert array_rule_for("NoSuchOp") is None
