"""``tf.config.threading``: the op thread-pool sizes.

symgrad's kernels are NumPy's, whose threads belong to the BLAS library, so the sizes
are recorded and reported (0 means the system's choice, as in TF); like TF, they are
fixed once the devices are initialized (``list_logical_devices``, a strategy, an eager
tensor's ``device``).
"""

from __future__ import annotations

from typing import Any

from symgrad.core.devices import state

__all__ = [
    "get_inter_op_parallelism_threads",
    "get_intra_op_parallelism_threads",
    "set_inter_op_parallelism_threads",
    "set_intra_op_parallelism_threads",
]


def _threads(num_threads: Any, what: str) -> int:
    if state.initialized:
        raise RuntimeError(f"{what} parallelism cannot be modified after initialization.")
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 0:
        raise ValueError(
            f"num_threads must be an int >= 0 (0: the system's choice), got {num_threads!r}"
        )
    return num_threads


def set_intra_op_parallelism_threads(num_threads: Any) -> None:
    """Threads one op may use."""
    state.intra_op = _threads(num_threads, "Intra op")


def get_intra_op_parallelism_threads() -> int:
    return state.intra_op


def set_inter_op_parallelism_threads(num_threads: Any) -> None:
    """Threads running independent ops."""
    state.inter_op = _threads(num_threads, "Inter op")


def get_inter_op_parallelism_threads() -> int:
    return state.inter_op
