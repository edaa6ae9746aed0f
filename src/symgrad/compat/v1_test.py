"""``tf.compat.v1.test``: TF1's gradient checker, ``compute_gradient(x, x_shape, y, y_shape)``.

TensorFlow's ``tf.compat.v1.test.compute_gradient`` is the graph-era checker (tensors and
their shapes, evaluated in the default Session), not TF2's ``compute_gradient(f, x)`` that
``tf.test`` exports; every other name resolves to :mod:`symgrad.api.testing`.
"""

from __future__ import annotations

from typing import Any

from symgrad.api import testing as _testing
from symgrad.python.ops.gradient_checker import compute_gradient, compute_gradient_error

__all__ = ["compute_gradient", "compute_gradient_error"]


def __getattr__(name: str) -> Any:
    try:
        return getattr(_testing, name)
    except AttributeError:
        raise AttributeError(
            f"module 'symgrad.compat.v1.test' has no attribute '{name}' "
            "(symgrad has no such TensorFlow API)"
        ) from None
