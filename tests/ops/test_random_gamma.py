"""tf.random.gamma / poisson and their stateless forms: TensorFlow 2.21's numbers.

Each ``program(tf)`` runs unchanged with ``tf`` = TensorFlow or symgrad; LITERALS holds
what TensorFlow 2.21 returned on CPU (``python tests/ops/test_random_gamma.py`` with
TensorFlow installed prints them again).  Long draws are compared through a sha256 prefix
of their bytes.  float32, float16 and integer results must match bit for bit.  float64
results go through NumPy's float64 log/sin/cos (Box-Muller, the rejection test), whose last
bit depends on the CPU (see tests/ops/test_random.py), so they are compared within 8 ulps,
and long float64 draws through the digest of their float32 rounding.
"""

from __future__ import annotations

import hashlib
import math
import sys

import numpy as np
import pytest
from ulp import assert_ulp

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError
from symgrad.ops.random import draws


@pytest.fixture(autouse=True)
def _fresh_seeds():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def digest(t, as32=False):
    a = np.ascontiguousarray(np.asarray(t))
    if as32:
        a = a.astype(np.float32)
    return hashlib.sha256(a.tobytes()).hexdigest()[:16]


def gamma_draws(tf):
    out = {}
    for d in (tf.float32, tf.float64, tf.float16):
        tf.random.set_seed(None)
        out["gamma_" + d.name] = tf.random.gamma([4], [0.5, 1.0, 3.0, 0.01], dtype=d, seed=7)
        out["sgamma_" + d.name] = tf.random.stateless_gamma(
            [3, 2], [3, 4], [0.2, 4.5], beta=[[2.0], [0.5], [1.0]], dtype=d
        )
    alpha, beta = [[1.5], [0.25]], [1.0, 3.0]
    g1 = tf.random.gamma([2], alpha, beta=beta, seed=11)
    g2 = tf.random.gamma([2], alpha, beta=beta, seed=11)  # the kernel's stream moved on
    out["gamma_again"] = [g1, g2]
    return out


def big_draws(tf):
    return {
        "gamma_big": digest(
            tf.random.gamma([2000], [0.3, 1.0, 2.5, 10.0], dtype=tf.float64, seed=9), True
        ),
        "gamma_big32": digest(tf.random.gamma([3000], [0.05, 0.9, 7.0], seed=5)),
        "sgamma_big": digest(
            tf.random.stateless_gamma([1000, 3], [-1, 12], [0.6, 1.0, 30.0], dtype=tf.float64),
            True,
        ),
        "pois_big": digest(
            tf.random.poisson([2000], [0.5, 3.0, 9.9, 10.0, 37.5, 1000.0], dtype=tf.float64, seed=9)
        ),
        "spois_big": digest(
            tf.random.stateless_poisson([1500, 4], [9, 9], [0.1, 4.0, 15.0, 300.0], dtype=tf.int64)
        ),
    }


def poisson_draws(tf):
    out = {}
    for d in (tf.float32, tf.float64, tf.int32, tf.int64, tf.float16):
        tf.random.set_seed(None)
        out["pois_" + d.name] = tf.random.poisson([4], [0.5, 3.0, 12.0, 100.0], dtype=d, seed=7)
    rate = tf.constant([[2.5], [40.0]], tf.float64)
    out["pois_rate64"] = tf.random.poisson([3], rate, dtype=tf.int64, seed=3)
    out["spois"] = tf.random.stateless_poisson([2, 3], [7, 8], [1.0, 10.0, 55.5], dtype=tf.float32)
    return out


def gamma_gradients(tf):
    out = {}
    a = tf.Variable([0.5, 1.0, 3.0], dtype=tf.float64)
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(tf.square(tf.random.gamma([3], a, beta=2.0, dtype=tf.float64, seed=3)))
    out["grad_gamma"] = t.gradient(loss, a)
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(
            tf.square(tf.random.stateless_gamma([4, 3], [4, 5], a, dtype=tf.float64))
        )
    out["grad_sgamma"] = t.gradient(loss, a)
    a32 = tf.Variable([[0.3], [2.0]])
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(tf.random.gamma([5], a32, beta=[1.0, 4.0], seed=2))
    out["grad_gamma32"] = t.gradient(loss, a32)
    return out


LITERALS = {
    "gamma_float32": [
        [0.3886207342147827, 0.034579407423734665, 4.792065143585205, 5.122295032577995e-09],
        [0.7023012638092041, 0.350243479013443, 0.9618527293205261, 1.1754943508222875e-38],
        [3.4078569412231445, 0.21228496730327606, 2.3587746620178223, 9.437558512459532e-10],
        [0.035984285175800323, 0.668033242225647, 0.6126623153686523, 1.5061407691174953e-24],
    ],
    "sgamma_float32": [
        [0.00011307254317216575, 1.6669576168060303],
        [1.084612250328064, 3.9163434505462646],
        [0.4278545379638672, 5.584521770477295],
    ],
    "gamma_float64": [
        [0.3886207341830441, 0.03457940915932359, 4.792065273392996, 5.122297288123102e-09],
        [0.7023012783389178, 0.35024347055925187, 0.9618527294044781, 4.131530741486574e-105],
        [3.4078570326273114, 0.21228497268176222, 2.358774675330651, 9.43756271230682e-10],
        [0.035984284583523506, 0.6680332592891524, 0.6126623203437368, 1.506142649514454e-24],
    ],
    "sgamma_float64": [
        [0.00011307252653743462, 1.6669576691295938],
        [1.0846122668317633, 3.916343519772427],
        [0.42785450631324795, 5.584521701164096],
    ],
    "gamma_float16": [
        [0.388671875, 0.034576416015625, 4.79296875, 6.103515625e-05],
        [0.7021484375, 0.350341796875, 0.9619140625, 6.103515625e-05],
        [3.408203125, 0.2122802734375, 2.359375, 6.103515625e-05],
        [0.035980224609375, 0.66796875, 0.61279296875, 6.103515625e-05],
    ],
    "sgamma_float16": [
        [0.00011283159255981445, 1.6669921875],
        [1.083984375, 3.916015625],
        [0.427490234375, 5.5859375],
    ],
    "gamma_again": [
        [
            [
                [2.2514097690582275, 0.7607457041740417],
                [1.2261640591759715e-08, 0.0018785271095111966],
            ],
            [[4.243194580078125, 0.3091175854206085], [0.01134191919118166, 0.01173081248998642]],
        ],
        [
            [[0.023237233981490135, 0.43834736943244934], [1.4325592517852783, 0.2037089318037033]],
            [
                [1.1863194704055786, 0.20539997518062592],
                [0.7842200994491577, 1.1574697964533698e-06],
            ],
        ],
    ],
    "pois_float32": [[0, 0, 17, 114], [0, 6, 12, 87], [1, 3, 11, 94], [0, 4, 12, 130]],
    "pois_float64": [[0, 0, 17, 114], [0, 6, 12, 87], [1, 3, 11, 94], [0, 4, 12, 130]],
    "pois_int32": [[0, 0, 17, 114], [0, 6, 12, 87], [1, 3, 11, 94], [0, 4, 12, 130]],
    "pois_int64": [[0, 0, 17, 114], [0, 6, 12, 87], [1, 3, 11, 94], [0, 4, 12, 130]],
    "pois_float16": [[0, 0, 17, 114], [0, 6, 12, 87], [1, 3, 11, 94], [0, 4, 12, 130]],
    "pois_rate64": [[[1], [50]], [[2], [58]], [[1], [43]]],
    "spois": [[0.0, 11.0, 54.0], [0.0, 14.0, 52.0]],
    "grad_gamma": [0.006277587029002673, 6.27587337168411, 2.7057218787259445],
    "grad_sgamma": [13.738938697985905, 4.7825638357194125, 27.254415922904187],
    "grad_gamma32": [[6.279845237731934], [5.532400131225586]],
}
BIG = {
    "gamma_big": "1b3a27c1119ab9ce",
    "gamma_big32": "508bd946aa7090b4",
    "sgamma_big": "455911b94e7680ba",
    "pois_big": "ab3912f763bb1f97",
    "spois_big": "1d10138cd3190b98",
}
DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16}


def _check(name, got):
    want = LITERALS[name]
    got = np.asarray(got)
    if got.dtype == np.float64 and not name.startswith("pois"):
        assert_ulp(got, np.asarray(want), 8)
    else:
        np.testing.assert_array_equal(got, np.asarray(want, got.dtype), err_msg=name)


@pytest.mark.parametrize("program", [gamma_draws, poisson_draws])
def test_draws_are_tfs(program):
    for name, value in program(tf).items():
        if isinstance(value, list):
            value = np.stack([np.asarray(v) for v in value])
        _check(name, value)


def test_dtypes_and_shapes():
    g = tf.random.gamma([2, 3], [[1.0], [2.0]], beta=[1.0, 2.0, 3.0, 4.0], dtype=tf.float16, seed=1)
    assert g.dtype == tf.float16 and g.shape == (2, 3, 2, 4)
    p = tf.random.poisson([5], tf.constant([1, 20], tf.int64), dtype=tf.int32, seed=1)
    assert p.dtype == tf.int32 and p.shape == (5, 2)


def test_long_draws_are_tfs():
    assert big_draws(tf) == BIG


def test_gradients_are_tfs():
    got = gamma_gradients(tf)
    assert_ulp(np.asarray(got["grad_gamma"]), np.asarray(LITERALS["grad_gamma"]), 64)
    assert_ulp(np.asarray(got["grad_sgamma"]), np.asarray(LITERALS["grad_sgamma"]), 64)
    np.testing.assert_allclose(got["grad_gamma32"], LITERALS["grad_gamma32"], rtol=1e-5)


# RandomGammaGrad(alpha, x), TF 2.21's float64 and float32 values.
ALPHA = [0.3, 0.5, 1.0, 2.5, 10.0, 0.01, 50.0, 3.0, 0.7, 5.0]
SAMPLE = [0.05, 2.0, 1.5, 0.8, 12.0, 1e-30, 47.0, 100.0, 0.9, 4.0]
GRAD64 = [0.4947109870041312, 2.5118893763620784, 1.4309374423012804, 0.5705559190649232,
          1.112329443018088, 6.851666733195268e-27, 0.972618367320597, 3.767072025466052,
          1.413834479998406, 0.9227261342680146]  # fmt: skip
GRAD32 = [0.4947109818458557, 2.511890172958374, 1.4309391975402832, 0.5705558657646179,
          1.1123294830322266, 6.851667570108631e-27, 0.9726191759109497, 3.7670719623565674,
          1.413834810256958, 0.922726035118103]  # fmt: skip


def _regularized_lower(a, x, terms=400):
    """P(a, x) = x^a e^-x sum_k x^k / Gamma(a + k + 1): a reference for the CDF."""
    return sum(math.exp(a * math.log(x) - x + k * math.log(x) - math.lgamma(a + k + 1))
               for k in range(terms))  # fmt: skip


def test_random_gamma_grad_kernel():
    """Eigen's algorithm, in float64 TF's bits (within 8 ulps: log/digamma) and in
    float32 within 2e-6 (TF runs the loop and its logs in float32, digamma as Eigen's
    float32 series; symgrad's logs are NumPy's and its digamma float64, rounded)."""
    a, x = np.array(ALPHA), np.array(SAMPLE)
    assert_ulp(draws.gamma_sample_der_alpha(a, x), np.array(GRAD64), 8)
    got32 = draws.gamma_sample_der_alpha(a.astype(np.float32), x.astype(np.float32))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, GRAD32, rtol=2e-6)
    edge = draws.gamma_sample_der_alpha(
        np.array([1.0, -1.0, np.nan, 2.0]), np.array([0, 1, 1, np.inf])
    )
    np.testing.assert_array_equal(edge, [0.0, np.nan, np.nan, 0.0])


def test_random_gamma_grad_is_the_cdf_implicit_derivative():
    """d sample / d alpha = -(dP/da) / (dP/dx), P from an independent series, by central
    differences in alpha."""
    for a, x in [(0.5, 0.3), (2.5, 0.8), (3.0, 5.0), (0.7, 0.9), (10.0, 12.0)]:
        h = 1e-5 * a
        dp_da = (_regularized_lower(a + h, x) - _regularized_lower(a - h, x)) / (2 * h)
        density = math.exp((a - 1) * math.log(x) - x - math.lgamma(a))
        want = -dp_da / density
        got = float(draws.gamma_sample_der_alpha(np.array(a), np.array(x)))
        assert got == pytest.approx(want, rel=1e-6)


def test_gamma_gradient_matches_random_gamma_grad():
    alpha = tf.constant([0.4, 2.0], tf.float64)
    with tf.GradientTape() as t:
        t.watch(alpha)
        g = tf.random.gamma([3], alpha, dtype=tf.float64, seed=4)
    grad = t.gradient(g, alpha)
    want = draws.gamma_sample_der_alpha(np.asarray(alpha)[None], np.asarray(g)).sum(0)
    np.testing.assert_array_equal(grad, want)


def test_poisson_and_gamma_statistics():
    """Means and variances of long draws are the distributions' (all algorithm branches)."""
    g = np.asarray(tf.random.stateless_gamma([20000, 4], [1, 1], [0.3, 1.0, 4.0, 25.0]))
    np.testing.assert_allclose(g.mean(0), [0.3, 1.0, 4.0, 25.0], rtol=0.03)
    np.testing.assert_allclose(g.var(0), [0.3, 1.0, 4.0, 25.0], rtol=0.06)
    p = np.asarray(tf.random.stateless_poisson([20000, 3], [2, 2], [2.0, 9.5, 60.0]))
    np.testing.assert_allclose(p.mean(0), [2.0, 9.5, 60.0], rtol=0.03)
    np.testing.assert_allclose(p.var(0), [2.0, 9.5, 60.0], rtol=0.06)


def test_errors():
    with pytest.raises(InvalidArgumentError, match="Shape passed in must end with broadcasted"):
        tf.random.stateless_gamma([3, 2], [1, 2], [1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match="Shape passed in must end with broadcasted"):
        tf.random.stateless_poisson([3, 2], [1, 2], [1.0, 2.0, 3.0])
    assert tf.random.gamma([3], tf.zeros([0]), seed=1).shape == (3, 0)  # TF: no error


def test_degenerate_parameters_are_tfs():
    """NaN and negative alpha give NaN (TF's loop accepts a NaN v), alpha 0 the dtype's
    smallest normal; rates at or below 0 give 0 (TF 2.21's values)."""
    g = tf.random.gamma([3], [float("nan"), 0.0, -1.0, 1e-3], seed=3).numpy()
    tiny = np.finfo(np.float32).tiny
    np.testing.assert_array_equal(g, np.tile([np.nan, tiny, np.nan, tiny], (3, 1)))
    p = tf.random.poisson([3], [-1.0, 0.0, 1e-4], seed=3).numpy()
    np.testing.assert_array_equal(p, np.zeros((3, 3)))


def test_graph_session_streams():
    """In a graph, each Session run continues the op's stream, as TF's."""
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(5)
        g = tf.random.gamma([2], [0.5, 2.0])
        with tf.compat.v1.Session() as s:
            a, b = s.run(g), s.run(g)
    assert a.shape == (2, 2) and not np.array_equal(a, b)


if __name__ == "__main__":  # print TF's values again
    import tensorflow

    for prog in (gamma_draws, poisson_draws, gamma_gradients):
        for k, v in prog(tensorflow).items():
            v = (
                [np.asarray(x).tolist() for x in v]
                if isinstance(v, list)
                else np.asarray(v).tolist()
            )
            print(k, "=", v)
    print(big_draws(tensorflow))
    sys.exit(0)
