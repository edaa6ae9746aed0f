"""tf.math structural functions against TensorFlow 2.21's numbers: segment reductions,
top_k / sort / argsort, einsum / tensordot, norm, bincount; and the namespaces and errors.

The literals were recorded by running the same calls on TensorFlow 2.21 (float64): each
entry is ``(value, [gradient per input])`` for the loss ``sum(W · f(...))`` when ``f`` gives
a 2 x 3 result, else ``sum(f · [1, 2, ...])``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.op_registry import OPS

X = np.array([[-1.7, -0.4, 0.3], [0.9, 1.6, 2.5]])
P = np.array([[0.3, 0.8, 1.5], [2.2, 3.7, 6.1]])
W = np.array([[0.5, -1.0, 2.0], [1.5, -0.25, 0.75]])
D = np.array([[1.5, -2.0], [0.5, 4.0], [-3.0, 2.5], [2.0, 2.0], [0.25, -1.0]])
IDS = [0, 0, 1, 3, 3]  # sorted; segment 2 is empty
UIDS = [2, -1, 0, 2, 0]  # unsorted; -1 is dropped, segment 1 is empty

TF_VALUES_AND_GRADS = {
    "segment_sum": (
        [[2.0, 2.0], [-3.0, 2.5], [0.0, 0.0], [2.25, 1.0]],
        [[[1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [7.0, 8.0], [7.0, 8.0]]],
    ),
    "segment_mean": (
        [[1.0, 1.0], [-3.0, 2.5], [0.0, 0.0], [1.125, 0.5]],
        [[[0.5, 1.0], [0.5, 1.0], [3.0, 4.0], [3.5, 4.0], [3.5, 4.0]]],
    ),
    "segment_max": (
        [[1.5, 4.0], [-3.0, 2.5], [0.0, 0.0], [2.0, 2.0]],
        [[[1.0, 0.0], [0.0, 2.0], [3.0, 4.0], [7.0, 8.0], [0.0, 0.0]]],
    ),
    "segment_min": (
        [[0.5, -2.0], [-3.0, 2.5], [0.0, 0.0], [0.25, -1.0]],
        [[[0.0, 2.0], [1.0, 0.0], [3.0, 4.0], [0.0, 0.0], [7.0, 8.0]]],
    ),
    "segment_prod": (
        [[0.75, -8.0], [-3.0, 2.5], [1.0, 1.0], [0.5, -2.0]],
        [[[0.5, 8.0], [1.5, -4.0], [3.0, 4.0], [1.75, -8.0], [14.0, 16.0]]],
    ),
    "unsorted_segment_sum": (
        [[-2.75, 1.5], [0.0, 0.0], [3.5, 0.0]],
        [[[5.0, 6.0], [0.0, 0.0], [1.0, 2.0], [5.0, 6.0], [1.0, 2.0]]],
    ),
    "unsorted_segment_mean": (
        [[-1.375, 0.75], [0.0, 0.0], [1.75, 0.0]],
        [[[2.5, 3.0], [0.0, 0.0], [0.5, 1.0], [2.5, 3.0], [0.5, 1.0]]],
    ),
    "unsorted_segment_max": (
        [[0.25, 2.5], [-1.7976931348623157e308, -1.7976931348623157e308], [2.0, 2.0]],
        [[[0.0, 0.0], [0.0, 0.0], [0.0, 2.0], [5.0, 6.0], [1.0, 0.0]]],
    ),
    "unsorted_segment_min": (
        [[-3.0, -1.0], [1.7976931348623157e308, 1.7976931348623157e308], [1.5, -2.0]],
        [[[5.0, 6.0], [0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 2.0]]],
    ),
    "unsorted_segment_prod": (
        [[-0.75, -2.5], [1.0, 1.0], [3.0, -4.0]],
        [[[10.0, 12.0], [-0.0, -0.0], [0.25, -2.0], [7.5, -12.0], [-3.0, 5.0]]],
    ),
    "unsorted_segment_sqrt_n": (
        [[-1.9445436482630056, 1.0606601717798212], [0.0, 0.0], [2.4748737341529163, 0.0]],
        [
            [
                [3.5355339059327373, 4.242640687119285],
                [0.0, 0.0],
                [0.7071067811865475, 1.414213562373095],
                [3.5355339059327373, 4.242640687119285],
                [0.7071067811865475, 1.414213562373095],
            ]
        ],
    ),
    "top_k_values": ([[0.3, -0.4], [2.5, 1.6]], [[[1.0, 2.0, 0.0], [3.0, 4.0, 0.0]]]),
    "sort": ([[2.5, 1.6, 0.9], [0.3, -0.4, -1.7]], [[[1.5, -0.25, 0.75], [0.5, -1.0, 2.0]]]),
    "einsum": (
        [[-0.3800000000000001, -3.3900000000000006], [5.300000000000001, 23.150000000000002]],
        [
            [[4.7, 8.200000000000001, 13.7], [9.700000000000001, 17.200000000000003, 28.9]],
            [[1.0000000000000002, 4.4, 7.8], [0.20000000000000018, 5.6000000000000005, 10.6]],
        ],
    ),
    "einsum_trace": (1.7142857142857142, [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]]),
    "einsum_ellipsis": (
        [
            [[0.7600000000000001, 3.18], [2.3200000000000003, 10.379999999999999]],
            [[3.8800000000000003, 17.58], [5.44, 24.78]],
        ],
        [
            [
                [[4.7, 8.200000000000001, 13.7], [9.700000000000001, 17.200000000000003, 28.9]],
                [
                    [14.700000000000001, 26.200000000000003, 44.099999999999994],
                    [19.700000000000003, 35.2, 59.3],
                ],
            ],
            [[20.400000000000002, 24.0], [23.6, 28.0], [26.8, 32.0]],
        ],
    ),
    "tensordot": (
        [[-0.3800000000000001, -3.3900000000000006], [5.300000000000001, 23.150000000000002]],
        [
            [[4.7, 8.200000000000001, 13.7], [9.700000000000001, 17.200000000000003, 28.9]],
            [[1.0000000000000002, 4.4, 7.8], [0.20000000000000018, 5.6000000000000005, 10.6]],
        ],
    ),
    "norm": (
        3.57211421989835,
        [
            [
                [-0.4759086343124762, -0.11197850219117088, 0.08398387664337816],
                [0.2519516299301345, 0.4479140087646835, 0.6998656386948179],
            ]
        ],
    ),
    "norm_1": ([2.4, 5.0], [[[-1.0, -1.0, 1.0], [2.0, 2.0, 2.0]]]),
    "norm_inf": (2.5, [[[-0.0, -0.0, 0.0], [0.0, 0.0, 1.0]]]),
    "norm_fro": (
        3.57211421989835,
        [
            [
                [-0.4759086343124762, -0.11197850219117088, 0.08398387664337816],
                [0.2519516299301345, 0.4479140087646835, 0.6998656386948179],
            ]
        ],
    ),
    "norm_m1": (2.8, [[[-0.0, -0.0, 1.0], [0.0, 0.0, 1.0]]]),
    "norm_minf": (2.8, [[[-0.0, -0.0, 1.0], [0.0, 0.0, 1.0]]]),
    "norm_p3": (
        [[1.780236470708932, 1.6082903034356233, 2.501439171355346]],
        [
            [
                [-0.9118900036066666, -0.12371463872581714, 0.043150305153714756],
                [0.2555816273084429, 1.9794342196130743, 2.996548969007969],
            ]
        ],
    ),
}

TF_VALUES = {
    "top_k_indices": [[0, 1], [0, 1]],
    "argsort": [[1, 3, 0, 2], [3, 0, 1, 2]],
    "argsort_desc": [[0, 2, 3, 1], [1, 2, 0, 3]],
    "bincount": [1, 2, 0, 1, 0, 1],
    "bincount_w": [0.0, 1.5, 0.0, 2.0, 0.0],
    "bincount_rows": [[0, 2, 0], [1, 0, 0]],
    "bincount_binary": [1, 1, 0, 1],
}


def _seg(f: Any) -> Any:
    return lambda d: f(d, IDS)


def _useg(f: Any) -> Any:
    return lambda d: f(d, UIDS, 3)


CALLS: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    **{
        name: (_seg(getattr(tf.math, name)), [D])
        for name in ("segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod")
    },
    **{
        name: (_useg(getattr(tf.math, name)), [D])
        for name in (
            "unsorted_segment_sum",
            "unsorted_segment_mean",
            "unsorted_segment_max",
            "unsorted_segment_min",
            "unsorted_segment_prod",
            "unsorted_segment_sqrt_n",
        )
    },
    "top_k_values": (lambda x: tf.math.top_k(x, 2).values, [X[:, ::-1]]),
    "sort": (lambda x: tf.sort(x, axis=0, direction="DESCENDING"), [X[:, ::-1]]),
    "einsum": (lambda a, b: tf.einsum("ij,kj->ik", a, b), [X, P]),
    "einsum_trace": (lambda a: tf.einsum("ii->", a), [np.arange(9.0).reshape(3, 3) / 7]),
    "einsum_ellipsis": (
        lambda a, b: tf.einsum("...ij,jk->...ik", a, b),
        [np.arange(12.0).reshape(2, 2, 3) / 5, P.T],
    ),
    "tensordot": (lambda a, b: tf.tensordot(a, b, [[1], [1]]), [X, P]),
    "norm": (lambda x: tf.norm(x), [X]),
    "norm_1": (lambda x: tf.norm(x, ord=1, axis=1), [X]),
    "norm_inf": (lambda x: tf.norm(x, ord=np.inf), [X]),
    "norm_fro": (lambda x: tf.norm(x, ord="fro", axis=[0, 1]), [X]),
    "norm_m1": (lambda x: tf.norm(x, ord=1, axis=[0, 1]), [X]),
    "norm_minf": (lambda x: tf.norm(x, ord=np.inf, axis=[1, 0]), [X]),
    "norm_p3": (lambda x: tf.norm(x, ord=3, axis=0, keepdims=True), [X]),
}


def value_and_grads(f: Callable[..., Any], arrays: list[np.ndarray]) -> tuple[Any, list[Any]]:
    ts = [tf.constant(a, tf.float64) for a in arrays]
    with tf.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        y = f(*ts)
        if y.shape.as_list() == [2, 3]:
            loss = tf.reduce_sum(tf.constant(W) * y)
        else:
            n = int(np.prod(y.shape.as_list()))
            loss = tf.reduce_sum(y * np.arange(1.0, n + 1).reshape(y.shape.as_list()))
    return y.numpy(), [g.numpy() for g in tape.gradient(loss, ts)]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_and_gradients_match_tensorflow(name: str) -> None:
    f, arrays = CALLS[name]
    value, grads = value_and_grads(f, arrays)
    want_value, want_grads = TF_VALUES_AND_GRADS[name]
    np.testing.assert_allclose(value, want_value, rtol=1e-13, atol=0, err_msg=name)
    for g, want in zip(grads, want_grads, strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-13, atol=1e-15, err_msg=name)


def test_index_and_count_results_match_tensorflow() -> None:
    m = tf.constant([[3.0, 1.0, 3.0, 2.0], [0.0, 5.0, 5.0, -1.0]])
    results = {
        "top_k_indices": tf.math.top_k(X[:, ::-1], 2).indices,
        "argsort": tf.argsort(m),
        "argsort_desc": tf.argsort(m, direction="DESCENDING"),
        "bincount": tf.math.bincount([1, 1, 3, 0, 5]),
        "bincount_w": tf.math.bincount(
            [1, 1, 3], weights=tf.constant([0.5, 1.0, 2.0]), minlength=5
        ),
        "bincount_rows": tf.math.bincount([[1, 1], [3, 0]], axis=-1, maxlength=3),
        "bincount_binary": tf.math.bincount([[1, 1], [3, 0]], binary_output=True),
    }
    for name, out in results.items():
        assert out.numpy().tolist() == TF_VALUES[name], name
    assert results["argsort"].dtype == tf.int32 and results["bincount"].dtype == tf.int32
    assert results["bincount_w"].dtype == tf.float32


def test_top_k_result_and_sort_of_integers_as_tensorflow() -> None:
    r = tf.math.top_k([[3.0, 1.0, 3.0, 2.0], [0.0, 5.0, 5.0, -1.0]], k=3)
    assert r.values.numpy().tolist() == [[3.0, 3.0, 2.0], [5.0, 5.0, 0.0]]
    assert r.indices.numpy().tolist() == [[0, 2, 3], [1, 2, 0]]  # ties: lower index first
    values, indices = tf.nn.top_k([1, 3, 2], 2, index_type=tf.int64)
    assert values.numpy().tolist() == [3, 2] and indices.dtype == tf.int64
    assert tf.sort([[3, 1, 2], [2, -2147483648, 0]]).numpy().tolist() == [
        [1, 2, 3],
        [-2147483648, 0, 2],
    ]
    assert tf.sort(tf.constant([3, 1, 2], tf.uint8)).numpy().tolist() == [1, 2, 3]
    s = tf.sort([3.0, np.nan, 1.0]).numpy()
    assert s[:2].tolist() == [1.0, 3.0] and np.isnan(s[2])  # NaN last, as TF


def test_segment_results_and_shapes_as_tensorflow() -> None:
    d = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, -8.0]])
    assert (
        tf.math.unsorted_segment_max(d, [3, -1, 0, 3], 5).numpy()[1].tolist()
        == [np.finfo(np.float32).min] * 2
    )  # an empty segment: the dtype's lowest value
    assert tf.math.unsorted_segment_min([1, 2], [0, 0], 2).numpy().tolist() == [
        1,
        np.iinfo(np.int32).max,
    ]
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [4, 2])
        assert tf.math.segment_sum(p, tf.placeholder(tf.int32, [4])).shape.as_list() == [None, 2]
        assert tf.math.unsorted_segment_max(p, [0, 0, 2, 2], 3).shape.as_list() == [3, 2]


@pytest.mark.parametrize(
    "name,fn,arrays",
    [
        (
            "tensordot",
            lambda a, b: tf.tensordot(a, b, [[1, 2], [1, 0]]),
            [
                np.random.default_rng(0).standard_normal((2, 3, 4)),
                np.random.default_rng(1).standard_normal((4, 3, 5)),
            ],
        ),
        (
            "tensordot_outer",
            lambda a, b: tf.tensordot(a, b, 0),
            [
                np.random.default_rng(2).standard_normal((2, 3)),
                np.random.default_rng(3).standard_normal(4),
            ],
        ),
        ("norm", lambda x: tf.norm(x), [np.random.default_rng(4).standard_normal((3, 4))]),
        ("norm_p3", lambda x: tf.norm(x, 3, 0), [np.random.default_rng(5).standard_normal((3, 4))]),
        (
            "norm_matrix_1",
            lambda x: tf.norm(x, 1, (1, 2)),
            [np.random.default_rng(6).standard_normal((2, 3, 4))],
        ),
        (
            "norm_matrix_inf",
            lambda x: tf.norm(x, np.inf, [1, 0], keepdims=True),
            [np.random.default_rng(7).standard_normal((3, 4))],
        ),
        (
            "unsorted_segment_mean",
            lambda d: tf.math.unsorted_segment_mean(d, [1, 0, 1, -1, 2], 3),
            [np.random.default_rng(8).standard_normal((5, 2))],
        ),
        (
            "unsorted_segment_sqrt_n",
            lambda d: tf.math.unsorted_segment_sqrt_n(d, [[0, 1], [1, 1]], 2),
            [np.random.default_rng(9).standard_normal((2, 2, 3))],
        ),
        (
            "sort_axis0",
            lambda x: tf.sort(x, axis=0),
            [np.random.default_rng(10).standard_normal((4, 3))],
        ),
    ],
)
def test_composites_second_order(name: str, fn: Any, arrays: list[np.ndarray]) -> None:
    tf.test.check_vjp(fn, arrays, order=2, rng=0, name=name)


def test_norm_results_as_numpy() -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    for ord_, axis in [
        ("euclidean", None),
        (1, 2),
        (np.inf, -1),
        (0.5, 1),
        ("fro", (1, 2)),
        (1, (2, 0)),
        (np.inf, (0, 1)),
    ]:
        got = tf.norm(x, ord=ord_, axis=axis).numpy()
        want = (
            np.linalg.norm(
                x.ravel() if axis is None else x, "fro" if ord_ == "euclidean" else ord_, axis
            )
            if axis is not None or ord_ != "euclidean"
            else np.linalg.norm(x.ravel())
        )
        np.testing.assert_allclose(got, want, rtol=1e-13, err_msg=f"{ord_} {axis}")


# --------------------------------------------------------------------------------------
# Namespaces: the names TensorFlow exports, where it exports them

MATH_NAMES = """sinh cosh asin acos atan atan2 asinh acosh atanh erfc erfinv lgamma digamma xlogy
    xdivy xlog1py log_sigmoid softsign softplus expm1 is_nan is_inf is_finite reduce_logsumexp
    reduce_euclidean_norm reduce_std reduce_variance cumulative_logsumexp top_k segment_sum
    segment_mean segment_max segment_min segment_prod unsorted_segment_sum unsorted_segment_mean
    unsorted_segment_max unsorted_segment_min unsorted_segment_prod unsorted_segment_sqrt_n
    bincount divide_no_nan multiply_no_nan polygamma zeta abs add add_n angle argmax argmin conj
    cos cumprod cumsum divide equal erf exp floordiv floormod greater greater_equal imag
    invert_permutation less less_equal log log1p log_softmax logical_and logical_not
    logical_or logical_xor maximum minimum mod multiply negative not_equal pow real reciprocal
    reduce_all reduce_any reduce_max reduce_mean reduce_min reduce_prod reduce_sum rsqrt
    sigmoid sign sin softmax sqrt square squared_difference subtract tan tanh truediv""".split()
TOP_NAMES = """sinh cosh asin acos atan atan2 asinh acosh atanh reduce_logsumexp sort argsort einsum
    tensordot norm truncatediv""".split()
V1_ONLY = """erfc lgamma digamma log_sigmoid expm1 is_nan is_inf is_finite segment_sum segment_mean
    segment_max segment_min segment_prod unsorted_segment_mean unsorted_segment_max
    unsorted_segment_min unsorted_segment_prod unsorted_segment_sqrt_n bincount polygamma
    zeta""".split()
NOT_TOP = """erfinv xlogy xdivy xlog1py reduce_euclidean_norm reduce_std reduce_variance
    cumulative_logsumexp top_k divide_no_nan multiply_no_nan softsign""".split()


# Names whose TF1 signature differs (keep_dims, dim, ...): compat.v1 has its own function
# with TF1's signature (conformance/test_signatures.py compares both with TF's).
TF1_SIGNATURES = """reduce_all reduce_any reduce_max reduce_mean reduce_min reduce_prod reduce_sum
    reduce_logsumexp argmax argmin bincount count_nonzero in_top_k log_softmax softmax
    norm""".split()


def test_names_live_where_tensorflow_exports_them() -> None:
    for name in MATH_NAMES:
        assert callable(getattr(tf.math, name)), f"tf.math.{name}"
        if name not in TF1_SIGNATURES:
            assert getattr(tf.compat.v1.math, name) is getattr(tf.math, name)
    for name in TOP_NAMES:
        assert callable(getattr(tf, name)), f"tf.{name}"
        if name not in TF1_SIGNATURES:
            assert getattr(tf.compat.v1, name) is getattr(tf, name)
    for name in V1_ONLY + NOT_TOP:
        assert not hasattr(tf, name), f"TF 2 has no tf.{name}"
    for name in V1_ONLY:
        if name not in TF1_SIGNATURES:
            assert getattr(tf.compat.v1, name) is getattr(tf.math, name), f"tf.compat.v1.{name}"
    assert tf.nn.softsign is tf.math.softsign and tf.nn.top_k is tf.math.top_k
    assert tf.nn.softplus is tf.math.softplus
    for name in ("sort", "argsort", "einsum", "tensordot", "norm", "truncatediv"):
        assert not hasattr(tf.math, name), f"TF 2 has no tf.math.{name}"
    assert sorted(tf.math.__all__) == sorted(set(tf.math.__all__))
    assert all(callable(getattr(tf.math, name)) for name in tf.math.__all__)


# --------------------------------------------------------------------------------------
# Errors: TF's types, naming the op or argument


def test_bad_arguments_raise_tensorflows_errors() -> None:
    with pytest.raises(
        ValueError,
        match="Argument `direction` should be one of ASCENDING, DESCENDING. Received: direction=UP",
    ):
        tf.sort([1.0, 2.0], direction="UP")
    with pytest.raises(ValueError, match="Output subscripts contain the label z not present"):
        tf.einsum("ij,jk->iz", tf.ones([2, 3]), tf.ones([3, 4]))
    with pytest.raises(ValueError, match="Output subscripts contain a label appearing more"):
        tf.einsum("ij->ii", tf.ones([2, 3]))
    with pytest.raises(
        ValueError,
        match=r"Einsum.*Expected dimension 2 at axis 0 of the input "
        r"shaped \(3,\) but got dimension 3",
    ):
        tf.einsum("i,i->", tf.ones([2]), tf.ones([3]))
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got fro"):
        tf.norm(tf.ones([2, 3]), ord="fro")
    with pytest.raises(
        ValueError,
        match=r"'ord' must be a supported matrix norm in "
        r"\['euclidean', 'fro', 1, 2, inf\], got nuc",
    ):
        tf.norm(tf.ones([2, 3]), ord="nuc", axis=[0, 1])
    with pytest.raises(
        ValueError, match="TopKV2.*input must have last dimension >= k = 5 but is 4"
    ):
        tf.math.top_k(tf.ones([2, 4]), 5)
    with pytest.raises(ValueError, match="TopKV2.*Need k >= 0, got -1"):
        tf.math.top_k(tf.ones([2, 4]), -1)
    with pytest.raises(TypeError, match="Lgamma.*input 'x' has dtype int32, expected one of"):
        tf.math.lgamma(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="Atan2.*input 'y' has dtype float64 that does not match"):
        tf.math.atan2(tf.constant([1.0]), tf.constant([1.0], tf.float64))
    with pytest.raises(ValueError, match="Arguments `binary_output` and `weights` are mutually"):
        tf.math.bincount([1, 2], weights=tf.constant([1.0, 2.0]), binary_output=True)
    with pytest.raises(
        ValueError, match="SegmentSum.*segment_ids should be the same size as dimension 0 of input"
    ):
        tf.math.segment_sum(tf.ones([4, 2]), [0, 0, 1])


def test_bad_values_fail_at_run_time_as_tensorflow() -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids are not increasing"):
        tf.math.segment_sum(tf.ones([4, 2]), [0, 1, 0, 2])
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"Segment id -1 out of range "
        r"\[0, 2\)",
    ):
        tf.math.segment_sum(tf.ones([4, 2]), [-1, 0, 0, 1])
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"segment_ids\[1\] = 5 is out of range \[0, 3\)"
    ):
        tf.math.unsorted_segment_max(tf.ones([4, 2]), [0, 5, 0, 1], 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input arr must be non-negative!"):
        tf.math.bincount([1, -1, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        tf.truncatediv(tf.constant([1]), tf.constant([0]))
    with tf.Graph().as_default():
        k = tf.placeholder(tf.int32, [])
        top = tf.math.top_k(tf.ones([2, 4]), k)
        assert top.values.shape.as_list() == [2, None]
        with (
            tf.Session() as sess,
            pytest.raises(
                tf.errors.InvalidArgumentError,
                match="input must have at least k columns. Had 4, needed 5",
            ),
        ):
            sess.run(top.values, {k: 5})


# tf.norm(x, ord=2, axis=<two axes>): the largest singular value, through TF's Svd op.
Y = np.arange(24.0).reshape(2, 3, 4) % 7 - 3.0
TF_MATRIX_TWO_NORM = {
    "X [0, 1]": (
        3.1492083530402644,
        [
            [-0.0800589712156499, -0.10731268795612256, -0.1553246068485221],
            [0.3821131959606845, 0.5121923694421631, 0.7413482965494761],
        ],
    ),
    "Y [2, 0]": (
        [5.551274973048259, 4.888163981908541, 4.888163981908541],
        [
            [
                [
                    -0.27020819672644203,
                    -0.30504258093914705,
                    0.1847189239585277,
                    0.14988453974582278,
                ],
                [0.4767875519636115, 0.7793595751905499, 1.0819315984174882, -1.3432548915224982],
                [-0.4504003067470477, 0.3627772561127491, 0.2613232931050101, 0.15986933009727128],
            ],
            [
                [0.5048886339335773, 0.5699772762180877, -0.34515046659935356, -0.2800618243148433],
                [
                    -0.10657955339818073,
                    -0.1742155287366733,
                    -0.24185150407516584,
                    0.30026687116469813,
                ],
                [2.0148823372837477, -1.6228973976262324, -1.1690393627858247, -0.7151813279454174],
            ],
        ],
    ),
}


@pytest.mark.parametrize("name,x,axis", [("X [0, 1]", X, [0, 1]), ("Y [2, 0]", Y, [2, 0])])
def test_matrix_two_norm_is_the_largest_singular_value(
    name: str, x: np.ndarray, axis: list[int]
) -> None:
    """The Svd op type comes with tf.linalg; without it the call says what is missing."""
    if "Svd" not in OPS:
        with pytest.raises(NotImplementedError, match=r"tf.linalg.svd \(op type Svd\)"):
            tf.norm(x, ord=2, axis=axis)
        return
    value, (grad,) = value_and_grads(lambda t: tf.norm(t, ord=2, axis=axis), [x])
    want_value, want_grad = TF_MATRIX_TWO_NORM[name]
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-9, atol=1e-12)
