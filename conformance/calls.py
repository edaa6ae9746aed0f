"""The op calls the conformance stage runs in both TensorFlow and symgrad.

Each call is ``name: Call(fn, inputs, ...)``: ``fn(tf, *xs)`` is a program written against
the public TensorFlow API, run once with ``tf`` = TensorFlow and once with ``tf`` = symgrad
on the same inputs.  ``inputs`` are ``(kind, shape)`` pairs (see ``KINDS``), drawn from one
seed per call.  Between them the calls reach every op type symgrad registers, forward and
backward (``tests/test_conformance_table.py`` checks that without TensorFlow, and lists
the few op types no call can reach, with the reason).

``order`` is the highest derivative order compared (0: values only); ``graph=True`` runs
the call inside ``tf.function`` as well, where control flow becomes ``If``/``While`` ops;
``dtypes`` are the float dtypes the inputs take (integer kinds stay integers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Shape = tuple[int, ...]
F32_F64 = ("float32", "float64")
F32 = ("float32",)


@dataclass(frozen=True)
class Call:
    fn: Callable[..., Any]
    inputs: Sequence[tuple[str, Shape]]
    order: int = 2
    dtypes: Sequence[str] = F32_F64
    graph: bool = False
    rtol: float = 0.0  # 0: the harness's default for the dtype
    diff: Sequence[int] | None = None  # inputs to differentiate (default: every float one)
    note: str = field(default="", compare=False)


def _spd(rng: np.random.Generator, shape: Shape) -> np.ndarray:
    a = rng.standard_normal(shape)
    n = shape[-1]
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _away(rng: np.random.Generator, shape: Shape) -> np.ndarray:
    return np.sign(rng.standard_normal(shape)) * rng.uniform(0.3, 2.0, shape)


def _distinct(rng: np.random.Generator, shape: Shape) -> np.ndarray:
    """No ties and gaps of at least 0.1: max/min/sort gradients are well defined."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.37 - n * 0.15).reshape(shape)


def _ints(lo: int, hi: int) -> Callable[[np.random.Generator, Shape], np.ndarray]:
    return lambda rng, shape: rng.integers(lo, hi, shape).astype(np.int32)


KINDS: dict[str, Callable[[np.random.Generator, Shape], np.ndarray]] = {
    "n": lambda rng, s: rng.standard_normal(s),  # normal
    "a": _away,  # |x| in [0.3, 2]: kinks at 0 out of reach
    "p": lambda rng, s: rng.uniform(0.5, 2.0, s),  # positive
    "u": lambda rng, s: rng.uniform(-0.8, 0.8, s),  # inside (-1, 1)
    "g1": lambda rng, s: rng.uniform(1.2, 3.0, s),  # above 1
    "spd": _spd,  # symmetric positive definite (last two dims)
    "d": _distinct,
    "i3": _ints(0, 3),  # indices into a dimension of 3
    "i4": _ints(0, 4),
    "b": lambda rng, s: rng.uniform(size=s) > 0.5,
}


def arrays(call: Call, dtype: str, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for kind, shape in call.inputs:
        a = KINDS[kind](rng, shape)
        out.append(a.astype(dtype) if a.dtype.kind == "f" else a)
    return out


def _c(tf: Any, x: Any, y: Any) -> Any:
    return tf.complex(x, y)


def _while_sum(tf: Any, x: Any) -> Any:
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y) * x), [0, x])
    return y


def _cond(tf: Any, x: Any, y: Any) -> Any:
    return tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.sin(x) * y, lambda: x * x)


def _case(tf: Any, x: Any, y: Any) -> Any:
    i = tf.cast(tf.reduce_sum(x) > 0.0, tf.int32)
    return tf.switch_case(i, [lambda: x * y, lambda: tf.exp(x) + y])


def _custom(tf: Any, x: Any) -> Any:
    @tf.custom_gradient
    def f(v: Any) -> Any:
        return tf.sin(v), lambda dy: dy * 2.0 * tf.cos(v)

    return f(x)


def _variable(tf: Any, x: Any) -> Any:
    v = tf.Variable(tf.ones_like(x) * 0.5)
    v.assign(v * x)
    return v.read_value() * x


_VARIABLES: dict[tuple[str, str], Any] = {}


def _variable_like(tf: Any, x: Any) -> Any:
    """One Variable per library and dtype, made on first use (tf.function allows a
    Variable made in its first trace only), read inside branches and loop bodies."""
    key = (tf.__name__, x.dtype.name)
    if key not in _VARIABLES:
        with tf.init_scope():
            _VARIABLES[key] = tf.Variable(np.linspace(0.5, 1.5, 3), dtype=x.dtype)
    return _VARIABLES[key]


def _cond_variable(tf: Any, x: Any) -> Any:
    v = _variable_like(tf, x)
    return tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * v, lambda: tf.sin(x - v))


def _case_variable(tf: Any, x: Any) -> Any:
    v = _variable_like(tf, x)
    i = tf.cast(tf.reduce_sum(x) > 0.0, tf.int32)
    return tf.switch_case(i, [lambda: x * v, lambda: tf.exp(x) * v])


def _while_variable(tf: Any, x: Any) -> Any:
    v = _variable_like(tf, x)
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.tanh(y * v) + x), [0, x])
    return y


def _tensor_array(tf: Any, x: Any) -> Any:
    ta = tf.TensorArray(x.dtype, size=3, element_shape=[4])
    ta = ta.write(0, x[0] * 2.0).write(2, tf.sin(x[2]))
    ta = ta.scatter([1], x[1:2] * x[0])
    return [ta.stack(), ta.read(2) * ta.gather([0, 1])]


def _while_slices(tf: Any, x: Any) -> Any:
    """An RNN's shape: each step reads one row of a captured tensor (x[i])."""
    step = lambda i, h: (i + 1, tf.tanh(h * 0.5 + x[i]))  # noqa: E731
    return tf.while_loop(lambda i, h: i < 3, step, [0, tf.zeros_like(x[0])])[1]


def _scan(tf: Any, x: Any) -> Any:
    return tf.scan(lambda a, e: tf.tanh(a * 0.5 + e), x)


def _map_fn(tf: Any, x: Any, y: Any) -> Any:
    return tf.map_fn(lambda e: tf.sin(e) * y + e * e, x)


def _scatter_variable(tf: Any, x: Any) -> Any:
    v = tf.Variable(tf.zeros([4, 3], x.dtype))
    v.scatter_update(tf.IndexedSlices(x[:2], [3, 0]))
    v.scatter_add(tf.IndexedSlices(x, [0, 1, 0]))
    v.scatter_sub(tf.IndexedSlices(x[2:] * 2.0, [2]))
    v.scatter_max(tf.IndexedSlices(x[1:] * 3.0, [1, 1]))
    v.scatter_min(tf.IndexedSlices(x[:1] - 1.0, [3]))
    v.scatter_mul(tf.IndexedSlices(x[:2], [2, 2]))
    return v.read_value()


def _slice_assign_variable(tf: Any, x: Any) -> Any:
    v = tf.Variable(tf.zeros([4, 3], x.dtype))
    v[0].assign(x[0])
    v[1:3, ::2].assign(x[1:, :2] * 2.0)
    v[..., -1].assign(x[2, 0])  # broadcast
    v[3, None].assign(x[:1] - 1.0)
    return v.read_value()


def _nested_function(tf: Any, x: Any) -> Any:
    return tf.function(lambda v: tf.sin(v) * v)(x * 2.0)


def _unary(name: str, kind: str = "n", order: int = 2, **kw: Any) -> Call:
    path = name.split(".")

    def fn(tf: Any, x: Any) -> Any:
        f = tf
        for p in path:
            f = getattr(f, p)
        return f(x)

    fn.__name__ = name
    return Call(fn, [(kind, (3, 4))], order=order, **kw)


def _binary(name: str, kx: str = "n", ky: str = "n", order: int = 2, **kw: Any) -> Call:
    path = name.split(".")

    def fn(tf: Any, x: Any, y: Any) -> Any:
        f = tf
        for p in path:
            f = getattr(f, p)
        return f(x, y)

    fn.__name__ = name
    return Call(fn, [(kx, (2, 3, 4)), (ky, (3, 1))], order=order, **kw)


UNARY = {
    "abs": _unary("abs", "a"),
    "acos": _unary("math.acos", "u"),
    "acosh": _unary("math.acosh", "g1"),
    "asin": _unary("math.asin", "u"),
    "asinh": _unary("math.asinh"),
    "atan": _unary("math.atan"),
    "atanh": _unary("math.atanh", "u"),
    "cos": _unary("cos"),
    "cosh": _unary("math.cosh"),
    "digamma": _unary("math.digamma", "p"),
    "erf": _unary("math.erf"),
    "erfc": _unary("math.erfc"),
    "erfinv": _unary("math.erfinv", "u"),
    "exp": _unary("exp"),
    "expm1": _unary("math.expm1"),
    "lgamma": _unary("math.lgamma", "p"),
    "log": _unary("math.log", "p"),
    "log1p": _unary("math.log1p", "p"),
    "neg": _unary("negative"),
    "reciprocal": _unary("math.reciprocal", "a"),
    "relu": _unary("nn.relu", "a"),
    "rsqrt": _unary("math.rsqrt", "p"),
    "sigmoid": _unary("sigmoid"),
    "sign": _unary("sign", "a"),
    "sin": _unary("sin"),
    "check_numerics": Call(
        lambda tf, x: tf.debugging.check_numerics(tf.sin(x), "checked"), [("n", (3, 4))]
    ),
    "sinh": _unary("math.sinh"),
    "softplus": _unary("math.softplus"),
    "softsign": _unary(
        "math.softsign",
        order=1,
        note="TF has no gradient for SoftsignGrad; symgrad's is checked by finite differences",
    ),
    "rounding": Call(
        lambda tf, x: [tf.floor(x) * x, tf.math.ceil(x) * x, tf.round(x * 2.0), tf.math.rint(x)],
        [("a", (3, 4))],
    ),
    "sqrt": _unary("sqrt", "p"),
    "square": _unary("square"),
    "tan": _unary("math.tan", "u"),
    "tanh": _unary("tanh"),
    "elu": _unary("nn.elu", "a"),
    "selu": _unary("nn.selu", "a"),
    "relu6": Call(lambda tf, x: tf.nn.relu6(x * 4.0 + 2.0), [("a", (3, 4))]),
    "leaky_relu": _unary("nn.leaky_relu", "a"),
    "is_finite": _unary("math.is_finite", order=0),
    "is_inf": _unary("math.is_inf", order=0),
    "is_nan": _unary("math.is_nan", order=0),
    "logical_not": Call(lambda tf, x: tf.logical_not(x > 0.0), [("n", (3, 4))], order=0),
}

BINARY = {
    "add": _binary("add"),
    "subtract": _binary("subtract"),
    "multiply": _binary("multiply"),
    "divide": _binary("divide", "n", "a"),
    "maximum": _binary("maximum", "d", "d", rtol=1e-5),
    "minimum": _binary("minimum", "d", "d", rtol=1e-5),
    "pow": _binary("pow", "p", "n"),
    "squared_difference": _binary("math.squared_difference"),
    "atan2": _binary("math.atan2", "n", "a"),
    "floordiv": _binary("math.floordiv", "n", "a", order=0),
    "floormod": _binary("math.floormod", "n", "a", order=0),
    "divide_no_nan": _binary("math.divide_no_nan", "n", "a"),
    "multiply_no_nan": _binary("math.multiply_no_nan"),
    "xdivy": _binary("math.xdivy", "p", "p"),
    "xlogy": _binary("math.xlogy", "p", "p"),
    "xlog1py": _binary("math.xlog1py", "p", "p"),
    "nextafter": _binary("math.nextafter", "n", "n"),
    "zeta": Call(
        lambda tf, x, q: tf.math.zeta(x + 1.5, q), [("p", (3, 4)), ("p", (4,))], order=1, diff=[1]
    ),
    "polygamma": Call(
        lambda tf, n, x: tf.math.polygamma(tf.cast(n, x.dtype), x),
        [("i3", (3, 4)), ("p", (3, 4))],
        order=1,
        diff=[1],
    ),
    "truncatediv": Call(lambda tf, x, y: tf.truncatediv(x, y + 1), [("i4", (3, 4)), ("i3", (4,))]),
    "compare": Call(
        lambda tf, x, y: [
            tf.equal(x, y),
            tf.not_equal(x, y),
            tf.less(x, y),
            tf.less_equal(x, y),
            tf.greater(x, y),
            tf.greater_equal(x, y),
        ],
        [("i3", (3, 4)), ("i3", (4,))],
        order=0,
    ),
    "logical": Call(
        lambda tf, x, y: [tf.logical_and(x, y), tf.logical_or(x, y)],
        [("b", (3, 4)), ("b", (4,))],
        order=0,
    ),
    "where3": Call(lambda tf, x, y: tf.where(x > y, x, y * 2.0), [("n", (3, 4)), ("n", (4,))]),
}

REDUCE = {
    "sum": Call(lambda tf, x: tf.reduce_sum(x, [0, 2]), [("n", (2, 3, 4))]),
    "mean": Call(lambda tf, x: tf.reduce_mean(x, 1, keepdims=True), [("n", (2, 3, 4))]),
    "max": Call(lambda tf, x: tf.reduce_max(x, -1), [("d", (2, 3, 4))]),
    "min": Call(lambda tf, x: tf.reduce_min(x, [0, 1]), [("d", (2, 3, 4))]),
    "prod": Call(lambda tf, x: tf.reduce_prod(x, 1), [("a", (2, 3, 4))]),
    "all_any": Call(
        lambda tf, x: [tf.reduce_all(x > 0.0, 1), tf.reduce_any(x > 0.0, 0)],
        [("n", (3, 4))],
        order=0,
    ),
    "argmax_argmin": Call(
        lambda tf, x: [tf.argmax(x, 1), tf.argmin(x, 0)], [("d", (3, 4))], order=0
    ),
    "euclidean_norm": Call(lambda tf, x: tf.math.reduce_euclidean_norm(x, 1), [("n", (3, 4))]),
    "l2_loss": Call(lambda tf, x: tf.nn.l2_loss(x), [("n", (3, 4))]),
    "cumsum": Call(lambda tf, x: tf.cumsum(x, 1, exclusive=True), [("n", (3, 4))]),
    "cumprod": Call(lambda tf, x: tf.math.cumprod(x, 1, reverse=True), [("a", (3, 4))]),
    "cumulative_logsumexp": Call(lambda tf, x: tf.math.cumulative_logsumexp(x, 0), [("n", (3, 4))]),
    "logsumexp": Call(lambda tf, x: tf.reduce_logsumexp(x, 1), [("n", (3, 4))]),
}

SHAPE = {
    "broadcast_to": Call(lambda tf, x: tf.broadcast_to(x, [2, 3, 4]), [("n", (3, 1))]),
    "concat": Call(lambda tf, x, y: tf.concat([x, y], 1), [("n", (2, 3)), ("n", (2, 4))]),
    "expand_squeeze": Call(lambda tf, x: tf.squeeze(tf.expand_dims(x, 1), [1]), [("n", (3, 4))]),
    "identity": Call(lambda tf, x: tf.identity(x) * x, [("n", (3, 4))]),
    "ones_like_unknown_shape": Call(
        lambda tf, x: tf.ones_like(tf.compat.v1.placeholder_with_default(x, [None, 4])) * x,
        [("n", (3, 4))],
    ),
    "fill_like": Call(
        lambda tf, x: [tf.fill([2, 3], 1.5), tf.ones_like(x), tf.zeros_like(x) + x],
        [("n", (3, 4))],
    ),
    "gather": Call(
        lambda tf, x, i: tf.gather(x, i, axis=1), [("n", (2, 3, 4)), ("i3", (5,))], diff=[0]
    ),
    "gather_nd": Call(
        lambda tf, x, i: tf.gather_nd(x, i), [("n", (3, 3, 4)), ("i3", (5, 2))], diff=[0]
    ),
    "identity_n": Call(lambda tf, x, y: tf.identity_n([x, y * 2.0]), [("n", (3,)), ("n", (2,))]),
    "invert_permutation": Call(
        lambda tf, x: tf.math.invert_permutation(tf.argsort(x)), [("d", (6,))], order=0
    ),
    "one_hot": Call(lambda tf, i: tf.one_hot(i, 4, 2.0, -1.0), [("i4", (3, 2))], order=0),
    "sequence_mask": Call(lambda tf, i: tf.sequence_mask(i, 5), [("i4", (3, 2))], order=0),
    "confusion_matrix": Call(
        lambda tf, a, b, w: tf.math.confusion_matrix(a, b, 4, weights=w, dtype=w.dtype),
        [("i4", (6,)), ("i4", (6,)), ("n", (6,))],
        diff=[2],
    ),
    "repeat": Call(lambda tf, x: tf.repeat(x, [2, 0, 1], axis=0), [("n", (3, 4))]),
    "repeat_scalar": Call(lambda tf, x: tf.repeat(x, 2, axis=-1), [("n", (3, 4))]),
    "linspace": Call(
        lambda tf, a, b: tf.linspace(a, b * 2.0, 5, axis=1), [("n", (3,)), ("n", (3,))]
    ),
    "meshgrid": Call(
        lambda tf, x, y: tf.meshgrid(x, y * y, indexing="xy"), [("n", (3,)), ("n", (4,))]
    ),
    "stack_unstack": Call(
        lambda tf, x, y: tf.unstack(tf.stack([x, y], 1), axis=2),
        [("n", (2, 3)), ("n", (2, 3))],
    ),
    "pad": Call(lambda tf, x: tf.pad(x, [[1, 0], [2, 1]]), [("n", (3, 4))]),
    "pad_constant": Call(
        lambda tf, x: tf.pad(x, [[0, 1], [1, 1]], constant_values=2.0), [("n", (3, 4))]
    ),
    "pad_reflect": Call(lambda tf, x: tf.pad(x, [[1, 1], [2, 0]], "REFLECT"), [("n", (3, 4))]),
    "pad_symmetric": Call(lambda tf, x: tf.pad(x, [[0, 2], [3, 1]], "SYMMETRIC"), [("n", (3, 4))]),
    "range_shape": Call(
        lambda tf, x: [
            tf.range(1, 7, 2),
            tf.rank(x),
            tf.shape(x),
            tf.size(x),
            tf.cast(tf.range(tf.shape(x)[1]), x.dtype) * x,
        ],
        [("n", (3, 4))],
    ),
    "reshape_transpose": Call(
        lambda tf, x: tf.transpose(tf.reshape(x, [4, 3, 2]), [2, 0, 1]), [("n", (2, 3, 4))]
    ),
    "scatter_nd": Call(
        lambda tf, i, u: tf.scatter_nd(i, u, [4, 3]), [("i4", (5, 1)), ("n", (5, 3))], diff=[1]
    ),
    "boolean_mask": Call(
        lambda tf, x: [  # the reshapes give the graph build its static shapes
            tf.reshape(tf.boolean_mask(x, [[True, False, True], [False, False, True]]), [3, 4]),
            tf.reshape(tf.boolean_mask(x, [True, False, True, True], axis=2), [2, 3, 3]),
        ],
        [("n", (2, 3, 4))],
    ),
    "tensor_scatter_nd": Call(
        lambda tf, x, u: [
            tf.tensor_scatter_nd_update(x, [[3], [0]], u),
            tf.tensor_scatter_nd_add(x, [[1], [1]], u * u),
            tf.tensor_scatter_nd_sub(x, [[2, 1], [0, 2]], u[:, 0]),
            tf.tensor_scatter_nd_max(x, [[3], [0], [3]], tf.concat([u, u[:1]], 0)),
            tf.tensor_scatter_nd_min(x, [[2, 1], [0, 2]], u[:, 1]),
        ],
        [("n", (4, 3)), ("n", (2, 3))],
    ),
    "slice": Call(lambda tf, x: tf.slice(x, [1, 0, 1], [1, 2, 3]), [("n", (2, 3, 4))]),
    "strided_slice": Call(lambda tf, x: x[1:, ::-2, tf.newaxis, 1], [("n", (3, 4, 5))]),
    "tensor_diag": Call(
        lambda tf, x: tf.compat.v1.diag_part(tf.compat.v1.diag(x) * 2.0), [("n", (2, 3))]
    ),
    "in_top_k": Call(
        lambda tf, p, t: tf.math.in_top_k(t, p, 2),
        [("d", (4, 5)), ("i4", (4,))],
        dtypes=F32,
        order=0,
        note="a boolean; TF's kernel takes float32 predictions only",
    ),
    "unique": Call(
        lambda tf, i: list(tf.unique(i)), [("i4", (8,))], order=0, note="integer outputs only"
    ),
    "reverse": Call(lambda tf, x: tf.reverse(x, [0, -1]) * x, [("n", (3, 4))]),
    "split": Call(lambda tf, x: tf.split(x, 2, axis=1), [("n", (3, 4))]),
    "split_v": Call(lambda tf, x: tf.split(x, [1, 3], axis=1), [("n", (3, 4))]),
    "tile": Call(lambda tf, x: tf.tile(x, [2, 1, 3]), [("n", (2, 3, 1))]),
    "where1": Call(lambda tf, x: tf.where(x > 0.0), [("n", (3, 4))], order=0),
    "top_k": Call(lambda tf, x: tf.math.top_k(x, 2).values, [("d", (3, 5))]),
    "sort": Call(lambda tf, x: tf.sort(x, direction="DESCENDING"), [("d", (3, 5))]),
    "einsum": Call(
        lambda tf, x, y: tf.einsum("bij,jk->bik", x, y), [("n", (2, 3, 4)), ("n", (4, 5))]
    ),
    "matmul": Call(
        lambda tf, x, y: tf.matmul(x, y, transpose_b=True), [("n", (3, 4)), ("n", (5, 4))]
    ),
    "batch_matmul": Call(lambda tf, x, y: x @ y, [("n", (2, 3, 4)), ("n", (4, 5))]),
    "tensordot": Call(
        lambda tf, x, y: tf.tensordot(x, y, [[1], [0]]), [("n", (2, 3)), ("n", (3, 4))]
    ),
    "cast": Call(lambda tf, x: tf.cast(tf.cast(x, tf.float64), tf.float32) * 1.0, [("n", (3, 4))]),
    "stop_gradient": Call(
        lambda tf, x, y: tf.stop_gradient(x) * y + x, [("n", (3, 4)), ("n", (3, 4))]
    ),
    "add_n": Call(lambda tf, x, y: tf.add_n([x, y, x]), [("n", (3, 4)), ("n", (3, 4))]),
}

SEGMENT = {
    "segment_ops": Call(
        lambda tf, x: [
            tf.math.segment_sum(x, [0, 0, 1, 2]),
            tf.math.segment_mean(x, [0, 0, 1, 2]),
            tf.math.segment_max(x, [0, 1, 1, 2]),
            tf.math.segment_min(x, [0, 1, 1, 2]),
            tf.math.segment_prod(x, [0, 0, 1, 2]),
        ],
        [("d", (4, 3))],
    ),
    "unsorted_segment_ops": Call(
        lambda tf, x: [
            tf.math.unsorted_segment_sum(x, [2, 0, 2, 1], 3),
            tf.math.unsorted_segment_max(x, [2, 0, 2, 1], 3),
            tf.math.unsorted_segment_min(x, [1, 0, 1, 2], 3),
            tf.math.unsorted_segment_prod(x, [2, 0, 2, 1], 3),
        ],
        [("d", (4, 3))],
    ),
    "bincount": Call(lambda tf, i: tf.math.bincount(i, minlength=5), [("i4", (7,))], order=0),
}

LINALG = {
    "cholesky": Call(lambda tf, a: tf.linalg.cholesky(a), [("spd", (2, 3, 3))], rtol=1e-4),
    "slogdet": Call(lambda tf, a: tf.linalg.slogdet(a)[1], [("spd", (2, 3, 3))]),
    "det": Call(lambda tf, a: tf.linalg.det(a), [("n", (2, 3, 3))], rtol=1e-4),
    "inv": Call(lambda tf, a: tf.linalg.inv(a), [("spd", (3, 3))], rtol=1e-4),
    "band_part": Call(lambda tf, a: tf.linalg.band_part(a, 1, 0), [("n", (3, 4))]),
    "diag": Call(
        lambda tf, a: [tf.linalg.diag_part(a), tf.linalg.diag(a[0]), tf.linalg.set_diag(a, a[1])],
        [("n", (3, 3))],
    ),
    "expm": Call(lambda tf, a: tf.linalg.expm(a * 0.5), [("n", (3, 3))], rtol=1e-4),
    "solve": Call(
        lambda tf, a, b: tf.linalg.solve(a, b), [("spd", (3, 3)), ("n", (3, 2))], rtol=1e-4
    ),
    "lstsq": Call(
        lambda tf, a, b: tf.linalg.lstsq(a, b), [("n", (4, 3)), ("n", (4, 2))], order=1, rtol=1e-4
    ),
    "triangular_solve": Call(
        lambda tf, a, b: tf.linalg.triangular_solve(a + 3.0 * tf.eye(3, dtype=a.dtype), b),
        [("p", (3, 3)), ("n", (3, 2))],
        rtol=1e-4,
    ),
    "lstsq_exact": Call(
        lambda tf, a, b: tf.linalg.lstsq(a, b, fast=False),
        [("n", (4, 3)), ("n", (4, 2))],
        dtypes=("float64",),
        order=0,
        rtol=1e-4,
        note="TF has no gradient for MatrixSolveLs with fast=False",
    ),
    "qr": Call(lambda tf, a: tf.linalg.qr(a), [("n", (4, 3))], order=1, rtol=1e-4),
    "eigh": Call(
        lambda tf, a: tf.linalg.eigvalsh(a + tf.linalg.matrix_transpose(a)),
        [("n", (3, 3))],
        rtol=1e-4,
    ),
    "eigh_vectors": Call(
        lambda tf, a: tf.abs(tf.linalg.eigh(a + tf.linalg.matrix_transpose(a))[1]),
        [("n", (3, 3))],
        order=1,
        rtol=1e-4,
        note="eigenvectors' signs are arbitrary: their absolute values are compared",
    ),
    "svd": Call(
        lambda tf, a: tf.linalg.svd(a, compute_uv=False), [("n", (4, 3))], order=1, rtol=1e-4
    ),
}

NN = {
    "conv2d": Call(
        lambda tf, x, w: tf.nn.conv2d(x, w, 1, "SAME"), [("n", (1, 5, 4, 2)), ("n", (2, 3, 2, 3))]
    ),
    "conv3d": Call(
        lambda tf, x, w: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID"),
        [("n", (1, 3, 4, 3, 2)), ("n", (2, 2, 2, 2, 3))],
    ),
    "depthwise": Call(
        lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"),
        [("n", (1, 4, 5, 2)), ("n", (2, 2, 2, 2))],
    ),
    "max_pool": Call(lambda tf, x: tf.nn.max_pool2d(x, 2, 2, "SAME"), [("d", (1, 5, 4, 2))]),
    # TF's CPU kernels for the 3-D pools take float32 only
    "max_pool3d": Call(
        lambda tf, x: tf.nn.max_pool3d(x, 2, 2, "VALID"), [("d", (1, 3, 4, 4, 2))], dtypes=F32
    ),
    "avg_pool": Call(lambda tf, x: tf.nn.avg_pool2d(x, 3, 2, "SAME"), [("n", (1, 5, 4, 2))]),
    "avg_pool3d": Call(
        lambda tf, x: tf.nn.avg_pool3d(x, 2, 1, "VALID"), [("n", (1, 3, 3, 4, 2))], dtypes=F32
    ),
    "bias_add": Call(lambda tf, x, b: tf.nn.bias_add(x, b), [("n", (2, 3, 4)), ("n", (4,))]),
    "fused_batch_norm": Call(
        lambda tf, x, s, o: tf.compat.v1.nn.fused_batch_norm(x, s, o)[0],
        [("n", (2, 3, 2, 4)), ("p", (4,)), ("n", (4,))],
        dtypes=F32,
        rtol=1e-4,
    ),
    "softmax": Call(lambda tf, x: tf.nn.softmax(x, axis=0), [("n", (3, 4))]),
    "log_softmax": Call(lambda tf, x: tf.nn.log_softmax(x), [("n", (3, 4))]),
    "softmax_xent": Call(
        lambda tf, lab, x: tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(lab), x),
        [("n", (3, 4)), ("n", (3, 4))],
    ),
    "sparse_softmax_xent": Call(
        lambda tf, lab, x: tf.nn.sparse_softmax_cross_entropy_with_logits(lab, x),
        [("i4", (3,)), ("n", (3, 4))],
        diff=[1],
    ),
    "sigmoid_xent": Call(
        lambda tf, z, x: tf.nn.sigmoid_cross_entropy_with_logits(tf.sigmoid(z), x),
        [("n", (3, 4)), ("n", (3, 4))],
    ),
    "lrn": Call(
        lambda tf, x: tf.nn.lrn(x, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75),
        [("n", (2, 3, 2, 6))],
        order=1,
        dtypes=F32,
        note="TF: LRN takes float32/half only; LRNGrad has no gradient",
    ),
    "atrous_conv2d": Call(
        lambda tf, x, f: tf.nn.atrous_conv2d(x, f, 2, "SAME"),
        [("n", (1, 6, 7, 2)), ("n", (2, 3, 2, 3))],
    ),
    "log_poisson_loss": Call(
        lambda tf, z, c: tf.nn.log_poisson_loss(z, c, compute_full_loss=True),
        [("p", (3, 4)), ("n", (3, 4))],
        diff=[1],
    ),
    "ctc_loss": Call(
        lambda tf, x: tf.nn.ctc_loss(
            tf.constant([[1, 2, 2, 0], [3, 1, 4, 4], [2, 0, 0, 0]]),
            x,
            tf.constant([3, 4, 1]),
            tf.constant([6, 5, 3]),
            blank_index=-1,
        ),
        [("n", (6, 3, 5))],
        order=1,
        dtypes=F32,
        note="TF's gradient is a custom_gradient constant: no second order",
    ),
    "nce_loss": Call(
        lambda tf, w, b, x: tf.nn.nce_loss(
            w,
            b,
            tf.constant([[1, 4], [2, 4]], tf.int64),
            x,
            3,
            7,
            num_true=2,
            sampled_values=_sampled(tf),
            remove_accidental_hits=True,
        ),
        [("n", (7, 3)), ("n", (7,)), ("n", (2, 3))],
        dtypes=F32,
    ),
    "sampled_softmax_loss": Call(
        lambda tf, w, b, x: tf.nn.sampled_softmax_loss(
            w,
            b,
            tf.constant([[1, 4], [2, 4]], tf.int64),
            x,
            3,
            7,
            num_true=2,
            sampled_values=_sampled(tf),
        ),
        [("n", (7, 3)), ("n", (7,)), ("n", (2, 3))],
        dtypes=F32,
    ),
}


def _sampled(tf: Any) -> tuple[Any, Any, Any]:
    """Fixed candidates (4 is a true class of both rows: an accidental hit) and counts."""
    return (
        tf.constant([4, 0, 3], tf.int64),
        tf.constant([[0.5, 0.25], [0.75, 0.25]]),
        tf.constant([0.25, 0.6, 0.3]),
    )


COMPLEX = {
    "complex_abs": Call(lambda tf, x, y: tf.abs(_c(tf, x, y)), [("a", (3, 4)), ("a", (3, 4))]),
    "angle": Call(lambda tf, x, y: tf.math.angle(_c(tf, x, y)), [("a", (3, 4)), ("a", (3, 4))]),
    "real_imag_conj": Call(
        lambda tf, x, y: [
            tf.math.real(tf.math.conj(_c(tf, x, y)) * _c(tf, y, x)),
            tf.math.imag(_c(tf, x, y) * _c(tf, y, x)),
        ],
        [("n", (3, 4)), ("n", (3, 4))],
    ),
    "adjoint": Call(
        lambda tf, x, y: tf.math.imag(tf.linalg.adjoint(_c(tf, x, y)) * 2.0),
        [("n", (3, 4)), ("n", (3, 4))],
    ),
}

RANDOM = {
    "stateless_normal": Call(
        lambda tf, x: tf.random.stateless_normal([3, 4], seed=[7, 3], dtype=x.dtype) * x,
        [("n", (3, 4))],
    ),
    "stateless_uniform": Call(
        lambda tf, x: tf.random.stateless_uniform([3, 4], seed=[1, 2], dtype=x.dtype) * x,
        [("n", (3, 4))],
    ),
    "stateless_truncated_normal": Call(
        lambda tf, x: tf.random.stateless_truncated_normal([3, 4], [5, 6], dtype=x.dtype) + x,
        [("n", (3, 4))],
    ),
    "stateless_uniform_int": Call(
        lambda tf, x: [
            tf.random.stateless_uniform([5], [3, 4], minval=2, maxval=9, dtype=tf.int32),
            tf.random.stateless_uniform([5], [3, 4], minval=None, maxval=None, dtype=tf.int64),
        ],
        [("n", (3,))],
        order=0,
    ),
    "stateless_categorical": Call(
        lambda tf, x: tf.random.stateless_categorical(x, 6, seed=[2, 9]), [("n", (2, 4))], order=0
    ),
    "stateless_gamma": Call(
        lambda tf, a: tf.random.stateless_gamma([5, 3], [4, 7], a, beta=2.0, dtype=a.dtype),
        [("p", (3,))],
        order=1,
        note="the gradient in alpha is TF's implicit one (RandomGammaGrad)",
    ),
    "stateless_poisson": Call(
        lambda tf, x: tf.random.stateless_poisson([4, 3], [5, 1], x * 8.0, dtype=x.dtype),
        [("p", (3,))],
        order=0,
    ),
}


def _image_geometry(tf: Any, x: Any) -> Any:
    return [
        tf.image.flip_left_right(x) * x,
        tf.image.flip_up_down(x[0]),
        [  # the reshapes give the graph build its static shapes (rot90 is a case on k)
            tf.reshape(tf.image.rot90(x, k), [2, 4, 5, 3] if k % 2 else [2, 5, 4, 3])
            for k in (1, 2, 3)
        ],
        tf.image.transpose(x[1]),
        tf.image.central_crop(x, 0.6),
        tf.image.crop_to_bounding_box(x, 1, 2, 3, 2),
        tf.image.pad_to_bounding_box(x[0], 1, 0, 7, 6),
        tf.image.resize_with_crop_or_pad(x, 3, 7),
    ]


def _image_values(tf: Any, x: Any) -> Any:
    return [
        tf.image.per_image_standardization(x),
        tf.image.adjust_brightness(x, 0.25),
        tf.image.rgb_to_grayscale(x),
        tf.image.grayscale_to_rgb(x[..., :1]),
        tf.image.convert_image_dtype(x, tf.float16),
        tf.image.adjust_gamma(tf.abs(x), 0.7, 1.3),
    ]


def _image_stateless(tf: Any, x: Any) -> Any:
    return [
        tf.image.stateless_random_flip_left_right(x, (3, 4)),
        tf.image.stateless_random_flip_up_down(x[0], (1, 2)),
        tf.image.stateless_random_crop(x, [2, 3, 4, 3], (5, 6)),
        tf.image.stateless_random_brightness(x, 0.3, (7, 8)),
    ]


IMAGE = {
    "resize_bilinear": Call(
        lambda tf, x: [tf.image.resize(x, [5, 7]), tf.image.resize(x[0], [2, 3])],
        [("n", (2, 3, 4, 2))],
    ),
    "resize_nearest": Call(
        lambda tf, x: tf.image.resize(x, [5, 3], "nearest") * 2.0,
        [("n", (2, 3, 4, 2))],
        order=1,
        note="TF registers no gradient for ResizeNearestNeighborGrad (symgrad's is the resize)",
    ),
    "resize_bicubic": Call(
        lambda tf, x: tf.image.resize(x, [7, 5], "bicubic"),
        [("n", (1, 4, 3, 2))],
        order=1,
        note="TF registers no gradient for ResizeBicubicGrad (symgrad's is the resize)",
    ),
    "resize_area": Call(
        lambda tf, x: [tf.image.resize(x, [3, 2], "area"), tf.image.resize(x, [9, 7], "area")],
        [("n", (2, 5, 4, 3))],
        order=0,
        note="TF defines no gradient for ResizeArea",
    ),
    "resize_v1": Call(
        lambda tf, x: [
            tf.compat.v1.image.resize_images(x, [5, 7], align_corners=True),
            tf.compat.v1.image.resize_bicubic(x, [2, 6]),
            tf.compat.v1.image.resize_nearest_neighbor(x, [6, 2], align_corners=True),
            tf.image.resize_with_pad(x, 6, 9),
        ],
        [("n", (2, 3, 4, 2))],
        order=1,
    ),
    "adjust_contrast": Call(
        lambda tf, x: [tf.image.adjust_contrast(x, 1.7), tf.image.adjust_contrast(x[0], 0.3)],
        [("n", (2, 4, 3, 3))],
        order=0,
        dtypes=F32,
        note="TF defines no gradient for AdjustContrastv2 and has a float32 CPU kernel only",
    ),
    "image_geometry": Call(_image_geometry, [("n", (2, 5, 4, 3))]),
    "image_values": Call(
        _image_values,
        [("n", (2, 5, 4, 3))],
        dtypes=F32,
        note="standardization and grayscale compute in float32 whatever the input",
    ),
    "image_stateless": Call(_image_stateless, [("n", (2, 5, 4, 3))], graph=True),
    "rgb_to_hsv": Call(lambda tf, x: tf.image.rgb_to_hsv(x), [("p", (2, 4, 3))], order=1),
    "hsv_to_rgb": Call(
        lambda tf, x: tf.image.hsv_to_rgb(x * 0.45),
        [("p", (2, 4, 3))],
        order=0,
        note="TF declares HSVToRGB NotDifferentiable",
    ),
    "adjust_hue_saturation": Call(
        lambda tf, x: [
            tf.image.adjust_hue(x, 0.3),
            tf.image.adjust_hue(x, -0.8),
            tf.image.adjust_saturation(x, 1.7),
            tf.image.stateless_random_hue(x, 0.4, (1, 2)),
            tf.image.stateless_random_saturation(x, 0.5, 1.5, (3, 4)),
        ],
        [("p", (2, 3, 4, 3))],
        order=0,
        dtypes=F32,
        note="TF registers no gradient for AdjustHue or AdjustSaturation (float32 kernels)",
    ),
    "image_color_spaces": Call(
        lambda tf, x: [
            tf.image.rgb_to_yiq(x),
            tf.image.yiq_to_rgb(x),
            tf.image.rgb_to_yuv(x),
            tf.image.yuv_to_rgb(x),
        ],
        [("p", (2, 4, 3))],
        order=1,
    ),
    "image_measures": Call(
        lambda tf, x: [
            tf.image.total_variation(x),
            *tf.image.image_gradients(x),
            tf.image.sobel_edges(x),
        ],
        [("p", (2, 5, 4, 3))],
        order=1,
    ),
    "image_psnr": Call(
        lambda tf, x, y: tf.image.psnr(x, y, 2.0),
        [("p", (2, 5, 4, 3)), ("p", (2, 5, 4, 3))],
        order=1,
        dtypes=F32,
        note="psnr computes in float32 whatever the input",
    ),
    "extract_patches": Call(
        lambda tf, x: [
            tf.image.extract_patches(x, [1, 2, 3, 1], [1, 1, 2, 1], [1, 2, 1, 1], "VALID"),
            tf.image.extract_patches(x, [1, 3, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME"),
        ],
        [("n", (2, 5, 7, 2))],
    ),
    "keras_random_zoom": Call(
        lambda tf, x: [
            tf.keras.layers.RandomZoom((-0.3, 0.2), seed=3, fill_mode="constant")(x),
            tf.keras.layers.RandomZoom(0.4, 0.2, seed=5, interpolation="nearest")(x[0]),
        ],
        [("n", (2, 5, 4, 3))],
        order=1,
        dtypes=F32,
        note="ImageProjectiveTransformV3; its TF gradient applies the inverse transform",
    ),
}

CONTROL = {
    "while": Call(_while_sum, [("n", (3,))], graph=True),
    "cond": Call(_cond, [("n", (3,)), ("n", (3,))], graph=True),
    "switch_case": Call(_case, [("n", (3,)), ("n", (3,))], graph=True),
    "custom_gradient": Call(_custom, [("n", (3, 4))], graph=True),
    "cond_variable": Call(_cond_variable, [("n", (3,))], graph=True),
    "case_variable": Call(_case_variable, [("n", (3,))], graph=True),
    "while_variable": Call(_while_variable, [("n", (3,))], graph=True),
    "tensor_array": Call(_tensor_array, [("n", (3, 4))], graph=True),
    "scan": Call(_scan, [("n", (5, 3))], graph=True),
    "while_slices": Call(_while_slices, [("n", (3, 4))], graph=True),
    "map_fn": Call(_map_fn, [("n", (4, 3)), ("n", (3,))], graph=True),
    "scatter_variable": Call(
        _scatter_variable, [("n", (3, 3))], order=0, note="scatters into a Variable: no gradient"
    ),
    "slice_assign_variable": Call(
        _slice_assign_variable,
        [("n", (3, 3))],
        order=0,
        note="assigns slices of a Variable: no gradient",
    ),
    "nested_function": Call(_nested_function, [("n", (3, 4))], graph=True),
    # eager only: a tf.function that creates a Variable on each trace is refused by TF
    "variable": Call(_variable, [("n", (3,))], order=1),
}


def _numpy_function(tf: Any, x: Any) -> Any:
    y = tf.numpy_function(lambda a: np.sinh(a) * 2, [x], x.dtype)
    y.set_shape(x.shape)  # unknown in a function: the Python function's shape is not seen
    return y


def _numpy_function_stateless(tf: Any, x: Any, k: Any) -> Any:
    y = tf.numpy_function(lambda a, i: a[i], [x, k], x.dtype, stateful=False)
    return tf.reshape(y, [3]) + x[0]


def _py_func_v1(tf: Any, x: Any) -> Any:
    ys = tf.compat.v1.py_func(lambda a: [np.cos(a), a.sum(0)], [x], [x.dtype, x.dtype])
    ys[0].set_shape(x.shape)
    ys[1].set_shape(x.shape[1:])
    return ys


def _py_function(tf: Any, x: Any, y: Any) -> Any:
    z = tf.py_function(lambda a, b: tf.sin(a) * tf.reduce_sum(b * b) + a * a, [x, y], x.dtype)
    z.set_shape(x.shape)
    return z * y[0]


SCRIPT = {
    "numpy_function": Call(_numpy_function, [("n", (3, 4))], graph=True),
    "numpy_function_stateless": Call(
        _numpy_function_stateless, [("n", (4, 3)), ("i4", ())], graph=True
    ),
    "py_func_v1": Call(_py_func_v1, [("n", (2, 3))], graph=True),
    # Differentiable once, as TF's: a second order fails in TF (its tape_cache KeyError).
    "py_function": Call(_py_function, [("n", (3, 4)), ("n", (4,))], order=1, graph=True),
}


def _spectrum(tf: Any, y: Any) -> Any:
    """A complex result as real numbers a loss can read (both parts, mixed)."""
    return tf.math.real(y) * 1.5 + tf.math.imag(y) * 0.5


SIGNAL = {
    "fft": Call(
        lambda tf, x, y: [
            _spectrum(tf, tf.signal.fft(_c(tf, x, y))),
            _spectrum(tf, tf.signal.ifft(_c(tf, y, x))),
        ],
        [("n", (3, 5)), ("n", (3, 5))],
    ),
    "fft2d": Call(
        lambda tf, x, y: [
            _spectrum(tf, tf.signal.fft2d(_c(tf, x, y))),
            _spectrum(tf, tf.signal.ifft2d(_c(tf, y, x))),
        ],
        [("n", (2, 3, 5)), ("n", (2, 3, 5))],
    ),
    "fft3d": Call(
        lambda tf, x, y: [
            _spectrum(tf, tf.signal.fft3d(_c(tf, x, y))),
            _spectrum(tf, tf.signal.ifft3d(_c(tf, y, x))),
        ],
        [("n", (2, 3, 4)), ("n", (2, 3, 4))],
    ),
    "rfft_irfft": Call(
        lambda tf, x, y: [
            _spectrum(tf, tf.signal.rfft(x)),
            tf.signal.irfft(_c(tf, x, y)[:, :5], [9]),
        ],
        [("n", (3, 6)), ("n", (3, 6))],
    ),
    "rfft2d_irfft2d": Call(
        lambda tf, x, y: [
            _spectrum(tf, tf.signal.rfft2d(x, [4, 8])),
            tf.signal.irfft2d(_c(tf, x, y)),
        ],
        [("n", (3, 5)), ("n", (3, 5))],
    ),
    "rfft3d_irfft3d": Call(
        lambda tf, x, y: [_spectrum(tf, tf.signal.rfft3d(x)), tf.signal.irfft3d(_c(tf, x, y))],
        [("n", (2, 3, 4)), ("n", (2, 3, 4))],
        order=0,
        note="TF registers no gradient for RFFT3D and IRFFT3D",
    ),
    "stft_istft": Call(
        lambda tf, x: tf.signal.inverse_stft(tf.signal.stft(x, 6, 3, pad_end=True), 6, 3),
        [("n", (2, 17))],
    ),
    "frame_dct": Call(
        lambda tf, x: [
            tf.signal.dct(tf.signal.frame(x, 4, 2, axis=0), norm="ortho"),
            tf.signal.idct(x, type=3),
        ],
        [("n", (9, 5))],
    ),
    "roll_fftshift": Call(
        lambda tf, x: [tf.roll(x, [2, -1], [1, 0]) * x, tf.signal.fftshift(x)],
        [("n", (3, 5))],
    ),
    "searchsorted": Call(
        lambda tf, s, v: [
            tf.searchsorted(tf.sort(s), v),
            tf.searchsorted(tf.sort(s), v, side="right", out_type=tf.int64),
        ],
        [("n", (3, 6)), ("n", (3, 4))],
        order=0,
        note="integer outputs only",
    ),
    "histogram": Call(
        lambda tf, x: [
            tf.histogram_fixed_width(x, tf.constant([-1.0, 1.0], x.dtype), nbins=6),
            tf.histogram_fixed_width_bins(x, tf.constant([-1.0, 1.0], x.dtype), nbins=6),
        ],
        [("n", (4, 5))],
        order=0,
        note="integer outputs only",
    ),
    "unique_with_counts": Call(
        lambda tf, i: list(tf.unique_with_counts(i)),
        [("i4", (9,))],
        order=0,
        note="integer outputs only",
    ),
}

# TF's small helpers: shape checks and shapes, saturating casts, monotonic tests, polyval.
HELPERS = {
    "ensure_shape": Call(
        lambda tf, x: tf.ensure_shape(x * x, [3, None]), [("n", (3, 4))], graph=True
    ),
    "shape_n_broadcast_args": Call(
        lambda tf, x, y: [
            *tf.shape_n([x, y], out_type=tf.int64),
            tf.broadcast_dynamic_shape(tf.shape(x), tf.shape(y)),
        ],
        [("n", (3, 1)), ("n", (4,))],
        order=0,
        graph=True,
        note="integer outputs only",
    ),
    "unravel_index": Call(
        lambda tf, i: tf.unravel_index(tf.reshape(i, [-1]) * 5, [4, 2, 3]),
        [("i4", (3, 2))],
        order=0,
        note="integer outputs only",
    ),
    "truncatemod": Call(
        lambda tf, x, y, i: [tf.truncatemod(x * 5.0, y), tf.truncatemod(i - 2, i * 0 + 3)],
        [("n", (3, 4)), ("a", (4,)), ("i4", (3, 4))],
        order=0,
        note="TF registers no gradient for TruncateMod",
    ),
    "realdiv": Call(lambda tf, x, y: tf.realdiv(x, y), [("n", (3, 4)), ("a", (4,))]),
    "saturate_cast": Call(
        lambda tf, x: [
            tf.saturate_cast(x * 200.0, tf.uint8),
            tf.cast(tf.saturate_cast(x * 4e4, tf.float16), x.dtype) * x,
        ],
        [("n", (3, 4))],
        order=1,
        dtypes=F32,
    ),
    "polyval_accumulate_n": Call(
        lambda tf, x, c: [
            tf.math.polyval([c[0], c[1], c[2] + 2.0, c[2]], x),
            tf.math.accumulate_n([x, x * c, tf.sin(x)]),
        ],
        [("n", (3, 3)), ("n", (3,))],
    ),
    "crelu_normalize_moments": Call(
        lambda tf, x, s: [
            tf.nn.crelu(x, axis=0),
            *tf.nn.normalize_moments(
                s[0] + 3.0, tf.reduce_sum(x, 0), tf.reduce_sum(x * x, 0), s[1]
            ),
        ],
        [("a", (3, 4)), ("p", (2,))],
    ),
    "sufficient_statistics": Call(
        lambda tf, x, s: list(tf.nn.sufficient_statistics(x, [0, 2], shift=s[0], keepdims=True)),
        [("n", (2, 3, 4)), ("n", (1,))],
    ),
    "monotonic": Call(
        lambda tf, x, i: [
            tf.math.is_non_decreasing(x),
            tf.math.is_strictly_increasing(tf.sort(tf.reshape(x, [-1]))),
            tf.math.is_non_decreasing(tf.sort(i, axis=1)),
            tf.math.is_strictly_increasing(i[:1]),
        ],
        [("d", (3, 4)), ("i4", (2, 3))],
        order=0,
        note="boolean outputs only",
    ),
}

CALLS: dict[str, Call] = {
    **UNARY,
    **BINARY,
    **REDUCE,
    **SHAPE,
    **SEGMENT,
    **LINALG,
    **NN,
    **COMPLEX,
    **RANDOM,
    **IMAGE,
    **CONTROL,
    **SCRIPT,
    **SIGNAL,
    **HELPERS,
}
