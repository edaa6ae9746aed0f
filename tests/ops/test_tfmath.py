"""tf.math elementwise, special and reducing functions against TensorFlow 2.21's numbers.

The literals below were recorded by running the same calls on TensorFlow 2.21 (float64):
each entry is ``(value, [gradient per input])`` of ``f`` for the inputs ``X``, ``U``, ``P``
with the loss ``sum(W · f(...))`` (or ``sum(f · [1, 2, ...])`` for other output shapes).
Special functions are also checked against Python's ``math`` module and known values, and
composite functions (built from existing ops) to second order with ``check_vjp``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.ops.math import specfun

nan, inf = np.nan, np.inf
X = np.array([[-1.7, -0.4, 0.3], [0.9, 1.6, 2.5]])
U = np.array([[-0.85, -0.3, 0.1], [0.45, 0.7, 0.95]])  # in (-1, 1)
P = np.array([[0.3, 0.8, 1.5], [2.2, 3.7, 6.1]])  # positive
W = np.array([[0.5, -1.0, 2.0], [1.5, -0.25, 0.75]])  # upstream weights

TF_VALUES_AND_GRADS = {
    "sinh": (
        [
            [-2.6456319338372323, -0.4107523258028155, 0.3045202934471426],
            [1.0265167257081753, 2.37556795320023, 6.0502044810397875],
        ],
        [
            [
                [1.4141577289449836, -1.081072371838455, 2.090677028257721],
                [2.149629578173162, -0.6443661177987213, 4.599217109747764],
            ]
        ],
    ),
    "cosh": (
        [
            [2.828315457889967, 1.081072371838455, 1.0453385141288605],
            [1.4330863854487745, 2.5774644711948853, 6.132289479663686],
        ],
        [
            [
                [-1.3228159669186161, 0.4107523258028155, 0.6090405868942852],
                [1.539775088562263, -0.5938919883000575, 4.53765336077984],
            ]
        ],
    ),
    "asin": (
        [
            [-1.015985293814825, -0.3046926540153975, 0.1001674211615598],
            [0.4667653390472964, 0.775397496610753, 1.253235897503375],
        ],
        [
            [
                [0.9491579957524988, -1.0482848367219182, 2.010075630518424],
                [1.679677532867563, -0.35007002100700246, 2.4019223070763065],
            ]
        ],
    ),
    "acos": (
        [
            [2.5867816206097216, 1.8754889808102941, 1.4706289056333368],
            [1.1040309877476002, 0.7953988301841436, 0.3175604292915215],
        ],
        [
            [
                [-0.9491579957524988, 1.0482848367219182, -2.010075630518424],
                [-1.679677532867563, 0.35007002100700246, -2.4019223070763065],
            ]
        ],
    ),
    "atan": (
        [
            [-1.0390722595360908, -0.3805063771123649, 0.2914567944778671],
            [0.7328151017865067, 1.0121970114513341, 1.1902899496825317],
        ],
        [
            [
                [0.12853470437017997, -0.8620689655172413, 1.8348623853211008],
                [0.8287292817679559, -0.07022471910112359, 0.10344827586206896],
            ]
        ],
    ),
    "asinh": (
        [
            [-1.3008204268406467, -0.39003531977071526, 0.29567304756342244],
            [0.8088669356527824, 1.2489833279048763, 1.6472311463710958],
        ],
        [
            [
                [0.25351006328169695, -0.9284766908852594, 1.9156525704423026],
                [1.1149412193707495, -0.132499735000795, 0.2785430072655778],
            ]
        ],
    ),
    "acosh": (
        [
            [0.7564329108569596, 1.1929107309930491, 1.566799236972411],
            [1.8309380069269214, 2.2291952476789585, 2.6482453267067454],
        ],
        [
            [
                [0.6019292654288461, -0.6681531047810609, 0.8728715609439696],
                [0.49346377121982676, -0.05443794453866777, 0.10669739994408],
            ]
        ],
    ),
    "atanh": (
        [
            [-1.2561528119880574, -0.3095196042031117, 0.10033534773107558],
            [0.48470027859405174, 0.8673005276940531, 1.8317808230648227],
        ],
        [
            [
                [1.8018018018018014, -1.0989010989010988, 2.0202020202020203],
                [1.8808777429467085, -0.49019607843137253, 7.69230769230769],
            ]
        ],
    ),
    "erfc": (
        [
            [1.9837904585907746, 1.4283923550466684, 0.6713732405408726],
            [0.20309178757716773, 0.023651616655355985, 0.00040695201744495903],
        ],
        [
            [
                [-0.0313555202484342, 0.9615412988393078, -2.062521819237926],
                [-0.7529528613605441, 0.021807264658486328, -0.0016337131727645325],
            ]
        ],
    ),
    "erfinv": (
        [
            [-1.0179024648320276, -0.27246271472675443, 0.08885599049425778],
            [0.4226802386475619, 0.7328690779592171, 1.385903824349678],
        ],
        [
            [
                [1.2488161339718766, -0.9545203588405493, 1.7865034506103747],
                [1.5893759495276079, -0.3790908043334412, 4.536995914788179],
            ]
        ],
    ),
    "lgamma": (
        [
            [0.9218446876946375, 1.31452458994339, 1.0957979948180756],
            [0.06637623973474296, -0.11259176569675577, 0.2846828704729192],
        ],
        [
            [
                [-0.7428587497555287, -0.9593807861068102, -7.005048444400266],
                [-1.1323904249205772, -0.03151186319336907, 0.5273674804839326],
            ]
        ],
    ),
    "digamma": (
        [
            [-1.4857174995110574, 0.9593807861068102, -3.502524222200133],
            [-0.7549269499470515, 0.1260474527734763, 0.7031566406452434],
        ],
        [
            [
                [7.316100816942008, -9.886209670902355, 24.490729092215467],
                [2.8838099392158063, -0.21460797328114492, 0.3677683170751762],
            ]
        ],
    ),
    "expm1": (
        [
            [-0.8173164759472653, -0.32967995396436073, 0.34985880757600313],
            [1.4596031111569499, 3.9530324243951154, 11.182493960703473],
        ],
        [
            [
                [0.09134176202636732, -0.6703200460356392, 2.6997176151520064],
                [3.6894046667354248, -1.2382581060987787, 9.136870470527604],
            ]
        ],
    ),
    "log_sigmoid": (
        [
            [-1.8677860293862658, -0.9130152523999526, -0.5543552444685271],
            [-0.34115387473208786, -0.1839007408883388, -0.07888973429254963],
        ],
        [
            [
                [0.4227673674582326, -0.598687660112452, 0.851114966376682],
                [0.433575746062494, -0.04199540371651887, 0.05689363501593267],
            ]
        ],
    ),
    "softsign": (
        [
            [-0.6296296296296295, -0.28571428571428575, 0.23076923076923075],
            [0.4736842105263158, 0.6153846153846154, 0.7142857142857143],
        ],
        [
            [
                [0.06858710562414265, -0.5102040816326532, 1.1834319526627217],
                [0.41551246537396125, -0.036982248520710054, 0.061224489795918366],
            ]
        ],
    ),
    "softplus": (
        [
            [0.1677860293862659, 0.5130152523999526, 0.8543552444685272],
            [1.2411538747320878, 1.7839007408883387, 2.5788897342925496],
        ],
        [
            [
                [0.07723263254176735, -0.401312339887548, 1.148885033623318],
                [1.066424253937506, -0.2080045962834811, 0.6931063649840673],
            ]
        ],
    ),
    "atan2": (
        [
            [-1.396124127786657, -0.4636476090008061, 0.19739555984988072],
            [0.388318718172466, 0.4081491037550893, 0.38895688017900704],
        ],
        [
            [
                [0.05033557046979867, -0.9999999999999999, 1.2820512820512822],
                [0.584070796460177, -0.05692307692307693, 0.10526921306948918],
            ],
            [
                [0.2852348993288591, -0.49999999999999994, -0.25641025641025644],
                [-0.23893805309734512, 0.02461538461538462, -0.04314312011044639],
            ],
        ],
    ),
    "xlogy": (
        [
            [2.0467537673540908, 0.08925742052568389, 0.12163953243244931],
            [0.7096116243278432, 2.0933325114402863, 4.520721927948164],
        ],
        [
            [
                [-0.601986402162968, 0.2231435513142097, 0.8109302162163288],
                [1.1826860405464052, -0.3270832049125447, 1.356216578384449],
            ],
            [
                [-2.8333333333333335, 0.5, 0.39999999999999997],
                [0.6136363636363635, -0.10810810810810811, 0.3073770491803279],
            ],
        ],
    ),
    "xdivy": (
        [
            [-5.666666666666667, -0.5, 0.19999999999999998],
            [0.40909090909090906, 0.43243243243243246, 0.4098360655737705],
        ],
        [
            [
                [1.6666666666666667, -1.25, 1.3333333333333333],
                [0.6818181818181818, -0.06756756756756756, 0.12295081967213116],
            ],
            [
                [9.444444444444445, -0.6249999999999999, -0.26666666666666666],
                [-0.2789256198347107, 0.029218407596785973, -0.05038968019349638],
            ],
        ],
    ),
    "xlog1py": (
        [
            [-0.4460192495947347, -0.23511466596084762, 0.27488721956224654],
            [1.0468357288251129, 2.476100013945621, 4.900236960118175],
        ],
        [
            [
                [0.1311821322337455, -0.5877866649021191, 1.8325814637483102],
                [1.7447262147085212, -0.38689062717900324, 1.4700710880354524],
            ],
            [
                [-0.6538461538461539, 0.22222222222222224, 0.24],
                [0.421875, -0.0851063829787234, 0.26408450704225356],
            ],
        ],
    ),
    "divide_no_nan": (
        [[-1.8888888888888888, -0.25, 0.12], [-0.5294117647058824, -4.0, 8.333333333333334]],
        [
            [[0.5555555555555556, -0.625, 0.8], [-0.8823529411764706, 0.625, 2.5]],
            [
                [1.0493827160493827, -0.15625, -0.096],
                [-0.4671280276816609, 2.5, -20.833333333333336],
            ],
        ],
    ),
    "multiply_no_nan": (
        [
            [-0.51, -0.32000000000000006, 0.44999999999999996],
            [1.9800000000000002, 5.920000000000001, 15.25],
        ],
        [
            [[0.15, -0.8, 3.0], [3.3000000000000003, -0.925, 4.574999999999999]],
            [[-0.85, 0.4, 0.6], [1.35, -0.4, 1.875]],
        ],
    ),
    "polygamma": (
        [
            [14.632201633884016, 21.28716846285654, 743.1417646550497],
            [1.9225399594772041, -0.7035722778841987, -0.3137559995067314],
        ],
        [
            None,
            [
                [-34.517274775057096, -281.7820410453458, -19766.93711099398],
                [-4.802695565692082, -0.2776861872623697, 0.4339268839253875],
            ],
        ],
    ),
    "zeta": (
        [
            [12.245364546107734, 2.215057854210818, 0.1831821481588764],
            [0.5729327609793345, 0.0005328312825169982, 2.8748805423395396e-09],
        ],
        [
            None,
            [
                [-37.636268294363006, 7.68544603524137, -1.0388205164878936],
                [-0.4809430605427883, 0.00019950009740174446, -3.750956626579519e-09],
            ],
        ],
    ),
    "reduce_logsumexp": (
        [0.7897575954486833, 2.975281040267448],
        [
            [
                [0.08293006676451029, 0.30429501762445904, 0.6127749156110307],
                [0.2510422920784432, 0.5055370953625592, 1.243420612558998],
            ]
        ],
    ),
    "reduce_logsumexp_all": (
        750.0,
        [
            [
                [0.0, 0.0, 6.962467782538801e-285],
                [1.0369789513765853e-206, 1.650483324522137e-115, 300.0],
            ]
        ],
    ),
    "reduce_variance": ([1.6900000000000002, 1.0, 1.21], [[[-1.3, -2.0, -3.3], [1.3, 2.0, 3.3]]]),
    "reduce_std": (
        [[0.8286535263104036], [0.6548960901462834]],
        [
            [
                [-0.44248489269002134, 0.08045179867091297, 0.3620330940191083],
                [-0.7804461177909076, -0.06786487980790494, 0.8483109975988125],
            ]
        ],
    ),
    "reduce_euclidean_norm": (
        [1.9235384061671343, 1.6492422502470645, 2.5179356624028344],
        [
            [
                [-0.8837879163470618, -0.4850712500726659, 0.3574356618552919],
                [0.46788772041903276, 1.9402850002906635, 2.978630515460766],
            ]
        ],
    ),
    "cumulative_logsumexp": (
        [
            [-1.7, -0.15899154616700778, 0.7897575954486833],
            [0.9, 2.003186048885458, 2.975281040267448],
        ],
        [
            [
                [0.45169511657157924, -0.17724494779364064, 1.2255498312220614],
                [1.5111878025714578, 0.0225294677189182, 0.46628272970962426],
            ]
        ],
    ),
    "cumulative_logsumexp_rev_excl": (
        [[0.9, 1.6, 2.5]],
        [[[0.0, 0.0, 0.0], [1.0, 2.0, 2.9999999999999996]]],
    ),
}

TF_VALUES = {
    "truncatediv": [-3, 3, 3, -3],
    "truncatediv_f": [-3.0, -3.0],
    "is_nan": [False, True, False, False],
    "is_inf": [False, False, True, True],
    "is_finite": [True, False, False, False],
    "xlogy_edge": [0.0, 0.0, 0.0, -inf, inf, nan, nan, 0.0],
    "xdivy_edge": [0.0, 0.0, 0.0, inf, 0.0, 0.5, nan, 0.0],
    "xlog1py_edge": [0.0, 0.0, 0.0, 0.0, inf, nan, nan, 0.0],
    "divide_no_nan_edge": [nan, 0.0, -0.0, 0.0, 0.0, 0.5, 0.0, 0.0],
    "multiply_no_nan_edge": [nan, 0.0, -0.0, 0.0, inf, 2.0, 0.0, nan],
    "lgamma_edge": [
        inf,
        inf,
        -0.05624371649767407,
        18.42068073818021,
        0.0,
        0.0,
        72.9534711841694,
        inf,
        inf,
    ],
    "digamma_edge": [
        nan,
        nan,
        1.1031566406452433,
        -100000000.57721566,
        -0.5772156649015323,
        0.42278433509846747,
        3.401243668961661,
        inf,
        nan,
    ],
    "erfc_edge": [
        2.0,
        1.9999999999984626,
        1.0,
        1.5374597944280347e-12,
        2.0884875837625443e-45,
        0.0,
        0.0,
        nan,
    ],
    "erfinv_edge": [-inf, inf, 0.0, 0.4769362762044699, -2.3267537655135246, nan, nan],
    "polygamma_edge": [inf, nan, nan, nan, 0.7031566406452434, 9.379246644989124, -0.0],
    "zeta_edge": [inf, nan, inf, nan, nan, 9.379246644989124, 0.0],
    "lgamma_f32": [
        [0.9218447804450989, 1.3145246505737305, 1.0957980155944824],
        [0.06637626141309738, -0.11259175837039948, 0.28468286991119385],
    ],
    "digamma_f32": [
        [-1.4857183694839478, 0.9593802690505981, -3.502523899078369],
        [-0.7549266815185547, 0.12604737281799316, 0.7031568288803101],
    ],
    "erfinv_f32": [
        [-1.0179026126861572, -0.27246272563934326, 0.08885600417852402],
        [0.4226802885532379, 0.732869029045105, 1.38590407371521],
    ],
    "erfc_f32": [
        [1.9837905168533325, 1.4283924102783203, 0.671373188495636],
        [0.2030918002128601, 0.023651612922549248, 0.00040695202187635005],
    ],
    "sinh_f32": [
        [-2.645632028579712, -0.4107523262500763, 0.30452030897140503],
        [1.0265166759490967, 2.37556791305542, 6.050204753875732],
    ],
}


CALLS: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "sinh": (tf.math.sinh, [X]),
    "cosh": (tf.math.cosh, [X]),
    "asin": (tf.math.asin, [U]),
    "acos": (tf.math.acos, [U]),
    "atan": (tf.math.atan, [X]),
    "asinh": (tf.math.asinh, [X]),
    "acosh": (tf.math.acosh, [P + 1.0]),
    "atanh": (tf.math.atanh, [U]),
    "erfc": (tf.math.erfc, [X]),
    "erfinv": (tf.math.erfinv, [U]),
    "lgamma": (tf.math.lgamma, [X]),
    "digamma": (tf.math.digamma, [X]),
    "expm1": (tf.math.expm1, [X]),
    "log_sigmoid": (tf.math.log_sigmoid, [X]),
    "softsign": (tf.math.softsign, [X]),
    "softplus": (tf.math.softplus, [X]),
    "atan2": (tf.math.atan2, [X, P]),
    "xlogy": (tf.math.xlogy, [X, P]),
    "xdivy": (tf.math.xdivy, [X, P]),
    "xlog1py": (tf.math.xlog1py, [X, P]),
    "divide_no_nan": (tf.math.divide_no_nan, [X, X[::-1]]),
    "multiply_no_nan": (tf.math.multiply_no_nan, [X, P]),
    "polygamma": (tf.math.polygamma, [np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 4.0]]), X]),
    "zeta": (tf.math.zeta, [np.array([[2.0, 3.0, 4.5], [2.0, 6.0, 11.0]]), P]),
    "reduce_logsumexp": (lambda x: tf.math.reduce_logsumexp(x, axis=1), [X]),
    "reduce_logsumexp_all": (lambda x: tf.math.reduce_logsumexp(x * 300.0), [X]),
    "reduce_variance": (lambda x: tf.math.reduce_variance(x, axis=0), [X]),
    "reduce_std": (lambda x: tf.math.reduce_std(x, axis=1, keepdims=True), [X]),
    "reduce_euclidean_norm": (lambda x: tf.math.reduce_euclidean_norm(x, axis=0), [X]),
    "cumulative_logsumexp": (lambda x: tf.math.cumulative_logsumexp(x, axis=1), [X]),
    "cumulative_logsumexp_rev_excl": (
        lambda x: tf.math.cumulative_logsumexp(x, axis=0, reverse=True, exclusive=True)[:1],
        [X],
    ),
}


def value_and_grads(f: Callable[..., Any], arrays: list[np.ndarray]) -> tuple[Any, list[Any]]:
    """f's value and the gradients of TF's recording loss, in float64."""
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
    grads = tape.gradient(loss, ts)
    return y.numpy(), [None if g is None else g.numpy() for g in grads]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_and_gradients_match_tensorflow(name: str) -> None:
    f, arrays = CALLS[name]
    value, grads = value_and_grads(f, arrays)
    want_value, want_grads = TF_VALUES_AND_GRADS[name]
    np.testing.assert_allclose(value, want_value, rtol=1e-12, atol=1e-300)
    for g, want in zip(grads, want_grads, strict=True):
        assert (g is None) == (want is None), name
        if want is not None:
            np.testing.assert_allclose(g, want, rtol=1e-11, atol=1e-14, err_msg=name)


@pytest.mark.parametrize("name", ["truncatediv", "truncatediv_f", "is_nan", "is_inf", "is_finite"])
def test_integer_and_predicate_values_match_tensorflow(name: str) -> None:
    calls = {
        "truncatediv": lambda: tf.truncatediv(
            tf.constant([-7, 7, -7, 7]), tf.constant([2, 2, -2, -2])
        ),
        "truncatediv_f": lambda: tf.truncatediv(tf.constant([-7.5, 7.5]), tf.constant([2.0, -2.0])),
        "is_nan": lambda: tf.math.is_nan(tf.constant([1.0, nan, inf, -inf])),
        "is_inf": lambda: tf.math.is_inf(tf.constant([1.0, nan, inf, -inf])),
        "is_finite": lambda: tf.math.is_finite(tf.constant([1.0, nan, inf, -inf])),
    }
    out = calls[name]()
    assert out.numpy().tolist() == TF_VALUES[name]


EDGE_X = np.array([0.0, 0.0, 0.0, 1.0, 2.0, -1.0, nan, 0.0])
EDGE_Y = np.array([nan, 0.0, -1.0, 0.0, inf, -2.0, 0.0, inf])
SPECIAL_POINTS = np.array([0.0, -1.0, -2.5, 1e-8, 1.0, 2.0, 30.5, inf, -inf])


@pytest.mark.parametrize(
    "name,call",
    [
        ("xlogy_edge", lambda: tf.math.xlogy(EDGE_X, EDGE_Y)),
        ("xdivy_edge", lambda: tf.math.xdivy(EDGE_X, EDGE_Y)),
        ("xlog1py_edge", lambda: tf.math.xlog1py(EDGE_X, EDGE_Y)),
        ("divide_no_nan_edge", lambda: tf.math.divide_no_nan(EDGE_X, EDGE_Y)),
        ("multiply_no_nan_edge", lambda: tf.math.multiply_no_nan(EDGE_X, EDGE_Y)),
        ("lgamma_edge", lambda: tf.math.lgamma(SPECIAL_POINTS)),
        ("digamma_edge", lambda: tf.math.digamma(SPECIAL_POINTS)),
        ("erfc_edge", lambda: tf.math.erfc(np.array([-inf, -5.0, 0.0, 5.0, 10.0, 27.0, inf, nan]))),
        ("erfinv_edge", lambda: tf.math.erfinv(np.array([-1.0, 1.0, 0.0, 0.5, -0.999, 1.5, nan]))),
        (
            "polygamma_edge",
            lambda: tf.math.polygamma(
                np.array([1.0, 2.0, 1.5, -1.0, 0.0, 1.0, 2.0]),
                np.array([0.0, 0.0, 1.0, 1.0, 2.5, -1.5, inf]),
            ),
        ),
        (
            "zeta_edge",
            lambda: tf.math.zeta(
                np.array([1.0, 0.5, 2.0, 3.0, 1.5, 2.0, 4.0]),
                np.array([2.0, 2.0, 0.0, -1.0, -0.5, -1.5, inf]),
            ),
        ),
    ],
)
def test_edge_values_match_tensorflow(name: str, call: Callable[[], Any]) -> None:
    """Zeros that absorb nan and inf, poles, infinities and domains, as TF's kernels."""
    out, want = call().numpy(), np.array(TF_VALUES[name])
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=0)
    zero = want == 0
    assert np.array_equal(np.signbit(out[zero]), np.signbit(want[zero])), "signs of zeros"


@pytest.mark.parametrize(
    "name,fn,arg",
    [
        ("lgamma_f32", tf.math.lgamma, X),
        ("digamma_f32", tf.math.digamma, X),
        ("erfinv_f32", tf.math.erfinv, U),
        ("erfc_f32", tf.math.erfc, X),
        ("sinh_f32", tf.math.sinh, X),
    ],
)
def test_float32_values_match_tensorflow(name: str, fn: Any, arg: np.ndarray) -> None:
    out = fn(arg.astype(np.float32))
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), TF_VALUES[name], rtol=2e-6, atol=1e-7)


# --------------------------------------------------------------------------------------
# The special functions' accuracy, without TF


def test_erfc_and_erf_match_pythons_math_to_1e_15() -> None:
    x = np.concatenate([np.linspace(-6, 6, 4001), np.linspace(6, 26, 201)])
    want = np.array([math.erfc(v) for v in x])
    np.testing.assert_allclose(specfun.erfc(x), want, rtol=1e-14, atol=0)
    np.testing.assert_allclose(specfun.erf(x), [math.erf(v) for v in x], rtol=1e-15, atol=0)


def test_lgamma_matches_pythons_math_to_1e_13() -> None:
    x = np.concatenate(
        [
            np.linspace(0.01, 40, 4001),
            np.geomspace(40, 1e300, 301),
            np.geomspace(1e-300, 1e-2, 301),
            -np.geomspace(1e-300, 0.4, 301),
        ]
    )
    want = np.array([math.lgamma(v) for v in x])
    # math.lgamma has only absolute accuracy near its zeros at 1 and 2; so does this
    # comparison there.
    np.testing.assert_allclose(specfun.lgamma(x), want, rtol=1e-13, atol=1e-15)
    neg = np.linspace(-9.95, -0.05, 100)  # between the poles
    np.testing.assert_allclose(
        specfun.lgamma(neg), [math.lgamma(v) for v in neg], rtol=1e-11, atol=1e-14
    )


def test_special_functions_at_known_values() -> None:
    euler = 0.57721566490153286061
    np.testing.assert_allclose(
        specfun.lgamma([0.5, 1.0, 2.0, 3.0, 11.0]),
        [0.5 * math.log(math.pi), 0, 0, math.log(2), math.log(3628800)],
        rtol=1e-14,
        atol=0,
    )
    # Exact zeros of lgamma are matched closely: lgamma(1 + e) = -γ e + O(e²).
    e = (1 + 1e-9) - 1  # the representable neighbour's distance from 1
    np.testing.assert_allclose(
        specfun.lgamma(1 + e), -euler * e + math.pi**2 / 12 * e * e, rtol=1e-15
    )
    np.testing.assert_allclose(
        specfun.digamma([1.0, 0.5, 2.0]), [-euler, -euler - 2 * math.log(2), 1 - euler], rtol=1e-15
    )
    np.testing.assert_allclose(
        specfun.polygamma([1.0, 1.0, 2.0, 3.0], [1.0, 0.5, 1.0, 1.0]),
        [math.pi**2 / 6, math.pi**2 / 2, -2 * 1.2020569031595942, math.pi**4 / 15],
        rtol=1e-14,
    )
    np.testing.assert_allclose(
        specfun.zeta([2.0, 4.0, 3.0], [1.0, 1.0, 2.0]),
        [math.pi**2 / 6, math.pi**4 / 90, 0.2020569031595942],
        rtol=1e-15,
    )
    y = np.concatenate([np.linspace(-0.999, 0.999, 2001), 1 - np.geomspace(1e-15, 1e-3, 50)])
    np.testing.assert_allclose(specfun.erf(specfun.erfinv(y)), y, rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(specfun.erfinv(math.erf(0.5)), 0.5, rtol=1e-15)


def test_digamma_is_the_derivative_of_lgamma() -> None:
    x = np.linspace(0.3, 12, 200)
    h = 1e-5
    numeric = (specfun.lgamma(x + h) - specfun.lgamma(x - h)) / (2 * h)
    np.testing.assert_allclose(specfun.digamma(x), numeric, rtol=1e-8, atol=1e-9)


# --------------------------------------------------------------------------------------
# Composite functions: second order against finite differences


@pytest.mark.parametrize(
    "name,fn,arrays",
    [
        (
            "reduce_logsumexp",
            lambda x: tf.math.reduce_logsumexp(x, [0, 2]),
            [np.random.default_rng(0).standard_normal((2, 3, 4))],
        ),
        (
            "reduce_logsumexp_keepdims",
            lambda x: tf.reduce_logsumexp(x, -1, keepdims=True),
            [np.random.default_rng(1).standard_normal((3, 4))],
        ),
        (
            "reduce_variance",
            lambda x: tf.math.reduce_variance(x, 1),
            [np.random.default_rng(2).standard_normal((3, 4))],
        ),
        (
            "reduce_std",
            lambda x: tf.math.reduce_std(x),
            [np.random.default_rng(3).standard_normal((2, 5))],
        ),
        ("log_sigmoid", tf.math.log_sigmoid, [np.random.default_rng(4).standard_normal((3, 4))]),
    ],
)
def test_composites_second_order(name: str, fn: Any, arrays: list[np.ndarray]) -> None:
    tf.test.check_vjp(fn, arrays, order=2, rng=0, name=name)


def test_reduce_logsumexp_does_not_overflow_and_handles_infinities() -> None:
    np.testing.assert_allclose(
        tf.math.reduce_logsumexp([1000.0, 1000.0]).numpy(), 1000 + math.log(2), rtol=1e-7
    )
    assert tf.math.reduce_logsumexp([-inf, -inf]).numpy() == -inf
    assert tf.math.reduce_logsumexp([inf, 1.0]).numpy() == inf
    assert tf.math.reduce_logsumexp(tf.ones([2, 3]), axis=0).shape.as_list() == [3]


def test_reduce_variance_of_complex_is_real_and_of_integers_an_error() -> None:
    v = tf.math.reduce_variance(tf.constant([1 + 1j, 2 - 1j]))
    assert v.dtype == tf.float64 and v.numpy() == 1.25
    with pytest.raises(TypeError, match="Input must be either real or complex"):
        tf.math.reduce_variance(tf.constant([1, 2]))
