"""Every shipped op record is complete: gradient decision, batching rule, op-table rows."""

import pytest

from symgrad.core.gradient_registry import gradient_registry
from symgrad.core.op_registry import BUILTIN_OPS, OPS


@pytest.mark.parametrize("op_type", sorted(BUILTIN_OPS))
def test_gradient_decision(op_type):
    assert op_type in gradient_registry or OPS[op_type].symbolic, (
        f"{op_type}: no gradient rule and no NoGradient declaration"
    )


@pytest.mark.parametrize("op_type", sorted(BUILTIN_OPS))
def test_batching_rule(op_type):
    opdef = OPS[op_type]
    assert opdef.batch is not None, (
        f"{op_type}: no batching rule and no reason (batch='why not') in its record"
    )
    if isinstance(opdef.batch, str):
        assert opdef.batch.strip(), f"{op_type}: an empty reason for having no batching rule"


@pytest.mark.parametrize("op_type", sorted(BUILTIN_OPS))
def test_op_table_rows(op_type):
    opdef = OPS[op_type]
    assert opdef.cases or opdef.no_cases, (
        f"{op_type}: no op-table case in its record (add_cases) and no no_cases reason"
    )
    assert not (opdef.cases and opdef.no_cases), f"{op_type}: cases and a no_cases reason"
