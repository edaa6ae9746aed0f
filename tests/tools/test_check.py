"""symgrad.tools.check_gradients / lint_registry and ``python -m symgrad check-gradients``."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.core.gradient_registry import gradient_registry
from symgrad.core.op_registry import BUILTIN_OPS, OPS
from symgrad.ops.core import unbroadcast
from symgrad.tools import check as check_mod
from symgrad.tools.check import Sample, check_gradients, lint_registry, skip_reason

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def sandbox() -> Iterator[None]:
    """Op types and rules registered inside a test are removed after it."""
    ops, rules = dict(OPS), dict(gradient_registry._registry)
    yield
    OPS.clear()
    OPS.update(ops)
    gradient_registry._registry.clear()
    gradient_registry._registry.update(rules)


def _broadcast_shape(a: Any, b: Any) -> tuple[int, ...]:
    return np.broadcast_shapes(tuple(a), tuple(b))


def _scale_op(rule: Any) -> None:
    """'Scale': y = x * w with numpy broadcasting, and the given gradient rule."""
    tf.custom_op("Scale", lambda x, w: x * w, shape_fn=_broadcast_shape)
    tf.RegisterGradient("Scale")(rule)


def _cube_op(rule: Any) -> None:
    tf.custom_op("Cube", lambda x: x**3, shape_fn=lambda s: s)
    tf.RegisterGradient("Cube")(rule)


def _good_cube(op: Any, grad: Any) -> Any:
    return grad * 3.0 * tf.square(op.inputs[0])


def _one(report: check_mod.Report, op_type: str) -> check_mod.Row:
    assert [r.op_type for r in report.rows] == [op_type]
    return report.row(op_type)


# --------------------------------------------------------------------------------------
# The checker catches deliberately wrong user rules


def test_wrong_count(sandbox: None) -> None:
    _scale_op(lambda op, grad: grad * op.inputs[1])  # one gradient for two inputs
    row = _one(check_gradients(["Scale"], lint=False), "Scale")
    assert (row.status, row.checked) == ("FAIL", "failed: count")
    assert "returned 1 gradient(s) but the op has 2 input(s)" in row.detail


def test_wrong_shape(sandbox: None) -> None:
    _cube_op(lambda op, grad: tf.reshape(_good_cube(op, grad), [-1]))
    row = _one(check_gradients(["Cube"], lint=False), "Cube")
    assert (row.status, row.checked) == ("FAIL", "failed: shape")
    assert "the gradient for input 0 has shape (12,) but the input has shape (3, 4)" in row.detail


def test_wrong_values(sandbox: None) -> None:
    _cube_op(lambda op, grad: grad * 2.0 * tf.square(op.inputs[0]))  # 2x² instead of 3x²
    row = _one(check_gradients(["Cube"], lint=False), "Cube")
    assert (row.status, row.checked) == ("FAIL", "failed: values")
    assert row.detail.startswith("wrong gradient for argument 0 (shape (3, 4))")
    assert "central differences" in row.detail


def test_missing_unbroadcast(sandbox: None) -> None:
    _scale_op(lambda op, grad: (grad * op.inputs[1], grad * op.inputs[0]))
    row = _one(check_gradients(["Scale"], lint=False), "Scale")
    assert (row.status, row.checked) == ("FAIL", "failed: broadcast")
    assert row.detail.startswith(
        "sample 2 of 2 (input shapes [(2, 3, 4), (3, 1)]): the "
        "gradient for input 1 has shape (2, 3, 4) but the input has "
        "shape (3, 1)"
    )
    assert "summed over the broadcast dimensions" in row.detail


def test_missing_unbroadcast_with_user_sample(sandbox: None) -> None:
    _scale_op(lambda op, grad: (grad * op.inputs[1], grad * op.inputs[0]))
    rng = np.random.default_rng(0)
    report = check_gradients(
        {"Scale": [rng.standard_normal((4, 5)), rng.standard_normal(5)]}, lint=False
    )
    row = _one(report, "Scale")
    assert row.checked == "failed: broadcast"
    assert "has shape (4, 5) but the input has shape (5,)" in row.detail


def test_wrong_dtype(sandbox: None) -> None:
    _cube_op(lambda op, grad: tf.cast(_good_cube(op, grad), tf.float32))
    row = _one(check_gradients(["Cube"], lint=False), "Cube")
    assert (row.status, row.checked) == ("FAIL", "failed: dtype")
    assert "has dtype float32 but the input has dtype float64" in row.detail


def test_broken_second_order(sandbox: None) -> None:
    # Right first derivative, but stop_gradient hides its dependence on x from order 2.
    _cube_op(lambda op, grad: grad * 3.0 * tf.square(tf.stop_gradient(op.inputs[0])))
    row = _one(check_gradients(["Cube"], lint=False), "Cube")
    assert (row.status, row.checked) == ("FAIL", "failed: order2")
    assert "[order 2: gradient of the VJP]" in row.detail and "wrong gradient" in row.detail
    first = _one(check_gradients(["Cube"], lint=False, order=1), "Cube")
    assert first.status == "OK" and "order2" not in first.checked


def test_rule_that_raises(sandbox: None) -> None:
    _cube_op(lambda op, grad: grad * op.inputs[7])
    row = _one(check_gradients(["Cube"], lint=False), "Cube")
    assert (row.status, row.checked) == ("FAIL", "failed: rule")
    assert "the gradient function raised IndexError" in row.detail


# --------------------------------------------------------------------------------------
# Correct rules, samples, skips


def test_correct_user_rules_pass(sandbox: None) -> None:
    def scale_grad(op: Any, grad: Any) -> Any:
        x, w = op.inputs
        return unbroadcast(grad * w, x, [w]), unbroadcast(grad * x, w, [x])

    _scale_op(scale_grad)
    _cube_op(_good_cube)
    report = check_gradients(["Scale", "Cube"], lint=False)
    assert report.ok and [r.status for r in report.rows] == ["OK", "OK"]
    scale = report.row("Scale")
    assert scale.checked == "count shape dtype broadcast values order2"
    assert scale.max_error is not None and scale.max_error < 1e-8
    assert (
        "generic float64 inputs in [0.5, 2] of shapes [(3, 4), (3, 4)] and "
        "[(2, 3, 4), (3, 1)]" in scale.detail
    )


def test_user_sample_with_attrs(sandbox: None) -> None:
    tf.custom_op("PowK", lambda x, k=2: x**k, shape_fn=lambda s, k: s, attrs={"k": 2})

    @tf.RegisterGradient("PowK")
    def _grad(op: Any, grad: Any) -> Any:
        k = op.get_attr("k")
        return grad * k * tf.pow(op.inputs[0], float(k - 1))

    x = np.random.default_rng(1).uniform(0.5, 2, (2, 5))
    assert (
        check_gradients({"PowK": Sample([x], attrs={"k": 3})}, lint=False).row("PowK").status
        == "OK"
    )
    skipped = check_gradients(["PowK"], lint=False).row("PowK")  # generic inputs, no attrs
    assert skipped.status == "SKIP" and "has no attr named 'k'" in skipped.detail
    assert "pass samples={'PowK': Sample(...)}" in skipped.detail


def test_no_fitting_generic_input_is_skip_with_reason(sandbox: None) -> None:
    def rank3(s: Any) -> Any:
        if s.rank != 3:
            raise ValueError(f"expected a rank-3 input, got rank {s.rank}")
        return s

    tf.custom_op("Rank3Only", lambda x: 2 * x, shape_fn=rank3, grad=lambda op, g: 2 * g)
    row = check_gradients(["Rank3Only"], lint=False).row("Rank3Only")
    assert row.status == "SKIP" and "no generic float64 input fits" in row.detail
    assert "expected a rank-3 input" in row.detail
    ok = check_gradients({"Rank3Only": [np.ones((2, 3, 4))]}, lint=False).row("Rank3Only")
    assert ok.status == "OK"


def test_module_argument_imports_user_ops(
    sandbox: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "kw_ops.py").write_text(
        textwrap.dedent("""
        import symgrad as tf
        tf.custom_op("KwTwice", lambda x: 2.0 * x, shape_fn=lambda s: s,
                     grad=lambda op, g: 3.0 * g)  # wrong: d(2x)/dx is 2
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "kw_ops", raising=False)
    row = check_gradients(["KwTwice"], module="kw_ops", lint=False).row("KwTwice")
    assert (row.status, row.checked) == ("FAIL", "failed: values")
    monkeypatch.delitem(sys.modules, "kw_ops")


def test_bad_arguments() -> None:
    with pytest.raises(
        ValueError,
        match=r"unknown op type\(s\) 'Sqaure' \(did you mean "
        r"'Square'\?\)",
    ):
        check_gradients(["Sqaure"])
    with pytest.raises(TypeError, match="the sample for 'Mul' must be"):
        check_gradients({"Mul": 3.0}, lint=False)  # type: ignore[dict-item]
    row = check_gradients(["Equal"], lint=False).row("Equal")
    assert row.status == "SKIP" and "NoGradient" in row.detail


def test_whole_builtin_registry_has_no_fail() -> None:
    with_rule = sorted(
        t for t in BUILTIN_OPS if t in gradient_registry and gradient_registry.lookup(t) is not None
    )
    skips = {t for t in with_rule if skip_reason(t)}
    report = check_gradients(with_rule, lint=False)
    assert [r.op_type for r in report.failed] == []
    assert {r.op_type for r in report.rows if r.status == "SKIP"} == skips
    assert skips >= {"CustomGradient", "PartitionedCall", "PreventGradient"}
    ok = [r for r in report.rows if r.status == "OK"]
    assert len(ok) == len(with_rule) - len(skips) and len(ok) > 70
    assert all(r.max_error is not None and r.max_error < 1e-8 for r in ok)
    for op_type in ("AddV2", "Mul", "RealDiv", "SelectV2", "Maximum"):
        assert "broadcast" in report.row(op_type).checked
    text = str(report)
    assert "0 FAIL" in text and "SKIP ReadVariableOp: its input is a Variable, not an array" in text


def test_table_is_aligned() -> None:
    lines = str(check_gradients(["Mul", "SoftmaxCrossEntropyWithLogits"], lint=False)).splitlines()
    assert lines[0].split() == ["op", "type", "status", "max", "error", "checked"]
    column = lines[0].index("status")
    assert [line[column : column + 2] for line in lines[1:3]] == ["OK", "OK"]
    assert lines[-1] == "2 OK, 0 FAIL, 0 SKIP; 0 lint finding(s)"


def test_docstring_examples() -> None:
    assert doctest.testmod(check_mod).failed == 0


# --------------------------------------------------------------------------------------
# lint_registry


def _kinds(findings: list[check_mod.Finding]) -> dict[str, str]:
    return {f.name: f.kind for f in findings}


def test_lint_flags_a_broken_registry(sandbox: None) -> None:
    tf.custom_op("NoRuleOp", lambda x: x + 1.0, shape_fn=lambda s: s)  # differentiable
    tf.custom_op(
        "IntOp",
        lambda x: np.round(x).astype(np.int32),
        shape_fn=lambda s: s,
        dtype_fn=lambda d: tf.int32,
    )  # integer output: needs no rule
    _cube_op(_good_cube)
    tf.RegisterGradient("Cuber")(_good_cube)  # a typo for an op type
    tf.NoGradient("NotAnOp")
    with tf.Graph().as_default() as g, g.gradient_override_map({"Square": "NoSuchGrad"}):
        tf.square(tf.constant(2.0))
    findings = lint_registry([g])
    kinds = _kinds(findings)
    assert {k: kinds.get(k) for k in ("NoRuleOp", "Cuber", "NotAnOp", "NoSuchGrad")} == {
        "NoRuleOp": "missing-rule",
        "Cuber": "unknown-op-type",
        "NotAnOp": "unknown-op-type",
        "NoSuchGrad": "unknown-override",
    }
    assert "IntOp" not in kinds
    assert not {f.name for f in findings} & BUILTIN_OPS
    text = {f.name: f.message for f in findings}
    assert (
        "Register one with @RegisterGradient('NoRuleOp'), or declare NoGradient" in text["NoRuleOp"]
    )
    assert "(did you mean 'Cube'?)" in text["Cuber"] and "test_check.py" in text["Cuber"]
    assert text["NotAnOp"].startswith("NoGradient is registered for 'NotAnOp'")
    assert "maps op 'Square' (type Square" in text["NoSuchGrad"]
    assert "@RegisterGradient('NoSuchGrad')" in text["NoSuchGrad"]


def test_lint_accepts_a_rule_used_by_an_override(sandbox: None) -> None:
    tf.RegisterGradient("ClippedSquareGrad")(lambda op, g: g * 2.0 * op.inputs[0])
    with tf.Graph().as_default() as g, g.gradient_override_map({"Square": "ClippedSquareGrad"}):
        tf.square(tf.constant(2.0))
    assert "ClippedSquareGrad" not in _kinds(lint_registry([g]))
    assert _kinds(lint_registry())["ClippedSquareGrad"] == "unknown-op-type"
    with g.as_default(), g.gradient_override_map({"Relu": "ClippedSquareGrad"}):
        assert "ClippedSquareGrad" not in _kinds(lint_registry())  # a map in force now


def test_lint_of_the_builtin_registry_is_clean() -> None:
    assert not {f.name for f in lint_registry()} & BUILTIN_OPS


# --------------------------------------------------------------------------------------
# python -m symgrad check-gradients


USER_MODULE = """
    import numpy as np
    import symgrad as tf

    tf.custom_op("Scale", lambda x, w: x * w,
                 shape_fn=lambda a, b: np.broadcast_shapes(tuple(a), tuple(b)))
    tf.custom_op("Cube", lambda x: x ** 3, shape_fn=lambda s: s)

    @tf.RegisterGradient("Scale")
    def _scale_grad(op, grad):
        x, w = op.inputs
        return grad * w, grad * x  # {comment}

    @tf.RegisterGradient("Cube")
    def _cube_grad(op, grad):
        return grad * 3.0 * tf.square(op.inputs[0])

    GRADIENT_SAMPLES = {"Cube": [np.linspace(-1.0, 1.0, 7)]}
"""


def _cli(tmp_path: Path, *args: str, comment: str = "") -> subprocess.CompletedProcess[str]:
    (tmp_path / "my_ops.py").write_text(textwrap.dedent(USER_MODULE.replace("{comment}", comment)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(SRC)])}
    return subprocess.run(
        [sys.executable, "-m", "symgrad", "check-gradients", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


def test_cli_fails_on_a_wrong_user_rule(tmp_path: Path) -> None:
    done = _cli(tmp_path, "--module", "my_ops", comment="forgets to un-broadcast")
    assert done.returncode == 1, done.stderr
    rows = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()[1:3]}
    assert rows["Scale"][:2] == ["FAIL", "-"] and rows["Cube"][0] == "OK"
    assert (
        "FAIL Scale: sample 2 of 2 (input shapes [(2, 3, 4), (3, 1)]): the gradient for "
        "input 1 has shape (2, 3, 4) but the input has shape (3, 1)" in done.stdout
    )
    assert "1 OK, 1 FAIL, 0 SKIP" in done.stdout


def test_cli_passes_and_checks_named_op_types(tmp_path: Path) -> None:
    done = _cli(tmp_path, "--module", "my_ops", "Cube", "MatMul")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[:2] for line in done.stdout.splitlines()[1:3]] == [
        ["Cube", "OK"],
        ["MatMul", "OK"],
    ]
    assert "generic" not in done.stdout  # Cube used the module's GRADIENT_SAMPLES


def test_cli_bad_usage_and_lint_only(tmp_path: Path) -> None:
    done = _cli(tmp_path, "--module", "my_ops", "Cubee")
    assert done.returncode == 2
    assert "unknown op type(s) 'Cubee' (did you mean 'Cube'?)" in done.stderr
    done = _cli(tmp_path, "--module", "not_a_module_here")
    assert done.returncode == 2 and "--module not_a_module_here: import failed" in done.stderr
    done = _cli(tmp_path, "--lint-only", "--module", "my_ops")
    assert (done.returncode, done.stdout.strip()) == (0, "lint: no findings")
