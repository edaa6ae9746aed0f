"""Check registered gradient rules by op type, and lint the gradient registry.

``check_gradients()`` runs ``symgrad.test.check_gradient`` on sample inputs for each op
type: the count, shapes and dtypes of what the rule returns (operands of different shapes
where the op broadcasts, so a missing un-broadcast shows), its values against float64
central differences, and the second order.  It returns a ``Report`` that prints as a table.
``lint_registry()`` lists differentiable op types without a rule, rules whose name is no op
type, and gradient_override_map entries naming no rule.  ``python -m symgrad
check-gradients`` runs both (see docs/check_gradients.md).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symgrad.api.testing import (
    GradientCheckError,
    check_gradient,
    compute_gradient,
    max_error,
    widen,
)
from symgrad.core import op_registry
from symgrad.core.cases import Case, positive
from symgrad.core.context import init_scope
from symgrad.core.gradient_registry import gradient_registry
from symgrad.core.graph import Graph, Tensor, get_default_graph
from symgrad.core.op_registry import OPS, apply_op
from symgrad.ops.core import constant

__all__ = ["Finding", "Report", "Row", "Sample", "check_gradients", "lint_registry"]


@dataclass(frozen=True)
class Sample:
    """One way to call an op: ``inputs`` (arrays, or ``fn(rng) -> array``) and ``attrs``.

    ``diff`` picks the inputs to differentiate (default: every float/complex one);
    ``order`` is the highest derivative order checked; ``note`` says why it is limited.
    ``fn(*tensors)`` builds the op where applying it by type cannot (an op-table case's
    wrapper: a cond or a loop, whose traced branches no attrs can give).
    """

    inputs: Sequence[Any]
    attrs: dict[str, Any] = field(default_factory=dict)
    diff: Sequence[int] | None = None
    order: int = 2
    note: str = ""
    fn: Callable[..., Any] | None = None

    def arrays(self, rng: np.random.Generator) -> list[np.ndarray]:
        return [np.asarray(g(rng) if callable(g) else g) for g in self.inputs]


SampleSpec = Sample | Sequence[Any]

# Generic inputs for an op type without a sample: arities 1-3, then broadcasting shapes.
Shapes = list[tuple[int, ...]]
_PROBE_SHAPES: list[Shapes] = [[(3, 4)], [(5,)], [()], [(3, 4)] * 2, [(3, 4), (4, 5)], [(3, 4)] * 3]
_BROADCAST_SHAPES: dict[int, Shapes] = {2: [(2, 3, 4), (3, 1)], 3: [(2, 3, 4), (3, 1), (4,)]}
_DELTA = 1e-6  # central-difference step for the max-error column (float64)


@dataclass(frozen=True)
class Row:
    """The result for one op type: ``status`` is ``"OK"``, ``"FAIL"`` or ``"SKIP"``.

    ``checked`` lists what was checked (on FAIL: ``"failed: <check>"``), ``max_error`` is
    the largest gap between the rule's Jacobian and central differences (float64), and
    ``detail`` is the failure message or the reason for a skip.
    """

    op_type: str
    status: str
    checked: str = ""
    max_error: float | None = None
    detail: str = ""


@dataclass(frozen=True)
class Finding:
    """A registry lint finding: ``kind`` names the problem, ``message`` says what to do."""

    kind: str
    name: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


@dataclass
class Report:
    """Rows (one per op type) and lint findings; ``str(report)`` is an aligned table."""

    rows: list[Row] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def failed(self) -> list[Row]:
        return [r for r in self.rows if r.status == "FAIL"]

    @property
    def ok(self) -> bool:
        return not self.failed

    def row(self, op_type: str) -> Row:
        return next(r for r in self.rows if r.op_type == op_type)

    def __str__(self) -> str:
        return "\n".join(_table(self.rows) + _notes(self) + [_summary(self)])


# --------------------------------------------------------------------------------------
# check_gradients


def check_gradients(
    op_types: str | Iterable[str] | Mapping[str, SampleSpec] | None = None,
    *,
    module: str | Sequence[str] | None = None,
    samples: Mapping[str, SampleSpec] | None = None,
    lint: bool = True,
    order: int = 2,
    seed: int = 0,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> Report:
    """Check the gradient rules of ``op_types`` (default: every op type with a rule).

    ``module`` names modules to import first, so their ``custom_op`` / ``RegisterGradient``
    calls run.  ``op_types`` may map op types to samples, as ``samples`` does: a list of
    input arrays, a ``Sample(inputs, attrs=..., diff=..., order=...)`` or a list of them.
    Op types without a sample use symgrad's own table, else generic float64 inputs of a
    few shapes (SKIP with the reason when none fits).  ``lint`` adds ``lint_registry()``.

    >>> import symgrad as tf
    >>> print(tf.tools.check_gradients(["Mul"], lint=False).row("Mul").status)
    OK
    """
    for name in [module] if isinstance(module, str) else list(module or ()):
        importlib.import_module(name)
    given = dict(samples or {})
    if isinstance(op_types, Mapping):
        given.update(op_types)
    names = _op_types(op_types, given)
    report = Report()
    for op_type in names:
        report.rows.append(_check_op(op_type, given.get(op_type), order, seed, rtol, atol))
    if lint:
        report.findings = lint_registry(samples=given)
    return report


def _op_types(op_types: Any, given: Mapping[str, Any]) -> list[str]:
    if op_types is None:
        return sorted(t for t in OPS if t in gradient_registry and gradient_registry.lookup(t))
    names = [op_types] if isinstance(op_types, str) else list(op_types)
    unknown = [t for t in names if t not in OPS and t not in gradient_registry]
    if unknown:
        hints = {t: difflib.get_close_matches(t, list(OPS), 1) for t in unknown}
        said = ", ".join(
            f"'{t}'" + (f" (did you mean '{h[0]}'?)" if h else "") for t, h in hints.items()
        )
        raise ValueError(
            f"check_gradients: unknown op type(s) {said}: no op of that type is "
            "registered and no gradient rule has that name"
        )
    return names


def _check_op(
    op_type: str, spec: SampleSpec | None, order: int, seed: int, rtol: float, atol: float
) -> Row:
    if op_type not in OPS:
        return Row(
            op_type,
            "SKIP",
            detail="not an op type: a rule used through "
            "gradient_override_map; check it with symgrad.test.check_gradient on a "
            "function whose op it overrides",
        )
    if op_type in gradient_registry and gradient_registry.lookup(op_type) is None:
        return Row(op_type, "SKIP", detail="registered as NoGradient: no rule to check")
    generic = False
    cases = _as_samples(op_type, spec) if spec is not None else _samples(op_type)
    if (not cases or (spec is None and OPS[op_type].no_rule_check)) and skip_reason(op_type):
        return Row(op_type, "SKIP", detail=skip_reason(op_type))
    if not cases:
        cases, reason = _generic_samples(op_type, seed)
        if not cases:
            return Row(op_type, "SKIP", detail=reason)
        generic = True
    return _run_cases(op_type, cases, generic, order, seed, rtol, atol)


def _as_samples(op_type: str, spec: SampleSpec) -> list[Sample]:
    if isinstance(spec, Sample):
        return [spec]
    if isinstance(spec, Sequence) and not isinstance(spec, str):
        items = list(spec)
        if items and all(isinstance(s, Sample) for s in items):
            return items
        if items and not any(isinstance(s, Sample) for s in items):
            return [Sample(tuple(items))]
    raise TypeError(
        f"check_gradients: the sample for '{op_type}' must be a list of input "
        f"arrays, a Sample or a list of Samples, got {spec!r}"
    )


def skip_reason(op_type: str) -> str:
    """Why a built-in op with a rule has no sample to check it on: its record says so
    (``no_cases``, or the notes of op-table cases that are not differentiated)."""
    opdef = OPS.get(op_type)
    if opdef is None or opdef.type not in op_registry.BUILTIN_OPS:
        return ""
    if opdef.no_cases or opdef.no_rule_check or any(c.order >= 1 for c in opdef.cases):
        return opdef.no_cases or opdef.no_rule_check
    return "; ".join(c.note for c in opdef.cases if c.note)


def _samples(op_type: str) -> list[Sample]:
    """symgrad's own samples for an op type: the differentiable op-table cases of its
    record, applied by type (only those without a ``fn`` where it has some: a ``fn`` may
    set attrs of its own), else built by their ``fn``."""
    cases = [c for c in OPS[op_type].cases if c.order >= 1] if op_type in OPS else []
    return [_case_sample(c) for c in [c for c in cases if c.fn is None] or cases]


def _case_sample(case: Case) -> Sample:
    d = case.grad_dtype
    return Sample(
        tuple(lambda rng, g=g: g(rng, d) for g in case.inputs),
        dict(case.attrs),
        case.diff,
        case.order,
        case.note,
        case.fn,
    )


def _run_cases(
    op_type: str,
    cases: list[Sample],
    generic: bool,
    order: int,
    seed: int,
    rtol: float,
    atol: float,
) -> Row:
    checked: list[str] = ["count", "shape", "dtype"]
    worst = 0.0
    notes = [c.note for c in cases if c.note]
    for j, sample in enumerate(cases):
        arrays = sample.arrays(np.random.default_rng(seed))
        n = min(order, sample.order)
        try:
            with init_scope():
                check_gradient(
                    sample.fn or op_type,
                    *arrays,
                    attrs=sample.attrs,
                    order=n,
                    diff=sample.diff,
                    rng=seed,
                    rtol=rtol,
                    atol=atol,
                )
                worst = max(worst, _max_error(op_type, arrays, sample))
        except Exception as e:  # a broken user op must not stop the rest of the report
            return _failed(
                op_type,
                e,
                generic,
                ""
                if len(cases) == 1
                else f"sample {j + 1} of {len(cases)} (input shapes {[a.shape for a in arrays]}): ",
            )
        checked += ["broadcast"] * _broadcasts(op_type, arrays, sample) + ["values"]
        checked += [f"order{k}" for k in range(2, n + 1)]
    if generic:
        shapes = " and ".join(
            str([a.shape for a in c.arrays(np.random.default_rng(seed))]) for c in cases
        )
        notes.append(
            f"generic float64 inputs in [0.5, 2] of shapes {shapes} (pass "
            f"samples={{'{op_type}': [...]}} to choose them)"
        )
    known = ["count", "shape", "dtype", "broadcast", "values"]
    checked.sort(key=lambda c: known.index(c) if c in known else len(known))
    return Row(
        op_type, "OK", " ".join(dict.fromkeys(checked)), worst, "; ".join(dict.fromkeys(notes))
    )


def _failed(op_type: str, e: Exception, generic: bool, where: str) -> Row:
    if not isinstance(e, GradientCheckError):
        return Row(op_type, "FAIL", "failed: other", None, f"{where}{type(e).__name__}: {e}")
    msg = str(e).removeprefix(f"check_gradient('{op_type}'): ")
    if generic and "has no attr named" in msg:
        return Row(
            op_type,
            "SKIP",
            detail="generic inputs carry no attrs and the rule reads "
            f"one ({msg}); pass samples={{'{op_type}': Sample(...)}}",
        )
    return Row(op_type, "FAIL", f"failed: {_stage(msg)}", None, where + msg)


def _stage(msg: str) -> str:
    """Which check a GradientCheckError message is about."""
    if "[order " in msg:
        return "order" + msg.split("[order ", 1)[1].split(":", 1)[0]
    for needle, stage in (
        ("returned", "count"),
        ("must be summed", "broadcast"),
        ("has dtype", "dtype"),
        ("has shape", "shape"),
        ("wrong gradient", "values"),
        ("gradient function raised", "rule"),
        ("forward computation", "forward"),
    ):
        if needle in msg:
            return stage
    return "other"


def _broadcasts(op_type: str, arrays: list[np.ndarray], sample: Sample) -> bool:
    """Do float operands of different shapes broadcast to the output's shape here?"""
    shapes = {
        a.shape
        for i, a in enumerate(arrays)
        if a.dtype.kind in "fc" and (sample.diff is None or i in sample.diff)
    }
    try:
        target = np.broadcast_shapes(*shapes)
    except ValueError:
        return False
    if len(shapes) < 2:
        return False
    with init_scope():
        outs = _apply(op_type, [widen(a) for a in arrays], sample.attrs, sample.fn)
    return any(tuple(o.shape.as_list()) == target for o in outs)


def _apply(op_type: str, arrays: Sequence[Any], attrs: dict[str, Any], fn: Any = None) -> list[Any]:
    ts = [a if isinstance(a, Tensor) else constant(a) for a in arrays]
    if fn is None:
        return list(apply_op(op_type, ts, dict(attrs)).outputs)
    outs = fn(*ts)
    return list(outs) if isinstance(outs, list | tuple) else [outs]


def _max_error(op_type: str, arrays: list[np.ndarray], sample: Sample) -> float:
    """max |J_rule - J_numeric| over differentiated inputs and float outputs, in float64."""
    full = [widen(a) for a in arrays]
    idx = (
        list(sample.diff)
        if sample.diff is not None
        else [i for i, a in enumerate(full) if a.dtype.kind in "fc"]
    )
    outs = _apply(op_type, full, sample.attrs, sample.fn)
    worst = 0.0
    for k, out in enumerate(outs):
        if not out.dtype.is_differentiable:
            continue

        def f(*xs: Any, k: int = k) -> Any:
            ts: list[Any] = list(full)
            for i, x in zip(idx, xs, strict=True):
                ts[i] = x
            return _apply(op_type, ts, sample.attrs, sample.fn)[k]

        theoretical, numerical = compute_gradient(f, [full[i] for i in idx], delta=_DELTA)
        worst = max(worst, float(max_error(theoretical, numerical)))
    return worst


# --------------------------------------------------------------------------------------
# Generic inputs for op types without a sample


def _generic_samples(op_type: str, seed: int) -> tuple[list[Sample], str]:
    opdef = OPS[op_type]
    if opdef.stateful or opdef.symbolic:
        return [], "stateful or symbolic op: generic inputs are not tried; pass samples="
    base, error = _probe(op_type, seed)
    if base is None:
        tried = ", ".join(str(s) for s in _PROBE_SHAPES)
        return [], (
            f"no sample given and no generic float64 input fits (shapes tried: {tried};"
            f" error: {error}); pass samples={{'{op_type}': [array, ...]}}"
        )
    cases = [base]
    shapes = _BROADCAST_SHAPES.get(len(base.inputs))
    if shapes is not None:
        rng = np.random.default_rng(seed)
        wide = Sample(tuple(positive(*s)(rng, np.float64) for s in shapes))
        outs, _ = _try(op_type, list(wide.inputs))
        if outs and any(tuple(o.shape.as_list()) == shapes[0] for o in outs):
            cases.append(wide)
    return cases, ""


def _probe(op_type: str, seed: int) -> tuple[Sample | None, str]:
    """The first generic input that the op runs on with finite float outputs."""
    errors = []
    for shapes in _PROBE_SHAPES:
        rng = np.random.default_rng(seed)
        arrays = [positive(*s)(rng, np.float64) for s in shapes]
        outs, error = _try(op_type, arrays)
        if outs:
            return Sample(tuple(arrays)), ""
        errors.append(error)
    # A ValueError (InvalidArgumentError, eager) is the op's own shape rule refusing an
    # input: more telling than a TypeError for a wrong number of inputs.
    refused = ("ValueError", "InvalidArgumentError")
    return None, next((e for e in errors if e.startswith(refused)), errors[-1])


def _try(op_type: str, arrays: list[np.ndarray]) -> tuple[list[Any], str]:
    """The op's float outputs on ``arrays`` if it runs and they are finite, else an error."""
    outs, error = _run(op_type, arrays)
    if outs is None:
        return [], error
    outs = [o for o in outs if o.dtype.is_differentiable]
    if not outs or not all(np.all(np.isfinite(o.numpy())) for o in outs):
        return [], "no finite floating-point output"
    return outs, ""


def _run(
    op_type: str, arrays: Sequence[np.ndarray], attrs: dict[str, Any] | None = None
) -> tuple[list[Any] | None, str]:
    try:
        with init_scope():
            return _apply(op_type, arrays, attrs or {}), ""
    except Exception as e:  # any failure only means "this input does not fit"
        return None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


# --------------------------------------------------------------------------------------
# lint_registry


def lint_registry(
    graphs: Iterable[Graph] = (), *, samples: Mapping[str, SampleSpec] | None = None
) -> list[Finding]:
    """Problems in the gradient registry, each naming the op type or rule and the fix.

    * ``missing-rule``: an op type with float inputs and outputs (found by running it on
      its sample or generic inputs) that has neither a rule nor ``NoGradient``;
    * ``unknown-op-type``: a rule (or NoGradient) registered under a name that is no op
      type and that no gradient_override_map in ``graphs`` (plus the default graph and
      the maps in force now) uses;
    * ``unknown-override``: a gradient_override_map entry naming a rule that does not exist.
    """
    uses = _override_uses([*graphs, get_default_graph()])
    given = dict(samples or {})
    findings = [
        f
        for t in sorted(OPS)
        if t not in gradient_registry
        for f in [_missing_rule(t, given.get(t))]
        if f is not None
    ]
    for name in gradient_registry.list():
        if name not in OPS and name not in uses:
            findings.append(_unknown_op_type(name))
    for name, where in sorted(uses.items()):
        if name not in gradient_registry:
            findings.append(
                Finding(
                    "unknown-override",
                    name,
                    (
                        f"gradient_override_map maps {where[0]} to rule '{name}', but no rule of "
                        f"that name is registered, so backprop through it raises LookupError. "
                        f"Register it with @RegisterGradient('{name}') or fix the name"
                        f"{_did_you_mean(name, gradient_registry.list())}."
                    ),
                )
            )
    return findings


def _override_uses(graphs: Iterable[Graph]) -> dict[str, list[str]]:
    """Rule name -> where an override map sends an op type to it."""
    uses: dict[str, list[str]] = {}
    for g in dict.fromkeys(graphs):
        for op in g.get_operations() if not g.eager else ():
            if op.gradient_override:
                uses.setdefault(op.gradient_override, []).append(f"op {op.describe()}")
        for op_type, name in g.gradient_overrides().items():
            uses.setdefault(name, []).append(f"'{op_type}' (a map in force on {g!r})")
    return uses


def _missing_rule(op_type: str, spec: SampleSpec | None) -> Finding | None:
    needed = _needs_rule(op_type, spec)
    if needed is False:
        return None
    why = (
        "it has floating-point inputs and outputs"
        if needed
        else "it could not be run on generic float64 inputs to tell whether it is differentiable"
    )
    return Finding(
        "missing-rule",
        op_type,
        (
            f"op type '{op_type}' has no gradient rule ({why}); backprop through it raises "
            f"LookupError. Register one with @RegisterGradient('{op_type}'), or declare "
            f"NoGradient('{op_type}') if it is not differentiable."
        ),
    )


def _needs_rule(op_type: str, spec: SampleSpec | None) -> bool | None:
    """Does backprop reach a rule for this op type? None: could not tell."""
    opdef = OPS[op_type]
    if opdef.symbolic:
        return False  # a placeholder is a source: backprop never calls a rule for it
    cases = _as_samples(op_type, spec) if spec is not None else _samples(op_type)
    if cases:
        arrays = cases[0].arrays(np.random.default_rng(0))
        outs, _ = _run(op_type, arrays, cases[0].attrs)
        float_in = any(a.dtype.kind in "fc" for a in arrays)
        return None if outs is None else float_in and any(o.dtype.is_differentiable for o in outs)
    if opdef.stateful:
        return None
    if _run(op_type, [])[0] is not None:
        return False  # runs without inputs: a source
    for shapes in _PROBE_SHAPES:
        rng = np.random.default_rng(0)
        outs, _ = _run(op_type, [positive(*s)(rng, np.float64) for s in shapes])
        if outs is not None:
            return any(o.dtype.is_differentiable for o in outs)
    return None


def _unknown_op_type(name: str) -> Finding:
    what = "NoGradient" if gradient_registry.lookup(name) is None else "a gradient rule"
    return Finding(
        "unknown-op-type",
        name,
        (
            f"{what} is registered for '{name}' ({gradient_registry.location(name)}), but no op "
            f"type '{name}' exists and no gradient_override_map in the inspected graphs uses it"
            f"{_did_you_mean(name, list(OPS))}. Fix the name (op types are case-sensitive) or "
            "declare the op with symgrad.custom_op; if a gradient_override_map uses it, pass "
            "that graph: lint_registry([graph])."
        ),
    )


def _did_you_mean(name: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(name, choices, 1)
    return f" (did you mean '{close[0]}'?)" if close else ""


# --------------------------------------------------------------------------------------
# Printing


def _table(rows: list[Row]) -> list[str]:
    head = ("op type", "status", "max error", "checked")
    cells = [
        (
            r.op_type,
            r.status,
            "-" if r.max_error is None else f"{r.max_error:.1e}",
            r.checked or "-",
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(3)]
    return [
        "  ".join(c[i].ljust(widths[i]) for i in range(3)) + "  " + c[3] for c in [head, *cells]
    ]


def _notes(report: Report) -> list[str]:
    lines = [f"{r.status} {r.op_type}: {r.detail}" for r in report.rows if r.detail]
    lines += [f"lint {f}" for f in report.findings]
    return [""] + lines if lines else []


def _summary(report: Report) -> str:
    counts = {s: sum(r.status == s for r in report.rows) for s in ("OK", "FAIL", "SKIP")}
    text = ", ".join(f"{n} {s}" for s, n in counts.items())
    return f"{text}; {len(report.findings)} lint finding(s)"
