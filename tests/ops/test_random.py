"""tf.random: TensorFlow 2.21's numbers for seeded programs, and TF's seed rules.

Each ``program(tf)`` below runs unchanged with ``tf`` = TensorFlow or symgrad.  LITERALS
holds what TensorFlow 2.21 returned for it on CPU (float32 to 9 significant digits and
float16 to 6, so each parses back to the exact value; long draws as a sha256 prefix of
their bytes), recorded by running the same function with ``import tensorflow as tf``
(``tf1_program`` in a process of its own, as it disables eager execution).  symgrad must
return them bit for bit, but for float64 normals: those go through NumPy's float64
``log``/``sin``/``cos``, whose last bit depends on the CPU (SIMD code on AVX-512, libm
elsewhere, and another algorithm in NumPy 1.x), so they are compared within 8 ulps
(measured: 1 ulp between AVX-512 and libm, 5 between NumPy 1.24 and 2.4; the long draws'
float64 values, with the digest of their bytes checked, are in
``data/stateless_big_f64.npz``).  float32 normals
are exact: ``philox`` redoes glibc's ``logf``/``sincosf`` with exact arithmetic.
"""

import ctypes
import ctypes.util
import hashlib
from pathlib import Path

import numpy as np
import pytest
from ulp import assert_ulp

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.op_registry import OPS
from symgrad.ops.random import philox


@pytest.fixture(autouse=True)
def _fresh_seeds():
    """Every test starts, and leaves, with no global seed and TF2's eager seed rules."""
    tf.random.set_seed(None)
    yield
    tf.compat.v1.enable_eager_execution()
    tf.random.set_seed(None)


# -------------------------------------------------------------------------------------
# Seeded programs and TensorFlow's numbers for them

SEEDS = [[1, 2], [0, 0], [-1, 7], [2**31 - 1, 123]]
LOGITS = [[0.0, 1.0, -1.0, 0.5], [2.0, 0.0, 0.0, -3.0], [-np.inf, 0.0, 1.5, -0.5]]


def stateless_float(tf):
    out = []
    for seed in SEEDS:
        for d in (tf.float32, tf.float64):
            out.append(tf.random.stateless_normal([2, 3], seed=seed, dtype=d))
            out.append(tf.random.stateless_uniform([5], seed=seed, dtype=d))
            out.append(tf.random.stateless_truncated_normal([3, 1, 2], seed=seed, dtype=d))
    return out


def stateless_scaled(tf):
    seed = tf.constant([7, -3], tf.int64)
    return [
        tf.random.stateless_normal([4], seed, mean=1.5, stddev=0.25),
        tf.random.stateless_uniform([4], seed, minval=-2.0, maxval=3.0),
        tf.random.stateless_truncated_normal([3], seed, 10.0, 3.0, dtype=tf.float64),
        tf.random.stateless_uniform([3], seed, minval=2, maxval=3.5, dtype=tf.float64),
        tf.random.stateless_normal([5], [4, 5], dtype=tf.float16),
        tf.random.stateless_uniform([5], [4, 5], dtype=tf.float16),
        tf.random.stateless_truncated_normal([5], [4, 5], dtype=tf.float16),
    ]


def stateless_int(tf):
    out = []
    for seed in SEEDS[:2]:
        out.append(tf.random.stateless_uniform([5], seed, minval=-5, maxval=1000, dtype=tf.int32))
        out.append(
            tf.random.stateless_uniform([3], seed, minval=-(2**40), maxval=2**50, dtype=tf.int64)
        )
        for d in (tf.int32, tf.int64, tf.uint32, tf.uint64):
            out.append(tf.random.stateless_uniform([3], seed, minval=None, maxval=None, dtype=d))
    return out


def stateless_other(tf):
    key, counter = (
        tf.raw_ops.StatelessRandomGetKeyCounter(seed=[1, 2])
        if hasattr(tf, "raw_ops")
        else tf.ops.random.stateless.get_key_counter([1, 2])
    )
    return [
        key,
        counter,
        tf.random.stateless_categorical(LOGITS, 6, seed=[1, 2]),
        tf.random.stateless_categorical(LOGITS, 3, seed=[3, 4], dtype=tf.int32),
        tf.random.split([1, 2], 3),
        tf.random.fold_in([1, 2], 3),
    ]


def stateless_big(tf):
    """Long draws, compared through a digest: every Box-Muller rounding and rejection."""
    return [
        tf.random.stateless_normal([4099], [11, 12]),
        tf.random.stateless_truncated_normal([4099], [11, 12]),
        tf.random.stateless_normal([2051], [11, 12], dtype=tf.float64),
        tf.random.stateless_truncated_normal([2051], [11, 12], dtype=tf.float64),
        tf.random.stateless_uniform([4099], [11, 12], minval=-7, maxval=99, dtype=tf.int32),
    ]


def eager_op_seed(tf):
    tf.random.set_seed(None)
    a = tf.random.normal([2, 3], seed=7)
    b = tf.random.normal([2, 3], seed=7)  # the same kernel, its counter moved on
    c = tf.random.uniform([2, 3], seed=7)
    d = tf.random.truncated_normal([2, 3], seed=7)
    e = tf.random.uniform([2, 3], 0, 10, dtype=tf.int32, seed=7)
    f = tf.random.categorical(LOGITS, 5, seed=7)
    g = tf.random.shuffle(tf.reshape(tf.range(12.0), [6, 2]), seed=7)
    h = tf.random.normal([3], dtype=tf.float64, seed=7)
    i = tf.random.normal([3], mean=2.0, stddev=0.5, dtype=tf.float16, seed=7)
    return [a, b, c, d, e, f, g, h, i]


def eager_global_seed(tf):
    tf.random.set_seed(1234)
    a1, a2 = tf.random.uniform([1]), tf.random.uniform([1])
    b1, b2 = tf.random.uniform([2], seed=1), tf.random.uniform([2], seed=1)
    tf.random.set_seed(1234)
    c1, c2 = tf.random.uniform([1]), tf.random.uniform([1])
    d1, d2 = tf.random.uniform([2], seed=1), tf.random.uniform([2], seed=1)
    e = tf.random.normal([3])
    f = tf.random.shuffle([1, 2, 3, 4, 5])
    g = tf.random.uniform([4], minval=-1, maxval=5, dtype=tf.int64)
    h = tf.random.uniform([3], minval=2.0, maxval=4.0)
    i = tf.random.uniform([3], maxval=4.0)
    return [a1, a2, b1, b2, c1, c2, d1, d2, e, f, g, h, i]


def function_seeds(tf):
    tf.random.set_seed(1234)

    @tf.function
    def f():
        return tf.random.uniform([1]), tf.random.uniform([1])

    @tf.function
    def g():
        return tf.random.uniform([1]), tf.random.uniform([1])

    @tf.function
    def foo():
        return tf.random.uniform([1], seed=1), tf.random.uniform([1], seed=1)

    return [*f(), *f(), *g(), *foo(), *foo()]


def session_graph_seed(tf):
    v1 = tf.compat.v1
    out = []
    with tf.Graph().as_default():
        v1.set_random_seed(1234)
        a = tf.random.uniform([2])
        b = tf.random.normal([2])
        c = tf.random.uniform([2], seed=5)
        with v1.Session() as sess:
            out += [sess.run(a), sess.run(a), sess.run(b), sess.run([b, c])[0], sess.run(c)]
        with v1.Session() as sess:
            out += [sess.run(a), sess.run(b)]
    with tf.Graph().as_default():
        x = tf.random.uniform([3], seed=1)
        y = tf.random.truncated_normal([2, 2], seed=2, dtype=tf.float64)
        with v1.Session() as sess:
            out += [sess.run(x), sess.run(y), sess.run(x)]
    return out


def tf1_program(tf):
    """A TF1 program: graph rules at top level (TF: eager execution disabled)."""
    v1 = tf.compat.v1
    v1.disable_eager_execution()
    v1.set_random_seed(42)
    x = v1.random_normal([3])
    y = v1.truncated_normal([2], stddev=0.1)
    z = v1.random_uniform([2], maxval=10, dtype=tf.int32, seed=3)
    s = v1.random_shuffle(tf.constant([1, 2, 3, 4]))
    m = v1.multinomial([[0.0, 0.5, 1.0]], 4)
    with v1.Session() as sess:
        return [sess.run(x), sess.run(x), *sess.run([y, z, s, m])]


def generator(tf):
    g = tf.random.Generator.from_seed(1234)
    out = [
        g.normal([3]),
        g.normal([2, 2]),
        g.uniform([3]),
        g.uniform([3], 0, 10, tf.int32),
        g.truncated_normal([3], dtype=tf.float64),
        g.uniform_full_int([2], tf.int64),
        g.uniform([2], -1.0, 1.0),
        g.state.read_value(),
    ]
    h = tf.random.Generator.from_seed([5, 6, 7], alg="philox")
    out += [h.normal([2]), h.make_seeds(2), h.split(2)[1].normal([2])]
    k = tf.random.Generator.from_state([1, 2, 3], alg=tf.random.Algorithm.PHILOX)
    out += [k.uniform([2], dtype=tf.float64)]
    k.reset_from_seed(99)
    out += [k.normal([2])]

    @tf.function
    def draw():
        return g.normal([2])

    out += [draw(), draw(), g.state.read_value()]
    return out


def categorical_big(tf):
    """50 rows: TF still runs them on one thread, reading the stream row after row."""
    logits = np.log(np.linspace(0.1, 1, 10))[None].repeat(50, 0)
    tf.random.set_seed(None)
    return [
        tf.random.categorical(logits, 10, seed=3),
        tf.random.stateless_categorical(logits.astype(np.float32), 10, [5, 6]),
    ]


LITERALS = {
    "stateless_float": [
        (
            "float32",
            [[0.544110119, 0.20738031, 0.0735643208], [0.0464345515, -1.30158985, -0.953856528]],
        ),
        ("float32", [0.844060421, 0.192045331, 0.996223211, 0.160387397, 0.27199018]),
        (
            "float32",
            [
                [[0.544110119, 0.20738031]],
                [[0.0735643208, 0.0464345515]],
                [[0.168205917, -1.68503332]],
            ],
        ),
        (
            "float64",
            [
                [-0.1423118100189212, 0.7406072461585091, -1.469047669443883],
                [1.147747453689489, -0.7218813856153005, -0.898217540706226],
            ],
        ),
        (
            "float64",
            [
                0.7524837538451801,
                0.9697857725627486,
                0.17592233912897481,
                0.8555556648693279,
                0.514811871731222,
            ],
        ),
        (
            "float64",
            [
                [[-0.1423118100189212, 0.7406072461585091]],
                [[-0.552387756244845, -0.734450092480207]],
                [[-0.39842023956588357, 0.1899654040344941]],
            ],
        ),
        (
            "float32",
            [[-1.697034, -0.481376708, -0.662236929], [0.0870111883, -1.00016224, 0.943474054]],
        ),
        ("float32", [0.211015463, 0.706009984, 0.800063372, 0.770792246, 0.388588667]),
        (
            "float32",
            [
                [[-1.697034, -0.481376708]],
                [[-0.662236929, 0.0870111883]],
                [[-0.265797943, 0.0904494599]],
            ],
        ),
        (
            "float64",
            [
                [0.5059786169247732, -0.7011114107383536, 0.4530945367782252],
                [-2.057390155938518, 0.3590167620594231, 0.5762227589642083],
            ],
        ),
        (
            "float64",
            [
                0.6881243022270687,
                0.4005076135896002,
                0.1087096778123815,
                0.4655003663095476,
                0.7941659363735021,
            ],
        ),
        (
            "float64",
            [
                [[0.5059786169247732, -0.7011114107383536]],
                [[1.4037223906742358, -0.4308960209073029]],
                [[-0.2831203320711482, -1.1634951781191016]],
            ],
        ),
        (
            "float32",
            [[-0.181675419, 0.0126294848, 1.49271441], [-0.105358578, 0.387586355, 0.572267413]],
        ),
        ("float32", [0.983554006, 0.761046171, 0.326394558, 0.261214852, 0.7875278]),
        (
            "float32",
            [
                [[-0.181675419, 0.0126294848]],
                [[1.49271441, -0.105358578]],
                [[-0.236150905, -0.284599572]],
            ],
        ),
        (
            "float64",
            [
                [-0.34154115703791693, -0.40679399299740476, -1.472837312616234],
                [0.48704369964841054, -0.6879419148963072, 0.7955280003738867],
            ],
        ),
        (
            "float64",
            [
                0.8684321171809848,
                0.6111571253486254,
                0.3002227267152582,
                0.8008283976566106,
                0.5751844892222864,
            ],
        ),
        (
            "float64",
            [
                [[-0.34154115703791693, -0.40679399299740476]],
                [[-0.050948141610258714, 0.2529095602640053]],
                [[0.8688247368861861, 0.8660056185379864]],
            ],
        ),
        (
            "float32",
            [[0.649045527, 0.0202992391, 0.131681025], [-0.135661349, -0.024886718, 1.36401737]],
        ),
        ("float32", [0.80990684, 0.245023966, 0.982286811, 0.377369404, 0.394324422]),
        (
            "float32",
            [
                [[0.649045527, 0.0202992391]],
                [[0.131681025, -0.135661349]],
                [[-1.35188472, -0.214020461]],
            ],
        ),
        (
            "float64",
            [
                [-0.9427586202180915, 0.7630539224893365, 1.229228383449738],
                [-1.4909329779181808, 0.4769720947545015, -0.24173333753886772],
            ],
        ),
        (
            "float64",
            [
                0.47925495774489635,
                0.8582948918964144,
                0.15459572709556024,
                0.3902651888575115,
                0.8667812049406365,
            ],
        ),
        (
            "float64",
            [
                [[-0.9427586202180915, 0.7630539224893365]],
                [[-1.111155736670306, -1.6137588506814204]],
                [[-1.9505258117931743, -0.44173213416541546]],
            ],
        ),
    ],
    "stateless_scaled": [
        ("float32", [1.6286844, 1.79596341, 1.65338814, 1.61327314]),
        ("float32", [0.173211098, -1.67362046, 1.73806477, -1.25617933]),
        ("float64", [9.563167665807814, 13.623296445918722, 9.134541863157038]),
        ("float64", [2.715706672701824, 3.471356159491737, 3.0774373914656667]),
        ("float16", [0.36377, -0.219849, -0.809082, 1.36133, -0.0733643]),
        ("float16", [0.166992, 0.823242, 0.607422, 0.651367, 0.477539]),
        ("float16", [0.36377, -0.219849, -0.809082, 1.36133, -1.49219]),
    ],
    "stateless_int": [
        ("int32", [710, 819, 829, 169, 137]),
        ("int64", [761898239527468, 848358784599102, 800191072620691]),
        ("int32", [1105988140, 1738052849, -335576002]),
        ("int64", [7464880146280614444, 1591045637757961278, -1057468755545501549]),
        ("uint32", [1105988140, 1738052849, 3959391294]),
        ("uint64", [7464880146280614444, 1591045637757961278, 17389275318164050067]),
        ("int32", [810, 409, 438, 358, 156]),
        ("int64", [617418319397518, 1050387098790010, 124176651369798]),
        ("int32", [-409271666, -1596301687, 1306945658]),
        ("int64", [-6856063536328932722, -6061095977527908230, 6624627857932008774]),
        ("uint32", [3885695630, 2698665609, 1306945658]),
        ("uint64", [11590680537380618894, 12385648096181643386, 6624627857932008774]),
    ],
    "stateless_other": [
        ("uint64", [10413732777507651514]),
        ("uint64", [0, 17830669156045600267]),
        ("int64", [[3, 3, 1, 3, 1, 1], [1, 0, 1, 1, 0, 0], [2, 2, 2, 2, 2, 2]]),
        ("int32", [[3, 3, 1], [1, 2, 0], [2, 1, 2]]),
        ("int32", [[1105988140, 1738052849], [-335576002, 370444179], [10670227, -246211131]]),
        ("int32", [1105988140, 3]),
    ],
    "stateless_big": [
        ("float32", "0ee5f1d3a75c60cdec22bf5135dba4d4"),
        ("float32", "c88d04fa0b5ec98172293625da1d90ce"),
        ("float64", "e4025fe4ccb75a00f3426c7009b62b06"),
        ("float64", "20c5d3af2f61128d41a54d8c5b4449cb"),
        ("int32", "aa9eb717d994d86c96eeb79335e8b9f0"),
    ],
    "eager_op_seed": [
        (
            "float32",
            [[-0.0469456837, -1.20390236, 1.16683519], [1.17062044, -0.320070237, -0.190351143]],
        ),
        (
            "float32",
            [[0.199576229, -1.29919732, -1.32489908], [0.287559897, 0.916410744, 0.2480499]],
        ),
        (
            "float32",
            [[0.483940959, 0.506203055, 0.255143762], [0.12474227, 0.933010101, 0.664609313]],
        ),
        (
            "float32",
            [[-0.0469456837, -1.20390236, 1.16683519], [1.17062044, 0.716626108, 0.571133494]],
        ),
        ("int32", [[7, 7, 5], [4, 0, 3]]),
        ("int64", [[3, 0, 1, 3, 0], [0, 0, 0, 0, 0], [1, 2, 1, 1, 2]]),
        ("float32", [[6.0, 7.0], [0.0, 1.0], [2.0, 3.0], [8.0, 9.0], [4.0, 5.0], [10.0, 11.0]]),
        ("float64", [0.1340862416655279, 0.5069857732211678, -1.0712938719508789]),
        ("float16", [1.97656, 1.39844, 2.58398]),
    ],
    "eager_global_seed": [
        ("float32", [0.538039327]),
        ("float32", [0.325364709]),
        ("float32", [0.168980598, 0.972548127]),
        ("float32", [0.424343109, 0.434039354]),
        ("float32", [0.538039327]),
        ("float32", [0.325364709]),
        ("float32", [0.168980598, 0.972548127]),
        ("float32", [0.424343109, 0.434039354]),
        ("float32", [0.958832264, -0.332580298, -0.0636182502]),
        ("int32", [2, 3, 1, 4, 5]),
        ("int64", [0, 0, 3, -1]),
        ("float32", [2.75619841, 3.92633867, 3.66906404]),
        ("float32", [2.70621634, 1.27384663, 2.81778002]),
    ],
    "function_seeds": [
        ("float32", [0.13047123]),
        ("float32", [0.168980598]),
        ("float32", [0.608781576]),
        ("float32", [0.753908396]),
        ("float32", [0.13047123]),
        ("float32", [0.168980598]),
        ("float32", [0.168980598]),
        ("float32", [0.168980598]),
        ("float32", [0.753908396]),
        ("float32", [0.753908396]),
    ],
    "session_graph_seed": [
        ("float32", [0.13047123, 0.976094604]),
        ("float32", [0.196485877, 0.339993]),
        ("float32", [-0.323648453, 1.85773909]),
        ("float32", [0.527253509, -1.19851136]),
        ("float32", [0.688547611, 0.0343925953]),
        ("float32", [0.13047123, 0.976094604]),
        ("float32", [-0.323648453, 1.85773909]),
        ("float32", [0.239037395, 0.920399547, 0.0505124331]),
        (
            "float64",
            [[-1.2973864969841682, 0.06965108479623461], [1.2432731970141813, -0.4640030649524804]],
        ),
        ("float32", [0.851476192, 0.28712368, 0.797627687]),
    ],
    "generator": [
        ("float32", [0.935660899, 1.0854305, -0.937883735]),
        ("float32", [[1.12642455, -1.03382921], [0.257107019, -0.108314611]]),
        ("float32", [0.864174128, 0.019374609, 0.101749778]),
        ("int32", [2, 0, 2]),
        ("float64", [-1.742017836466615, 0.20590496298632013, -0.34068471004423206]),
        ("int64", [-8011759062544157638, 5830123041989737674]),
        ("float32", [0.501450777, -0.655116558]),
        ("int64", [6354, 0, 0]),
        ("float32", [-1.28766584, 1.19902205]),
        ("int64", [[-9150458123948549339, 7351315766041230136], [0, 0]]),
        ("float32", [0.0349346139, 0.157142594]),
        ("float64", [0.6720942939322905, 0.7021863119903367]),
        ("float32", [-0.993451476, 1.43697369]),
        ("float32", [-0.0808353126, 0.350659549]),
        ("float32", [-1.51359034, 0.509008229]),
        ("int64", [7378, 0, 0]),
    ],
    "tf1_program": [
        ("float32", [-0.301015675, 0.518591642, -0.156939775]),
        ("float32", [0.13741596, 1.41080558, -0.881980538]),
        ("float32", [-0.149994701, -0.124204949]),
        ("int32", [0, 7]),
        ("int32", [3, 2, 1, 4]),
        ("int64", [[0, 2, 2, 0]]),
    ],
    "categorical_big": [
        ("int64", "6e8b2b2cdea7bae540d4057fea3fe671"),
        ("int64", "53c946ff735704bccc8b052001015313"),
    ],
}


def _literal(program, i):
    dtype, values = LITERALS[program][i]
    return np.asarray(values, dtype)


PROGRAMS = [
    stateless_float,
    stateless_scaled,
    stateless_int,
    stateless_other,
    stateless_big,
    categorical_big,
    eager_op_seed,
    eager_global_seed,
    function_seeds,
    session_graph_seed,
    tf1_program,
    generator,
]


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_program_draws_tensorflows_numbers(program):
    got = [np.asarray(r) for r in program(tf)]
    expected = LITERALS[program.__name__]
    assert len(got) == len(expected)
    for i, (value, (dtype, want)) in enumerate(zip(got, expected)):
        assert value.dtype == np.dtype(dtype), f"result {i}: dtype {value.dtype}, TF's {dtype}"
        if program.__name__.endswith("big"):
            want = _long_draw(i, dtype, want)
            if isinstance(want, str):
                assert hashlib.sha256(value.tobytes()).hexdigest()[:32] == want, f"result {i}"
                continue
        else:
            want = _literal(program.__name__, i)
        if value.dtype == np.float64:
            assert_ulp(value, want, ulps=8, err_msg=f"result {i}")
        else:
            np.testing.assert_array_equal(value, want, err_msg=f"result {i}")


BIG_F64 = Path(__file__).parent / "data" / "stateless_big_f64.npz"


def _long_draw(i, dtype, digest):
    """TF's values for long draw ``i``: its digest, or for a float64 draw the array
    recorded from TF (checked against the digest)."""
    if dtype != "float64":
        return digest
    with np.load(BIG_F64) as data:
        value = data[("normal", "truncated_normal")[i - 2]]
    assert hashlib.sha256(value.tobytes()).hexdigest()[:32] == digest, f"{BIG_F64} changed"
    return value


# -------------------------------------------------------------------------------------
# The generator itself


def test_philox_matches_random123_known_answers():
    """Philox-4x32-10's published test vectors (Random123's kat_vectors)."""
    cases = [
        ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        (
            (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
            (0xA4093822, 0x299F31D0),
            (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
        ),
    ]
    for c, k, want in cases:
        counter = c[0] | c[1] << 32 | c[2] << 64 | c[3] << 96
        assert philox.blocks(k[0] | k[1] << 32, counter, 1)[0].tolist() == list(want)


def test_counter_carries_across_its_128_bits():
    low_end = (1 << 64) - 1  # block 1 is counter 2**64: the carry reaches the high word
    both = philox.blocks(5, low_end, 2)
    assert both[1].tolist() == philox.blocks(5, 1 << 64, 1)[0].tolist()


def _libm_functions():
    """glibc's logf, sinf, cosf (what TF's kernels call on Linux), or skip."""
    libc, libm = ctypes.util.find_library("c"), ctypes.util.find_library("m")
    if not libc or not libm or not hasattr(ctypes.CDLL(libc), "gnu_get_libc_version"):
        pytest.skip("glibc's math library is not here to compare with")
    libm = ctypes.CDLL(libm)
    fns = []
    for name in ("logf", "sinf", "cosf"):
        f = getattr(libm, name)
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        fns.append(f)
    return fns


def test_float32_box_muller_functions_are_glibcs():
    """TF's float32 normals call the C library's logf and sincosf; symgrad's rewrite of
    glibc's algorithms must give the same float for every input Box-Muller can make
    (one in 64 of the 2**23 here; all of them were checked when it was written)."""
    logf, sinf, cosf = _libm_functions()
    words = np.arange(0, 1 << 23, 64, dtype=np.uint32)
    u = philox._f32(words)
    u1 = np.maximum(u, np.float32(1e-7))
    v1 = (2 * np.pi * u.astype(np.float64)).astype(np.float32)
    s, c = philox._sincosf(v1)
    np.testing.assert_array_equal(philox._logf(u1), [logf(float(x)) for x in u1])
    np.testing.assert_array_equal(s, [sinf(float(x)) for x in v1])
    np.testing.assert_array_equal(c, [cosf(float(x)) for x in v1])


# -------------------------------------------------------------------------------------
# Op records, graphs and gradients


def _types(fn):
    with tf.Graph().as_default() as g:
        fn()
    return [op.type for op in g.get_operations() if op.type != "Const"]


def test_op_types_are_tensorflows():
    """The op types TF 2.21 records in a graph for each call (Consts aside)."""
    seed, logits = [1, 2], [[0.0, 1.0]]
    assert _types(lambda: tf.random.normal([2])) == ["RandomStandardNormal", "Mul", "AddV2"]
    assert _types(lambda: tf.random.uniform([2])) == ["RandomUniform"]
    assert _types(lambda: tf.random.uniform([2], 0, 3.0)) == ["RandomUniform", "Mul"]
    assert _types(lambda: tf.random.uniform([2], 1.0, 3.0)) == [
        "RandomUniform",
        "Sub",
        "Mul",
        "AddV2",
    ]
    assert _types(lambda: tf.random.uniform([2], 0, 9, tf.int32)) == ["RandomUniformInt"]
    assert _types(lambda: tf.random.truncated_normal([2])) == ["TruncatedNormal", "Mul", "AddV2"]
    assert _types(lambda: tf.random.categorical(logits, 3)) == ["Multinomial"]
    assert _types(lambda: tf.random.shuffle([1, 2, 3])) == ["RandomShuffle"]
    key = "StatelessRandomGetKeyCounter"
    assert _types(lambda: tf.random.stateless_normal([2], seed)) == [
        key,
        "StatelessRandomNormalV2",
        "Mul",
        "AddV2",
    ]
    assert _types(lambda: tf.random.stateless_uniform([2], seed)) == [
        key,
        "StatelessRandomUniformV2",
        "Sub",
        "Mul",
        "AddV2",
    ]
    assert _types(lambda: tf.random.stateless_uniform([2], seed, 0, 5, tf.int32)) == [
        key,
        "StatelessRandomUniformIntV2",
    ]
    assert _types(lambda: tf.random.stateless_uniform([2], seed, None, None, tf.int32)) == [
        key,
        "StatelessRandomUniformFullIntV2",
    ]
    assert _types(lambda: tf.random.stateless_truncated_normal([2], seed)) == [
        key,
        "StatelessTruncatedNormalV2",
        "Mul",
        "AddV2",
    ]
    assert _types(lambda: tf.random.stateless_categorical(logits, 3, seed)) == [
        "StatelessMultinomial"
    ]


def test_seeded_ops_are_stateful_and_stateless_ones_pure():
    for t in (
        "RandomStandardNormal",
        "RandomUniform",
        "RandomUniformInt",
        "TruncatedNormal",
        "Multinomial",
        "RandomShuffle",
        "RngReadAndSkip",
    ):
        assert OPS[t].stateful, t
    for t in (
        "StatelessRandomGetKeyCounter",
        "StatelessRandomNormalV2",
        "StatelessRandomUniformV2",
        "StatelessRandomUniformIntV2",
        "StatelessRandomUniformFullIntV2",
        "StatelessTruncatedNormalV2",
        "StatelessMultinomial",
    ):
        assert OPS[t].pure and not OPS[t].stateful, t


def test_a_plan_neither_merges_nor_reruns_draws():
    with tf.Graph().as_default():
        a = tf.random.normal([2], seed=1)
        b = tf.random.normal([2], seed=1)  # same seeds, its own stream: not merged with a
        twice = a + a  # one draw feeds both uses
        with tf.compat.v1.Session() as sess:
            first = sess.run(a)
            second, b1, t = sess.run([a, b, twice])
    np.testing.assert_array_equal(b1, first)
    assert not np.array_equal(second, first)
    np.testing.assert_array_equal(t, second + second)


def test_gradients_flow_through_mean_and_stddev_not_the_draw():
    m, s = tf.constant(1.0), tf.constant(2.0)
    y = tf.random.normal([3], mean=m, stddev=s, seed=4)
    gm, gs = tf.gradients(tf.reduce_sum(y), [m, s])
    assert gm.numpy() == 3.0
    np.testing.assert_allclose(gs.numpy(), np.sum((y.numpy() - 1.0) / 2.0), rtol=1e-6)
    logits = tf.constant([[0.0, 1.0]])
    assert tf.gradients(tf.cast(tf.random.categorical(logits, 2), tf.float32), logits) == [None]
    x = tf.constant([1.0, 2.0, 3.0])
    assert tf.gradients(tf.random.shuffle(x, seed=1), x) == [None]
    assert tf.gradients(tf.random.stateless_normal([2], [1, 2], mean=m), m)[0].numpy() == 2.0


# -------------------------------------------------------------------------------------
# Seed rules beyond the recorded programs


def test_unseeded_draws_differ_and_follow_their_distributions():
    a, b = tf.random.normal([100_000]).numpy(), tf.random.normal([100_000]).numpy()
    assert not np.array_equal(a, b)
    assert abs(a.mean()) < 0.02 and abs(a.std() - 1) < 0.02
    t = tf.random.truncated_normal([100_000], dtype=tf.float64).numpy()
    assert np.abs(t).max() < 2 and abs(t.std() - 0.8796) < 0.01  # sd of N(0,1) cut at ±2
    u = tf.random.uniform([100_000], -3.0, 5.0).numpy()
    assert u.min() >= -3 and u.max() < 5 and abs(u.mean() - 1) < 0.05
    i = tf.random.uniform([10_000], -4, 7, tf.int64).numpy()
    assert i.dtype == np.int64 and set(np.unique(i)) == set(range(-4, 7))
    c = tf.random.categorical(np.log([[0.2, 0.8]]), 20_000).numpy()
    assert abs(c.mean() - 0.8) < 0.02


def test_set_seed_inside_a_graph_seeds_that_graph():
    with tf.Graph().as_default() as g:
        tf.random.set_seed(3)
        assert g.seed == 3 and tf.random.get_seed(None) == (3, 0)
        assert tf.random.get_seed(None) == (3, 1) and tf.random.get_seed(9) == (3, 9)
    assert tf.random.get_seed(None) == (None, None)
    assert tf.random.get_seed(5) == (87654321, 5)
    tf.random.set_seed(0)
    assert tf.random.get_seed(0) == (0, 2**31 - 1)  # never (0, 0): that means unseeded


def test_a_shape_known_only_when_run():
    with tf.Graph().as_default():
        s = tf.compat.v1.placeholder(tf.int32, [2])
        r = tf.random.normal(s, seed=3)
        seed = tf.compat.v1.placeholder(tf.int32, [2])
        q = tf.random.stateless_uniform([3], seed)
        assert r.shape.as_list() == [None, None]
        with tf.compat.v1.Session() as sess:
            assert sess.run(r, {s: [2, 3]}).shape == (2, 3)
            np.testing.assert_array_equal(
                sess.run(q, {seed: [1, 2]}), _literal("stateless_float", 1)[:3]
            )
    assert tf.random.normal([2, 5]).shape.as_list() == [2, 5]


def test_generator_in_a_session_draws_what_it_draws_eagerly():
    eager = tf.random.Generator.from_seed(1234)
    want = [eager.normal([3]).numpy(), eager.normal([3]).numpy()]
    with tf.Graph().as_default():
        g = tf.random.Generator.from_seed(1234)
        x = g.normal([3])
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            got = [sess.run(x), sess.run(x)]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want[0], _literal("generator", 0))
    assert g.state.dtype == tf.int64 and tf.random.create_rng_state(1234, "philox").tolist() == [
        1234,
        0,
        0,
    ]


def test_bad_arguments_raise_as_tensorflow():
    with pytest.raises(InvalidArgumentError, match="Need minval < maxval, got 5 >= 5"):
        tf.random.uniform([2], 5, 5, tf.int32)
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        tf.random.uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="must be both None or not None"):
        tf.random.stateless_uniform([2], [1, 2], minval=0, dtype=tf.int32)
    with pytest.raises(ValueError, match="seed must have shape \\[2\\]"):
        tf.random.stateless_normal([2], [1, 2, 3])
    with pytest.raises(ValueError, match="Philox algorithm only"):
        tf.random.stateless_normal([2], [1, 2], alg="threefry")
    with pytest.raises(TypeError, match="dtype must be one of"):
        tf.random.normal([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="Accepted dtypes are int32, int64"):
        tf.random.categorical([[0.0, 1.0]], 2, dtype=tf.float32)
    with pytest.raises(ValueError, match="must be >= 0"):
        tf.random.normal([2, -1])
    with pytest.raises(AttributeError, match="the TensorFlow API tf.random.stateless_binomial yet"):
        tf.random.stateless_binomial  # noqa: B018


def test_tf1_names():
    v1 = tf.compat.v1
    assert v1.random_normal is tf.random_normal is tf.random.normal
    assert v1.random_uniform is tf.random.uniform and v1.truncated_normal is tf.truncated_normal
    assert v1.random_shuffle is tf.random.shuffle and v1.multinomial is tf.random.multinomial
    assert v1.set_random_seed is v1.random.set_random_seed and v1.get_seed is tf.random.get_seed
    assert v1.random.stateless_multinomial is tf.random.stateless_multinomial
    assert tf.random.experimental.Generator is tf.random.Generator
