"""Reverse-mode differentiation: the backprop engine, ``gradients``, the tape, checkers.

As ``tf.autodiff``: ``symgrad.autodiff.GradientTape`` and ``ForwardAccumulator``.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # Lazy, so that importing the engine (which ops import) never imports the tape.
    if name == "GradientTape":
        from symgrad.autodiff.tape import GradientTape

        return GradientTape
    if name == "ForwardAccumulator":
        from symgrad.autodiff.forward import ForwardAccumulator

        return ForwardAccumulator
    raise AttributeError(f"module 'symgrad.autodiff' has no attribute {name!r}")
