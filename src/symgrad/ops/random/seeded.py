"""Seeded random ops with TensorFlow's seed rules and TensorFlow's numbers.

Seeds (``get_seed``, as TF's ``random_seed.get_seed``): an op's two seeds come from a
global seed (``set_seed``; in a graph, the graph's seed) and its own ``seed=``.  With
neither, the op is unseeded and draws differently in every program.  A global seed
alone gives each op a seed of its own, reproducibly: at top level the next draw of a
``random.Random(global_seed)`` (TF's eager rule), in a graph or a traced function a
counter of that graph (0, 1, 2...: a function traced twice draws the same numbers).

State: a stateful op (``RandomStandardNormal`` ...) owns a Philox stream keyed by its
seeds (see :mod:`.philox`); each run continues where the last stopped, so a Session
running it again gets new numbers.  As in TF, eager calls share one stream per
(op type, seeds, dtypes), and ``set_seed`` restarts them all; a graph op's stream
belongs to the op and to the default session it runs under (a new Session starts over,
as TF's do).  Plans never fold or merge these ops (``stateful=True``).

``compat.v1.disable_eager_execution()`` switches the top-level graph to the graph
rules, as it does in TF, so that a TF1 program draws TF1's numbers.
"""

from __future__ import annotations

import random as _pyrandom
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, fixed, ints
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import (
    Graph,
    Operation,
    Tensor,
    get_default_graph,
    get_default_session,
    name_scope,
)
from symgrad.core.op_registry import (
    ShapeError,
    Spec,
    apply_op,
    apply_op1,
    constant_value,
    register_op,
)
from symgrad.core.shapes import TensorShape
from symgrad.ops.core import FLOATS, check_dtype, convert_to_tensor
from symgrad.ops.math import elementwise as math
from symgrad.ops.random import philox

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
INDEX = (dt.int32, dt.int64)

# -------------------------------------------------------------------------------------
# Seeds


class _Context:
    """The eager context's seed (TF keeps it in ``context.context()``)."""

    seed: int | None = None
    rng: _pyrandom.Random | None = None
    graph_rules = False  # compat.v1.disable_eager_execution(): top level seeds as a graph


_OP_SEEDS: weakref.WeakKeyDictionary[Graph, int] = weakref.WeakKeyDictionary()
_EAGER_STREAMS: dict[tuple[Any, ...], philox.Stream] = {}
_PLAN_STREAMS: weakref.WeakKeyDictionary[Operation, weakref.WeakKeyDictionary[Any, philox.Stream]]
_PLAN_STREAMS = weakref.WeakKeyDictionary()


class _NoSession:
    """Stands for "no default session" among a graph op's streams (weakly keyed)."""


_NO_SESSION = _NoSession()


def _eager() -> bool:
    return get_default_graph().eager and not _Context.graph_rules


def graph_seed(graph: Graph) -> int | None:
    """A graph's seed: set by ``set_random_seed`` in it, or, for a traced function,
    the seed where it was traced (the global seed from top level), as TF's FuncGraph."""
    if hasattr(graph, "seed"):
        return graph.seed  # type: ignore[no-any-return]
    outer = getattr(graph, "outer_graph", None)
    if outer is None:
        return None
    seed = _Context.seed if outer.eager and not _Context.graph_rules else graph_seed(outer)
    graph.seed = seed  # type: ignore[attr-defined]
    return seed


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """The (seed, seed2) an op with ``seed=op_seed`` uses (TF's ``random_seed.get_seed``)."""
    graph = get_default_graph()
    eager = _eager()
    global_seed = _Context.seed if eager else graph_seed(graph)
    seeds: tuple[int | None, int | None]
    if global_seed is not None:
        if op_seed is None:
            if eager:
                op_seed = _Context.rng.randint(0, _MAXINT32)  # type: ignore[union-attr]
            else:
                op_seed = _OP_SEEDS.get(graph, 0)
                _OP_SEEDS[graph] = op_seed + 1
        seeds = (int(global_seed) % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        seeds = (None, None)
    # (0, 0) means "unseeded" to the kernels, so a user's zeros must not make it.
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def set_random_seed(seed: int | None) -> None:
    """The global seed at top level (restarting every eager op's stream, as TF clears its
    kernel cache); inside a graph, that graph's seed."""
    graph = get_default_graph()
    if graph.eager:  # under TF1 rules too: top-level ops still draw once when created
        _EAGER_STREAMS.clear()
    if _eager():
        _Context.seed = seed
        _Context.rng = _pyrandom.Random(None if seed is None else int(seed))
    else:
        graph.seed = seed  # type: ignore[attr-defined]


def set_seed(seed: int | None) -> None:
    """``tf.random.set_seed``: see ``set_random_seed``."""
    set_random_seed(seed)


def graph_rules(on: bool) -> None:
    """Seed the top level as TF1 graph mode does (``disable_eager_execution``)."""
    _Context.graph_rules = on


def _seed_attrs(seed: int | None) -> dict[str, int]:
    s1, s2 = get_seed(seed)
    return {"seed": s1 or 0, "seed2": s2 or 0}


# -------------------------------------------------------------------------------------
# Declaring a stateful op: one fill function, two ways to find its stream


Fill = Callable[..., Any]  # fill(stream, *arrays, **attrs) -> array


def _eager_kernel(op_type: str, fill: Fill) -> Callable[..., Any]:
    """An eager call's kernel: TF caches one kernel, and so one stream, per op type,
    attrs and input dtypes; every eager call with the same ones continues it."""

    def kernel(*arrays: Any, seed: int, seed2: int, **attrs: Any) -> Any:
        key = (op_type, seed, seed2, *sorted(attrs.items()), *(a.dtype for a in arrays))
        stream = _EAGER_STREAMS.get(key)
        if stream is None:
            stream = _EAGER_STREAMS[key] = philox.Stream(seed, seed2)
        return fill(stream, *arrays, **attrs)

    return kernel


def _plan_kernel(fill: Fill) -> Callable[[Operation, list[Any]], Callable[..., Any]]:
    """In a plan, the op's own stream under the session it runs in (a Session's kernels
    are its own in TF: a new Session starts the sequence over)."""

    def specialize(op: Operation, consts: list[Any]) -> Callable[..., Any]:
        attrs = op.attrs
        seed, seed2 = attrs.pop("seed"), attrs.pop("seed2")

        def run(*arrays: Any) -> Any:
            streams = _PLAN_STREAMS.get(op)
            if streams is None:
                streams = _PLAN_STREAMS[op] = weakref.WeakKeyDictionary()
            owner = get_default_session() or _NO_SESSION
            stream = streams.get(owner)
            if stream is None:
                stream = streams[owner] = philox.Stream(seed, seed2)
            return fill(stream, *arrays, **attrs)

        return run

    return specialize


def _stateful_op(
    op_type: str, infer: Callable[..., Spec | list[Spec]], fill: Fill, cases: Sequence[Case]
) -> None:
    record = register_op(
        op_type,
        infer,
        _eager_kernel(op_type, fill),
        stateful=True,
        specialize=_plan_kernel(fill),
        cases=cases,
        batch="a random draw: its slices are not the draws of a batch",
    )
    record.no_gradient()  # TF: NotDifferentiable (the draw does not depend on its inputs)


def shape_infer(shape: Tensor) -> TensorShape:
    """The output shape a shape tensor asks for: its values when known, else its length."""
    check_dtype("random", shape, INDEX, "shape")
    if shape.shape.rank not in (1, None):
        raise ShapeError(f"shape must be a vector of {{int32,int64}}, got shape {shape.shape}")
    known = constant_value(shape)
    if known is not None:
        dims = [int(d) for d in np.ravel(known)]
        if any(d < 0 for d in dims):
            raise ShapeError(f"Dimension {min(dims)} must be >= 0")
        return TensorShape(dims)
    n = shape.shape[0] if shape.shape.rank == 1 else None
    return TensorShape(None if n is None else [None] * n)


def shape_dims(shape: np.ndarray) -> tuple[int, ...]:
    dims = tuple(int(d) for d in np.ravel(shape))
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"Dimension {min(dims)} must be >= 0")
    return dims


def _draw(dist: Callable[..., np.ndarray]) -> Fill:
    """A fill of ``shape`` from a distribution that reserves 256 blocks per output."""

    def fill(stream: philox.Stream, shape: np.ndarray, *, dtype: dt.DType) -> np.ndarray:
        dims = shape_dims(shape)
        n = int(np.prod(dims))
        counter = stream.reserve(n * 256)
        return dist(stream.key, counter, n, dtype.np).reshape(dims)

    return fill


def _float_infer(inputs: Sequence[Tensor], *, dtype: dt.DType, **_: Any) -> Spec:
    if dtype not in FLOATS:
        raise TypeError(f"dtype must be one of float16, float32, float64, got {dtype.name}")
    return shape_infer(inputs[0]), dtype


def _first(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """An op-table call that draws the first numbers of its seeds in every mode."""

    def call(*args: Any) -> Tensor:
        set_seed(None)
        return fn(*args)

    return call


# -------------------------------------------------------------------------------------
# RandomStandardNormal, RandomUniform, TruncatedNormal, RandomUniformInt


_SHAPE = ints([2, 3])
# TF 2.21's first draws for seeds (87654321, 7): ``seed=7`` and no global seed.
_NORMAL7 = [[-0.0469456837, -1.20390236, 1.16683519], [1.17062044, -0.320070237, -0.190351143]]
_UNIFORM7 = [[0.483940959, 0.506203055, 0.255143762], [0.12474227, 0.933010101, 0.664609313]]
_TRUNC7 = [[-0.0469456837, -1.20390236, 1.16683519], [1.17062044, 0.716626108, 0.571133494]]


def _draw_case(ref: Any, draw: Callable[..., Tensor]) -> list[Case]:
    return [
        Case(
            [_SHAPE],
            lambda s: np.asarray(ref, np.float32),
            _first(draw),
            dtypes=(np.float32,),
            order=0,
            note="a draw: NotDifferentiable in TF",
        )
    ]


_stateful_op(
    "RandomStandardNormal",
    _float_infer,
    _draw(philox.normal),
    _draw_case(_NORMAL7, lambda s: random_normal(s, seed=7)),
)
_stateful_op(
    "RandomUniform",
    _float_infer,
    _draw(philox.uniform),
    _draw_case(_UNIFORM7, lambda s: random_uniform(s, seed=7)),
)
_stateful_op(
    "TruncatedNormal",
    _float_infer,
    _draw(philox.truncated_normal),
    _draw_case(_TRUNC7, lambda s: truncated_normal(s, seed=7)),
)


def _int_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    shape, lo, hi = inputs
    check_dtype("RandomUniformInt", lo, INDEX, "minval")
    if hi.dtype is not lo.dtype:
        raise TypeError(f"maxval has dtype {hi.dtype.name}, minval {lo.dtype.name}")
    for t, what in ((lo, "minval"), (hi, "maxval")):
        if t.shape.rank not in (0, None):
            raise ShapeError(f"{what} must be 0-D, got shape {t.shape}")
    return shape_infer(shape), lo.dtype


def bounds(lo: np.ndarray, hi: np.ndarray) -> tuple[int, int]:
    low, high = int(lo), int(hi)
    if not low < high:
        raise InvalidArgumentError(f"Need minval < maxval, got {low} >= {high}")
    return low, high


def _fill_int(
    stream: philox.Stream, shape: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    dims = shape_dims(shape)
    n = int(np.prod(dims))
    low, high = bounds(lo, hi) if n else (0, 1)
    counter = stream.reserve(n * 256)
    return philox.uniform_int(stream.key, counter, n, low, high, lo.dtype).reshape(dims)


_stateful_op(
    "RandomUniformInt",
    _int_infer,
    _fill_int,
    [
        Case(
            [_SHAPE],
            lambda s: np.asarray([[7, 7, 5], [4, 0, 3]], np.int32),
            _first(lambda s: random_uniform(s, 0, 10, dt.int32, seed=7)),
            dtypes=(np.int32,),
            order=0,
            note="integer draws",
        )
    ],
)


# -------------------------------------------------------------------------------------
# Multinomial, RandomShuffle


def multinomial_infer(inputs: Sequence[Tensor], *, output_dtype: dt.DType, **_: Any) -> Spec:
    logits, num = inputs[0], inputs[1]
    check_dtype("Multinomial", logits, FLOATS, "logits")
    if output_dtype not in INDEX:
        raise TypeError(f"output_dtype must be int32 or int64, got {output_dtype.name}")
    if logits.shape.rank not in (2, None):
        raise ShapeError(f"logits should be a matrix, got shape {logits.shape}")
    if num.shape.rank not in (0, None):
        raise ShapeError(f"num_samples should be a scalar, got shape {num.shape}")
    n = constant_value(num)
    batch = logits.shape[0] if logits.shape.rank == 2 else None
    return TensorShape([batch, None if n is None else int(n)]), output_dtype


def multinomial_fill(
    stream: philox.Stream, logits: np.ndarray, num: np.ndarray, *, output_dtype: dt.DType
) -> np.ndarray:
    if logits.ndim != 2:
        raise InvalidArgumentError(f"logits should be a matrix, got shape {logits.shape}")
    n = int(num)
    if n < 0:
        raise InvalidArgumentError(f"num_samples should be non-negative, got {n}")
    if logits.shape[1] == 0 and logits.shape[0] * n:
        raise InvalidArgumentError("num_classes should be positive, got 0")
    if logits.size == 0 or n == 0:
        return np.zeros((logits.shape[0], n), output_dtype.np)
    # TF reserves 256 blocks per float64 it may draw (two per sample, samples rounded to 4).
    counter = stream.reserve(logits.shape[0] * ((n + 3) // 4 * 4 * 2) * 256)
    return philox.multinomial(stream.key, counter, logits, n, output_dtype.np)


LOGITS = fixed([[0.0, 1.0, -1.0, 0.5], [2.0, 0.0, 0.0, -3.0], [-np.inf, 0.0, 1.5, -0.5]])
_stateful_op(
    "Multinomial",
    multinomial_infer,
    multinomial_fill,
    [
        Case(
            [LOGITS],
            lambda x: np.asarray([[3, 0, 1, 3, 0], [0, 0, 0, 0, 0], [1, 2, 1, 1, 2]], np.int64),
            _first(lambda x: categorical(x, 5, seed=7)),
            order=0,
            note="integer draws",
        )
    ],
)


def _shuffle_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    return inputs[0].shape, inputs[0].dtype


def _fill_shuffle(stream: philox.Stream, value: np.ndarray) -> np.ndarray:
    n = value.shape[0] if value.ndim else 1
    if value.size <= 1 or n <= 1:
        return value  # nothing to permute: TF draws nothing either
    counter = stream.reserve((n + 2) // 4)  # n - 1 words
    return value[philox.shuffle_order(stream.key, counter, n)]


_stateful_op(
    "RandomShuffle",
    _shuffle_infer,
    _fill_shuffle,
    [
        Case(
            [fixed(np.arange(12.0).reshape(6, 2))],
            lambda x: x[[3, 0, 1, 4, 2, 5]],
            _first(lambda x: shuffle(x, seed=7)),
            order=0,
            note="a permutation; NotDifferentiable in TF",
        )
    ],
)


# -------------------------------------------------------------------------------------
# The public functions (tf.random.*, TF1's tf.random_normal ...)


def shape_tensor(shape: Any) -> Tensor:
    """A shape argument as an int32 vector (int64 if it needs to be), as TF's shape_util."""
    if isinstance(shape, Tensor):
        check_dtype("random", shape, INDEX, "shape")
        return shape
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and not shape:
        shape = np.zeros([0], np.int32)
    return convert_to_tensor(shape)


def _scaled(rnd: Tensor, mean: Any, stddev: Any, dtype: dt.DType) -> Tensor:
    """rnd * stddev + mean: a Mul and an AddV2, so float32 rounds where TF's does."""
    s = convert_to_tensor(stddev, dtype=dtype)
    m = convert_to_tensor(mean, dtype=dtype)
    return math.add(math.multiply(rnd, s), m)


def random_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dt.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Normal draws (op ``RandomStandardNormal``, scaled by a Mul and an AddV2)."""
    d = dt.as_dtype(dtype)
    with name_scope(name, "random_normal"):
        s = shape_tensor(shape)
        rnd = apply_op("RandomStandardNormal", [s], {"dtype": d, **_seed_attrs(seed)})
        return _scaled(rnd.output(0), mean, stddev, d)


def truncated_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dt.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Normal draws within two standard deviations, redrawn otherwise (``TruncatedNormal``)."""
    d = dt.as_dtype(dtype)
    with name_scope(name, "truncated_normal"):
        s = shape_tensor(shape)
        rnd = apply_op("TruncatedNormal", [s], {"dtype": d, **_seed_attrs(seed)})
        return _scaled(rnd.output(0), mean, stddev, d)


def random_uniform(
    shape: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = dt.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Uniform draws in [minval, maxval); integers with an integer ``dtype``."""
    d = dt.as_dtype(dtype)
    if d not in FLOATS + INDEX:
        raise ValueError(
            f"Argument `dtype` got invalid value {d!r}. Accepted dtypes are "
            "float16, float32, float64, int32, int64."
        )
    if maxval is None:
        if d.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {d!r}")
        maxval = 1
    with name_scope(name, "random_uniform"):
        s = shape_tensor(shape)
        # TF skips the arithmetic for Python 0 and 1, so [0, 1) draws come out untouched.
        zero = type(minval) is int and minval == 0
        one = type(maxval) is int and maxval == 1
        if d.is_integer:
            lo, hi = convert_to_tensor(minval, dtype=d), convert_to_tensor(maxval, dtype=d)
            return apply_op1("RandomUniformInt", [s, lo, hi], _seed_attrs(seed))
        rnd = apply_op1("RandomUniform", [s], {"dtype": d, **_seed_attrs(seed)})
        if zero:
            return rnd if one else math.multiply(rnd, convert_to_tensor(maxval, dtype=d))
        lo, hi = convert_to_tensor(minval, dtype=d), convert_to_tensor(maxval, dtype=d)
        return math.add(math.multiply(rnd, math.subtract(hi, lo)), lo)


def categorical(
    logits: Any,
    num_samples: Any,
    dtype: Any = None,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Class indices drawn per row of unnormalised log-probabilities (``Multinomial``)."""
    d = dt.as_dtype(dtype) if dtype is not None else dt.int64
    if d not in INDEX:
        raise ValueError(
            f"Argument `dtype` got invalid value {d!r}. Accepted dtypes are int32, int64."
        )
    with name_scope(name, "categorical"):
        x = convert_to_tensor(logits)
        n = convert_to_tensor(num_samples, dtype=dt.int32)
        attrs = {"output_dtype": d, **_seed_attrs(seed)}
        return apply_op1("Multinomial", [x, n], attrs)


def multinomial(
    logits: Any,
    num_samples: Any,
    seed: int | None = None,
    name: str | None = None,
    output_dtype: Any = None,
) -> Tensor:
    """TF1's name for ``categorical``."""
    return categorical(logits, num_samples, output_dtype, seed, name or "multinomial")


def shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """``value`` with its first dimension permuted (``RandomShuffle``)."""
    x = convert_to_tensor(value)
    return apply_op1("RandomShuffle", [x], _seed_attrs(seed), name)
