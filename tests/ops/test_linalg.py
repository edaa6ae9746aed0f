"""``tf.linalg`` against TensorFlow: values and gradients recorded as literals from TF 2.21.

Each program below runs unchanged on TensorFlow (which gave ``TF_NUMBERS``) and on symgrad.
Singular vectors and eigenvectors are defined up to sign (a phase, for complex inputs), and
NumPy's LAPACK and TF's Eigen choose differently, so programs compare what does not depend
on the choice (``u vᴴ``, ``|v|²``, projectors onto eigenspaces).  Also here: the op types TF
records, TF's errors for bad arguments, degenerate spectra, and the batching rules of the
linalg records (one vectorised run equals the loop over examples).

``TF_NUMBERS`` was written by executing the programs block (between its markers) with
``tf`` = TensorFlow 2.21 and printing each result as an ``np.array`` literal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ops import test_batching_rules as batching_tests

import symgrad as tf
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.op_registry import OPS

# ---- programs (begin): plain NumPy and the `tf` argument only, so TF can run them too

A = np.array([[4.0, 1.0, 0.5], [1.2, 3.0, -0.7], [0.3, -0.4, 2.5]])
A2 = np.stack([A, [[2.0, -1.0, 0.3], [0.5, 1.5, 0.2], [-0.3, 0.8, 3.0]]])
C = A + 1j * np.array([[0.5, -0.3, 0.2], [0.1, 0.4, -0.6], [-0.2, 0.3, 0.1]])
S = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.2], [0.5, -0.2, 2.0]])
SC = S + 1j * np.array([[0.0, 0.3, -0.2], [-0.3, 0.0, 0.1], [0.2, -0.1, 0.0]])
S2 = np.stack([S, [[2.0, 0.3, -0.1], [0.3, 1.5, 0.4], [-0.1, 0.4, 1.0]]])
B = np.array([[[1.0, 2.0], [-1.0, 0.5], [0.3, -2.0]], [[0.2, -0.4], [1.1, 0.7], [-0.6, 0.9]]])
M = np.array([[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0], [0.7, -1.2, 1.0], [2.0, 0.1, -0.4]])
R = np.array([[1.0, -2.0], [0.5, 0.4], [-0.3, 1.1], [2.0, 0.6]])
MC = M + 1j * np.array([[0.3, -0.2, 0.1], [0.0, 0.5, -0.4], [0.2, 0.1, 0.3], [-0.5, 0.2, 0.0]])
X = np.arange(24.0).reshape(2, 3, 4) / 7 - 1.5  # rank 2: for structure, not spectra
XF = np.cos(1.3 * np.arange(24.0)).reshape(2, 3, 4) + np.eye(3, 4)  # full rank
DEGENERATE = np.array([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
ROTATION = np.array([[0.6, -0.8, 0.0], [0.8, 0.6, 0.0], [0.0, 0.0, 1.0]])


def _real(tf: Any, x: Any) -> Any:
    return tf.math.real(x) if hasattr(tf, "math") else tf.real(x)


def _conj(tf: Any, x: Any) -> Any:
    return tf.math.conj(x) if hasattr(tf, "math") else tf.conj(x)


def _weighted(tf: Any, y: Any) -> Any:
    """Σ w·y with fixed weights w (complex ones, and the real part, for complex y)."""
    n = int(np.prod(tuple(y.shape)))
    w = np.cos(np.arange(1.0, n + 1)).reshape(tuple(y.shape))
    if y.dtype.is_complex:
        w = w + 1j * np.sin(np.arange(1.0, n + 1)).reshape(tuple(y.shape))
        return _real(tf, tf.reduce_sum(y * tf.constant(w, y.dtype)))
    return tf.reduce_sum(y * tf.constant(w, y.dtype))


def value_and_grad(tf: Any, f: Any, *args: Any) -> list[Any]:
    """f's outputs, then the gradients of Σ_k weighted(y_k) for each float argument."""
    xs = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        ys = f(*xs)
        ys = list(ys) if isinstance(ys, list | tuple) else [ys]
        loss = tf.add_n([_weighted(tf, y) for y in ys])
    return [y.numpy() for y in ys] + [g.numpy() for g in tape.gradient(loss, xs)]


def _svd_inv(tf: Any, **kw: Any) -> Any:
    def f(x: Any) -> Any:
        s, u, v = tf.linalg.svd(x, **kw)
        return s, tf.matmul(u[..., :, : s.shape[-1]], v[..., :, : s.shape[-1]], adjoint_b=True)

    return f


def _eigh_inv(tf: Any, x: Any) -> Any:
    e, v = tf.linalg.eigh(x)
    return _real(tf, e), _real(tf, v * _conj(tf, v))


def _projector(tf: Any, v: Any) -> Any:
    """The projector onto the span of the first two columns (any basis of it)."""
    return tf.matmul(v[:, :2], v[:, :2], adjoint_b=True)


def _degenerate_eigh(tf: Any, x: Any) -> Any:
    e, v = tf.linalg.eigh(x)
    return tf.reduce_sum(e), _projector(tf, v)


def _degenerate_svd(tf: Any, x: Any) -> Any:
    s, u, v = tf.linalg.svd(x)
    return tf.reduce_sum(s), _projector(tf, u), _projector(tf, v)


PROGRAMS: dict[str, Any] = {
    "inv": lambda tf: value_and_grad(tf, tf.linalg.inv, A2),
    "inv_adjoint": lambda tf: value_and_grad(tf, lambda x: tf.linalg.inv(x, adjoint=True), A),
    "inv_complex": lambda tf: value_and_grad(tf, tf.linalg.inv, C),
    "inv_float32": lambda tf: value_and_grad(tf, tf.linalg.inv, A2.astype(np.float32)),
    "det": lambda tf: value_and_grad(tf, tf.linalg.det, A2),
    "det_complex": lambda tf: value_and_grad(tf, tf.linalg.det, C),
    "slogdet": lambda tf: value_and_grad(tf, lambda x: tf.linalg.slogdet(-x), A2),
    "slogdet_complex": lambda tf: value_and_grad(tf, tf.linalg.slogdet, C),
    "logdet": lambda tf: value_and_grad(tf, tf.linalg.logdet, S2),
    "cholesky": lambda tf: value_and_grad(tf, tf.linalg.cholesky, S2),
    "cholesky_complex": lambda tf: value_and_grad(tf, tf.linalg.cholesky, SC),
    "cholesky_solve": lambda tf: value_and_grad(
        tf, tf.linalg.cholesky_solve, np.linalg.cholesky(S2), B
    ),
    "solve": lambda tf: value_and_grad(tf, tf.linalg.solve, A2, B),
    "solve_adjoint": lambda tf: value_and_grad(
        tf, lambda a, b: tf.linalg.solve(a, b, adjoint=True), A, B[0]
    ),
    "solve_complex": lambda tf: value_and_grad(tf, tf.linalg.solve, C, B[0] + 0.5j),
    "triangular_solve": lambda tf: value_and_grad(tf, tf.linalg.triangular_solve, A2, B),
    "triangular_solve_upper_adjoint": lambda tf: value_and_grad(
        tf, lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True), A2, B
    ),
    "triangular_solve_broadcast": lambda tf: value_and_grad(tf, tf.linalg.triangular_solve, A, B),
    "lstsq": lambda tf: value_and_grad(tf, tf.linalg.lstsq, M, R),
    "lstsq_l2": lambda tf: value_and_grad(
        tf, lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.25), M, R
    ),
    "lstsq_under": lambda tf: value_and_grad(tf, tf.linalg.lstsq, M.T, B[0]),
    "lstsq_not_fast": lambda tf: [tf.linalg.lstsq(M, R, fast=False).numpy()],
    "qr": lambda tf: value_and_grad(tf, tf.linalg.qr, M),
    "qr_wide": lambda tf: value_and_grad(tf, tf.linalg.qr, M.T),
    "qr_complex": lambda tf: value_and_grad(tf, tf.linalg.qr, MC),
    "qr_batch": lambda tf: value_and_grad(tf, tf.linalg.qr, XF),
    "svd": lambda tf: value_and_grad(tf, _svd_inv(tf), M),
    "svd_wide_batch": lambda tf: value_and_grad(tf, _svd_inv(tf), XF),
    "svd_full": lambda tf: value_and_grad(tf, _svd_inv(tf, full_matrices=True), M),
    "svd_values": lambda tf: value_and_grad(tf, lambda x: tf.linalg.svd(x, compute_uv=False), XF),
    "svd_complex": lambda tf: value_and_grad(tf, _svd_inv(tf), MC),
    "eigh": lambda tf: value_and_grad(tf, lambda x: _eigh_inv(tf, x), S2),
    "eigh_lower_triangle": lambda tf: value_and_grad(tf, lambda x: _eigh_inv(tf, x), A),
    "eigh_complex": lambda tf: value_and_grad(
        tf, lambda x: _eigh_inv(tf, x), (C + np.conj(C.T)) / 2
    ),
    "eigvalsh": lambda tf: value_and_grad(tf, tf.linalg.eigvalsh, S2),
    "eigh_degenerate": lambda tf: value_and_grad(
        tf, lambda x: _degenerate_eigh(tf, x), ROTATION @ DEGENERATE @ ROTATION.T
    ),
    "svd_degenerate": lambda tf: value_and_grad(
        tf, lambda x: _degenerate_svd(tf, x), ROTATION @ DEGENERATE
    ),
    "trace": lambda tf: value_and_grad(tf, tf.linalg.trace, X),
    "diag": lambda tf: value_and_grad(tf, tf.linalg.diag, X[0]),
    "diag_band": lambda tf: value_and_grad(
        tf, lambda d: tf.linalg.diag(d, k=(-1, 1), num_cols=5, padding_value=9.0), X[:, :, :3]
    ),
    "diag_part": lambda tf: value_and_grad(tf, tf.linalg.diag_part, X),
    "diag_part_band": lambda tf: value_and_grad(
        tf, lambda x: tf.linalg.diag_part(x, k=(-1, 2), padding_value=-1.0, align="LEFT_RIGHT"), X
    ),
    "set_diag": lambda tf: value_and_grad(tf, tf.linalg.set_diag, X, X[:, :, 0]),
    "set_diag_band": lambda tf: value_and_grad(
        tf, lambda x, d: tf.linalg.set_diag(x, d, k=(0, 1), align="LEFT_LEFT"), X, X[:, :2, :3]
    ),
    "band_part": lambda tf: value_and_grad(tf, lambda x: tf.linalg.band_part(x, 1, 0), X),
    "band_part_upper": lambda tf: value_and_grad(tf, lambda x: tf.linalg.band_part(x, 0, -1), X),
    "matrix_transpose": lambda tf: value_and_grad(tf, tf.linalg.matrix_transpose, X),
    "adjoint": lambda tf: value_and_grad(tf, tf.linalg.adjoint, MC),
    "norm": lambda tf: value_and_grad(tf, tf.linalg.norm, X),
    "norm_fro": lambda tf: value_and_grad(tf, lambda x: tf.linalg.norm(x, "fro", axis=(1, 2)), X),
    "norm_1": lambda tf: value_and_grad(tf, lambda x: tf.linalg.norm(x, 1, axis=(-2, -1)), X),
    "norm_inf": lambda tf: value_and_grad(
        tf, lambda x: tf.linalg.norm(x, np.inf, axis=(-2, -1), keepdims=True), X
    ),
    "norm_2": lambda tf: value_and_grad(tf, lambda x: tf.linalg.norm(x, 2, axis=(-2, -1)), X),
    "norm_vector_3": lambda tf: value_and_grad(tf, lambda x: tf.norm(x, 3, axis=1), X),
    "norm_vector_inf": lambda tf: value_and_grad(tf, lambda x: tf.norm(x, np.inf, axis=-1), X),
    "norm_complex": lambda tf: value_and_grad(tf, lambda x: tf.norm(x, axis=0), MC),
    "expm": lambda tf: value_and_grad(tf, tf.linalg.expm, A2 / 4),
    "expm_squarings": lambda tf: value_and_grad(tf, tf.linalg.expm, 2 * A),
    "expm_complex": lambda tf: value_and_grad(tf, tf.linalg.expm, C / 2),
    "expm_float32": lambda tf: value_and_grad(tf, tf.linalg.expm, A2.astype(np.float32) / 4),
    "pinv": lambda tf: value_and_grad(tf, tf.linalg.pinv, M),
    "pinv_rank_deficient": lambda tf: value_and_grad(
        tf, tf.linalg.pinv, np.outer([1.0, 2.0, -1.0, 0.5], [0.3, -1.0, 2.0])
    ),
    "eye": lambda tf: [tf.eye(2, 3, batch_shape=[2], dtype=tf.float64).numpy()],
    "matmul": lambda tf: value_and_grad(tf, tf.linalg.matmul, A2, B),
}

# ---- programs (end)

# ---- TF numbers (begin): written by running the programs above on TensorFlow 2.21
TF_NUMBERS: dict[str, list[Any]] = {
    "inv": [
        np.array(
            [
                0.289031224979984,
                -0.10808646917534,
                -0.0880704563650921,
                -0.128502802241793,
                0.394315452361889,
                0.136108887109688,
                -0.055244195356285,
                0.0760608486789432,
                0.432345876701361,
                0.413530252501191,
                0.30871843735112,
                -0.0619342544068604,
                -0.148642210576465,
                0.580276322058123,
                -0.0238208670795617,
                0.0809909480705098,
                -0.123868508813721,
                0.333492139113864,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
        np.array(
            [
                -0.105081334688302,
                0.133029792739284,
                0.177569990318769,
                0.127221084385037,
                -0.147397854173302,
                -0.205375560160569,
                -0.068910443426334,
                0.0434283982462247,
                0.0856364416258689,
                0.27584860761091,
                -0.0472143364888322,
                -0.131611485365827,
                -0.211360581586053,
                -0.0154576772877557,
                0.0703553486142151,
                0.160460973159774,
                0.0167691001922456,
                -0.0504401262541976,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
    ],
    "inv_adjoint": [
        np.array(
            [
                0.289031224979984,
                -0.128502802241793,
                -0.055244195356285,
                -0.10808646917534,
                0.394315452361889,
                0.0760608486789432,
                -0.0880704563650921,
                0.136108887109688,
                0.432345876701361,
            ],
            np.float64,
        ).reshape((3, 3)),
        np.array(
            [
                -0.0812230465658127,
                0.10469797693441,
                -0.0882748030391087,
                0.0953581545213406,
                -0.110695499802291,
                0.0541100956495634,
                0.166815493432059,
                -0.204659881323287,
                0.139286069830215,
            ],
            np.float64,
        ).reshape((3, 3)),
    ],
    "inv_complex": [
        np.array(
            [
                0.280811281657498 - 0.0578945543903069j,
                -0.0934651870595244 + 0.0689158167297073j,
                -0.103898479821387 - 0.00986526867165084j,
                -0.130289380613405 + 0.0346492583536099j,
                0.390315710313386 - 0.0837401052780319j,
                0.160907262915809 + 0.0672855492590818j,
                -0.0436606879998023 + 0.052337283589615j,
                0.0549769583899436 - 0.078182493390016j,
                0.445736439554089 - 0.0335006873957204j,
            ],
            np.complex128,
        ).reshape((3, 3)),
        np.array(
            [
                -0.11023929779777 + 0.0191238437753807j,
                0.121640198589091 + 0.113337424247319j,
                0.16398818215061 + 0.0861897678808784j,
                0.132863790104562 - 0.00507069864228013j,
                -0.125320554382896 - 0.152742715135097j,
                -0.179494524435 - 0.127473506280085j,
                -0.0591917094717144 - 0.0465128193223937j,
                -0.00190947066170739 + 0.111847120721188j,
                0.0307299179581641 + 0.120800357073303j,
            ],
            np.complex128,
        ).reshape((3, 3)),
    ],
    "inv_float32": [
        np.array(
            [
                0.289031237,
                -0.108086467,
                -0.0880704522,
                -0.128502801,
                0.394315451,
                0.136108875,
                -0.0552441962,
                0.0760608464,
                0.432345867,
                0.413530231,
                0.308718473,
                -0.0619342551,
                -0.148642227,
                0.58027637,
                -0.0238208678,
                0.0809909478,
                -0.123868495,
                0.33349213,
            ],
            np.float32,
        ).reshape((2, 3, 3)),
        np.array(
            [
                -0.105081327,
                0.133029789,
                0.177569985,
                0.127221093,
                -0.147397831,
                -0.205375552,
                -0.0689104423,
                0.0434283987,
                0.0856364369,
                0.275848597,
                -0.0472143441,
                -0.131611481,
                -0.211360574,
                -0.0154576823,
                0.0703553408,
                0.160460964,
                0.0167691037,
                -0.0504401177,
            ],
            np.float32,
        ).reshape((2, 3, 3)),
    ],
    "det": [
        np.array([24.98, 10.495], np.float64),
        np.array(
            [
                3.90098264836797,
                -1.73437040183673,
                -0.745617182098033,
                -1.45881622584398,
                5.32197771280118,
                1.02657438114947,
                -1.18866507290991,
                1.83702783995168,
                5.83526490337591,
                -1.8060772706146,
                0.649189065013542,
                -0.353724811065071,
                -1.34831575041274,
                -2.5343342345721,
                0.540990887511285,
                0.270495443755643,
                0.104036709136786,
                -1.456513927915,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
    ],
    "det_complex": [
        np.array(23.017 + 9.268j, np.complex128),
        np.array(
            [
                6.5135872068259 - 2.86113293977648j,
                -3.13397613919264 + 1.16991177401169j,
                -1.63506490024769 - 0.432044872644048j,
                -2.8809314694351 - 0.0522864075886937j,
                9.10055544199043 - 3.91070206577519j,
                2.23520153152695 + 0.792511270241351j,
                -1.96070310739598 + 1.69166879874512j,
                2.28967904064114 - 3.67224316880686j,
                9.50051888923059 - 5.72316702843565j,
            ],
            np.complex128,
        ).reshape((3, 3)),
    ],
    "slogdet": [
        np.array([-1.0, -1.0], np.float64),
        np.array([3.21807550469743, 2.3508989532726], np.float64),
        np.array(
            [
                0.156164237324578,
                -0.0694303603617586,
                -0.0298485661368308,
                -0.058399368528582,
                0.213049548150568,
                0.0410958519275206,
                -0.0475846706529186,
                0.0735399455545106,
                0.233597474114328,
                -0.172089306394912,
                0.0618569857087701,
                -0.0337041268284965,
                -0.128472201087446,
                -0.241480155747699,
                0.0515474880906417,
                0.0257737440453209,
                0.00991297847896956,
                -0.138781698705574,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
    ],
    "slogdet_complex": [
        np.array(0.927623751852669 + 0.373515963512644j, np.complex128),
        np.array(3.21136214156437 + 0.0j, np.complex128),
        np.array(
            [
                0.20043957069116 - 0.205013984487211j,
                -0.0995519983252298 + 0.0909136592296965j,
                -0.067630275966406 + 0.00846124712224021j,
                -0.108490116259045 + 0.0414128683103853j,
                0.281353347155106 - 0.283194373168037j,
                0.0954924770953369 - 0.00401933386098239j,
                -0.0478352508791612 + 0.0927577835466474j,
                0.0303197277859627 - 0.171753330404795j,
                0.269022282515147 - 0.356973782108269j,
            ],
            np.complex128,
        ).reshape((3, 3)),
    ],
    "logdet": [
        np.array([3.03927057556847, 0.936485439159674], np.float64),
        np.array(
            [
                0.154150394589474,
                -0.0543147363486402,
                -0.0439690722822325,
                -0.0543147363486402,
                0.200447241286648,
                0.0336234082158249,
                -0.0439690722822325,
                0.0336234082158249,
                0.284505761826211,
                -0.218595359064355,
                0.0554644940909559,
                -0.0440453335428179,
                0.0554644940909559,
                -0.324630421297065,
                0.135398617927922,
                -0.0440453335428179,
                0.135398617927922,
                -0.474710817072593,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
    ],
    "cholesky": [
        np.array(
            [
                2.0,
                0.0,
                0.0,
                0.5,
                1.6583123951777,
                0.0,
                0.25,
                -0.195982373975546,
                1.37807507382251,
                1.4142135623731,
                0.0,
                0.0,
                0.212132034355964,
                1.20623380818148,
                0.0,
                -0.0707106781186548,
                0.344046069000217,
                0.936286442497967,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
        np.array(
            [
                0.146752719544008,
                -0.171974971304747,
                0.25053279799371,
                -0.171974971304747,
                0.0757255385086547,
                -0.082938548306558,
                0.25053279799371,
                -0.082938548306558,
                -0.330580778649955,
                -0.354956585628537,
                0.292414308024895,
                -0.288757107390797,
                0.292414308024895,
                0.117898565903563,
                -0.214635869084808,
                -0.288757107390797,
                -0.214635869084808,
                0.35262537097215,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
    ],
    "cholesky_complex": [
        np.array(
            [
                2.0 + 0.0j,
                0.0 + 0.0j,
                0.0 + 0.0j,
                0.5 - 0.15j,
                1.65151445649137 + 0.0j,
                0.0 + 0.0j,
                0.25 + 0.1j,
                -0.187706501012769 - 0.113532157870626j,
                1.37090361390099 + 0.0j,
            ],
            np.complex128,
        ).reshape((3, 3)),
        np.array(
            [
                0.153851376979699 + 0.0j,
                -0.150669302505375 - 0.157076133953796j,
                0.274647434551127 + 0.0731738831735219j,
                -0.150669302505375 + 0.157076133953796j,
                0.0544185545887258 + 0.0j,
                -0.0818199225570585 + 0.322375020761546j,
                0.274647434551127 - 0.0731738831735219j,
                -0.0818199225570585 - 0.322375020761546j,
                -0.332310110151363 + 0.0j,
            ],
            np.complex128,
        ).reshape((3, 3)),
    ],
    "cholesky_solve": [
        np.array(
            [
                0.361416945907133,
                0.683101962661561,
                -0.452848252752513,
                -0.140019147917664,
                0.0143609382479655,
                -1.18477740545716,
                -0.105056840454724,
                -0.208153665229322,
                1.02665621324971,
                0.306546452371619,
                -1.02116816934535,
                0.75656605252842,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
        np.array(
            [
                0.0603618653973604,
                0.0,
                0.0,
                0.436083361203533,
                -0.658118554288393,
                0.0,
                -0.771078911133658,
                -0.349914113946565,
                1.62700636624301,
                -0.00338014949857855,
                0.0,
                0.0,
                -0.658136396577153,
                2.37349746644513,
                0.0,
                0.913417890440414,
                -1.46152118723717,
                -0.99959710798251,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
        np.array(
            [
                0.230586896627456,
                -0.131157157937434,
                -0.403940442789581,
                -0.140909924954453,
                0.0437903242957909,
                0.498783440314096,
                0.517917776682709,
                0.124717696370139,
                -0.812681033695536,
                -0.909714275623356,
                0.381289889134536,
                1.22021143861885,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
    ],
    "solve": [
        np.array(
            [
                0.370696557245797,
                0.700160128102482,
                -0.481985588470777,
                -0.332065652522018,
                -0.00160128102481987,
                -0.937149719775821,
                0.459456884230586,
                -0.00505002382086712,
                0.622868032396379,
                0.444211529299666,
                -0.320152453549309,
                0.181038589804669,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
        np.array(
            [
                -0.0366952446276315,
                0.099369698231233,
                -0.0832852442104124,
                0.25619279372171,
                -0.252300651080086,
                -0.131632521643498,
                -0.231897187421736,
                0.0917061413138119,
                0.339910957960504,
                -0.204959826488397,
                -0.337800506486799,
                0.119225407875977,
                0.133020951650509,
                0.467356881896687,
                0.0202728387525523,
                0.0123706076004046,
                -0.123245835915078,
                -0.0637251409112595,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
        np.array(
            [
                0.267710358147164,
                -0.0893282278813322,
                -0.427193121096006,
                -0.139730570944499,
                -0.0596912713510239,
                0.362809200371953,
                0.447552247325382,
                0.132897313344688,
                -0.296511996016183,
                -0.636338815432848,
                -0.0235125256687757,
                0.310417509271885,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
    ],
    "solve_adjoint": [
        np.array(
            [
                0.400960768614892,
                0.624299439551641,
                -0.479583666933547,
                -0.171136909527622,
                -0.0944755804643715,
                -0.972778222578062,
            ],
            np.float64,
        ).reshape((3, 2)),
        np.array(
            [
                -0.0117275397019414,
                0.214815695699987,
                -0.24949065581988,
                0.0912652758345078,
                -0.214588124549934,
                0.0748581975928427,
                -0.108036254901047,
                -0.111367352401892,
                0.3794783319828,
            ],
            np.float64,
        ).reshape((3, 3)),
        np.array(
            [
                0.238186772664935,
                -0.134192034194132,
                -0.421190755115138,
                -0.073578036252162,
                0.0174919406470762,
                0.388398672963096,
            ],
            np.float64,
        ).reshape((3, 2)),
    ],
    "solve_complex": [
        np.array(
            [
                0.342528927936732 - 0.0880461443332159j,
                0.722108932594133 - 0.019876855684165j,
                -0.481430263219378 + 0.349041824717261j,
                -0.396332783069065 + 0.103324161857935j,
                0.0647562340745415 + 0.34899592573303j,
                -0.92163282731475 + 0.361111050247778j,
            ],
            np.complex128,
        ).reshape((3, 2)),
        np.array(
            [
                -0.165171570459502 + 0.341030863761643j,
                0.298452714330199 - 0.137717064123367j,
                0.218691800111381 - 0.23792872898702j,
                0.417553838339489 - 0.259785919624744j,
                -0.422934632677472 - 0.0556733915213149j,
                -0.404845086800894 + 0.10956143817233j,
                -0.20020846360055 - 0.492096519177797j,
                -0.136646927858339 + 0.44011569304088j,
                0.0425886661217847 + 0.451083547352055j,
            ],
            np.complex128,
        ).reshape((3, 3)),
        np.array(
            [
                0.362337981794179 - 0.209038442077831j,
                0.0198722633490618 - 0.417840850643389j,
                -0.542458543041165 - 0.021674406877477j,
                -0.311329986143331 + 0.444752392416081j,
                -0.122313620845229 + 0.573593108394733j,
                0.41657562641818 + 0.412837042083802j,
            ],
            np.complex128,
        ).reshape((3, 2)),
    ],
    "triangular_solve": [
        np.array(
            [
                0.25,
                0.5,
                -0.433333333333333,
                -0.0333333333333333,
                0.0206666666666667,
                -0.865333333333333,
                0.1,
                -0.2,
                0.7,
                0.533333333333333,
                -0.376666666666667,
                0.137777777777778,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
        np.array(
            [
                -0.0138365012807721,
                0.0,
                0.0,
                0.162053274743786,
                -0.141998905389354,
                0.0,
                -0.220400275876396,
                0.0619703826356308,
                0.330002001152751,
                -0.0235639040873851,
                0.0,
                0.0,
                -0.0810592036530274,
                0.804091276239848,
                0.0,
                0.0561094073158978,
                -0.151051144416322,
                -0.038199103431437,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
        np.array(
            [
                0.221026365595771,
                -0.0828401802363412,
                -0.314868848975443,
                -0.166672124999851,
                0.11346487418529,
                0.384068114660146,
                0.529224153406859,
                0.146792556266504,
                -0.608206965343216,
                -0.709399500936745,
                0.00147523266268359,
                0.281284652910831,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
    ],
    "triangular_solve_upper_adjoint": [
        np.array(
            [
                0.25,
                0.5,
                -0.416666666666667,
                0.0,
                -0.0466666666666667,
                -0.9,
                0.1,
                -0.2,
                0.8,
                0.333333333333333,
                -0.263333333333333,
                0.297777777777778,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
        np.array(
            [
                0.0107961831471469,
                0.140013247156147,
                -0.220400275876396,
                0.0,
                -0.126467650648714,
                0.0472770309105377,
                0.0,
                0.0,
                0.350956330656112,
                -0.0899692475587454,
                -0.0586154407266682,
                0.0561094073158978,
                0.0,
                0.685055377746651,
                -0.0949417371004238,
                0.0,
                0.0,
                -0.083371840932274,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
        np.array(
            [
                0.196773057583102,
                -0.119978895085845,
                -0.303522361556914,
                -0.128265313533836,
                0.11346487418529,
                0.384068114660146,
                0.0729214061331785,
                -0.413385534727138,
                -0.607616872278142,
                -0.596885639772412,
                0.00147523266268359,
                0.281284652910831,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
    ],
    "triangular_solve_broadcast": [
        np.array(
            [
                0.25,
                0.5,
                -0.433333333333333,
                -0.0333333333333333,
                0.0206666666666667,
                -0.865333333333333,
                0.05,
                -0.1,
                0.346666666666667,
                0.273333333333333,
                -0.190533333333333,
                0.415733333333333,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
        np.array(
            [
                -0.0269342654287346,
                0.0,
                0.0,
                0.153758480724588,
                0.0273526557964064,
                0.0,
                -0.186734631486857,
                -0.0309046803067981,
                0.190012010704591,
            ],
            np.float64,
        ).reshape((3, 3)),
        np.array(
            [
                0.221026365595771,
                -0.0828401802363412,
                -0.314868848975443,
                -0.166672124999851,
                0.11346487418529,
                0.384068114660146,
                0.279385007666843,
                0.0087148623537972,
                -0.303474050068863,
                -0.234684965226418,
                0.00177027919522031,
                0.337541583492997,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
    ],
    "lstsq": [
        np.array(
            [
                0.665643260999004,
                0.14929115436324,
                0.345706077955743,
                -0.971359527867778,
                0.247795754072891,
                0.230786557673491,
            ],
            np.float64,
        ).reshape((3, 2)),
        np.array(
            [
                0.104938034874384,
                0.0635012281799673,
                -0.018666513583272,
                0.0273599826811933,
                0.148259140395627,
                0.0540032965480753,
                -0.451203206411844,
                0.355339215022432,
                -0.3364848762691,
                -0.0296286774477579,
                -0.377496762022132,
                0.135182851051614,
            ],
            np.float64,
        ).reshape((4, 3)),
        np.array(
            [
                -0.227245895336071,
                -0.164614001460733,
                0.00992009644837602,
                0.331744625017064,
                0.467489999793883,
                0.346517890642751,
                0.225112648898434,
                -0.0811753667596357,
            ],
            np.float64,
        ).reshape((4, 2)),
    ],
    "lstsq_l2": [
        np.array(
            [
                0.638006094210201,
                0.132228529582976,
                0.336970605999406,
                -0.925178204606542,
                0.229593698335077,
                0.212832120316452,
            ],
            np.float64,
        ).reshape((3, 2)),
        np.array(
            [
                0.101892209265753,
                0.0604543501663111,
                -0.0283555950862965,
                0.0325738695266825,
                0.127651940485048,
                0.0576965738298238,
                -0.401148501783039,
                0.308385383583738,
                -0.284282097550195,
                -0.0174071315589331,
                -0.3703028346244,
                0.139708674432837,
            ],
            np.float64,
        ).reshape((4, 3)),
        np.array(
            [
                -0.217631967312823,
                -0.159188681014397,
                0.00616831638030887,
                0.317926452121311,
                0.439299351016842,
                0.326087397674007,
                0.211291228505707,
                -0.0836310917169892,
            ],
            np.float64,
        ).reshape((4, 2)),
    ],
    "lstsq_under": [
        np.array(
            [
                -0.170465909019239,
                0.202575527051383,
                -0.0202847085824175,
                -0.818250167723549,
                0.575297027861245,
                -0.235923304415421,
                0.373736640466975,
                0.572160309157932,
            ],
            np.float64,
        ).reshape((4, 2)),
        np.array(
            [
                0.13928513410286,
                0.0285757115550369,
                -0.101716712509671,
                -0.405307560311151,
                0.0751191767304547,
                -0.331019660219215,
                -0.130077349973963,
                0.258520374672692,
                -0.0961380926078143,
                0.0624669369153244,
                0.0204582474207949,
                0.18197357755358,
            ],
            np.float64,
        ).reshape((3, 4)),
        np.array(
            [
                0.449159303888427,
                0.160974046471411,
                0.0198767620022799,
                -0.42600110165778,
                -0.187843494388217,
                -0.0159097021951804,
            ],
            np.float64,
        ).reshape((3, 2)),
    ],
    "lstsq_not_fast": [
        np.array(
            [
                0.665643260999004,
                0.14929115436324,
                0.345706077955743,
                -0.971359527867778,
                0.247795754072891,
                0.230786557673491,
            ],
            np.float64,
        ).reshape((3, 2)),
    ],
    "qr": [
        np.array(
            [
                -0.39253433598943,
                -0.79281331504667,
                -0.240125476417432,
                0.39253433598943,
                -0.199999130733669,
                -0.764508651833668,
                -0.274774035192601,
                0.567340400784236,
                -0.595807860045163,
                -0.78506867197886,
                0.0978379518820177,
                -0.0536588366923111,
            ],
            np.float64,
        ).reshape((4, 3)),
        np.array(
            [
                -2.5475478405714,
                -0.416086396148796,
                0.628054937583088,
                0.0,
                -2.31665105506632,
                -0.268199698959245,
                0.0,
                0.0,
                -2.22342436724429,
            ],
            np.float64,
        ).reshape((3, 3)),
        np.array(
            [
                0.0609402123734621,
                -0.300835177899924,
                0.172378605687843,
                1.27519177882182,
                -1.09928430268297,
                -0.268211419208838,
                0.22947909381302,
                -0.351722380854574,
                1.7658494285021,
                -0.161414885895443,
                0.253955258310722,
                0.422684311024101,
            ],
            np.float64,
        ).reshape((4, 3)),
    ],
    "qr_wide": [
        np.array(
            [
                -0.436435780471985,
                0.49725930427481,
                0.749837978389959,
                -0.872871560943969,
                -0.0318755964278725,
                -0.486907778175298,
                -0.218217890235992,
                -0.867016222838131,
                0.447955155921274,
            ],
            np.float64,
        ).reshape((3, 3)),
        np.array(
            [
                -2.29128784747792,
                -0.261861468283191,
                0.523722936566382,
                -0.872871560943969,
                0.0,
                -2.24085442887943,
                -0.480683994132316,
                1.33813753804209,
                0.0,
                0.0,
                1.5571310746046,
                1.27180311659388,
            ],
            np.float64,
        ).reshape((3, 4)),
        np.array(
            [
                -0.135391076162345,
                0.967127935172112,
                0.810271614833511,
                0.845675964710848,
                -0.528362706769148,
                0.132602350546246,
                0.837950305050701,
                0.164305771851347,
                -0.0917432353986496,
                -0.557640893835515,
                -0.435628896759974,
                0.646796353305435,
            ],
            np.float64,
        ).reshape((3, 4)),
    ],
    "qr_complex": [
        np.array(
            [
                -0.381523796858258 - 0.114457139057477j,
                -0.77077008402046 + 0.0675900452885694j,
                -0.280812067117018 - 0.225524279341616j,
                0.381523796858258 + 0.0j,
                -0.181518851356059 - 0.176282145144512j,
                -0.739654372204558 + 0.142356868079158j,
                -0.26706665780078 - 0.0763047593716516j,
                0.547783826500873 - 0.0536457927020086j,
                -0.541315730214991 - 0.029382018836889j,
                -0.763047593716516 + 0.190761898429129j,
                0.0537675765673933 - 0.177439091865668j,
                0.0200460434070304 + 0.0929593863624888j,
            ],
            np.complex128,
        ).reshape((4, 3)),
        np.array(
            [
                -2.62106848441623 + 0.0j,
                -0.351001893109597 + 0.206022850303459j,
                0.576100933255969 - 0.0610438074973212j,
                0.0 + 0.0j,
                -2.39047113686535 + 0.0j,
                -0.160967824072372 + 0.46130510369112j,
                0.0 + 0.0j,
                0.0 + 0.0j,
                -2.25735870636232 + 0.0j,
            ],
            np.complex128,
        ).reshape((3, 3)),
        np.array(
            [
                -0.093772458085195 - 0.460755359746095j,
                -0.34775179007746 + 0.659856686424817j,
                0.155824481633151 + 0.252546422607752j,
                1.28522156034828 - 0.76995518539044j,
                -0.95116650207284 - 0.369331923142359j,
                -0.224858704931238 - 0.611736600044596j,
                0.237766682372348 + 0.677308295984374j,
                -0.358097647910199 + 0.517669535584086j,
                1.57147153475561 + 0.509813674357913j,
                -0.138928895222358 - 0.154021467952211j,
                0.301397273408842 + 0.332564920313917j,
                0.382984365033818 - 0.340858960066224j,
            ],
            np.complex128,
        ).reshape((4, 3)),
    ],
    "qr_batch": [
        np.array(
            [
                -0.939245499098969,
                0.106613397573767,
                0.326269023782685,
                -0.220026087385855,
                -0.916570942825731,
                -0.333895534018085,
                0.263450969426951,
                -0.38539757423384,
                0.884342861385035,
                -0.00780927014861166,
                -0.800358840442416,
                -0.599470384443984,
                0.497058930093931,
                -0.52328808813482,
                0.69217194166629,
                -0.867681643987945,
                -0.292566750232963,
                0.401912006967322,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
        np.array(
            [
                -2.12936873471167,
                -0.515538029248416,
                1.29547600845402,
                0.847642919964533,
                0.0,
                -2.03274588272446,
                -0.875935154586131,
                0.853738483617573,
                0.0,
                0.0,
                1.38924521363336,
                -0.0637739584256349,
                -0.745572211664338,
                0.49322295292526,
                -0.131970941270719,
                0.397439479535529,
                0.0,
                0.457190617620981,
                -0.568371780113322,
                -1.12803375059933,
                0.0,
                0.0,
                -0.567868744681737,
                0.173341511488698,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
        np.array(
            [
                -0.301718526653815,
                0.394458184532324,
                1.0116660455099,
                0.873742983290271,
                0.00150857809023065,
                -0.687419342095586,
                -0.47465844528666,
                -0.00457931657178035,
                0.976449108568605,
                -0.747402641202478,
                -0.547452748565749,
                0.630128538961102,
                2.75396218365403,
                -0.709668183278656,
                -0.465968258068084,
                -0.573416216807469,
                -0.0435816326474786,
                -0.0696073069145823,
                -1.26379907681995,
                -0.395952871489768,
                -1.09558138333755,
                -0.191077179400054,
                0.155753171483261,
                0.882034945766743,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "svd": [
        np.array([2.80059008276291, 2.41513439449156, 1.94005696949185], np.float64),
        np.array(
            [
                0.356817342217667,
                0.810557738756459,
                0.236588119535596,
                -0.298763887200519,
                0.123910006815633,
                0.820940184099429,
                0.398543071440598,
                -0.571566872956162,
                0.516563294103876,
                0.790306867111915,
                -0.03088320080693,
                -0.0569705100026263,
            ],
            np.float64,
        ).reshape((4, 3)),
        np.array(
            [
                0.431564141105976,
                -0.300859786891051,
                -0.633762917644287,
                -0.618564926550371,
                -0.00514268928220148,
                0.178145344409654,
                -0.27157991036268,
                0.358893484374853,
                -0.846264818732559,
                -0.250772015470414,
                0.391590733593573,
                -0.0765621909025784,
            ],
            np.float64,
        ).reshape((4, 3)),
    ],
    "svd_wide_batch": [
        np.array(
            [
                2.78487878676892,
                2.45342151688464,
                0.992057094257158,
                1.35538429044733,
                0.995025800718921,
                0.551752144532854,
            ],
            np.float64,
        ).reshape((2, 3)),
        np.array(
            [
                0.95486800861642,
                -0.0786766410174782,
                -0.0603254882067377,
                -0.279996263817463,
                -0.0360091836080232,
                0.924326450439343,
                -0.144236032803726,
                -0.351454006315379,
                0.0410580615717757,
                0.115634710691124,
                0.986862841638298,
                -0.105093201763634,
                -0.0368360515252365,
                -0.224531160364156,
                0.855540046771305,
                0.465059234618676,
                -0.270648367027,
                -0.0192935203909443,
                -0.472519548781622,
                0.838512073565882,
                0.740115790712066,
                -0.633094511750266,
                -0.196141080109578,
                0.113792056945087,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
        np.array(
            [
                -0.155754328280508,
                0.140509339005493,
                -0.631174201605297,
                -0.40534020753061,
                0.704242275410112,
                -0.262087470470606,
                0.527438265338561,
                0.150703567239365,
                -0.517180772580075,
                -0.49281571378332,
                -0.357573052252031,
                0.284279926630098,
                0.762412302383565,
                0.330878686960563,
                0.532111196766088,
                -1.1775792708341,
                -0.568543102844637,
                0.627148509275808,
                0.225952790952516,
                0.263466897511622,
                -0.69396198872471,
                -1.13946028475038,
                -1.39861783753616,
                0.412495385333738,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "svd_full": [
        np.array([2.80059008276291, 2.41513439449156, 1.94005696949185], np.float64),
        np.array(
            [
                0.356817342217667,
                0.810557738756459,
                0.236588119535596,
                -0.298763887200519,
                0.123910006815633,
                0.820940184099429,
                0.398543071440598,
                -0.571566872956162,
                0.516563294103876,
                0.790306867111915,
                -0.03088320080693,
                -0.0569705100026263,
            ],
            np.float64,
        ).reshape((4, 3)),
        np.array(
            [
                0.431564141105976,
                -0.300859786891051,
                -0.633762917644287,
                -0.618564926550371,
                -0.00514268928220148,
                0.178145344409654,
                -0.27157991036268,
                0.358893484374853,
                -0.846264818732559,
                -0.250772015470414,
                0.391590733593573,
                -0.0765621909025784,
            ],
            np.float64,
        ).reshape((4, 3)),
    ],
    "svd_values": [
        np.array(
            [
                2.78487878676892,
                2.45342151688464,
                0.992057094257158,
                1.35538429044733,
                0.995025800718921,
                0.551752144532854,
            ],
            np.float64,
        ).reshape((2, 3)),
        np.array(
            [
                -0.047872515740745,
                0.394637863193024,
                -0.605405374888187,
                -0.114392054605063,
                0.486380276213642,
                -0.404463094520733,
                0.0363131714241728,
                0.000133118846162201,
                -0.536562674075843,
                -0.00234114699925836,
                -0.423535861137977,
                0.196965585272133,
                -0.0475003960486494,
                0.247960120683705,
                0.189528452812416,
                -0.651535595573049,
                0.0961059003918567,
                0.0143462080518507,
                -0.695740424560147,
                -0.0554969159656721,
                0.35071073514471,
                -0.270505367790853,
                -0.454197470571459,
                0.0802352932188246,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "svd_complex": [
        np.array([2.92523219513165, 2.42941268908478, 1.99021872935593], np.float64),
        np.array(
            [
                0.349922829689447 + 0.114733803834465j,
                0.809685892822266 - 0.107831269295695j,
                0.254779428836554 + 0.138892695965923j,
                -0.293846538819104 - 0.0180440802633676j,
                0.116250447867987 + 0.118742519509844j,
                0.798653196811146 - 0.157501445453393j,
                0.364009557213779 + 0.113985694237163j,
                -0.534252599619762 - 0.00510368846488529j,
                0.486541043368826 + 0.0794245523675509j,
                0.767117562446965 - 0.20917394546887j,
                -0.013510832045376 + 0.139759755790633j,
                -0.0897894005515354 - 0.0452774193152954j,
            ],
            np.complex128,
        ).reshape((4, 3)),
        np.array(
            [
                0.444271462721853 - 0.22028645552082j,
                -0.391869514767376 - 0.197493582169638j,
                -0.511734860603396 - 0.520512119998364j,
                -0.487624338331743 + 0.493552821076163j,
                0.0920477955803854 + 0.571344667950481j,
                0.209931032198437 + 0.251099808270462j,
                -0.11940284870792 - 0.34531071097009j,
                0.318792230389709 - 0.205525736363337j,
                -0.680839145486855 - 0.12657176528169j,
                -0.223112820650804 + 0.251313894259011j,
                0.296750615339458 + 0.0294909467141333j,
                0.0906915934264923 + 0.292385922213255j,
            ],
            np.complex128,
        ).reshape((4, 3)),
    ],
    "eigh": [
        np.array(
            [
                1.69287706213738,
                2.64928450564626,
                4.65783843221636,
                0.733836161278944,
                1.61898964537819,
                2.14717419334286,
            ],
            np.float64,
        ).reshape((2, 3)),
        np.array(
            [
                0.127462714293165,
                0.139362157275861,
                0.733175128430974,
                0.161712655000657,
                0.586674144765801,
                0.251613200233542,
                0.710824630706178,
                0.273963697958338,
                0.0152116713354842,
                0.0351114053871038,
                0.18468906204462,
                0.780199532568276,
                0.261392099726609,
                0.525836658017452,
                0.212771242255939,
                0.703496494886287,
                0.289474279937928,
                0.00702922517578486,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
        np.array(
            [
                -0.844145779938153,
                0.0,
                0.0,
                -0.962894026636201,
                0.226540204724381,
                0.0,
                -0.805146356959491,
                1.20079234679277,
                -0.248231452065676,
                1.69520588908669,
                0.0,
                0.0,
                -0.217692756788068,
                -1.24989961615192,
                0.0,
                -0.620352566796404,
                0.960148285694117,
                0.144882578315212,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
    ],
    "eigh_lower_triangle": [
        np.array([1.82862977658876, 2.87102128739877, 4.80034893601247], np.float64),
        np.array(
            [
                0.202222337615682,
                0.103352554450653,
                0.694425107933666,
                0.441551989328558,
                0.253031375875383,
                0.30541663479606,
                0.356225673055761,
                0.643616069673964,
                0.000158257270275123,
            ],
            np.float64,
        ).reshape((3, 3)),
        np.array(
            [
                -0.841228548532111,
                0.0,
                0.0,
                -1.28680810914,
                0.605186711264366,
                0.0,
                -0.191120434835146,
                0.584287681183977,
                -0.629795190011704,
            ],
            np.float64,
        ).reshape((3, 3)),
    ],
    "eigh_complex": [
        np.array([1.54067376848, 3.2343821924712, 4.72494403904881], np.float64),
        np.array(
            [
                0.165943358738136,
                0.131853324752597,
                0.702203316509267,
                0.400371950550851,
                0.30193416044656,
                0.297693889002589,
                0.433684690711013,
                0.566212514800843,
                0.000102794488143639,
            ],
            np.float64,
        ).reshape((3, 3)),
        np.array(
            [
                -0.935860294857236 + 0.0j,
                0.0 + 0.0j,
                0.0 + 0.0j,
                -0.997066654899699 - 0.181625561895547j,
                0.440622759212157 + 0.0j,
                0.0 + 0.0j,
                -0.352741851912636 + 0.177307893719224j,
                0.5813507996623 - 0.474969223168859j,
                -0.370599491634368 + 0.0j,
            ],
            np.complex128,
        ).reshape((3, 3)),
    ],
    "eigvalsh": [
        np.array(
            [
                1.69287706213738,
                2.64928450564626,
                4.65783843221636,
                0.733836161278944,
                1.61898964537819,
                2.14717419334286,
            ],
            np.float64,
        ).reshape((2, 3)),
        np.array(
            [
                -0.714964598280658,
                0.0,
                0.0,
                -0.767576560127974,
                -0.405864049320207,
                0.0,
                -0.696994894369142,
                0.577548882161805,
                0.254991620321416,
                0.778563365650457,
                0.0,
                0.0,
                0.730857180834917,
                0.182599321747306,
                0.0,
                -0.194424698738084,
                0.856200435708006,
                -0.370973836147782,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
    ],
    "eigh_degenerate": [
        np.array(5.0, np.float64),
        np.array([0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], np.float64).reshape((3, 3)),
        np.array(
            [
                0.54030230586814,
                0.0,
                0.0,
                0.0,
                0.54030230586814,
                0.0,
                0.236090242257141,
                0.0,
                0.54030230586814,
            ],
            np.float64,
        ).reshape((3, 3)),
    ],
    "svd_degenerate": [
        np.array(5.0, np.float64),
        np.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], np.float64).reshape((3, 3)),
        np.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], np.float64).reshape((3, 3)),
        np.array(
            [
                0.324181383520884,
                -0.432241844694512,
                -0.607623645837505,
                0.432241844694512,
                0.324181383520884,
                0.471510056213477,
                0.261357957193698,
                0.723339647954427,
                0.54030230586814,
            ],
            np.float64,
        ).reshape((3, 3)),
    ],
    "trace": [
        np.array([-2.35714285714286, 2.78571428571429], np.float64),
        np.array(
            [
                0.54030230586814,
                0.0,
                0.0,
                0.0,
                0.0,
                0.54030230586814,
                0.0,
                0.0,
                0.0,
                0.0,
                0.54030230586814,
                0.0,
                -0.416146836547142,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.416146836547142,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.416146836547142,
                0.0,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "diag": [
        np.array(
            [
                -1.5,
                0.0,
                0.0,
                0.0,
                0.0,
                -1.35714285714286,
                0.0,
                0.0,
                0.0,
                0.0,
                -1.21428571428571,
                0.0,
                0.0,
                0.0,
                0.0,
                -1.07142857142857,
                -0.928571428571429,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.785714285714286,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.642857142857143,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.5,
                -0.357142857142857,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.214285714285714,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.0714285714285714,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0714285714285714,
            ],
            np.float64,
        ).reshape((3, 4, 4)),
        np.array(
            [
                0.54030230586814,
                0.960170286650366,
                0.00442569798805079,
                -0.957659480323385,
                -0.275163338051597,
                -0.999960826394637,
                -0.292138808733836,
                0.83422336050651,
                -0.0132767472230595,
                0.955073644047295,
                0.555113301520626,
                -0.6401443394692,
            ],
            np.float64,
        ).reshape((3, 4)),
    ],
    "diag_band": [
        np.array(
            [
                -0.928571428571429,
                -1.5,
                9.0,
                9.0,
                9.0,
                -0.357142857142857,
                -0.785714285714286,
                -1.35714285714286,
                9.0,
                9.0,
                9.0,
                -0.214285714285714,
                -0.642857142857143,
                -1.21428571428571,
                9.0,
                0.785714285714286,
                0.214285714285714,
                9.0,
                9.0,
                9.0,
                1.35714285714286,
                0.928571428571428,
                0.357142857142857,
                9.0,
                9.0,
                9.0,
                1.5,
                1.07142857142857,
                0.5,
                9.0,
            ],
            np.float64,
        ).reshape((2, 3, 5)),
        np.array(
            [
                -0.416146836547142,
                -0.145500033808614,
                0.136737218207834,
                0.54030230586814,
                0.753902254343305,
                0.907446781450196,
                0.960170286650366,
                0.843853958732492,
                0.0,
                -0.275163338051597,
                -0.532833020333398,
                -0.748057529689,
                -0.957659480323385,
                -0.999960826394637,
                -0.962605866313567,
                -0.547729260224268,
                -0.292138808733836,
                0.0,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
    ],
    "diag_part": [
        np.array(
            [
                -1.5,
                -0.785714285714286,
                -0.0714285714285714,
                0.214285714285714,
                0.928571428571428,
                1.64285714285714,
            ],
            np.float64,
        ).reshape((2, 3)),
        np.array(
            [
                0.54030230586814,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.416146836547142,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.989992496600445,
                0.0,
                -0.653643620863612,
                0.0,
                0.0,
                0.0,
                0.0,
                0.283662185463226,
                0.0,
                0.0,
                0.0,
                0.0,
                0.960170286650366,
                0.0,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "diag_part_band": [
        np.array(
            [
                -1.21428571428571,
                -0.5,
                -1.0,
                -1.35714285714286,
                -0.642857142857143,
                0.0714285714285714,
                -1.5,
                -0.785714285714286,
                -0.0714285714285714,
                -1.0,
                -0.928571428571429,
                -0.214285714285714,
                0.5,
                1.21428571428571,
                -1.0,
                0.357142857142857,
                1.07142857142857,
                1.78571428571429,
                0.214285714285714,
                0.928571428571428,
                1.64285714285714,
                -1.0,
                0.785714285714286,
                1.5,
            ],
            np.float64,
        ).reshape((2, 4, 3)),
        np.array(
            [
                0.753902254343305,
                -0.653643620863612,
                0.54030230586814,
                0.0,
                0.00442569798805079,
                -0.145500033808614,
                0.283662185463226,
                -0.416146836547142,
                0.0,
                0.843853958732492,
                -0.911130261884677,
                0.960170286650366,
                0.988704618186669,
                -0.957659480323385,
                0.907446781450196,
                0.0,
                -0.532833020333398,
                0.408082061813392,
                -0.275163338051597,
                0.136737218207834,
                0.0,
                0.424179007336997,
                -0.547729260224268,
                0.66031670824408,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "set_diag": [
        np.array(
            [
                -1.5,
                -1.35714285714286,
                -1.21428571428571,
                -1.07142857142857,
                -0.928571428571429,
                -0.928571428571429,
                -0.642857142857143,
                -0.5,
                -0.357142857142857,
                -0.214285714285714,
                -0.357142857142857,
                0.0714285714285714,
                0.214285714285714,
                0.357142857142857,
                0.5,
                0.642857142857143,
                0.785714285714286,
                0.785714285714286,
                1.07142857142857,
                1.21428571428571,
                1.35714285714286,
                1.5,
                1.35714285714286,
                1.78571428571429,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
        np.array(
            [
                0.0,
                -0.416146836547142,
                -0.989992496600445,
                -0.653643620863612,
                0.283662185463226,
                0.0,
                0.753902254343305,
                -0.145500033808614,
                -0.911130261884677,
                -0.839071529076452,
                0.0,
                0.843853958732492,
                0.0,
                0.136737218207834,
                -0.759687912858821,
                -0.957659480323385,
                -0.275163338051597,
                0.0,
                0.988704618186669,
                0.408082061813392,
                -0.547729260224268,
                -0.999960826394637,
                0.0,
                0.424179007336997,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
        np.array(
            [
                0.54030230586814,
                0.960170286650366,
                0.00442569798805079,
                0.907446781450196,
                0.66031670824408,
                -0.532833020333398,
            ],
            np.float64,
        ).reshape((2, 3)),
    ],
    "set_diag_band": [
        np.array(
            [
                -0.928571428571429,
                -1.5,
                -1.21428571428571,
                -1.07142857142857,
                -0.928571428571429,
                -0.785714285714286,
                -1.35714285714286,
                -0.5,
                -0.357142857142857,
                -0.214285714285714,
                -0.642857142857143,
                -1.21428571428571,
                0.785714285714286,
                0.214285714285714,
                0.5,
                0.642857142857143,
                0.785714285714286,
                0.928571428571428,
                0.357142857142857,
                1.21428571428571,
                1.35714285714286,
                1.5,
                1.07142857142857,
                0.5,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
        np.array(
            [
                0.0,
                0.0,
                -0.989992496600445,
                -0.653643620863612,
                0.283662185463226,
                0.0,
                0.0,
                -0.145500033808614,
                -0.911130261884677,
                -0.839071529076452,
                0.0,
                0.0,
                0.0,
                0.0,
                -0.759687912858821,
                -0.957659480323385,
                -0.275163338051597,
                0.0,
                0.0,
                0.408082061813392,
                -0.547729260224268,
                -0.999960826394637,
                0.0,
                0.0,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
        np.array(
            [
                -0.416146836547142,
                0.753902254343305,
                0.843853958732492,
                0.54030230586814,
                0.960170286650366,
                0.00442569798805079,
                0.136737218207834,
                0.988704618186669,
                0.424179007336997,
                0.907446781450196,
                0.66031670824408,
                -0.532833020333398,
            ],
            np.float64,
        ).reshape((2, 2, 3)),
    ],
    "band_part": [
        np.array(
            [
                -1.5,
                0.0,
                0.0,
                0.0,
                -0.928571428571429,
                -0.785714285714286,
                0.0,
                0.0,
                0.0,
                -0.214285714285714,
                -0.0714285714285714,
                0.0,
                0.214285714285714,
                0.0,
                0.0,
                0.0,
                0.785714285714286,
                0.928571428571428,
                0.0,
                0.0,
                0.0,
                1.5,
                1.64285714285714,
                0.0,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
        np.array(
            [
                0.54030230586814,
                0.0,
                0.0,
                0.0,
                0.283662185463226,
                0.960170286650366,
                0.0,
                0.0,
                0.0,
                -0.839071529076452,
                0.00442569798805079,
                0.0,
                0.907446781450196,
                0.0,
                0.0,
                0.0,
                -0.275163338051597,
                0.66031670824408,
                0.0,
                0.0,
                0.0,
                -0.999960826394637,
                -0.532833020333398,
                0.0,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "band_part_upper": [
        np.array(
            [
                -1.5,
                -1.35714285714286,
                -1.21428571428571,
                -1.07142857142857,
                0.0,
                -0.785714285714286,
                -0.642857142857143,
                -0.5,
                0.0,
                0.0,
                -0.0714285714285714,
                0.0714285714285714,
                0.214285714285714,
                0.357142857142857,
                0.5,
                0.642857142857143,
                0.0,
                0.928571428571428,
                1.07142857142857,
                1.21428571428571,
                0.0,
                0.0,
                1.64285714285714,
                1.78571428571429,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
        np.array(
            [
                0.54030230586814,
                -0.416146836547142,
                -0.989992496600445,
                -0.653643620863612,
                0.0,
                0.960170286650366,
                0.753902254343305,
                -0.145500033808614,
                0.0,
                0.0,
                0.00442569798805079,
                0.843853958732492,
                0.907446781450196,
                0.136737218207834,
                -0.759687912858821,
                -0.957659480323385,
                0.0,
                0.66031670824408,
                0.988704618186669,
                0.408082061813392,
                0.0,
                0.0,
                -0.532833020333398,
                0.424179007336997,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "matrix_transpose": [
        np.array(
            [
                -1.5,
                -0.928571428571429,
                -0.357142857142857,
                -1.35714285714286,
                -0.785714285714286,
                -0.214285714285714,
                -1.21428571428571,
                -0.642857142857143,
                -0.0714285714285714,
                -1.07142857142857,
                -0.5,
                0.0714285714285714,
                0.214285714285714,
                0.785714285714286,
                1.35714285714286,
                0.357142857142857,
                0.928571428571428,
                1.5,
                0.5,
                1.07142857142857,
                1.64285714285714,
                0.642857142857143,
                1.21428571428571,
                1.78571428571429,
            ],
            np.float64,
        ).reshape((2, 4, 3)),
        np.array(
            [
                0.54030230586814,
                -0.653643620863612,
                0.753902254343305,
                -0.839071529076452,
                -0.416146836547142,
                0.283662185463226,
                -0.145500033808614,
                0.00442569798805079,
                -0.989992496600445,
                0.960170286650366,
                -0.911130261884677,
                0.843853958732492,
                0.907446781450196,
                -0.957659480323385,
                0.988704618186669,
                -0.999960826394637,
                0.136737218207834,
                -0.275163338051597,
                0.408082061813392,
                -0.532833020333398,
                -0.759687912858821,
                0.66031670824408,
                -0.547729260224268,
                0.424179007336997,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "adjoint": [
        np.array(
            [
                1.0 - 0.3j,
                -1.0 + 0.0j,
                0.7 - 0.2j,
                2.0 + 0.5j,
                2.0 + 0.2j,
                0.3 - 0.5j,
                -1.2 - 0.1j,
                0.1 - 0.2j,
                0.5 - 0.1j,
                2.0 + 0.4j,
                1.0 - 0.3j,
                -0.4 + 0.0j,
            ],
            np.complex128,
        ).reshape((3, 4)),
        np.array(
            [
                0.54030230586814 + 0.841470984807897j,
                0.283662185463226 - 0.958924274663138j,
                -0.911130261884677 + 0.412118485241757j,
                -0.416146836547142 + 0.909297426825682j,
                0.960170286650366 - 0.279415498198926j,
                -0.839071529076452 - 0.54402111088937j,
                -0.989992496600445 + 0.141120008059867j,
                0.753902254343305 + 0.656986598718789j,
                0.00442569798805079 - 0.999990206550703j,
                -0.653643620863612 - 0.756802495307928j,
                -0.145500033808614 + 0.989358246623382j,
                0.843853958732492 - 0.536572918000435j,
            ],
            np.complex128,
        ).reshape((4, 3)),
    ],
    "norm": [
        np.array(4.89481191400338, np.float64),
        np.array(
            [
                -0.165573973635967,
                -0.149805023765874,
                -0.134036073895782,
                -0.11826712402569,
                -0.102498174155598,
                -0.0867292242855063,
                -0.0709602744154142,
                -0.0551913245453222,
                -0.0394223746752301,
                -0.0236534248051381,
                -0.00788447493504602,
                0.00788447493504602,
                0.0236534248051381,
                0.0394223746752301,
                0.0551913245453222,
                0.0709602744154142,
                0.0867292242855063,
                0.102498174155598,
                0.11826712402569,
                0.134036073895782,
                0.149805023765874,
                0.165573973635967,
                0.181342923506059,
                0.197111873376151,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "norm_fro": [
        np.array([3.00679502569274, 3.86243023845594], np.float64),
        np.array(
            [
                -0.269540641073626,
                -0.243870103828518,
                -0.218199566583411,
                -0.192529029338304,
                -0.166858492093197,
                -0.14118795484809,
                -0.115517417602982,
                -0.0898468803578752,
                -0.064176343112768,
                -0.0385058058676608,
                -0.0128352686225536,
                0.0128352686225536,
                -0.0230876201282262,
                -0.038479366880377,
                -0.0538711136325278,
                -0.0692628603846786,
                -0.0846546071368294,
                -0.10004635388898,
                -0.115438100641131,
                -0.130829847393282,
                -0.146221594145433,
                -0.161613340897583,
                -0.177005087649734,
                -0.192396834401885,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "norm_1": [
        np.array([2.78571428571429, 3.64285714285714], np.float64),
        np.array(
            [
                -0.54030230586814,
                -0.0,
                -0.0,
                -0.0,
                -0.54030230586814,
                -0.0,
                -0.0,
                -0.0,
                -0.54030230586814,
                -0.0,
                -0.0,
                0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.416146836547142,
                -0.0,
                -0.0,
                -0.0,
                -0.416146836547142,
                -0.0,
                -0.0,
                -0.0,
                -0.416146836547142,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "norm_inf": [
        np.array([5.14285714285714, 6.28571428571429], np.float64).reshape((2, 1, 1)),
        np.array(
            [
                -0.54030230586814,
                -0.54030230586814,
                -0.54030230586814,
                -0.54030230586814,
                -0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.0,
                0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.416146836547142,
                -0.416146836547142,
                -0.416146836547142,
                -0.416146836547142,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "norm_2": [
        np.array([2.99190288634573, 3.8554598318168], np.float64),
        np.array(
            [
                -0.28002908840983,
                -0.247316853194526,
                -0.214604617979222,
                -0.181892382763918,
                -0.157972758447423,
                -0.139518811176133,
                -0.121064863904842,
                -0.102610916633552,
                -0.0359164284850158,
                -0.0317207691577392,
                -0.0275251098304626,
                -0.0233294505031859,
                -0.0392761396444766,
                -0.0448930926440594,
                -0.0505100456436422,
                -0.056126998643225,
                -0.0891951344991938,
                -0.101951094805081,
                -0.114707055110969,
                -0.127463015416856,
                -0.139114129353911,
                -0.159009096966103,
                -0.178904064578295,
                -0.198799032190487,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "norm_vector_3": [
        np.array(
            [
                1.61614001403736,
                1.44137303577139,
                1.27167260151427,
                1.10665951847095,
                1.44137303577139,
                1.61614001403736,
                1.7955646115153,
                1.97897682328571,
            ],
            np.float64,
        ).reshape((2, 4)),
        np.array(
            [
                -0.46543750183873,
                0.368930823703979,
                0.902657605152055,
                0.612688073233956,
                -0.178364938346361,
                0.12365825392848,
                0.252994000059918,
                0.133429847059839,
                -0.026385345909225,
                0.00919772136658118,
                0.00312338271678911,
                -0.00272305810326202,
                0.00626953160517578,
                0.0468893522568318,
                0.0584592145414003,
                -0.0153536142748672,
                0.0842903693584744,
                0.316972021256183,
                0.268435168812552,
                -0.0547801793263782,
                0.251477878829829,
                0.827128173810512,
                0.631120908008178,
                -0.11846924594805,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "norm_vector_inf": [
        np.array(
            [
                1.5,
                0.928571428571429,
                0.357142857142857,
                0.642857142857143,
                1.21428571428571,
                1.78571428571429,
            ],
            np.float64,
        ).reshape((2, 3)),
        np.array(
            [
                -0.54030230586814,
                -0.0,
                -0.0,
                -0.0,
                0.416146836547142,
                0.0,
                0.0,
                0.0,
                0.989992496600445,
                0.0,
                0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.0,
                -0.653643620863612,
                0.0,
                0.0,
                0.0,
                0.283662185463226,
                0.0,
                0.0,
                0.0,
                0.960170286650366,
            ],
            np.float64,
        ).reshape((2, 3, 4)),
    ],
    "norm_complex": [
        np.array(
            [
                2.62106848441623 + 0.0j,
                2.42487113059643 + 0.0j,
                2.38117617995813 + 0.0j,
            ],
            np.complex128,
        ),
        np.array(
            [
                0.206138187186084 + 0.0618414561558253j,
                -0.343232125861291 + 0.0343232125861291j,
                -0.207878884589265 - 0.0415757769178529j,
                -0.206138187186084 + 0.0j,
                -0.0514848188791937 - 0.0858080314653228j,
                -0.831515538357059 + 0.166303107671412j,
                0.144296731030259 + 0.0412276374372169j,
                0.205939275516775 - 0.0171616062930646j,
                -0.415757769178529 - 0.124727330753559j,
                0.412276374372169 - 0.103069093593042j,
                -0.0171616062930646 - 0.0343232125861291j,
                0.166303107671412 + 0.0j,
            ],
            np.complex128,
        ).reshape((4, 3)),
    ],
    "expm": [
        np.array(
            [
                2.82162873381758,
                0.597223676081911,
                0.239303948891414,
                0.718761630915335,
                2.21952087862924,
                -0.312697852532858,
                0.139395930100763,
                -0.181674800900266,
                1.89299944569438,
                1.61981351732169,
                -0.372877977980934,
                0.129176288453335,
                0.189664994280974,
                1.44036420646065,
                0.0959747640232171,
                -0.118422937484978,
                0.367769029640333,
                2.12173170692291,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
        np.array(
            [
                1.07428259000247,
                -0.589645033815273,
                -1.95047872831004,
                -1.34265505976617,
                0.145308153851784,
                1.69133712052868,
                1.76392302318786,
                0.0341116773716972,
                -1.91420757362891,
                -1.17400896003921,
                -0.00397144910494774,
                1.4985484519467,
                1.3162994659444,
                0.200503895417658,
                -1.42076366491633,
                -1.69347497659578,
                -0.547702159349484,
                1.43109994357103,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
    ],
    "expm_squarings": [
        np.array(
            [
                8749.17198446051,
                4926.3788625958,
                509.743523140485,
                5980.59978481465,
                3661.9211058988,
                21.7739977331786,
                167.955814484942,
                -86.0507865805756,
                279.463011938577,
            ],
            np.float64,
        ).reshape((3, 3)),
        np.array(
            [
                515.285624290723,
                116.897852734571,
                -732.596878949622,
                -1139.60839580202,
                -971.129559826109,
                -127.780039379316,
                1680.73264622331,
                1174.0827932135,
                -336.707665697293,
            ],
            np.float64,
        ).reshape((3, 3)),
    ],
    "expm_complex": [
        np.array(
            [
                8.25270378403173 + 1.84498773111715j,
                3.07524265299054 - 0.230120329969329j,
                0.782568167658892 + 0.42500473808706j,
                3.38514627289549 + 1.04510456962973j,
                5.4358086855942 + 0.945903905389405j,
                -1.01136577073763 - 1.2190855582358j,
                0.55779268707567 - 0.27750313589204j,
                -0.75105372749905 + 0.383181322858821j,
                3.76120561796571 + 0.203747181552692j,
            ],
            np.complex128,
        ).reshape((3, 3)),
        np.array(
            [
                1.42108969914194 - 7.17398990902413j,
                -1.73843153910435 - 6.37865122745139j,
                -4.0419027215605 + 0.151236245823244j,
                -2.06506533940887 + 5.64728565151484j,
                0.423718639955282 + 5.41397066782732j,
                3.12927434684766 + 0.427904365920679j,
                2.68501931612249 - 7.32465331100587j,
                -0.811653178012954 - 6.9138563848755j,
                -4.30595224828816 - 0.408698120298432j,
            ],
            np.complex128,
        ).reshape((3, 3)),
    ],
    "expm_float32": [
        np.array(
            [
                2.82162881,
                0.597223699,
                0.239303946,
                0.718761742,
                2.21952105,
                -0.312697917,
                0.139395922,
                -0.181674808,
                1.89299953,
                1.61981344,
                -0.372878015,
                0.129176289,
                0.18966502,
                1.44036424,
                0.0959747806,
                -0.118422925,
                0.367769033,
                2.12173176,
            ],
            np.float32,
        ).reshape((2, 3, 3)),
        np.array(
            [
                1.07428265,
                -0.589645028,
                -1.95047879,
                -1.3426553,
                0.145308137,
                1.69133735,
                1.76392317,
                0.0341117159,
                -1.91420746,
                -1.17400908,
                -0.00397145282,
                1.49854851,
                1.31629956,
                0.200503916,
                -1.42076349,
                -1.69347501,
                -0.547702193,
                1.43109989,
            ],
            np.float32,
        ).reshape((2, 3, 3)),
    ],
    "pinv": [
        np.array(
            [
                0.126855579504272,
                -0.0769132729669874,
                0.218986829550514,
                0.32147018342169,
                0.329720900883336,
                0.0465243014960716,
                -0.275919625711635,
                -0.0450264306945599,
                0.107998041199415,
                0.343842886268805,
                0.267968575330316,
                0.0241334211690842,
            ],
            np.float64,
        ).reshape((3, 4)),
        np.array(
            [
                0.000803665162510493,
                0.0125516094968713,
                -0.131811759442642,
                -0.116463371197587,
                0.157653524315629,
                0.110638192635069,
                0.0466224570056184,
                -0.00540808615858086,
                0.29090993743444,
                0.0882359595923233,
                -0.156245022666673,
                0.202306035136415,
            ],
            np.float64,
        ).reshape((4, 3)),
    ],
    "pinv_rank_deficient": [
        np.array(
            [
                0.00943025540275048,
                0.018860510805501,
                -0.00943025540275049,
                0.00471512770137524,
                -0.031434184675835,
                -0.0628683693516699,
                0.031434184675835,
                -0.0157170923379175,
                0.0628683693516699,
                0.12573673870334,
                -0.0628683693516699,
                0.031434184675835,
            ],
            np.float64,
        ).reshape((3, 4)),
        np.array(
            [
                0.00325404149505717,
                0.00230332095560733,
                -0.0016748185769992,
                0.00859145918059104,
                -0.00233794539037435,
                0.0105395374491796,
                -0.00878598980432473,
                0.0161365067419512,
                -0.0352048368181179,
                0.00646077860472491,
                -0.0149608657128507,
                0.0313876430928092,
            ],
            np.float64,
        ).reshape((4, 3)),
    ],
    "eye": [
        np.array(
            [
                1.0,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
                1.0,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
            ],
            np.float64,
        ).reshape((2, 2, 3)),
    ],
    "matmul": [
        np.array(
            [
                3.15,
                7.5,
                -2.01,
                5.3,
                1.45,
                -4.6,
                -0.88,
                -1.23,
                1.63,
                1.03,
                -0.98,
                3.38,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
        np.array(
            [
                -0.291991367226145,
                -0.748375724141711,
                0.994384364854727,
                -2.29727973832767,
                0.66317068616864,
                1.01028949274709,
                2.20400275876396,
                0.196422957861957,
                -1.83524191766176,
                0.208980464392106,
                0.727442456111606,
                -0.583291383033735,
                0.153402559253646,
                -1.58959335842666,
                -0.208486219038001,
                -0.336656443895387,
                0.5955660388996,
                0.756813144066412,
            ],
            np.float64,
        ).reshape((2, 3, 3)),
        np.array(
            [
                1.05831688319099,
                -2.16090860522979,
                -2.54314005811849,
                -2.76114581379812,
                1.67230136421245,
                2.64990283295687,
                1.05091166834786,
                -0.963692019775201,
                -2.11705708877988,
                -0.438024092820071,
                0.0572217178902083,
                2.3200975602396,
            ],
            np.float64,
        ).reshape((2, 3, 2)),
    ],
}
# ---- TF numbers (end)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tensorflow_numbers(name: str) -> None:
    got = PROGRAMS[name](tf)
    want = TF_NUMBERS[name]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        tol = 2e-5 if w.dtype in (np.float32, np.complex64) else 1e-9
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


# ---- op types: what TF 2.21 records in a tf.Graph for the same call (Consts left out)

OP_TYPES = [
    (lambda x, y: tf.linalg.inv(x), "float64", ["MatrixInverse"]),
    (lambda x, y: tf.linalg.det(x), "float64", ["MatrixDeterminant"]),
    (lambda x, y: tf.linalg.slogdet(x), "float64", ["LogMatrixDeterminant"]),
    (
        lambda x, y: tf.linalg.logdet(x),
        "float64",
        ["Cholesky", "MatrixDiagPartV3", "Log", "Sum", "Mul"],
    ),
    (lambda x, y: tf.linalg.cholesky(x), "float64", ["Cholesky"]),
    (tf.linalg.cholesky_solve, "float64", ["MatrixTriangularSolve", "MatrixTriangularSolve"]),
    (tf.linalg.solve, "float64", ["MatrixSolve"]),
    (tf.linalg.triangular_solve, "float64", ["MatrixTriangularSolve"]),
    (lambda x, y: tf.linalg.qr(x), "float64", ["Qr"]),
    (lambda x, y: tf.linalg.svd(x), "float64", ["Svd"]),
    (lambda x, y: tf.linalg.svd(x), "complex128", ["Svd", "Real"]),
    (lambda x, y: tf.linalg.eigh(x), "float64", ["SelfAdjointEigV2"]),
    (lambda x, y: tf.linalg.eigvalsh(x), "float64", ["SelfAdjointEigV2"]),
    (lambda x, y: tf.linalg.trace(x), "float64", ["MatrixDiagPartV3", "Sum"]),
    (lambda x, y: tf.linalg.diag(y[:, 0]), "float64", ["StridedSlice", "MatrixDiagV3"]),
    (lambda x, y: tf.linalg.diag_part(x), "float64", ["MatrixDiagPartV3"]),
    (lambda x, y: tf.linalg.set_diag(x, y[:, 0]), "float64", ["StridedSlice", "MatrixSetDiagV3"]),
    (lambda x, y: tf.linalg.band_part(x, 1, 0), "float64", ["MatrixBandPart"]),
    (lambda x, y: tf.linalg.matrix_transpose(x), "float64", ["Transpose"]),
    (lambda x, y: tf.linalg.adjoint(x), "float64", ["Transpose"]),
    (lambda x, y: tf.linalg.adjoint(x), "complex128", ["ConjugateTranspose"]),
    (lambda x, y: tf.linalg.norm(x), "float64", ["Mul", "Sum", "Sqrt", "Squeeze"]),
    (
        lambda x, y: tf.linalg.pinv(x),
        "float64",
        [
            "Svd",
            "Max",
            "Mul",
            "ExpandDims",
            "Greater",
            "SelectV2",
            "ExpandDims",
            "RealDiv",
            "MatMul",
        ],
    ),
    (lambda x, y: tf.linalg.eye(3), "float64", ["MatrixDiagV3"]),
]


@pytest.mark.parametrize("fn,dtype,expected", OP_TYPES)
def test_op_types_are_tensorflows(fn: Any, dtype: str, expected: list[str]) -> None:
    g = tf.Graph()
    with g.as_default():
        fn(tf.placeholder(dtype, [3, 3]), tf.placeholder(dtype, [3, 2]))
    assert [
        op.type for op in g.get_operations() if op.type not in ("Placeholder", "Const")
    ] == expected


def test_lstsq_records_tensorflows_composite() -> None:
    g = tf.Graph()
    with g.as_default():
        tf.linalg.lstsq(tf.placeholder(tf.float64, [4, 3]), tf.placeholder(tf.float64, [4, 2]))
    assert [op.type for op in g.get_operations() if op.type not in ("Placeholder", "Const")] == [
        "MatMul",
        "Cholesky",
        "MatMul",
        "MatrixTriangularSolve",
        "MatrixTriangularSolve",
    ]


def test_expm_is_one_op() -> None:
    """TF 2.21 builds expm from ~300 ops and a while loop; symgrad records one op."""
    g = tf.Graph()
    with g.as_default():
        tf.linalg.expm(tf.placeholder(tf.float64, [3, 3]))
    assert [op.type for op in g.get_operations()] == ["Placeholder", "MatrixExponential"]


# ---- namespaces: TF's export lists (tf, tf.linalg, tf.compat.v1)

LINALG = [
    "adjoint",
    "band_part",
    "cholesky",
    "cholesky_solve",
    "det",
    "diag",
    "diag_part",
    "eigh",
    "eigvalsh",
    "expm",
    "eye",
    "inv",
    "logdet",
    "lstsq",
    "matmul",
    "matrix_transpose",
    "norm",
    "pinv",
    "qr",
    "set_diag",
    "slogdet",
    "solve",
    "svd",
    "trace",
    "triangular_solve",
]
V1 = {
    "matrix_inverse": "inv",
    "matrix_determinant": "det",
    "cholesky": "cholesky",
    "cholesky_solve": "cholesky_solve",
    "matrix_solve": "solve",
    "matrix_triangular_solve": "triangular_solve",
    "matrix_solve_ls": "lstsq",
    "qr": "qr",
    "svd": "svd",
    "self_adjoint_eig": "eigh",
    "self_adjoint_eigvals": "eigvalsh",
    "trace": "trace",
    "matrix_diag": "diag",
    "matrix_diag_part": "diag_part",
    "matrix_set_diag": "set_diag",
    "matrix_band_part": "band_part",
    "matrix_transpose": "matrix_transpose",
    "eye": "eye",
    "norm": "norm",
    "matmul": "matmul",
}


def test_namespaces() -> None:
    for name in LINALG:
        if name != "norm":  # TF1's norm has keep_dims (conformance/test_signatures.py)
            assert getattr(tf.linalg, name) is getattr(tf.compat.v1.linalg, name)
    assert tf.norm is tf.linalg.norm and tf.eye is tf.linalg.eye
    assert tf.matmul is tf.linalg.matmul
    for v1_name, name in V1.items():
        if v1_name != "norm":
            assert getattr(tf.compat.v1, v1_name) is getattr(tf.linalg, name), v1_name
    assert tf.compat.v1.norm is tf.compat.v1.linalg.norm  # TF1's, with keep_dims
    for v1_only in ("matrix_inverse", "self_adjoint_eig", "matrix_diag", "matrix_solve_ls"):
        assert not hasattr(tf, v1_only), f"TF2 has no tf.{v1_only}"


# ---- errors: TF's types, naming the op and the argument, at the user's call


def _placeholders(*specs: Any) -> list[Any]:
    return [tf.placeholder(d, s) for d, s in specs]


ERRORS = [
    (
        lambda: tf.linalg.inv(*_placeholders(("float32", [2, 3]))),
        ValueError,
        r"MatrixInverse op .*Dimensions must be equal, but are 2 and 3",
    ),
    (
        lambda: tf.linalg.det(*_placeholders(("float32", [3]))),
        ValueError,
        r"MatrixDeterminant op .*at least rank 2 but is rank 1 for input 'input'",
    ),
    (
        lambda: tf.linalg.solve(*_placeholders(("float32", [3, 3]), ("float32", [4, 2]))),
        ValueError,
        r"MatrixSolve op .*Dimensions must be equal, but are 3 and 4",
    ),
    (
        lambda: tf.linalg.solve(*_placeholders(("float32", [2, 3, 3]), ("float32", [3, 2]))),
        ValueError,
        r"MatrixSolve op .*same rank",
    ),
    (
        lambda: tf.linalg.triangular_solve(
            *_placeholders(("float32", [2, 3, 3]), ("float32", [4, 3, 2]))
        ),
        ValueError,
        r"MatrixTriangularSolve op .*cannot be broadcast",
    ),
    (
        lambda: tf.linalg.inv(*_placeholders(("int32", [3, 3]))),
        TypeError,
        r"MatrixInverse op .*input 'input' has dtype int32",
    ),
    (
        lambda: tf.linalg.solve(*_placeholders(("float32", [3, 3]), ("float64", [3, 2]))),
        TypeError,
        r"input 'rhs' has dtype float64 that does not match dtype float32",
    ),
    (lambda: tf.linalg.qr(*_placeholders(("int32", [3, 4]))), TypeError, r"Qr op .*int32"),
    (
        lambda: tf.linalg.svd(*_placeholders(("float32", [3]))),
        ValueError,
        r"Svd op .*at least rank 2",
    ),
    (
        lambda: tf.linalg.eigh(*_placeholders(("float32", [3, 4]))),
        ValueError,
        r"SelfAdjointEigV2 op .*Dimensions must be equal, but are 3 and 4",
    ),
    (
        lambda: tf.linalg.cholesky(*_placeholders(("float32", [3, 4]))),
        ValueError,
        r"Cholesky op .*Dimensions must be equal",
    ),
    (
        lambda: tf.linalg.matrix_transpose(*_placeholders(("float32", [3]))),
        ValueError,
        r"Argument `a` should be a \(batch\) matrix with rank >= 2",
    ),
    (
        lambda: tf.norm(*_placeholders(("float32", [3])), ord=-1),
        ValueError,
        r"'ord' must be a supported vector norm, got -1",
    ),
    (
        lambda: tf.norm(*_placeholders(("float32", [3, 3])), ord=3, axis=(0, 1)),
        ValueError,
        r"'ord' must be a supported matrix norm in \['euclidean', 'fro', 1, 2, inf\], got 3",
    ),
    (
        lambda: tf.norm(*_placeholders(("float32", [3, 3])), axis=(1, 1)),
        ValueError,
        r"'axis' must be None, an integer, or a tuple of 2 unique integers",
    ),
    (
        lambda: tf.linalg.diag_part(*_placeholders(("float32", [3, 4])), k=5),
        ValueError,
        r"MatrixDiagPartV3 op .*lower_diag_index is out of bound: 5",
    ),
    (
        lambda: tf.linalg.diag_part(*_placeholders(("float32", [3, 4])), k=(1, 0)),
        ValueError,
        r"lower_diag_index must not be larger than upper_diag_index",
    ),
    (
        lambda: tf.linalg.diag(*_placeholders(("float32", [3])), align="FOO"),
        ValueError,
        r"MatrixDiagV3 op .*align must be one of",
    ),
    (
        lambda: tf.linalg.diag(*_placeholders(("float32", [3])), num_rows=2, num_cols=2),
        ValueError,
        r"num_rows \(2\) and num_cols \(2\) are not consistent",
    ),
    (
        lambda: tf.linalg.set_diag(*_placeholders(("float32", [3, 4]), ("float32", [4]))),
        ValueError,
        r"MatrixSetDiagV3 op .*diagonal must have shape \(3,\)",
    ),
    (
        lambda: tf.linalg.lstsq(
            *_placeholders(("complex128", [4, 3]), ("complex128", [4, 2])), l2_regularizer=0.1
        ),
        NotImplementedError,
        r"disabled for complex128 and l2_regularizer != 0",
    ),
]


@pytest.mark.parametrize("build,error,match", ERRORS)
def test_bad_arguments(build: Any, error: type, match: str) -> None:
    with tf.Graph().as_default(), pytest.raises(error, match=match):
        build()


def test_runtime_errors_and_tensorflows_nan_results() -> None:
    singular = np.array([[1.0, 0.0], [1.0, 0.0]])
    with pytest.raises(InvalidArgumentError, match="Input is not invertible"):
        tf.linalg.inv(singular)
    with pytest.raises(InvalidArgumentError, match="Input matrix is not invertible"):
        tf.linalg.solve(singular, np.ones((2, 1)))
    with pytest.raises(
        InvalidArgumentError,
        match="num_lower must be negative or less or "
        r"equal to number of rows \(3\) got: 5",
    ):
        tf.linalg.band_part(np.ones((3, 4)), 5, 0)
    # TF substitutes through a singular triangle, and fills a failed Cholesky with NaN.
    np.testing.assert_equal(
        tf.linalg.triangular_solve(singular, np.ones((2, 1))).numpy(), [[1.0], [np.nan]]
    )
    np.testing.assert_equal(
        tf.linalg.triangular_solve([[0.0, 0.0], [1.0, 1.0]], [[1.0], [1.0]]).numpy(),
        [[np.inf], [-np.inf]],
    )
    chol = tf.linalg.cholesky(np.stack([np.diag([1.0, 1.0, -1.0]), S])).numpy()
    np.testing.assert_equal(chol[0], np.tril(np.full((3, 3), np.nan)))
    np.testing.assert_allclose(chol[1], np.linalg.cholesky(S))
    det_sign, log_abs = tf.linalg.slogdet(singular)
    assert det_sign.numpy() == 0 and log_abs.numpy() == -np.inf
    both = tf.linalg.expm(np.stack([np.eye(2), [[np.inf, 0.0], [0.0, 1.0]]])).numpy()
    assert np.isnan(both).all()  # TF: one non-finite matrix makes the whole batch NaN


def test_gradient_errors_as_tensorflows() -> None:
    x = tf.constant(M)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.linalg.lstsq(x, R, fast=False)
    with pytest.raises(ValueError, match="Gradient not defined for fast=False"):
        tape.gradient(y, x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        q, _r = tf.linalg.qr(x, full_matrices=True)
    with pytest.raises(NotImplementedError, match="QrGrad not implemented when nrows > ncols"):
        tape.gradient(q, x)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float64, [None, None])
        with pytest.raises(NotImplementedError, match="unknown inner matrix shape"):
            tf.gradients(tf.linalg.svd(p)[1], p)


# ---- degenerate spectra (docs/linalg.md)


def _eigvec_grad(x: np.ndarray) -> np.ndarray:
    t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(t)
        _, v = tf.linalg.eigh(t)
        loss = tf.reduce_sum(v[:, 0] * np.array([1.0, 2.0, 3.0]))
    return tape.gradient(loss, t).numpy()


def test_equal_eigenvalues_give_finite_gradients_and_close_ones_large() -> None:
    """f = 1/(e_j - e_i) is TF's x / (x² + 1e-20): 0 for equal eigenvalues, so the coupling
    inside an eigenspace is dropped (right only for losses blind to its basis); close
    eigenvalues give gradients of order 1/gap."""
    exact = _eigvec_grad(np.diag([1.0, 1.0, 2.0]))
    assert np.isfinite(exact).all()
    close = _eigvec_grad(np.diag([1.0, 1.0 + 1e-6, 2.0]))
    assert np.abs(close).max() > 1e5


def test_zero_singular_values_give_finite_gradients() -> None:
    x = tf.constant(np.outer([1.0, 2.0, -1.0, 0.5], [0.3, -1.0, 2.0]))  # rank 1
    with tf.GradientTape() as tape:
        tape.watch(x)
        s, u, v = tf.linalg.svd(x)
        loss = tf.reduce_sum(s) + tf.reduce_sum(tf.matmul(u, v, adjoint_b=True))
    assert np.isfinite(tape.gradient(loss, x).numpy()).all()


# ---- composites: second-order checks against finite differences


def _away(*shape: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    return np.sign(rng.standard_normal(shape)) * rng.uniform(0.2, 2.0, shape)


COMPOSITES = [
    (tf.linalg.norm, [_away(2, 3, 4)]),
    (lambda x: tf.norm(x, "fro", axis=(0, 2), keepdims=True), [_away(2, 3, 4)]),
    (lambda x: tf.norm(x, 1, axis=(-2, -1)), [_away(2, 3, 4)]),
    (lambda x: tf.norm(x, np.inf, axis=(-2, -1)), [_away(2, 3, 4)]),
    (lambda x: tf.norm(x, 1, axis=-1), [_away(2, 3, 4)]),
    (lambda x: tf.norm(x, 3.5, axis=1), [_away(2, 3, 4)]),
    (lambda x: tf.norm(x, np.inf, axis=0), [_away(2, 3, 4)]),
    (lambda x: tf.norm(x, axis=0), [MC]),
    (tf.linalg.matrix_transpose, [X]),
    (lambda x: tf.linalg.matrix_transpose(x, conjugate=True), [MC]),
    (tf.linalg.adjoint, [MC]),
    (tf.linalg.trace, [XF]),
    (lambda x: tf.linalg.logdet(x + tf.linalg.adjoint(x)), [S2]),
    (lambda x: tf.linalg.eye(2, 3, dtype=tf.float64) * x, [_away(2, 3)]),
]


@pytest.mark.parametrize("fn,args", COMPOSITES)
def test_composite_gradients(fn: Any, args: list[np.ndarray]) -> None:
    tf.test.check_vjp(fn, args, order=2, rng=3)


def test_eye_and_unknown_shapes() -> None:
    np.testing.assert_array_equal(
        tf.eye(2, 3, batch_shape=[2]).numpy(), np.broadcast_to(np.eye(2, 3), (2, 2, 3))
    )
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float64, None)
        e, _v = tf.linalg.eigh(p)
        s, _u, _w = tf.linalg.svd(p)
        n = tf.norm(p, 2, axis=(-1, -2))
        grad = tf.gradients(tf.reduce_sum(tf.linalg.eigvalsh(p)), p)[0]
        x = XF[:, :, :3] + np.swapaxes(XF[:, :, :3], -1, -2)
        with tf.Session() as sess:
            got = sess.run([e, s, n, grad, tf.linalg.trace(p)], {p: x})
    np.testing.assert_allclose(got[0], np.linalg.eigvalsh(x))
    np.testing.assert_allclose(got[1], np.linalg.svd(x, compute_uv=False))
    np.testing.assert_allclose(got[2], np.linalg.norm(x, 2, axis=(-2, -1)))
    np.testing.assert_allclose(got[3], np.broadcast_to(np.eye(3), x.shape), atol=1e-12)
    np.testing.assert_allclose(got[4], np.trace(x, axis1=-2, axis2=-1))


def test_half_precision_is_computed_in_float32() -> None:
    a = A2.astype(np.float16)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float16, [2, 3, 3])
        outs = [
            tf.linalg.inv(p),
            tf.linalg.det(p),
            tf.linalg.expm(p / 4),
            tf.linalg.cholesky(tf.matmul(p, p, transpose_b=True)),
        ]
        with tf.Session() as sess:
            values = sess.run(outs, {p: a})
    assert all(v.dtype == np.float16 for v in values)
    np.testing.assert_allclose(values[0], np.linalg.inv(A2), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(values[1], np.linalg.det(A2), rtol=2e-3)


# ---- batching rules of the linalg records: one vectorised run equals the loop

LINALG_RECORDS = [
    "ConjugateTranspose",
    "MatrixBandPart",
    "MatrixDiagV3",
    "MatrixDiagPartV3",
    "MatrixSetDiagV3",
    "MatrixInverse",
    "MatrixDeterminant",
    "LogMatrixDeterminant",
    "Cholesky",
    "MatrixSolve",
    "MatrixTriangularSolve",
    "MatrixSolveLs",
    "MatrixExponential",
    "Qr",
    "Svd",
    "SelfAdjointEigV2",
]


def _batch_rows() -> list[Any]:
    rows = []
    for op_type in LINALG_RECORDS:
        assert callable(OPS[op_type].batch), f"{op_type} has no batching rule"
        for case in OPS[op_type].cases:
            dtype = np.float64 if np.float64 in case.dtypes else case.dtypes[-1]
            for i, a in enumerate(case.arrays(dtype)):
                if a.dtype.kind in "fc" and (case.diff is None or i in case.diff):
                    rows.append(
                        pytest.param(
                            op_type, case, dtype, i, id=f"{op_type}-{case.name or 'case'}-arg{i}"
                        )
                    )
    return rows


@pytest.mark.parametrize("op_type,case,dtype,i", _batch_rows())
def test_batching_rule_equals_the_loop(op_type: str, case: Any, dtype: Any, i: int) -> None:
    batching_tests.test_vectorised_equals_the_loop(op_type, case, dtype, i)
