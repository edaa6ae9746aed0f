"""Property-based tests (issue 18, point 6): random shapes, indices, axes and dtypes.

Hypothesis draws the structure (shapes, index expressions, axes, chains of reshapes and
transposes, dtypes) and a seed for the values.  Every property compares the forward value
with NumPy and, where the op is differentiable, the gradient with float64 central
differences (``symgrad.test.check_vjp``).  Runs are derandomized, so CI is deterministic.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import mutually_broadcastable_shapes  # noqa: E402

import symgrad as tf  # noqa: E402
from symgrad.core.op_registry import OPS  # noqa: E402

FAST = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SEEDS = st.integers(0, 2**32 - 1)
FLOATS = (np.float32, np.float64)
INTS = (np.int32, np.int64)


def check_vjp(fn: Callable[..., Any], args: list[np.ndarray], **kw: Any) -> None:
    tf.test.check_vjp(fn, args, rng=0, **kw)


def assert_forward(got: tf.Tensor, want: np.ndarray) -> None:
    value = got.numpy()
    want = np.asarray(want)
    assert value.shape == want.shape, (value.shape, want.shape)
    assert value.dtype == want.dtype, (value.dtype, want.dtype)
    if want.dtype.kind in "fc":
        rtol = 1e-3 if want.dtype in (np.float16, np.complex64, np.float32) else 1e-12
        np.testing.assert_allclose(value, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(value, want)


# --------------------------------------------------------------------------------------
# Values


def values(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: Any, domain: str = "any"
) -> np.ndarray:
    """Random values of ``dtype`` in ``domain``: any, positive, away (|x| >= 0.5), distinct."""
    d = np.dtype(dtype)
    if d == np.bool_:
        return rng.random(shape) < 0.5
    if d.kind in "iu":
        lo = 1 if domain in ("positive", "away") else -5
        out = rng.integers(lo, 6, size=shape).astype(d)
        if domain == "away":
            out *= rng.choice(np.array([-1, 1], d), size=shape)
        return out
    if domain == "distinct":
        n = math.prod(shape)
        return (rng.permutation(n).reshape(shape) * 0.37 - n * 0.15).astype(d)
    x = (
        rng.uniform(0.5, 2.0, size=shape)
        if domain in ("positive", "away")
        else rng.uniform(-2.0, 2.0, size=shape)
    )
    if domain == "away":
        x = x * rng.choice([-1.0, 1.0], size=shape)
    return np.asarray(x, dtype=d)


# --------------------------------------------------------------------------------------
# Broadcasting of every binary op


@dataclass
class Binary:
    op_type: str
    fn: Callable[..., tf.Tensor]
    ref: Callable[..., np.ndarray]
    dtypes: tuple[Any, ...]
    domains: tuple[str, str] = ("any", "any")
    grad: bool = True
    same_values: bool = False  # both operands drawn from one pool (ties for max/min)


def _floormod_ref(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.mod(x, y)


def _complex_ref(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.asarray(x + 1j * y)
    return out.astype(np.complex64 if x.dtype == np.float32 else np.complex128)


NUMBERS = FLOATS + INTS


def _zero(x: np.ndarray) -> Any:
    """A zero of x's dtype: with a Python 0, NumPy 1.x's np.where of scalars is float64."""
    return np.zeros((), x.dtype)


BINARY = [
    Binary("AddV2", tf.add, np.add, NUMBERS),
    Binary("Sub", tf.subtract, np.subtract, NUMBERS),
    Binary("Mul", tf.multiply, np.multiply, NUMBERS),
    Binary("RealDiv", tf.divide, np.true_divide, FLOATS, ("any", "away")),
    Binary("FloorDiv", tf.floordiv, np.floor_divide, NUMBERS, ("any", "away"), grad=False),
    Binary("FloorMod", tf.floormod, _floormod_ref, NUMBERS, ("any", "away")),
    Binary("Pow", tf.pow, np.power, FLOATS, ("positive", "any")),
    Binary("Maximum", tf.maximum, np.maximum, NUMBERS, ("distinct", "distinct")),
    Binary("Minimum", tf.minimum, np.minimum, NUMBERS, ("distinct", "distinct")),
    Binary("SquaredDifference", tf.squared_difference, lambda x, y: np.square(x - y), NUMBERS),
    Binary("Equal", tf.equal, np.equal, NUMBERS, grad=False, same_values=True),
    Binary("NotEqual", tf.not_equal, np.not_equal, NUMBERS, grad=False, same_values=True),
    Binary("Less", tf.less, np.less, NUMBERS, grad=False, same_values=True),
    Binary("LessEqual", tf.less_equal, np.less_equal, NUMBERS, grad=False, same_values=True),
    Binary("Greater", tf.greater, np.greater, NUMBERS, grad=False, same_values=True),
    Binary(
        "GreaterEqual", tf.greater_equal, np.greater_equal, NUMBERS, grad=False, same_values=True
    ),
    Binary("LogicalAnd", tf.logical_and, np.logical_and, (np.bool_,), grad=False),
    Binary("LogicalOr", tf.logical_or, np.logical_or, (np.bool_,), grad=False),
    Binary("Complex", tf.complex, _complex_ref, FLOATS),
    Binary("Atan2", tf.math.atan2, np.arctan2, FLOATS, ("any", "away")),
    Binary(
        "DivNoNan",
        tf.math.divide_no_nan,
        lambda x, y: np.where(y == 0, _zero(x), x / y),
        FLOATS,
        ("any", "away"),
    ),
    Binary(
        "MulNoNan", tf.math.multiply_no_nan, lambda x, y: np.where(y == 0, _zero(x), x * y), FLOATS
    ),
    Binary(
        "TruncateDiv",
        tf.truncatediv,
        lambda x, y: np.trunc(x / y).astype(x.dtype),
        INTS,
        ("any", "away"),
        grad=False,
    ),
    Binary(
        "Xdivy",
        tf.math.xdivy,
        lambda x, y: np.where(x == 0, _zero(x), x / y),
        FLOATS,
        ("any", "away"),
    ),
    Binary(
        "Xlogy",
        tf.math.xlogy,
        lambda x, y: np.where(x == 0, _zero(x), x * np.log(y)),
        FLOATS,
        ("any", "positive"),
    ),
    Binary(
        "Xlog1py",
        tf.math.xlog1py,
        lambda x, y: np.where(x == 0, _zero(x), x * np.log1p(y)),
        FLOATS,
        ("any", "positive"),
    ),
    Binary("NextAfter", tf.math.nextafter, np.nextafter, (np.float32, np.float64)),
    Binary("TruncateMod", tf.truncatemod, np.fmod, NUMBERS, ("any", "away"), grad=False),
]
# Internal gradient ops of unary rules: two inputs of one shape, never broadcast.  Polygamma
# and Zeta take an order / exponent, RandomGammaGrad a positive alpha and sample, whose
# domains these generators do not draw (their op-table rows check them, and
# tests/ops/test_random_gamma.py RandomGammaGrad's values against TF's).
NOT_BROADCASTING = {
    "ReluGrad",
    "RsqrtGrad",
    "SigmoidGrad",
    "SqrtGrad",
    "TanhGrad",
    "SoftsignGrad",
    "EluGrad",
    "LeakyReluGrad",
    "Relu6Grad",
    "SeluGrad",
    "Polygamma",
    "Zeta",
    "RandomGammaGrad",
}


def test_every_broadcasting_binary_op_has_a_property():
    binary = {
        t for t, d in OPS.items() if d.elementwise and any(len(c.inputs) == 2 for c in d.cases)
    }
    assert binary - NOT_BROADCASTING == {b.op_type for b in BINARY}


def _operands(b: Binary, shapes: Any, dtype: Any, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    if b.same_values:  # comparisons: draw from a small pool so that ties happen
        pool = values(rng, (4,), dtype)
        return [rng.choice(pool, size=s) for s in shapes.input_shapes]
    if b.domains == ("distinct", "distinct"):  # max/min: no ties between the operands
        n = [math.prod(s) for s in shapes.input_shapes]
        both = values(rng, (sum(n),), dtype, "distinct")
        return [
            both[: n[0]].reshape(shapes.input_shapes[0]),
            both[n[0] :].reshape(shapes.input_shapes[1]),
        ]
    return [values(rng, s, dtype, d) for s, d in zip(shapes.input_shapes, b.domains)]


@pytest.mark.parametrize("b", BINARY, ids=lambda b: b.op_type)
@FAST
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    seed=SEEDS,
    data=st.data(),
)
def test_binary_op_broadcasts_as_numpy(b: Binary, shapes: Any, seed: int, data: Any) -> None:
    dtype = data.draw(st.sampled_from(b.dtypes), label="dtype")
    x, y = _operands(b, shapes, dtype, seed)
    out = b.fn(tf.constant(x), tf.constant(y))
    assert out.op.type == b.op_type or b.op_type == "Complex"
    want = b.ref(x, y)
    assert_forward(out, np.asarray(want, dtype=np.asarray(want).dtype))
    assert tuple(out.shape.as_list()) == shapes.result_shape
    if b.grad:
        x64, y64 = _operands(b, shapes, np.float64, seed)
        check_vjp(b.fn, [x64, y64], name=b.op_type)


@pytest.mark.parametrize(
    "b", [b for b in BINARY if b.dtypes != (np.bool_,)], ids=lambda b: b.op_type
)
@FAST
@given(seed=SEEDS, data=st.data())
def test_binary_op_dtype_combinations(b: Binary, seed: int, data: Any) -> None:
    """Two tensors of different dtypes never promote; a Python scalar takes the tensor's."""
    dx, dy = data.draw(st.sampled_from(b.dtypes)), data.draw(st.sampled_from(NUMBERS))
    rng = np.random.default_rng(seed)
    x = values(rng, (3,), dx, b.domains[0] if b.domains[0] != "distinct" else "any")
    y = values(rng, (3,), dy, "away")
    if np.dtype(dx) != np.dtype(dy):
        with pytest.raises(
            TypeError,
            match=rf"{b.op_type} op .*has dtype .* that does not "
            r"match dtype",
        ):
            b.fn(tf.constant(x), tf.constant(y))
    scalar = 2 if np.dtype(dx).kind in "iu" else 1.5
    out = b.fn(tf.constant(x), scalar)
    want = b.ref(x, np.asarray(scalar, dx))
    assert_forward(out, np.asarray(want))


@FAST
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3),
    seed=SEEDS,
)
def test_where_broadcasts_its_three_operands(shapes: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    c = values(rng, shapes.input_shapes[0], np.bool_)
    x, y = (values(rng, s, np.float64) for s in shapes.input_shapes[1:])
    assert_forward(tf.where(tf.constant(c), tf.constant(x), tf.constant(y)), np.where(c, x, y))
    check_vjp(lambda a, b: tf.where(tf.constant(c), a, b), [x, y], name="SelectV2")


# --------------------------------------------------------------------------------------
# Indexing and strided slicing of every kind


@st.composite
def index_expressions(draw: Any) -> tuple[tuple[int, ...], tuple[Any, ...]]:
    """A shape and a NumPy/TF index over it: ints (negative too), slices with any bounds
    and steps, Ellipsis, newaxis."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    consumed = draw(st.integers(0, len(shape)))
    items: list[Any] = []
    for n in shape[:consumed]:
        kind = draw(st.sampled_from(["int", "slice", "full"]))
        if kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "full":
            items.append(slice(None))
        else:
            bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
            step = draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
            items.append(slice(draw(bound), draw(bound), step))
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
        if len(items) > 1 and draw(st.booleans()):
            items.pop(0 if items[0] is not Ellipsis else -1)  # the ellipsis spans more axes
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return shape, tuple(items)


@FAST
@given(expr=index_expressions(), seed=SEEDS)
def test_indexing_matches_numpy_and_its_gradient_scatters_back(expr: Any, seed: int) -> None:
    shape, index = expr
    x = values(np.random.default_rng(seed), shape, np.float64)
    assert_forward(tf.constant(x)[index], x[index])
    assert_forward(tf.constant(x.astype(np.int32))[index], x.astype(np.int32)[index])
    if x[index].size:
        check_vjp(lambda t: t[index] * 1.0, [x], name=f"x{list(index)}")


@st.composite
def slices(draw: Any) -> tuple[tuple[int, ...], list[int], list[int]]:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    begin = [draw(st.integers(0, n - 1)) for n in shape]
    size = [draw(st.sampled_from([-1, *range(0, n - b + 1)])) for n, b in zip(shape, begin)]
    return shape, begin, size


@FAST
@given(spec=slices(), seed=SEEDS)
def test_slice_matches_numpy(spec: Any, seed: int) -> None:
    shape, begin, size = spec
    x = values(np.random.default_rng(seed), shape, np.float64)
    want = x[tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))]
    assert_forward(tf.slice(tf.constant(x), begin, size), want)
    if want.size:
        check_vjp(lambda t: tf.slice(t, begin, size), [x], name="Slice")


@st.composite
def gathers(draw: Any) -> tuple[tuple[int, ...], int, list[Any]]:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    idx_shape = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    idx = draw(
        st.lists(
            st.integers(0, n - 1), min_size=math.prod(idx_shape), max_size=math.prod(idx_shape)
        )
    )
    return shape, axis, np.array(idx, np.int32).reshape(idx_shape).tolist()


@FAST
@given(spec=gathers(), seed=SEEDS)
def test_gather_matches_numpy_take(spec: Any, seed: int) -> None:
    shape, axis, idx = spec
    x = values(np.random.default_rng(seed), shape, np.float64)
    assert_forward(tf.gather(tf.constant(x), idx, axis=axis), np.take(x, idx, axis=axis))
    check_vjp(lambda t: tf.gather(t, idx, axis=axis), [x], name="GatherV2")


@FAST
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3), seed=SEEDS, data=st.data())
def test_gather_nd_matches_numpy(shape: list[int], seed: int, data: Any) -> None:
    depth = data.draw(st.integers(1, len(shape)), label="depth")
    rows = data.draw(st.integers(1, 3), label="rows")
    idx = [[data.draw(st.integers(0, n - 1)) for n in shape[:depth]] for _ in range(rows)]
    x = values(np.random.default_rng(seed), tuple(shape), np.float64)
    want = np.stack([x[tuple(i)] for i in idx])
    assert_forward(tf.gather_nd(tf.constant(x), idx), want)
    check_vjp(lambda t: tf.gather_nd(t, idx), [x], name="GatherNd")


# --------------------------------------------------------------------------------------
# Reductions over any axes, with and without keepdims


@st.composite
def reductions(draw: Any) -> tuple[tuple[int, ...], Any, bool]:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=3)))
    r = len(shape)
    kind = draw(st.sampled_from(["none", "int", "list"]) if r else st.just("none"))
    if kind == "none":
        axis: Any = None
    elif kind == "int":
        axis = draw(st.integers(-r, r - 1))
    else:
        chosen = draw(st.lists(st.integers(0, r - 1), unique=True, max_size=r))
        axis = [a - r if draw(st.booleans()) else a for a in chosen]
    return shape, axis, draw(st.booleans())


def _np_axis(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


REDUCTIONS = [
    ("Sum", tf.reduce_sum, np.sum, NUMBERS, "any"),
    ("Mean", tf.reduce_mean, np.mean, FLOATS, "any"),
    ("Max", tf.reduce_max, np.max, NUMBERS, "distinct"),
    ("Min", tf.reduce_min, np.min, NUMBERS, "distinct"),
    ("Prod", tf.reduce_prod, np.prod, NUMBERS, "away"),
]


@pytest.mark.parametrize(
    "op_type, fn, ref, dtypes, domain", REDUCTIONS, ids=[r[0] for r in REDUCTIONS]
)
@FAST
@given(spec=reductions(), seed=SEEDS, data=st.data())
def test_reduction_over_any_axes(
    op_type: str, fn: Any, ref: Any, dtypes: Any, domain: str, spec: Any, seed: int, data: Any
) -> None:
    shape, axis, keepdims = spec
    dtype = np.dtype(data.draw(st.sampled_from(dtypes), label="dtype"))
    x = values(np.random.default_rng(seed), shape, dtype, domain)
    if dtype.kind in "iu" and op_type == "Prod":
        x = np.clip(x, -2, 2)  # no overflow
    want = np.asarray(ref(x, axis=_np_axis(axis), keepdims=keepdims)).astype(dtype)
    out = fn(tf.constant(x), axis=axis, keepdims=keepdims)
    assert out.op.type == op_type
    assert_forward(out, want)
    x64 = values(np.random.default_rng(seed), shape, np.float64, domain)
    check_vjp(lambda t: fn(t, axis=axis, keepdims=keepdims), [x64], name=op_type)


@FAST
@given(spec=reductions(), seed=SEEDS)
def test_any_and_all_over_any_axes(spec: Any, seed: int) -> None:
    shape, axis, keepdims = spec
    x = values(np.random.default_rng(seed), shape, np.bool_)
    for fn, ref in ((tf.reduce_any, np.any), (tf.reduce_all, np.all)):
        assert_forward(
            fn(tf.constant(x), axis=axis, keepdims=keepdims),
            ref(x, axis=_np_axis(axis), keepdims=keepdims),
        )


@FAST
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), seed=SEEDS, data=st.data())
def test_argmax_argmin_along_any_axis(shape: list[int], seed: int, data: Any) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    x = values(np.random.default_rng(seed), tuple(shape), np.float32, "distinct")
    assert_forward(tf.argmax(tf.constant(x), axis), np.argmax(x, axis).astype(np.int64))
    assert_forward(tf.argmin(tf.constant(x), axis), np.argmin(x, axis).astype(np.int64))


def _scan_ref(ufunc: Any, x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> Any:
    y = np.flip(x, axis) if reverse else x
    out = ufunc.accumulate(y, axis=axis)
    if exclusive:
        ident = np.full_like(np.take(y, [0], axis=axis), ufunc.identity)
        out = np.concatenate([ident, np.delete(out, -1, axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize(
    "fn, ufunc", [(tf.cumsum, np.add), (tf.cumprod, np.multiply)], ids=["Cumsum", "Cumprod"]
)
@FAST
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), seed=SEEDS, data=st.data())
def test_scans_along_any_axis(fn: Any, ufunc: Any, shape: list[int], seed: int, data: Any) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    exclusive, reverse = data.draw(st.booleans()), data.draw(st.booleans())
    x = values(np.random.default_rng(seed), tuple(shape), np.float64, "away")
    assert_forward(
        fn(tf.constant(x), axis, exclusive=exclusive, reverse=reverse),
        _scan_ref(ufunc, x, axis, exclusive, reverse),
    )
    check_vjp(lambda t: fn(t, axis, exclusive=exclusive, reverse=reverse), [x], name=fn.__name__)


# --------------------------------------------------------------------------------------
# Chains of reshape, transpose, expand_dims and squeeze


@dataclass
class Chain:
    shape: tuple[int, ...]
    steps: list[tuple[str, Any]] = field(default_factory=list)

    def apply(self, x: Any, lib: str) -> Any:
        for kind, arg in self.steps:
            if kind == "reshape":
                x = tf.reshape(x, arg) if lib == "tf" else np.reshape(x, arg)
            elif kind == "transpose":
                x = tf.transpose(x, arg) if lib == "tf" else np.transpose(x, arg)
            elif kind == "expand_dims":
                x = tf.expand_dims(x, arg) if lib == "tf" else np.expand_dims(x, arg)
            else:
                x = tf.squeeze(x, arg) if lib == "tf" else np.squeeze(x, arg)
        return x


@st.composite
def chains(draw: Any) -> Chain:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    chain, cur = Chain(shape), list(shape)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["reshape", "transpose", "expand_dims", "squeeze"]))
        if kind == "reshape":
            factors = [p for n in cur for p in _prime_factors(n)]
            factors = list(draw(st.permutations(factors)))
            ndims = draw(st.integers(1, 4))
            cuts = sorted(
                draw(st.lists(st.integers(0, len(factors)), min_size=ndims - 1, max_size=ndims - 1))
            )
            bounds = [0, *cuts, len(factors)]
            new = [math.prod(factors[a:b]) for a, b in itertools.pairwise(bounds)]
            arg: Any = list(new)
            if draw(st.booleans()):
                arg[draw(st.integers(0, len(arg) - 1))] = -1
            chain.steps.append((kind, arg))
            cur = new
        elif kind == "transpose":
            perm = list(draw(st.permutations(range(len(cur)))))
            chain.steps.append((kind, perm))
            cur = [cur[p] for p in perm]
        elif kind == "expand_dims" and len(cur) < 5:
            axis = draw(st.integers(-len(cur) - 1, len(cur)))
            chain.steps.append((kind, axis))
            cur.insert(axis % (len(cur) + 1), 1)
        elif kind == "squeeze" and 1 in cur:
            ones_at = [i for i, n in enumerate(cur) if n == 1]
            axis = draw(st.sampled_from(ones_at))
            chain.steps.append((kind, axis))
            cur.pop(axis)
    return chain


def _prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


@FAST
@given(chain=chains(), seed=SEEDS)
def test_reshape_transpose_chains(chain: Chain, seed: int) -> None:
    x = values(np.random.default_rng(seed), chain.shape, np.float64)
    assert_forward(chain.apply(tf.constant(x), "tf"), chain.apply(x, "np"))
    xi = x.astype(np.int32)
    assert_forward(chain.apply(tf.constant(xi), "tf"), chain.apply(xi, "np"))
    check_vjp(lambda t: chain.apply(t, "tf") * 1.0, [x], name=f"chain {chain.steps}")


# --------------------------------------------------------------------------------------
# dtypes: casts round-trip and unary ops keep their dtype


CASTABLE = (
    np.float16,
    np.float32,
    np.float64,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.bool_,
    np.complex64,
    np.complex128,
)


@FAST
@given(src=st.sampled_from(CASTABLE), dst=st.sampled_from(CASTABLE), seed=SEEDS)
def test_cast_between_dtypes_as_numpy(src: Any, dst: Any, seed: int) -> None:
    x = values(
        np.random.default_rng(seed),
        (2, 3),
        src if src not in (np.complex64, np.complex128) else np.float64,
    ).astype(src)
    if np.dtype(src).kind in "fc" and np.dtype(dst).kind in "iub":
        x = np.trunc(x.real).astype(src)  # TF truncates; NumPy's cast of a fraction matches
    want = (
        x.astype(dst)
        if not (np.dtype(src).kind == "c" and np.dtype(dst).kind != "c")
        else x.real.astype(dst)
    )
    assert_forward(tf.cast(tf.constant(x), tf.as_dtype(dst)), want)
