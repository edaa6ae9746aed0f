"""Op table: Sum, Mean, Max, Min, Prod, Any, All, ArgMax, ArgMin, Cumsum, Cumprod."""

import numpy as np
from optable import OpCase, fixed, parametrize, positive, randn, uniform

import symgrad as tf

I32, I64 = np.int32, np.int64
FLOAT_INT = (np.float32, np.float64, I32, I64)


def _distinct(*shape):
    """A permutation of distinct values (no ties, so Max/Min are differentiable)."""
    n = int(np.prod(shape))
    return lambda rng, d: (rng.permutation(n).reshape(shape) - n / 2).astype(d) * (
        1 if np.dtype(d).kind in "iu" else 0.37)


def _np_mean(x, axis=None, keepdims=False):
    if x.dtype.kind in "iu":  # TF: integer sum then division truncated toward zero
        s = np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
        n = x.size // max(s.size, 1)
        return (np.sign(s) * (np.abs(s) // n)).astype(x.dtype)
    return np.mean(x, axis=axis, keepdims=keepdims)


AXES = [  # (row name, axis, keepdims)
    ("all", None, False), ("int", 1, False), ("neg", -1, False), ("list", [0, 2], False),
    ("keepdims", [0, -1], True),
]


def _reduction_rows(op_type, fn, ref, gen, dtypes=FLOAT_INT, **kw):
    return [OpCase(op_type, lambda x, a=axis, k=keep: fn(x, axis=a, keepdims=k),
                   lambda x, a=axis, k=keep: ref(x, axis=None if a is None else tuple(
                       np.atleast_1d(a)), keepdims=k),
                   [gen], dtypes=dtypes, name=name, **kw)
            for name, axis, keep in AXES]


def _scan_ref(fn, identity):
    def ref(x, axis=0, exclusive=False, reverse=False):
        m = np.moveaxis(x, axis, 0)[::-1] if reverse else np.moveaxis(x, axis, 0)
        out = fn(m, axis=0)
        if exclusive:
            out = np.concatenate([np.full_like(out[:1], identity), out[:-1]])
        return np.moveaxis(out[::-1] if reverse else out, 0, axis)
    return ref


CASES = [
    *_reduction_rows("Sum", tf.reduce_sum, np.sum, uniform(-4, 4, 2, 3, 4)),
    *_reduction_rows("Mean", tf.reduce_mean, _np_mean, uniform(-9, 9, 2, 3, 4)),
    *_reduction_rows("Max", tf.reduce_max, np.max, _distinct(2, 3, 4)),
    *_reduction_rows("Min", tf.reduce_min, np.min, _distinct(2, 3, 4)),
    *_reduction_rows("Prod", tf.reduce_prod, np.prod, uniform(0.5, 1.5, 2, 3, 4)),
    OpCase("Prod", lambda x: tf.reduce_prod(x, [1]), lambda x: np.prod(x, 1),
           [uniform(-3, 3, 2, 3, 4)], dtypes=(I32,), grad=False, name="int"),
    OpCase("Prod", lambda x: tf.reduce_prod(x, 0), lambda x: np.prod(x, 0),
           [lambda rng, d: (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
                            ).astype(d)], dtypes=(np.complex64, np.complex128), name="complex"),
    OpCase("Any", lambda x: tf.reduce_any(x, 1), lambda x: np.any(x, 1),
           [fixed([[True, False, False], [False, False, False]])], dtypes=(np.bool_,),
           grad=False),
    OpCase("All", lambda x: tf.reduce_all(x, -1, keepdims=True),
           lambda x: np.all(x, -1, keepdims=True),
           [fixed([[True, True, False], [True, True, True]])], dtypes=(np.bool_,), grad=False),
    OpCase("ArgMax", lambda x: tf.argmax(x, 1), lambda x: np.argmax(x, 1),
           [_distinct(3, 4, 2)], dtypes=FLOAT_INT, grad=False),
    OpCase("ArgMax", lambda x: tf.argmax(x, output_type=tf.int32),
           lambda x: np.argmax(x, 0).astype(I32), [_distinct(4, 3)], grad=False,
           name="int32"),
    OpCase("ArgMin", lambda x: tf.argmin(x, -1), lambda x: np.argmin(x, -1),
           [_distinct(3, 4, 2)], dtypes=FLOAT_INT, grad=False),
    OpCase("Cumsum", lambda x: tf.cumsum(x, 1), lambda x: np.cumsum(x, 1),
           [uniform(-4, 4, 3, 4, 2)], dtypes=FLOAT_INT),
    OpCase("Cumsum", lambda x: tf.cumsum(x, -1, exclusive=True, reverse=True),
           lambda x: _scan_ref(np.cumsum, 0)(x, 2, True, True), [randn(3, 4, 2)],
           name="exclusive_reverse"),
    OpCase("Cumprod", lambda x: tf.cumprod(x, 0), lambda x: np.cumprod(x, 0),
           [positive(4, 3)]),
    OpCase("Cumprod", lambda x: tf.cumprod(x, 1, exclusive=True, reverse=True),
           lambda x: _scan_ref(np.cumprod, 1)(x, 1, True, True), [positive(3, 4)],
           name="exclusive_reverse"),
]

globals().update(parametrize(CASES))
