"""Random stateful programs for differential testing against TensorFlow.

``generate(seed)`` draws 2-4 variables (float32/float64, shapes ``()``, ``(3,)``,
``(2, 3)``), a loss that couples them (products, slices, gathers, reductions, ``where``)
and one update mode:

- ``tf1_assign``: a TF1 graph, ``gradients`` and one grouped ``assign*`` per variable,
  the update and the loss fetched in one ``Session.run``;
- ``v1_opt``: a ``compat.v1.train`` optimizer's ``minimize``, with or without a
  ``global_step``;
- ``keras_eager`` / ``keras_function``: a ``tf.keras.optimizers`` optimizer's
  ``apply_gradients`` after a ``GradientTape``, eagerly or inside ``tf.function``;
- ``stmts_eager`` / ``stmts_function`` / ``stmts_tf1``: a list of statements that read
  and write the variables in turn (``assign*`` whose result is used later, scatter
  updates, reads, a ``cond`` whose branches assign, a ``while_loop`` whose body assigns,
  with and without ``control_dependencies`` on its loop variable), eagerly, inside
  ``tf.function``, or in a TF1 graph where each statement is ordered after the one
  before by ``control_dependencies``.

``execute(tf, program)`` runs three steps on either library and returns the values it
fetched at each step and the variables' values at the end, as NumPy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Shape = tuple[int, ...]
SHAPES: tuple[Shape, ...] = ((), (3,), (2, 3))
MODES = (
    "tf1_assign",
    "v1_opt",
    "keras_eager",
    "keras_function",
    "stmts_eager",
    "stmts_function",
    "stmts_tf1",
)
STEPS = 3


@dataclass(frozen=True)
class Program:
    seed: int
    dtypes: tuple[str, ...]
    inits: tuple[np.ndarray, ...]
    terms: tuple[tuple[Any, ...], ...]  # (kind, var index/view, var index/view, const)
    mode: str
    params: tuple[Any, ...]  # mode-specific: optimizer and its arguments, or statements

    def __str__(self) -> str:
        shapes = [a.shape for a in self.inits]
        return f"stateful#{self.seed} {self.mode} {list(self.dtypes)} {shapes} {self.params}"


# --------------------------------------------------------------------------------------
# Losses: scalar views of a variable, combined in pairs

VIEWS: dict[str, Callable[[Any, Any], Any]] = {
    "sum": lambda tf, v: tf.reduce_sum(v),
    "mean": lambda tf, v: tf.reduce_mean(v),
    "sumsq": lambda tf, v: tf.reduce_sum(v * v),
    "max": lambda tf, v: tf.reduce_max(v),
    "prod": lambda tf, v: tf.reduce_prod(v),
    "first": lambda tf, v: tf.reduce_sum(v[0]),
    "tail": lambda tf, v: tf.reduce_sum(v[1:]),
    "gather": lambda tf, v: tf.reduce_sum(tf.gather(v, [v.shape[0] - 1, 0])),
}
RANKED_VIEWS = ("first", "tail", "gather")  # need rank >= 1


def _view(tf: Any, vs: list[Any], ref: tuple[int, str], dtype: Any) -> Any:
    i, kind = ref
    return tf.cast(VIEWS[kind](tf, vs[i]), dtype)


def _term(tf: Any, vs: list[Any], term: tuple[Any, ...], dtype: Any) -> Any:
    kind, a, b, c = term
    if kind == "elem":  # every pair of SHAPES broadcasts
        return tf.reduce_sum(tf.cast(vs[a], dtype) * tf.cast(vs[b], dtype)) * c
    x, y = _view(tf, vs, a, dtype), _view(tf, vs, b, dtype)
    if kind == "mul":
        return x * y * c
    if kind == "sq":
        return (x - c) ** 2
    if kind == "sin_mul":
        return tf.sin(x) * y
    if kind == "where":
        return tf.where(x > y * c, x * y, x * x)
    raise ValueError(kind)


def loss_of(tf: Any, program: Program, vs: list[Any]) -> Any:
    dtype = getattr(tf, program.dtypes[0])
    anchor = [tf.reduce_sum(tf.cast(v, dtype) ** 2) * 0.1 for v in vs]
    return tf.add_n([_term(tf, vs, t, dtype) for t in program.terms] + anchor)


# --------------------------------------------------------------------------------------
# Drawing a program


def _pick(rng: np.random.Generator, seq: Any) -> Any:
    return seq[int(rng.integers(len(seq)))]


def _ref(rng: np.random.Generator, shapes: list[Shape]) -> tuple[int, str]:
    i = int(rng.integers(len(shapes)))
    kinds = list(VIEWS) if shapes[i] else [k for k in VIEWS if k not in RANKED_VIEWS]
    return i, _pick(rng, kinds)


def _const(rng: np.random.Generator, shape: Shape) -> np.ndarray:
    return np.round(rng.uniform(-1.0, 1.0, shape), 2)


def _draw_terms(rng: np.random.Generator, shapes: list[Shape]) -> list[tuple[Any, ...]]:
    n = len(shapes)
    terms: list[tuple[Any, ...]] = []
    for _ in range(int(rng.integers(2, 5))):
        kind = _pick(rng, ("elem", "mul", "sq", "sin_mul", "where"))
        c = float(np.round(rng.uniform(0.3, 1.5), 2))
        if kind == "elem":
            terms.append((kind, int(rng.integers(n)), int(rng.integers(n)), c))
        else:
            terms.append((kind, _ref(rng, shapes), _ref(rng, shapes), c))
    return terms


V1_OPTIMIZERS = ("GradientDescent", "Momentum", "Adam", "Adagrad", "RMSProp")
KERAS_OPTIMIZERS = ("SGD", "Adam", "AdamW", "Adamax", "Nadam", "RMSprop", "Adagrad")


def _draw_optimizer(rng: np.random.Generator, mode: str) -> tuple[Any, ...]:
    lr = float(_pick(rng, (0.05, 0.1, 0.2)))
    if mode == "v1_opt":
        name = _pick(rng, V1_OPTIMIZERS)
        extra: dict[str, Any] = {}
        if name == "Momentum":
            extra = {"momentum": 0.9, "use_nesterov": bool(rng.integers(2))}
        elif name == "RMSProp":
            extra = {"momentum": float(_pick(rng, (0.0, 0.5))), "centered": bool(rng.integers(2))}
        return name, lr, tuple(sorted(extra.items())), bool(rng.integers(2))
    name = _pick(rng, KERAS_OPTIMIZERS)
    extra = {}
    if name == "SGD":
        extra = {"momentum": float(_pick(rng, (0.0, 0.9))), "nesterov": bool(rng.integers(2))}
    elif name == "RMSprop":
        extra = {"momentum": float(_pick(rng, (0.0, 0.5))), "centered": bool(rng.integers(2))}
    elif name == "Adam":
        extra = {"amsgrad": bool(rng.integers(2))}
    return name, lr, tuple(sorted(extra.items()))


STATEMENTS = (
    "read",
    "assign",
    "assign_used",
    "scatter",
    "cond",
    "while",
    "while_cd",
    "slice_assign",
)
# ``v[key].assign(...)`` keys by the variable's rank.
SLICE_KEYS: dict[int, tuple[Any, ...]] = {
    1: (0, -1, slice(1, None), slice(None, None, 2), slice(None, None, -1)),
    2: (
        0,
        (slice(None), 1),
        (Ellipsis, slice(0, 2)),
        (1, slice(None, None, -1)),
        (slice(None), slice(None, None, 2)),
        (-1, None),
    ),
}


def _draw_statement(rng: np.random.Generator, shapes: list[Shape]) -> tuple[Any, ...]:
    kind = _pick(rng, STATEMENTS)
    i = int(rng.integers(len(shapes)))
    if kind == "read":
        return kind, _ref(rng, shapes)
    if kind in ("assign", "assign_used"):
        how = _pick(rng, ("assign", "assign_add", "assign_sub"))
        return kind, i, how, _const(rng, shapes[i]), _ref(rng, shapes)
    if kind == "scatter":
        ranked = [j for j, s in enumerate(shapes) if s]
        if not ranked:
            return "read", _ref(rng, shapes)
        j = _pick(rng, ranked)
        rows = [int(k) for k in rng.permutation(shapes[j][0])[: int(rng.integers(1, 3))]]
        how = _pick(rng, ("scatter_update", "scatter_add", "scatter_sub"))
        vals = _const(rng, (len(rows),) + shapes[j][1:])
        return kind, j, how, tuple(rows), vals
    if kind == "slice_assign":
        ranked = [j for j, s in enumerate(shapes) if s]
        if not ranked:
            return "read", _ref(rng, shapes)
        j = _pick(rng, ranked)
        key = _pick(rng, SLICE_KEYS[len(shapes[j])])
        shape = np.empty(shapes[j])[key].shape
        return kind, j, key, _const(rng, shape), _ref(rng, shapes)
    # cond / while: assign in a branch or body; a while starts from a view of another
    # variable (TF1's While may hold a slice of the variable it writes by reference)
    ref = _ref(rng, shapes)
    while kind != "cond" and ref[0] == i:
        ref = _ref(rng, shapes)
    return kind, i, _const(rng, shapes[i]), _const(rng, shapes[i]), ref


def generate(seed: int) -> Program:
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(2, 5))
    shapes = [_pick(rng, SHAPES) for _ in range(n)]
    dtypes = tuple(_pick(rng, ("float32", "float64")) for _ in range(n))
    inits = tuple(_const(rng, s) for s in shapes)
    mode = MODES[seed % len(MODES)]
    params: tuple[Any, ...]
    if mode == "tf1_assign":
        params = tuple(_pick(rng, ("assign", "assign_add", "assign_sub")) for _ in range(n))
    elif mode in ("v1_opt", "keras_eager", "keras_function"):
        params = _draw_optimizer(rng, mode)
    else:
        params = tuple(_draw_statement(rng, shapes) for _ in range(int(rng.integers(3, 7))))
    terms = tuple(_draw_terms(rng, shapes))
    return Program(seed, dtypes, inits, terms, mode, params)
