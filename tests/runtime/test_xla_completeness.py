"""Every registered op type has a JAX lowering (``OpDef.lowerings["jax"]``) or is listed
in ``NO_LOWERING`` with the reason; host-run lowerings are listed with theirs."""

from __future__ import annotations

import pytest

pytest.importorskip("jax")

from symgrad.core.op_registry import BUILTIN_OPS, OPS
from symgrad.runtime.xla import table
from symgrad.runtime.xla.host import HOST_REASONS, host, host_effect


def test_every_op_type_has_a_jax_lowering_or_a_reason() -> None:
    table.install()
    missing = sorted(
        t for t in BUILTIN_OPS if "jax" not in OPS[t].lowerings and t not in table.NO_LOWERING
    )
    assert missing == [], f"op types without a JAX lowering or a reason: {missing}"
    lowered_anyway = sorted(t for t in table.NO_LOWERING if "jax" in OPS[t].lowerings)
    assert lowered_anyway == []


def test_host_lowerings_are_the_listed_ones() -> None:
    table.install()
    on_host = sorted(t for t in BUILTIN_OPS if OPS[t].lowerings.get("jax") in (host, host_effect))
    assert on_host == sorted(HOST_REASONS)
    assert len(BUILTIN_OPS) - len(on_host) - len(table.NO_LOWERING) > 190  # XLA-native


def test_an_op_registered_later_gets_no_lowering_until_it_has_one() -> None:
    import numpy as np

    from symgrad.core.op_registry import register_op

    rec = register_op("XlaTestOnlyOp", lambda ins: (ins[0].shape, ins[0].dtype), np.negative)
    try:
        table.install()
        assert "jax" not in rec.lowerings
    finally:
        del OPS["XlaTestOnlyOp"]
