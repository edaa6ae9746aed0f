"""The hook a compiling backend uses to run a strategy's step sharded.

``strategy.run(fn, ...)`` first offers the call to the runner set here (None by default).
A runner that can compile ``fn`` (a ``function(jit_compile=True)`` under JAX, say) runs
it as one SPMD program: the batch sharded over the replicas' devices
(``jax.sharding.NamedSharding`` over a ``"replica"`` mesh axis, ``strategy.extended.
worker_devices`` naming the devices), the variables replicated, the gradients' all-reduce
done by XLA; it returns the per-replica results (``values.regroup`` of one value per
replica).  Returning ``NotImplemented`` leaves the call to the per-replica runner of
:mod:`.mirrored_run`, which runs ``fn`` once per replica on the NumPy path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Runner = Callable[[Any, Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]

_runner: list[Runner] = []


def set_sharded_runner(runner: Runner | None) -> None:
    """Install ``runner(strategy, fn, args, kwargs)`` (None removes it)."""
    _runner.clear()
    if runner is not None:
        _runner.append(runner)


def run_sharded(
    strategy: Any, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """The installed runner's result, or NotImplemented (none, or it declined)."""
    if not _runner:
        return NotImplemented
    return _runner[0](strategy, fn, args, kwargs)
