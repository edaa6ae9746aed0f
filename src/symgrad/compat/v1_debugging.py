"""``tf.compat.v1.debugging`` and the ``tf.compat.v1.assert_*`` names: TF1's signatures
(``data=`` to replace the failure's summary, ``summarize`` before ``message``) over the
checks of :mod:`symgrad.api.debugging`."""

from __future__ import annotations

from typing import Any

from symgrad.api import debugging as _d
from symgrad.api.debugging import (  # noqa: F401  (the same in TF1)
    Assert,
    assert_integer,
    assert_shapes,
    assert_type,
    check_numerics,
    disable_check_numerics,
    enable_check_numerics,
    is_numeric_tensor,
)
from symgrad.core.graph import Tensor as _Tensor
from symgrad.ops.debug.check_ops import is_non_decreasing, is_strictly_increasing  # noqa: F401

Result = Any


def _comparison(sym: str, np_test: Any) -> Any:
    def check(
        x: Any,
        y: Any,
        data: Any = None,
        summarize: int | None = None,
        message: str | None = None,
        name: Any = None,
    ) -> Result:
        return _d._binary(sym, np_test, x, y, data, summarize, message)

    return check


def _sign(sym: str, v2: Any) -> Any:
    text = {">": "x > 0", "<": "x < 0", ">=": "x >= 0", "<=": "x <= 0"}[sym]
    sep = "" if sym == "<=" else "\n"
    line = f"Condition {text} did not hold element-wise:{sep}x ({{x}}) = "

    def check(
        x: Any,
        data: Any = None,
        summarize: int | None = None,
        message: str | None = None,
        name: Any = None,
    ) -> Result:
        return _d.sign_check(sym, line, x, data, summarize, message)

    check.__doc__ = v2.__doc__
    return check


assert_equal = _comparison("==", _d._NP["=="])
assert_none_equal = _comparison("!=", _d._NP["!="])
assert_less = _comparison("<", _d._NP["<"])
assert_less_equal = _comparison("<=", _d._NP["<="])
assert_greater = _comparison(">", _d._NP[">"])
assert_greater_equal = _comparison(">=", _d._NP[">="])
assert_positive = _sign(">", _d.assert_positive)
assert_negative = _sign("<", _d.assert_negative)
assert_non_negative = _sign(">=", _d.assert_non_negative)
assert_non_positive = _sign("<=", _d.assert_non_positive)


def assert_near(
    x: Any,
    y: Any,
    rtol: Any = None,
    atol: Any = None,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: Any = None,
) -> Result:
    return _d.near(x, y, rtol, atol, data, summarize, message)


def assert_rank(
    x: Any,
    rank: int,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: Any = None,
) -> Result:
    return _d.assert_rank(x, rank, message=message)


def assert_rank_at_least(
    x: Any,
    rank: int,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: Any = None,
) -> Result:
    return _d.assert_rank_at_least(x, rank, message=message)


def assert_rank_in(
    x: Any,
    ranks: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: Any = None,
) -> Result:
    return _d.assert_rank_in(x, ranks, message=message)


def assert_scalar(tensor: Any, name: Any = None, message: str | None = None) -> _Tensor:
    return _d.scalar(tensor, message)


def assert_all_finite(
    t: Any = None, msg: Any = None, name: Any = None, x: Any = None, message: Any = None
) -> _Tensor:
    """TF1's spelling: ``t``/``msg``, or TF2's ``x``/``message``."""
    return check_numerics(t if x is None else x, msg if message is None else message, name)


for _name in [n for n in dir() if n.startswith("assert_")]:
    globals()[_name].__name__ = globals()[_name].__qualname__ = _name
