"""Gamma and Poisson draws with TensorFlow's ops, seeds and numbers.

``tf.random.gamma`` is ``RandomGamma(shape, alpha)`` (stateful, seeded as every
``tf.random`` op) divided by ``beta`` and floored at the dtype's smallest normal;
``tf.random.stateless_gamma`` the same with ``StatelessRandomGammaV3(shape, key, counter,
alg, alpha)``.  Both are differentiable in alpha (implicit reparameterisation, TF's
``_RandomGammaGrad``): ``RandomGammaGrad(alpha, sample)`` is d sample / d alpha, summed
over the sample dimensions.  ``tf.random.poisson`` is ``RandomPoissonV2`` and
``tf.random.stateless_poisson`` ``StatelessRandomPoisson`` (not differentiable).  The
samplers are TF's CPU kernels on the Philox stream (:mod:`.draws`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, fixed, ints
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.gradient_registry import RegisterGradient, no_gradient
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import joining, structure
from symgrad.ops.array import shape as shape_ops
from symgrad.ops.core import FLOATS, binary_op, check_dtype, convert_to_tensor
from symgrad.ops.math import elementwise as math
from symgrad.ops.random import draws, philox, stateless
from symgrad.ops.random import seeded as rnd
from symgrad.ops.reduction import reduce

_POISSON = (dt.float16, dt.float32, dt.float64, dt.int32, dt.int64)

# -------------------------------------------------------------------------------------
# RandomGamma, RandomPoissonV2: stateful


def _param_infer(op_type: str, shape: Tensor, param: Tensor, allowed: Any, what: str) -> Any:
    check_dtype(op_type, param, allowed, what)
    head = rnd.shape_infer(shape)
    if head.rank is None or param.shape.rank is None:
        return TensorShape(None)
    return TensorShape(head.as_list() + param.shape.as_list())


def _gamma_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    shape, alpha = inputs
    return _param_infer("RandomGamma", shape, alpha, FLOATS, "alpha"), alpha.dtype


def _gamma_fill(stream: philox.Stream, shape: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    dims = rnd.shape_dims(shape)
    n = int(np.prod(dims))
    out_shape = dims + alpha.shape
    if n * alpha.size == 0:
        return np.zeros(out_shape, alpha.dtype)
    counter = stream.reserve(n * alpha.size * 256)
    values = draws.gamma(stream.key, counter, alpha, n)
    return draws.to_dtype(values, alpha.dtype).reshape(out_shape)


def _poisson_infer(inputs: Sequence[Tensor], *, dtype: dt.DType, **_: Any) -> Spec:
    shape, rate = inputs
    if dtype not in _POISSON:
        raise TypeError(f"dtype must be one of half, float, double, int32, int64, got {dtype.name}")
    return _param_infer("RandomPoissonV2", shape, rate, _POISSON, "rate"), dtype


def _highest(d: np.dtype) -> float:
    return float(np.finfo(d).max if d.kind == "f" else np.iinfo(d).max)


def _poisson_fill(
    stream: philox.Stream, shape: np.ndarray, rate: np.ndarray, *, dtype: dt.DType
) -> np.ndarray:
    dims = rnd.shape_dims(shape)
    n = int(np.prod(dims))
    out_shape = dims + rate.shape
    if n == 0 or rate.size == 0:
        return np.zeros(out_shape, dtype.np)
    counter = stream.reserve(n * rate.size * 256)
    values = draws.poisson(stream.key, counter, rate, n, _highest(dtype.np))
    return draws.to_dtype(values, dtype.np).reshape(out_shape)


# TF 2.21's first draws for seeds (87654321, 7): ``seed=7`` and no global seed.
def _ALPHAS(rng: Any, d: Any) -> np.ndarray:
    return np.asarray([0.5, 1.0, 3.0], d)


_GAMMA7 = [
    [0.3886207342147827, 2.1148812770843506, 5.257479667663574],
    [0.7023012638092041, 0.6946795582771301, 2.524709939956665],
]
_RATES = fixed([0.5, 3.0, 12.0, 100.0])
_POISSON7 = [[0.0, 4.0, 5.0, 90.0], [0.0, 1.0, 15.0, 100.0]]

register_op(
    "RandomGamma",
    _gamma_infer,
    rnd._eager_kernel("RandomGamma", _gamma_fill),
    stateful=True,
    specialize=rnd._plan_kernel(_gamma_fill),
    batch="a random draw: its slices are not the draws of a batch",
    cases=[
        Case(
            [_ALPHAS],
            lambda a: np.asarray(_GAMMA7, np.float32),
            rnd._first(lambda a: random_gamma([2], a, seed=7)),
            dtypes=(np.float32,),
            order=0,
            note="a draw; its gradient in alpha is checked in tests/ops/test_random_gamma.py",
        )
    ],
)
rnd._stateful_op(
    "RandomPoissonV2",
    _poisson_infer,
    _poisson_fill,
    [
        Case(
            [_RATES],
            lambda r: np.asarray(_POISSON7, np.float32),
            rnd._first(lambda r: random_poisson([2], r, seed=7)),
            dtypes=(np.float32,),
            order=0,
            note="a draw: NotDifferentiable in TF",
        )
    ],
)


# -------------------------------------------------------------------------------------
# RandomGammaGrad and the gradient in alpha


_random_gamma_grad = binary_op(
    "RandomGammaGrad",
    draws.gamma_sample_der_alpha,
    "random_gamma_grad",
    (dt.float32, dt.float64),
    cases=[
        Case(
            [fixed([0.3, 0.5, 1.0, 2.5, 10.0]), fixed([0.05, 2.0, 1.5, 0.8, 12.0])],
            # TF 2.21's float64 values
            lambda a, x: np.asarray(
                [
                    0.4947109870041312,
                    2.5118893763620784,
                    1.4309374423012804,
                    0.5705559190649232,
                    1.112329443018088,
                ]
            ),
            dtypes=(np.float64,),
            order=0,
            note="TF registers no gradient for RandomGammaGrad",
        )
    ],
)


def _num_sample_dims(shape: Tensor, alpha: Tensor, stateless: bool) -> Any:
    """How many leading dimensions of the sample are samples (static when known)."""
    n = shape.shape[0] if shape.shape.rank == 1 else None
    if stateless:
        r = alpha.shape.rank
        if n is not None and r is not None:
            return int(n) - r
        return shape_ops.size(shape) - shape_ops.rank(alpha)
    return int(n) if n is not None else shape_ops.size(shape)


def _alpha_grad(num: Any, alpha: Tensor, sample: Tensor, grad: Tensor) -> Tensor:
    """TF's rule: alpha with ``num`` leading unit dimensions, ``RandomGammaGrad`` against
    the sample, times the incoming gradient, summed over the sample dimensions."""
    if isinstance(num, int):
        ones: Any = np.ones([num], np.int32)
        axes: Any = np.arange(num, dtype=np.int32)
    else:
        ones = structure.ones(shape_ops.expand_dims(num, 0), dt.int32)
        axes = structure.range(num)
    lead = shape_ops.reshape(alpha, joining.concat([ones, shape_ops.shape(alpha)], 0))
    partial = _random_gamma_grad(lead, sample)
    return reduce.reduce_sum(math.multiply(grad, partial), axes)


@RegisterGradient("RandomGamma")
def _random_gamma_grad_rule(op: Any, grad: Tensor) -> tuple[None, Tensor]:
    shape, alpha = op.inputs
    return None, _alpha_grad(_num_sample_dims(shape, alpha, False), alpha, op.outputs[0], grad)


no_gradient("RandomGammaGrad")  # TF registers none


# -------------------------------------------------------------------------------------
# StatelessRandomGammaV3, StatelessRandomPoisson


def _stateless_gamma_infer(inputs: Sequence[Tensor]) -> Spec:
    shape, key, counter, alg, alpha = inputs
    out = stateless._key_infer("StatelessRandomGammaV3", [shape, key, counter, alg])
    check_dtype("StatelessRandomGammaV3", alpha, FLOATS, "alpha")
    return out, alpha.dtype


def _ends_with(dims: tuple[int, ...], param: np.ndarray) -> int:
    """Samples per parameter: ``dims`` must end with the parameter's shape."""
    tail = dims[len(dims) - param.ndim :] if param.ndim else ()
    if param.ndim > len(dims) or tuple(tail) != param.shape:
        raise InvalidArgumentError("Shape passed in must end with broadcasted shape.")
    return int(np.prod(dims[: len(dims) - param.ndim]))


def _stateless_gamma_kernel(
    shape: np.ndarray, key: np.ndarray, counter: np.ndarray, alg: np.ndarray, alpha: np.ndarray
) -> np.ndarray:
    dims = rnd.shape_dims(shape)
    if int(np.prod(dims)) == 0:
        return np.zeros(dims, alpha.dtype)
    k, c = stateless.key_counter(key, counter, alg)
    per = _ends_with(dims, alpha)
    return draws.to_dtype(draws.gamma(k, c, alpha, per), alpha.dtype).reshape(dims)


# TF 2.21's numbers for seed [1, 2], alpha [0.5, 1, 3].
_SGAMMA12 = [
    [0.0669536143541336, 2.248735189437866, 3.403514862060547],
    [0.6282354593276978, 1.8935091495513916, 2.4479711055755615],
]
register_op(
    "StatelessRandomGammaV3",
    _stateless_gamma_infer,
    _stateless_gamma_kernel,
    batch="its inputs are a shape and a seed, never a batch of examples",
    cases=[
        Case(
            [ints([1, 2]), _ALPHAS],
            lambda seed, a: np.asarray(_SGAMMA12, np.float32),
            lambda seed, a: stateless_random_gamma([2, 3], seed, a),
            dtypes=(np.float32,),
            order=0,
            note="a draw; its gradient in alpha is checked in tests/ops/test_random_gamma.py",
        )
    ],
)


@RegisterGradient("StatelessRandomGammaV3")
def _stateless_gamma_grad(op: Any, grad: Tensor) -> tuple[None, None, None, None, Tensor]:
    shape, alpha = op.inputs[0], op.inputs[4]
    num = _num_sample_dims(shape, alpha, True)
    return None, None, None, None, _alpha_grad(num, alpha, op.outputs[0], grad)


def _stateless_poisson_infer(inputs: Sequence[Tensor], *, dtype: dt.DType) -> Spec:
    shape, seed, lam = inputs
    check_dtype("StatelessRandomPoisson", seed, (dt.int32, dt.int64), "seed")
    check_dtype("StatelessRandomPoisson", lam, _POISSON, "lam")
    if dtype not in _POISSON:
        raise TypeError(f"dtype must be one of half, float, double, int32, int64, got {dtype.name}")
    if not seed.shape.is_compatible_with([2]):
        raise ShapeError(f"seed must have shape [2], not {seed.shape}")
    return rnd.shape_infer(shape), dtype


def _stateless_poisson_kernel(
    shape: np.ndarray, seed: np.ndarray, lam: np.ndarray, *, dtype: dt.DType
) -> np.ndarray:
    dims = rnd.shape_dims(shape)
    pair = stateless.seed_pair(seed)
    if int(np.prod(dims)) == 0:
        return np.zeros(dims, dtype.np)
    k, c = philox.seed_key_counter(pair)
    per = _ends_with(dims, lam)
    values = draws.poisson(k, c, lam, per, _highest(dtype.np))
    return draws.to_dtype(values, dtype.np).reshape(dims)


# TF 2.21's numbers for seed [1, 2], lam [0.5, 3, 12, 100], int32.
_SPOISSON12 = [[3, 4, 9, 100], [2, 6, 15, 99]]
register_op(
    "StatelessRandomPoisson",
    _stateless_poisson_infer,
    _stateless_poisson_kernel,
    batch="its inputs are a shape and a seed, never a batch of examples",
    cases=[
        Case(
            [ints([1, 2]), _RATES],
            lambda seed, r: np.asarray(_SPOISSON12, np.int32),
            lambda seed, r: stateless_random_poisson([2, 4], seed, r),
            dtypes=(np.float32,),
            order=0,
            note="a draw: NotDifferentiable in TF",
        )
    ],
).no_gradient()


# -------------------------------------------------------------------------------------
# The public functions


def _broadcast_alpha(alpha: Tensor, beta: Tensor) -> Tensor:
    """alpha broadcast against beta (TF's BroadcastArgs and BroadcastTo)."""
    a, b = alpha.shape, beta.shape
    if a.is_fully_defined() and b.is_fully_defined():
        dims_a, dims_b = [int(d) for d in a.as_list()], [int(d) for d in b.as_list()]  # type: ignore[arg-type]
        target = np.broadcast_shapes(tuple(dims_a), tuple(dims_b))
        if target == tuple(dims_a):
            return alpha
        return structure.broadcast_to(alpha, np.asarray(target, np.int32))
    return structure.broadcast_to(alpha, shape_ops.shape(math.add(alpha, beta)))


def _floored(rnd_: Tensor, beta: Tensor, d: dt.DType) -> Tensor:
    tiny = convert_to_tensor(np.finfo(d.np).tiny, dtype=d)
    return math.maximum(tiny, math.divide(rnd_, beta))


def random_gamma(
    shape: Any,
    alpha: Any,
    beta: Any = None,
    dtype: Any = dt.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Gamma(alpha, beta) draws, ``shape`` of them per distribution (``RandomGamma``)."""
    d = dt.as_dtype(dtype)
    with name_scope(name, "random_gamma"):
        s = convert_to_tensor(shape, dtype=dt.int32)
        a = convert_to_tensor(alpha, dtype=d)
        b = convert_to_tensor(beta if beta is not None else 1, dtype=d)
        draw = apply_op1("RandomGamma", [s, _broadcast_alpha(a, b)], rnd._seed_attrs(seed))
        return _floored(draw, b, d)


def random_poisson(
    shape: Any, lam: Any, dtype: Any = dt.float32, seed: int | None = None, name: str | None = None
) -> Tensor:
    """Poisson(lam) draws, ``shape`` of them per rate (``RandomPoissonV2``)."""
    d = dt.as_dtype(dtype)
    with name_scope(name, "random_poisson"):
        s = convert_to_tensor(shape, dtype=dt.int32)
        rate = convert_to_tensor(lam)
        return apply_op1("RandomPoissonV2", [s, rate], {"dtype": d, **rnd._seed_attrs(seed)})


def random_poisson_v1(
    lam: Any, shape: Any, dtype: Any = dt.float32, seed: int | None = None, name: str | None = None
) -> Tensor:
    """TF1's ``tf.random.poisson(lam, shape, ...)``: the rate first."""
    return random_poisson(shape, lam, dtype, seed, name)


def stateless_random_gamma(
    shape: Any,
    seed: Any,
    alpha: Any,
    beta: Any = None,
    dtype: Any = dt.float32,
    name: str | None = None,
) -> Tensor:
    """Gamma draws fixed by ``seed``; ``shape`` ends with alpha's broadcast shape."""
    d = dt.as_dtype(dtype)
    with name_scope(name, "stateless_random_gamma"):
        s = rnd.shape_tensor(shape)
        a = convert_to_tensor(alpha, dtype=d)
        b = convert_to_tensor(beta if beta is not None else 1, dtype=d)
        key, counter, alg = stateless.key_counter_alg(seed, "auto_select")
        draw = apply_op1("StatelessRandomGammaV3", [s, key, counter, alg, _broadcast_alpha(a, b)])
        return _floored(draw, b, d)


def stateless_random_poisson(
    shape: Any, seed: Any, lam: Any, dtype: Any = dt.int32, name: str | None = None
) -> Tensor:
    """Poisson draws fixed by ``seed``; ``shape`` ends with lam's shape."""
    d = dt.as_dtype(dtype)
    with name_scope(name, "stateless_random_poisson"):
        s = rnd.shape_tensor(shape)
        sd = convert_to_tensor(seed)
        rate = convert_to_tensor(lam)
        return apply_op1("StatelessRandomPoisson", [s, sd, rate], {"dtype": d})
