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
INTS = (np.int8, np.int32, np.int64, np.uint8)  # (int16 takes the paths int8 and int32 do)
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
    with_ints((0, 3), [0, 1]),
]
_SOFTMAX = ("Softmax", "LogSoftmax")


def _sparse(shape: tuple[int, int], d: Any = np.int32) -> Maker:
    """Logits of ``shape`` and labels in range."""
    return lambda rng, dtype: (
        [values(rng, shape, dtype), rng.integers(0, shape[1], shape[0]).astype(d)],
        {},
    )


def _select(c: tuple[int, ...], x: tuple[int, ...], y: tuple[int, ...]) -> Maker:
    """A boolean condition and two operands, broadcasting together."""
    return lambda rng, d: ([rng.random(c) < 0.5, values(rng, x, d), values(rng, y, d)], {})


def _sliced(shape: tuple[int, ...], *bes: Any, d: Any = np.int32, **masks: int) -> Maker:
    """A slice's input and its integer inputs (Slice: begin, size; StridedSlice: begin,
    end, strides, and its masks)."""
    attrs = {m: masks.get(m, 0) for m in _MASKS} if len(bes) == 3 else {}
    return lambda rng, dtype: (
        [values(rng, shape, dtype), *(np.asarray(v, d) for v in bes)],
        attrs,
    )


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _via(fn: Callable[..., Any], *shapes: tuple[int, ...]) -> Maker:
    """Inputs of ``shapes`` and the attrs the public function ``fn`` gives its op."""

    def make(rng: np.random.Generator, d: Any) -> tuple[list[np.ndarray], dict[str, Any]]:
        xs = [values(rng, s, d) for s in shapes]
        return xs, dict(fn(*(constant(x) for x in xs)).op.attrs)

    return make


def _batch_norm(shape: tuple[int, ...], training: bool, fmt: str = "NHWC") -> Maker:
    """x, scale, offset, mean, variance (empty in training; float32 for float16 x)."""

    def make(rng: np.random.Generator, d: Any) -> tuple[list[np.ndarray], dict[str, Any]]:
        u = np.float32 if d is np.float16 else d
        c = shape[-1] if fmt == "NHWC" else shape[1]
        stats = [values(rng, (c,), u), np.abs(values(rng, (c,), u))] if not training else []
        x, scale, offset = values(rng, shape, d), values(rng, (c,), u), values(rng, (c,), u)
        y = tf.nn.fused_batch_norm(x, scale, offset, *stats, data_format=fmt, is_training=training)[
            0
        ]
        xs = [x, scale, offset, *(stats or [np.zeros(0, u)] * 2)]
        return xs, dict(y.op.attrs)

    return make


def _concat(shapes: list[tuple[int, ...]], axis: int, d: Any = np.int32) -> Maker:
    return lambda rng, dtype: (
        [*(values(rng, s, dtype) for s in shapes), np.asarray(axis, d)],
        {"N": len(shapes)},
    )


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
    **{t: (FLOATS + COMPLEX, _UNARY) for t in ("Log1p", "Tan")},
    "Sign": (NUMERIC, _UNARY),
    **{t: (FLOATS, _UNARY) for t in ("Softplus", "Elu", "Selu", "L2Loss")},
    "Relu6": (FLOATS + INTS, _UNARY),
    "LeakyRelu": (FLOATS, [ins((3, 4), alpha=0.2), ins((0, 2), alpha=0.3), ins((), alpha=0.01)]),
    "AddN": (NUMERIC, [ins((3, 4), (3, 4), (3, 4)), ins((2, 3), (2, 3)), ins((0, 2), (0, 2))]),
    "BatchMatMulV2": (
        NUMERIC,
        [
            ins((2, 4, 3) if ax else (2, 3, 4), (5, 4) if ay else (4, 5), adj_x=ax, adj_y=ay)
            for ax in (False, True)
            for ay in (False, True)
        ]
        + [
            ins((1, 3, 4), (2, 4, 5), adj_x=False, adj_y=False),
            ins((2, 1, 3, 4), (3, 4, 5), adj_x=False, adj_y=False),
            ins((0, 3, 4), (4, 5), adj_x=False, adj_y=False),
        ],
    ),
    "SparseSoftmaxCrossEntropyWithLogits": (
        FLOATS,
        [_sparse((3, 4)), _sparse((8, 5), np.int64), _sparse((0, 3))],
    ),
    "SelectV2": (
        NUMERIC,
        [
            _select((3, 4), (3, 4), (3, 4)),
            _select((3, 1), (2, 1, 4), ()),
            _select((), (3,), (2, 3)),
            _select((0, 2), (2,), (1, 2)),
        ],
    ),
    "ConcatV2": (
        NUMERIC,
        [
            _concat([(2, 3), (2, 1), (2, 4)], 1),
            _concat([(2, 3), (4, 3)], 0),
            _concat([(2, 3, 1), (2, 3, 2)], -1, np.int64),
            _concat([(0, 3), (2, 3)], 0),
        ],
    ),
    **{t: (FLOATS + INTS, _REDUCTIONS) for t in ("Max", "Min")},
    "BroadcastTo": (
        NUMERIC,
        [
            with_ints((3, 1), [2, 3, 4]),
            with_ints((4,), [3, 4]),
            with_ints((), [2, 3]),
            with_ints((1, 1), [1, 1]),
            with_ints((2, 1), [2, 0], np.int64),
        ],
    ),
    "StridedSlice": (
        NUMERIC,
        [
            _sliced((3, 4), [1, 0], [3, 4], [1, 2]),
            _sliced((3, 4), [1], [2], [1], shrink_axis_mask=1),
            _sliced((5, 4), [4, 0], [0, 4], [-2, 1], end_mask=1),
            _sliced((2, 3, 4), [0, 1], [0, 3], [1, 1], ellipsis_mask=1),
            _sliced((3, 4), [0, 0], [0, 2], [1, 1], new_axis_mask=1, begin_mask=2),
        ],
    ),
    "Pack": (
        NUMERIC,
        [
            ins((2, 3), (2, 3), (2, 3), N=3, axis=0),
            ins((2, 3), (2, 3), N=2, axis=-1),
            ins((), N=1, axis=0),
        ],
    ),
    "Unpack": (
        NUMERIC,
        [ins((3, 2), num=3, axis=0), ins((2, 4, 3), num=3, axis=-1), ins((1, 0), num=1, axis=0)],
    ),
    **{
        t: (FLOATS + COMPLEX, _UNARY)
        for t in ("Sinh", "Cosh", "Asin", "Acos", "Atan", "Asinh", "Acosh", "Atanh", "Expm1")
    },
    **{t: (NUMERIC, _BINARY) for t in ("Atan2", "DivNoNan")},
    "Slice": (
        NUMERIC,
        [
            _sliced((3, 4), [1, 0], [2, -1]),
            _sliced((2, 3, 4), [0, 1, 2], [2, 1, 2]),
            _sliced((3, 4), [3, 0], [0, 4], d=np.int64),
            _sliced((), [], []),
        ],
    ),
    "Conv2D": (
        FLOATS,
        [
            _via(lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"), (2, 5, 6, 3), (3, 2, 3, 4)),
            _via(lambda x, w: tf.nn.conv2d(x, w, 2, "VALID"), (2, 7, 6, 2), (3, 3, 2, 3)),
            _via(
                lambda x, w: tf.nn.conv2d(x, w, 1, "SAME", dilations=2), (1, 6, 6, 2), (2, 2, 2, 2)
            ),
        ],
    ),
    "Conv3D": (
        FLOATS,
        [_via(lambda x, w: tf.nn.conv3d(x, w, [1] * 5, "VALID"), (1, 4, 5, 3, 2), (2, 2, 2, 2, 3))],
    ),
    "DepthwiseConv2dNative": (
        FLOATS,
        [
            _via(
                lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"),
                (2, 5, 5, 3),
                (3, 3, 3, 2),
            )
        ],
    ),
    **{
        t: (
            FLOATS,
            [
                _via(lambda x, f=f: f(x, 2, 2, "VALID"), (2, 6, 5, 3)),
                _via(lambda x, f=f: f(x, 3, 1, "SAME"), (1, 5, 4, 2)),
            ],
        )
        for t, f in (("MaxPool", tf.nn.max_pool2d), ("AvgPool", tf.nn.avg_pool2d))
    },
    **{
        t: (FLOATS, [_via(lambda x, f=f: f(x, 2, 2, "VALID"), (1, 4, 4, 5, 2))])
        for t, f in (("MaxPool3D", tf.nn.max_pool3d), ("AvgPool3D", tf.nn.avg_pool3d))
    },
    "FusedBatchNormV3": (
        FLOATS,
        [
            _batch_norm((2, 3, 2, 4), True),
            _batch_norm((2, 3, 1, 3), False),
            _batch_norm((1, 2, 2, 3), True, "NCHW"),
        ],
    ),
}

# Gradient variants for ops of several outputs: an output's gradient None (the rule is
# handed zeros) or zero-valued (a rule may skip it).
VARIANTS: dict[str, list[tuple[str, int]]] = {
    "SoftmaxCrossEntropyWithLogits": [("none", 1), ("none", 0), ("zero", 1)],
    "SparseSoftmaxCrossEntropyWithLogits": [("none", 1), ("none", 0), ("zero", 1)],
    "Unpack": [("none", 0), ("none", -1)],
    "FusedBatchNormV3": [("none", 0), ("zero", 0)],
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
    assert sorted(set(ARRAY_RULES) - set(ROWS) - {"ReadVariableOp"}) == []
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


def test_a_variable_read_passes_nothing_back() -> None:
    """ReadVariableOp has no tensor inputs (its gradient is collected at the Variable)."""
    v = tf.Variable(np.array([1.0, -0.0, np.nan], np.float32))
    read = v.read_value()
    op = read.op
    assert op.type == "ReadVariableOp"
    g = np.array([1.0, 2.0, 3.0], np.float32)
    assert _run_registered(op, [g]) == []
    rule = array_rule_for("ReadVariableOp")
    assert rule is not None
    assert rule([], [read.numpy()], dict(op.attrs), [g], []) == []


def test_unbroadcast_axes_are_found_once_a_shape_pair() -> None:
    """``array_vjp.unbroadcast`` keeps its Sums' axes by (gradient shape, input shape):
    a second, different pair gets its own axes, and each result is the registered
    ``ops.core.unbroadcast``'s, bit for bit."""
    from symgrad.ops import array_vjp
    from symgrad.ops.core import unbroadcast as unbroadcast_t

    rng = np.random.default_rng(7)
    pairs = [((32, 64), (64,)), ((2, 3, 4), (3, 1)), ((32, 64), (1, 64)), ((5, 1), (1,))]
    for _ in range(2):  # the second time round from the memo
        for gs, shape in pairs:
            g = rng.standard_normal(gs).astype(np.float32)
            got = array_vjp.unbroadcast(g, shape)
            want = unbroadcast_t(constant(g), constant(np.zeros(shape, np.float32))).numpy()
            assert got.shape == shape and got.dtype == want.dtype
            assert got.tobytes() == want.tobytes()
    assert array_vjp._reduction_axes((32, 64), (64,)) == ((), (0,))
    assert array_vjp._reduction_axes((2, 3, 4), (3, 1)) == ((2,), (0,))
    assert array_vjp._reduction_axes((32, 64), (1, 64)) == ((0,), ())
    assert array_vjp._reduction_axes((5, 1), (1,)) == ((), (0,))
