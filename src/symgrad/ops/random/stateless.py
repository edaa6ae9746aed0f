"""Stateless random ops: a seed pair gives the same numbers every time, TensorFlow's numbers.

TF 2.21 builds ``tf.random.stateless_normal(shape, seed)`` as
``StatelessRandomGetKeyCounter(seed)`` (the seed hashed into a Philox key and counter)
followed by ``StatelessRandomNormalV2(shape, key, counter, alg)``; the same ops are
declared here, with the same kernels (see :mod:`.philox`), so each value is TF's.  The ops
are pure: plans may fold them when the seed is a constant.

``tf.random.Generator`` feeds the same V2 ops with the key and counter it keeps in a
variable (:mod:`.random_generator`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, ints
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import ShapeError, Spec, apply_op, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import joining
from symgrad.ops.core import FLOATS, check_dtype, convert_to_tensor
from symgrad.ops.math import elementwise as math
from symgrad.ops.random import philox
from symgrad.ops.random import seeded as rnd

PHILOX, THREEFRY, AUTO_SELECT = 1, 2, 3
_KEYS = (dt.uint64, dt.int64)  # int64: a Generator's state, bit-cast
_SEEDS = (dt.int32, dt.int64)
_U64 = (1 << 64) - 1

# -------------------------------------------------------------------------------------
# StatelessRandomGetKeyCounter


def _key_counter_infer(inputs: Sequence[Tensor]) -> list[Spec]:
    seed = inputs[0]
    check_dtype("StatelessRandomGetKeyCounter", seed, _SEEDS, "seed")
    if not seed.shape.is_compatible_with([2]):
        raise ShapeError(f"seed must have shape [2], not {seed.shape}")
    return [(TensorShape([1]), dt.uint64), (TensorShape([2]), dt.uint64)]


def seed_pair(seed: np.ndarray) -> list[int]:
    if seed.shape != (2,):
        raise InvalidArgumentError(f"seed must have shape [2], not {list(seed.shape)}")
    return [int(s) for s in seed]


def _key_counter_kernel(seed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    key, counter = philox.seed_key_counter(seed_pair(seed))
    return np.array([key], np.uint64), np.array([counter & _U64, counter >> 64], np.uint64)


# TF 2.21's key and counter for seed [1, 2].
_KC12 = (
    np.asarray([10413732777507651514], np.uint64),
    np.asarray([0, 17830669156045600267], np.uint64),
)
register_op(
    "StatelessRandomGetKeyCounter",
    _key_counter_infer,
    _key_counter_kernel,
    batch="its seed is a pair of integers, never a batch of examples",
    cases=[
        Case(
            [ints([1, 2])],
            lambda s: _KC12,
            lambda s: get_key_counter(s),
            dtypes=(np.int32,),
            order=0,
            note="integer outputs",
        )
    ],
).no_gradient()


def get_key_counter(seed: Any) -> tuple[Tensor, Tensor]:
    """The Philox key and counter a stateless op draws from for ``seed`` (TF's scramble)."""
    op = apply_op("StatelessRandomGetKeyCounter", [convert_to_tensor(seed)])
    return op.output(0), op.output(1)


# -------------------------------------------------------------------------------------
# The V2 ops: (shape, key, counter, alg) -> numbers


def _key_infer(op_type: str, inputs: Sequence[Tensor]) -> TensorShape:
    shape, key, counter, alg = inputs[:4]
    check_dtype(op_type, key, _KEYS, "key")
    check_dtype(op_type, counter, _KEYS, "counter")
    check_dtype(op_type, alg, (dt.int32,), "alg")
    return rnd.shape_infer(shape)


def key_counter(key: np.ndarray, counter: np.ndarray, alg: np.ndarray) -> tuple[int, int]:
    """The Philox (key, counter) as integers, from a V2 op's inputs."""
    if int(alg) not in (PHILOX, AUTO_SELECT):
        raise InvalidArgumentError(
            f"Unsupported algorithm id: {int(alg)} (symgrad implements "
            "Philox, TF's choice on CPU: alg='philox' or 'auto_select')"
        )
    if key.shape != (1,) or counter.ndim != 1 or counter.shape[0] < 2:
        raise InvalidArgumentError(
            f"key must have shape [1] and counter [2], not "
            f"{list(key.shape)} and {list(counter.shape)}"
        )
    c = counter.astype(np.uint64)
    return int(key.astype(np.uint64)[0]), int(c[0]) | int(c[1]) << 64


def _v2_op(
    op_type: str,
    dist: Callable[..., np.ndarray],
    allowed: Sequence[dt.DType],
    cases: Sequence[Case],
) -> None:
    def infer(inputs: Sequence[Tensor], *, dtype: dt.DType) -> Spec:
        if dtype not in allowed:
            raise TypeError(
                f"dtype {dtype.name} is not one of {', '.join(d.name for d in allowed)}"
            )
        return _key_infer(op_type, inputs), dtype

    def kernel(
        shape: np.ndarray, key: np.ndarray, counter: np.ndarray, alg: np.ndarray, *, dtype: dt.DType
    ) -> np.ndarray:
        dims = rnd.shape_dims(shape)
        k, c = key_counter(key, counter, alg)
        return dist(k, c, int(np.prod(dims)), dtype.np).reshape(dims)

    register_op(
        op_type,
        infer,
        kernel,
        cases=cases,
        batch="its inputs are a shape and a seed, never a batch of examples",
    ).no_gradient()


def _row(op: Callable[..., Tensor], shape: list[int], ref: Any, d: Any) -> Case:
    return Case(
        [ints(shape), ints([1, 2])],
        lambda s, seed: np.asarray(ref, d),
        lambda s, seed: op(s, seed, dtype=d),
        dtypes=(np.dtype(d).type,),
        order=0,
        note="a stateless draw: constant in its inputs (NotDifferentiable in TF)",
    )


# TF 2.21's numbers for seed [1, 2].
_N32 = [[0.544110119, 0.20738031, 0.0735643208], [0.0464345515, -1.30158985, -0.953856528]]
_N64 = [
    [-0.1423118100189212, 0.7406072461585091, -1.469047669443883],
    [1.147747453689489, -0.7218813856153005, -0.898217540706226],
]
_U32 = [0.844060421, 0.192045331, 0.996223211, 0.160387397, 0.27199018]
_T32 = [[[0.544110119, 0.20738031]], [[0.0735643208, 0.0464345515]], [[0.168205917, -1.68503332]]]


def _normal(s: Any, seed: Any, dtype: Any) -> Tensor:
    return stateless_random_normal(s, seed, dtype=dtype)


_v2_op(
    "StatelessRandomNormalV2",
    philox.normal,
    FLOATS,
    [_row(_normal, [2, 3], _N32, np.float32), _row(_normal, [2, 3], _N64, np.float64)],
)
_v2_op(
    "StatelessRandomUniformV2",
    philox.uniform,
    FLOATS,
    [
        _row(
            lambda s, seed, dtype: stateless_random_uniform(s, seed, dtype=dtype),
            [5],
            _U32,
            np.float32,
        )
    ],
)
_v2_op(
    "StatelessTruncatedNormalV2",
    philox.truncated_normal,
    FLOATS,
    [
        _row(
            lambda s, seed, dtype: stateless_truncated_normal(s, seed, dtype=dtype),
            [3, 1, 2],
            _T32,
            np.float32,
        )
    ],
)
_v2_op(
    "StatelessRandomUniformFullIntV2",
    philox.full_int,
    (dt.int32, dt.int64, dt.uint32, dt.uint64),
    [
        _row(
            lambda s, seed, dtype: stateless_random_uniform(
                s, seed, minval=None, maxval=None, dtype=dtype
            ),
            [3],
            [1105988140, 1738052849, -335576002],
            np.int32,
        )
    ],
)


def _int_v2_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    lo, hi = inputs[4], inputs[5]
    check_dtype("StatelessRandomUniformIntV2", lo, rnd.INDEX, "minval")
    if hi.dtype is not lo.dtype:
        raise TypeError(f"maxval has dtype {hi.dtype.name}, minval {lo.dtype.name}")
    for t, what in ((lo, "minval"), (hi, "maxval")):
        if t.shape.rank not in (0, None):
            raise ShapeError(f"{what} must be 0-D, got shape {t.shape}")
    return _key_infer("StatelessRandomUniformIntV2", inputs), lo.dtype


def _int_v2_kernel(
    shape: np.ndarray,
    key: np.ndarray,
    counter: np.ndarray,
    alg: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
) -> np.ndarray:
    dims = rnd.shape_dims(shape)
    n = int(np.prod(dims))
    k, c = key_counter(key, counter, alg)
    low, high = rnd.bounds(lo, hi) if n else (0, 1)
    return philox.uniform_int(k, c, n, low, high, lo.dtype).reshape(dims)


_INT_CASE = Case(  # TF 2.21's draws for seed [1, 2] in [-5, 1000)
    [ints([5]), ints([1, 2])],
    lambda s, seed: np.asarray([710, 819, 829, 169, 137], np.int32),
    lambda s, seed: stateless_random_uniform(s, seed, minval=-5, maxval=1000, dtype=dt.int32),
    dtypes=(np.int32,),
    order=0,
    note="integer draws",
)
register_op(
    "StatelessRandomUniformIntV2",
    _int_v2_infer,
    _int_v2_kernel,
    cases=[_INT_CASE],
    batch="its inputs are a shape, a seed and bounds, never a batch of examples",
).no_gradient()


# -------------------------------------------------------------------------------------
# StatelessMultinomial


def _stateless_multinomial_kernel(
    logits: np.ndarray, num: np.ndarray, seed: np.ndarray, *, output_dtype: dt.DType
) -> np.ndarray:
    key, counter = philox.seed_key_counter(seed_pair(seed))
    return rnd.multinomial_fill(
        philox.Stream.at(key, counter), logits, num, output_dtype=output_dtype
    )


def _stateless_multinomial_infer(inputs: Sequence[Tensor], **attrs: Any) -> Spec:
    check_dtype("StatelessMultinomial", inputs[2], _SEEDS, "seed")
    return rnd.multinomial_infer(inputs, **attrs)


_CATEGORICAL_CASE = Case(  # TF 2.21's draws for seed [1, 2]
    [rnd.LOGITS],
    lambda x: np.asarray([[3, 3, 1, 3, 1, 1], [1, 0, 1, 1, 0, 0], [2, 2, 2, 2, 2, 2]], np.int64),
    lambda x: stateless_categorical(x, 6, [1, 2]),
    order=0,
    note="integer draws",
)
register_op(
    "StatelessMultinomial",
    _stateless_multinomial_infer,
    _stateless_multinomial_kernel,
    cases=[_CATEGORICAL_CASE],
    batch="its seed is a pair of integers; a batch of logits is already its rows",
).no_gradient()


# -------------------------------------------------------------------------------------
# The public functions (tf.random.stateless_*)


def key_counter_alg(seed: Any, alg: Any) -> tuple[Tensor, Tensor, Tensor]:
    """TF's ``get_key_counter_alg``: the seed scrambled by ``StatelessRandomGetKeyCounter``
    ("philox" scrambles the same way in TF, so it gives the same numbers)."""
    a = alg_id(alg)
    key, counter = get_key_counter(seed)
    return key, counter, convert_to_tensor(np.int32(a))


def alg_id(alg: Any) -> int:
    if alg is None:
        return AUTO_SELECT
    name = getattr(alg, "name", alg)
    if isinstance(name, str):
        canon = name.strip().lower().replace("-", "").replace("_", "")
        ids = {"philox": PHILOX, "threefry": THREEFRY, "autoselect": AUTO_SELECT}
        if canon not in ids:
            raise ValueError(
                f"Argument `alg` got unsupported value {alg}. Supported values "
                "are philox for the Philox algorithm, threefry for the ThreeFry "
                "algorithm, and auto_select for auto-selection."
            )
        name = ids[canon]
    if int(name) == THREEFRY:
        raise ValueError(
            "symgrad implements the Philox algorithm only (alg='philox' or "
            "'auto_select', TF's choice on CPU), not ThreeFry"
        )
    return int(name)


def _v2(op_type: str, shape: Any, seed: Any, dtype: dt.DType, alg: Any) -> Tensor:
    key, counter, a = key_counter_alg(seed, alg)
    s = rnd.shape_tensor(shape)
    return apply_op1(op_type, [s, key, counter, a], {"dtype": dtype})


def stateless_random_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dt.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Normal draws fixed by ``seed`` (``StatelessRandomNormalV2``, then Mul and AddV2)."""
    d = dt.as_dtype(dtype)
    with name_scope(name, "stateless_random_normal"):
        return _scale(_v2("StatelessRandomNormalV2", shape, seed, d, alg), mean, stddev, d)


def stateless_truncated_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dt.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Normal draws within two standard deviations, fixed by ``seed``."""
    d = dt.as_dtype(dtype)
    with name_scope(name, "stateless_truncated_normal"):
        return _scale(_v2("StatelessTruncatedNormalV2", shape, seed, d, alg), mean, stddev, d)


def _scale(r: Tensor, mean: Any, stddev: Any, d: dt.DType) -> Tensor:
    m, s = convert_to_tensor(mean, dtype=d), convert_to_tensor(stddev, dtype=d)
    return math.add(math.multiply(r, s), m)


def stateless_random_uniform(
    shape: Any,
    seed: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = dt.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Uniform draws in [minval, maxval) fixed by ``seed``; integers with an integer dtype
    (``minval=maxval=None``: the whole range of the type)."""
    d = dt.as_dtype(dtype)
    if d not in FLOATS + (dt.int32, dt.int64, dt.uint32, dt.uint64):
        raise ValueError(f"Argument `dtype` got invalid value {d!r}.")
    if d.is_integer and (minval is None) != (maxval is None):
        raise ValueError(
            f"For integer `dtype` argument {d!r}, argument `minval` and `maxval` "
            f"must be both None or not None. Got `minval`={minval} and "
            f"`maxval`={maxval}."
        )
    if not d.is_integer and maxval is None:
        maxval = 1
    with name_scope(name, "stateless_random_uniform"):
        if d.is_integer and minval is None:
            return _v2("StatelessRandomUniformFullIntV2", shape, seed, d, alg)
        lo, hi = convert_to_tensor(minval, dtype=d), convert_to_tensor(maxval, dtype=d)
        if d.is_integer:
            key, counter, a = key_counter_alg(seed, alg)
            args = [rnd.shape_tensor(shape), key, counter, a, lo, hi]
            return apply_op1("StatelessRandomUniformIntV2", args)
        r = _v2("StatelessRandomUniformV2", shape, seed, d, alg)
        return math.add(math.multiply(r, math.subtract(hi, lo)), lo)


def stateless_categorical(
    logits: Any, num_samples: Any, seed: Any, dtype: Any = dt.int64, name: str | None = None
) -> Tensor:
    """Class indices per row of logits, fixed by ``seed`` (``StatelessMultinomial``)."""
    d = dt.as_dtype(dtype) if dtype is not None else dt.int64
    if d not in rnd.INDEX:
        raise ValueError(
            f"Argument `dtype` got invalid value {d!r}. Accepted dtypes are int32, int64."
        )
    with name_scope(name, "stateless_categorical"):
        args = [
            convert_to_tensor(logits),
            convert_to_tensor(num_samples, dtype=dt.int32),
            convert_to_tensor(seed),
        ]
        return apply_op1("StatelessMultinomial", args, {"output_dtype": d})


def stateless_multinomial(
    logits: Any, num_samples: Any, seed: Any, output_dtype: Any = dt.int64, name: str | None = None
) -> Tensor:
    """TF1's name for ``stateless_categorical``."""
    return stateless_categorical(
        logits, num_samples, seed, output_dtype, name or "stateless_multinomial"
    )


def split(seed: Any, num: Any = 2, alg: Any = "auto_select") -> Tensor:
    """``num`` new seeds from ``seed`` ([num, 2], the seed's dtype): full-range draws."""
    s = convert_to_tensor(seed)
    return stateless_random_uniform([num, 2], s, minval=None, maxval=None, dtype=s.dtype, alg=alg)


def fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    """A new seed from ``seed`` and an integer ``data``: [one draw of data's type, data]."""
    d = convert_to_tensor(data)
    first = stateless_random_uniform([], seed, minval=None, maxval=None, dtype=d.dtype, alg=alg)
    return joining.stack([first, d])
