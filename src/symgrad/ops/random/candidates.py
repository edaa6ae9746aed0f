"""Candidate sampling: ``tf.random.{log_uniform,uniform}_candidate_sampler`` and
``tf.nn.compute_accidental_hits``, with TF's draws.

A sampler op is a stateful Philox stream as TF's ``GuardedPhiloxRandom``: each run reserves
``2048 * num_sampled`` words (512 blocks per sample) and reads them one at a time, as TF's
``SimplePhilox`` does: a log-uniform draw is ``floor(exp(u * log(range + 1))) - 1`` with ``u``
a double made of two words, a uniform one is a 64-bit word pair modulo ``range_max``.  With
``unique`` a value already drawn is drawn again (rejection), and the expected counts become
``1 - (1 - p)^tries`` (float32, as TF's ``ExpectedCountHelper``, within an ulp); without,
``p * num_sampled``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, fixed
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op, constant_value, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.random import philox
from symgrad.ops.random.seeded import _seed_attrs, _stateful_op, set_seed

_F32 = np.float32


class Sampled(NamedTuple):
    """A candidate sampler's result, named as TF's."""

    sampled_candidates: Tensor
    true_expected_count: Tensor
    sampled_expected_count: Tensor


class AccidentalHits(NamedTuple):
    indices: Tensor
    ids: Tensor
    weights: Tensor


def _words(key: int, counter: int) -> Iterator[int]:
    """The stream's 32-bit words in order, from (key, counter) on, without end."""
    start = 0
    while True:
        offsets = np.arange(start, start + 64, dtype=np.uint64)
        yield from philox.blocks_at(key, counter, offsets).reshape(-1).tolist()
        start += 64


def _log_uniform(words: Iterator[int], range_max: int) -> int:
    hi, lo = int(next(words)), int(next(words))
    u = float(np.uint64(0x3FF00000_00000000 | (hi & 0xFFFFF) << 32 | lo).view(np.float64)) - 1.0
    return (int(np.exp(u * np.log1p(float(range_max)))) - 1) % range_max


def _uniform(words: Iterator[int], range_max: int) -> int:
    lo, hi = int(next(words)), int(next(words))
    return (lo | hi << 32) % range_max


def _log_uniform_p(values: np.ndarray, range_max: int) -> np.ndarray:
    v = values.astype(np.float64)
    return (np.log((v + 2.0) / (v + 1.0)) / np.log1p(float(range_max))).astype(_F32)


def _uniform_p(values: np.ndarray, range_max: int) -> np.ndarray:
    return np.full(values.shape, _F32(1.0 / range_max), _F32)


_SAMPLERS = {
    "LogUniformCandidateSampler": (_log_uniform, _log_uniform_p),
    "UniformCandidateSampler": (_uniform, _uniform_p),
}


def _expected(p: np.ndarray, num_sampled: int, tries: int) -> np.ndarray:
    """TF's ExpectedCountHelper: p·n, or 1 - (1 - p)^tries as -expm1(t·log1p(-p)), in float32.

    TF calls libm's log1pf and expm1f; these are each rounded once from double here, which
    can differ from libm's by an ulp (docs/semantics.md)."""
    if tries == num_sampled:
        return (p * _F32(num_sampled)).astype(_F32)
    log1p = np.log1p(-p.astype(np.float64)).astype(_F32)
    return (-np.expm1((_F32(tries) * log1p).astype(np.float64))).astype(_F32)


def _sampler_infer(
    inputs: Sequence[Tensor], *, num_true: int, num_sampled: int, **_: Any
) -> list[Spec]:
    (true,) = inputs
    if true.dtype is not dt.int64:
        raise TypeError(f"true_classes must be int64, got {true.dtype.name}")
    if true.shape.rank not in (2, None):
        raise ShapeError(f"Shape must be rank 2 but is rank {true.shape.rank}")
    batch = true.shape[0] if true.shape.rank == 2 else None
    return [
        (TensorShape([num_sampled]), dt.int64),
        (TensorShape([batch, num_true]), dt.float32),
        (TensorShape([num_sampled]), dt.float32),
    ]


def _sampler_fill(op_type: str) -> Any:
    draw, prob = _SAMPLERS[op_type]

    def fill(
        stream: philox.Stream,
        true: np.ndarray,
        *,
        num_true: int,
        num_sampled: int,
        unique: bool,
        range_max: int,
    ) -> tuple[np.ndarray, ...]:
        if true.ndim != 2:
            raise InvalidArgumentError("true_classes must be a matrix")
        if true.shape[1] != num_true:
            raise InvalidArgumentError(
                f"true_classes must have num_true columns, expected: {true.shape[1]} "
                f"was: {num_true}"
            )
        if unique and num_sampled > range_max:
            raise InvalidArgumentError("Sampler's range is too small.")
        words = _words(stream.key, stream.reserve(512 * num_sampled))
        picked: list[int] = []
        used: set[int] = set()
        tries = 0
        while len(picked) < num_sampled:
            tries += 1
            value = draw(words, range_max)
            if not unique or value not in used:
                used.add(value)
                picked.append(value)
        sampled = np.asarray(picked, np.int64).reshape(num_sampled)
        return (
            sampled,
            _expected(prob(true, range_max), num_sampled, tries),
            _expected(prob(sampled, range_max), num_sampled, tries),
        )

    return fill


_TRUE = fixed([[1, 7], [3, 4]], np.int64)
# TF 2.21's first draw with seed=3 (no global seed): candidates and expected counts.
_REFS = {
    "LogUniformCandidateSampler": (
        np.asarray([0, 6, 4, 1, 5], np.int64),
        np.asarray([[0.67090797, 0.26080999], [0.44348505, 0.37779146]], _F32),
        np.asarray([0.87088406, 0.29091868, 0.37779146, 0.67090797, 0.32878873], _F32),
    ),
    "UniformCandidateSampler": (
        np.asarray([5, 0, 3, 8, 7], np.int64),
        np.full((2, 2), 0.5, _F32),
        np.full(5, 0.5, _F32),
    ),
}


def _first_draw(op_type: str) -> Any:
    def call(t: Tensor) -> Sampled:
        set_seed(None)
        return _sample(op_type, t, 2, 5, True, 10, 3, None)

    return call


for _type in _SAMPLERS:
    _stateful_op(
        _type,
        _sampler_infer,
        _sampler_fill(_type),
        [
            Case(
                [_TRUE],
                lambda t, _ref=_REFS[_type]: _ref,  # type: ignore[misc]
                _first_draw(_type),
                dtypes=(np.int64,),
                order=0,
                note="integer draws",
            )
        ],
    )


def _sample(
    op_type: str,
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None,
    name: str | None,
) -> Sampled:
    t = convert_to_tensor(true_classes, dtype_hint=dt.int64)
    attrs = {
        "num_true": int(num_true),
        "num_sampled": int(num_sampled),
        "unique": bool(unique),
        "range_max": int(range_max),
        **_seed_attrs(seed),
    }
    op = apply_op(op_type, [t], attrs, name)
    return Sampled(op.output(0), op.output(1), op.output(2))


def log_uniform_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> Sampled:
    """Classes drawn from the log-uniform (Zipfian) distribution over [0, range_max)
    (op ``LogUniformCandidateSampler``), with the expected count of each true and sampled
    class."""
    return _sample(
        "LogUniformCandidateSampler",
        true_classes,
        num_true,
        num_sampled,
        unique,
        range_max,
        seed,
        name,
    )


def uniform_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> Sampled:
    """Classes drawn uniformly from [0, range_max) (op ``UniformCandidateSampler``)."""
    return _sample(
        "UniformCandidateSampler",
        true_classes,
        num_true,
        num_sampled,
        unique,
        range_max,
        seed,
        name,
    )


# -------------------------------------------------------------------------------------
# ComputeAccidentalHits: where a sampled class is one of the row's true classes


def _hits_infer(inputs: Sequence[Tensor], *, num_true: int, **_: Any) -> list[Spec]:
    true, sampled = inputs
    known = [constant_value(t) for t in inputs]
    if known[0] is not None and known[1] is not None:
        n = len(_hits_kernel(known[0], known[1], num_true=num_true)[0])
        return [(TensorShape([n]), d) for d in (dt.int32, dt.int64, dt.float32)]
    for t, what in ((true, "true_classes"), (sampled, "sampled_candidates")):
        if t.dtype is not dt.int64:
            raise TypeError(f"{what} must be int64, got {t.dtype.name}")
    if true.shape.rank not in (2, None):
        raise ShapeError(f"Shape must be rank 2 but is rank {true.shape.rank}")
    if sampled.shape.rank not in (1, None):
        raise ShapeError(f"Shape must be rank 1 but is rank {sampled.shape.rank}")
    return [
        (TensorShape([None]), dt.int32),
        (TensorShape([None]), dt.int64),
        (TensorShape([None]), dt.float32),
    ]


def _hits_kernel(
    true: np.ndarray, sampled: np.ndarray, *, num_true: int, **_: Any
) -> tuple[np.ndarray, ...]:
    """Row i, the last position of each sampled class equal to one of row i's true classes
    (TF's map keeps the last), and weight -FLT_MAX."""
    if true.ndim != 2 or true.shape[1] != num_true:
        raise InvalidArgumentError("true_candidates must be a batch_size * num_true matrix")
    if sampled.ndim != 1:
        raise InvalidArgumentError(
            "sampled_candidates must be a vector, which is typically an output from "
            "CandidateSampler"
        )
    pos = {int(c): j for j, c in enumerate(sampled.tolist())}
    hits = [(i, pos[c]) for i, row in enumerate(true.tolist()) for c in row if c in pos]
    rows = np.asarray([h[0] for h in hits], np.int32)
    ids = np.asarray([h[1] for h in hits], np.int64)
    return rows, ids, np.full(len(hits), -np.finfo(_F32).max, _F32)


HITS = register_op(
    "ComputeAccidentalHits",
    _hits_infer,
    _hits_kernel,
    batch="its output length depends on the values: there is no batched form",
    cases=[
        Case(
            [_TRUE, fixed([7, 1, 2, 7], np.int64)],
            lambda t, s: (
                np.asarray([0, 0], np.int32),
                np.asarray([1, 3], np.int64),
                np.full(2, -np.finfo(_F32).max, _F32),
            ),
            attrs={"num_true": 2, "seed": 0, "seed2": 0},
            dtypes=(np.int64,),
            order=0,
            note="integer positions; no gradient in TF",
        )
    ],
)
HITS.no_gradient()


def compute_accidental_hits(
    true_classes: Any,
    sampled_candidates: Any,
    num_true: int,
    seed: int | None = None,
    name: str | None = None,
) -> AccidentalHits:
    """``(indices, ids, weights)``: for each row ``i`` and sampled position ``j`` whose class
    is one of row ``i``'s true classes, ``i``, ``j`` and ``-FLT_MAX`` (op
    ``ComputeAccidentalHits``)."""
    t = convert_to_tensor(true_classes, dtype_hint=dt.int64)
    s = convert_to_tensor(sampled_candidates, dtype_hint=dt.int64)
    attrs = {"num_true": int(num_true), **_seed_attrs(seed)}
    op = apply_op("ComputeAccidentalHits", [t, s], attrs, name)
    return AccidentalHits(op.output(0), op.output(1), op.output(2))
