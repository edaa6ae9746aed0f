"""Tools around the graph: ``explain`` (why a gradient is None), ``render`` (Graphviz DOT
and terminal text of forward and gradient graphs), ``numerics`` (fail at the first NaN/Inf);
``flow`` lets the first two look inside the branches and bodies of If / While ops.
"""

from __future__ import annotations

from symgrad.tools import (
    check,
    explain,
    numerics,
    render,
    tape_explain,  # noqa: F401  (provides GradientTape.why_none's hook)
)
from symgrad.tools.chain import trace_element
from symgrad.tools.check import check_gradients, lint_registry
from symgrad.tools.explain import why_none
from symgrad.tools.jacobian_view import explain_gradient
from symgrad.tools.numerics import (
    check_numerics_enabled,
    disable_check_numerics,
    enable_check_numerics,
)

__all__ = [
    "check",
    "check_gradients",
    "check_numerics_enabled",
    "disable_check_numerics",
    "enable_check_numerics",
    "explain",
    "explain_gradient",
    "lint_registry",
    "numerics",
    "render",
    "trace_element",
    "why_none",
]
