"""Reverse-mode differentiation: the backprop engine, ``gradients``, the tape, checkers."""
