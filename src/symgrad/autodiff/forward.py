"""``ForwardAccumulator``: Jacobian-vector products (forward mode) from two reverse passes.

symgrad has no forward-mode rules.  A JVP is obtained with the "double VJP" trick: the
VJP ``u -> J^T u`` of the recorded computation is linear in the cotangent ``u``, so
``d/du <J^T u, t> = J t``.  The accumulator records with an internal tape watching the
primals; ``jvp(y)`` builds ``J^T u`` for a fresh cotangent ``u`` shaped like ``y``, takes
its inner product with the tangents and differentiates that w.r.t. ``u``.
"""

from __future__ import annotations

import contextlib
from typing import Any

from symgrad.autodiff.backprop import backprop
from symgrad.autodiff.gradients import UnconnectedGradients, finish, unconnected_mode
from symgrad.autodiff.tape import GradientTape
from symgrad.core import nest
from symgrad.core.graph import Tensor
from symgrad.ops.array.structure import ones_like
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math.elementwise import add_n, multiply
from symgrad.ops.reduction.reduce import reduce_sum


class ForwardAccumulator:
    """Compute ``J t`` for computations run inside ``with ForwardAccumulator(x, t) as acc``.

    >>> import symgrad as tf
    >>> x = tf.constant([1.0, 2.0])
    >>> with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
    ...     y = x * x
    >>> print(acc.jvp(y))
    symgrad.Tensor([2. 0.], shape=(2,), dtype=float32)
    """

    def __init__(self, primals: Any, tangents: Any) -> None:
        self._primals = nest.flatten(primals)
        flat_t = nest.flatten(tangents)
        if len(flat_t) != len(self._primals):
            raise ValueError(
                f"Got {len(self._primals)} primals and {len(flat_t)} tangents; "
                "they must have the same structure."
            )
        self._tangents: list[Tensor] = []
        for p, t in zip(self._primals, flat_t, strict=True):
            t = convert_to_tensor(t, dtype=None if isinstance(t, Tensor) else p.dtype)
            if t.dtype is not p.dtype:
                raise TypeError(
                    f"Tangent dtype {t.dtype.name} does not match primal dtype {p.dtype.name}."
                )
            if not p.shape.is_compatible_with(t.shape):
                raise ValueError(f"Tangent shape {t.shape} does not match primal shape {p.shape}.")
            self._tangents.append(t)
        self._tape = GradientTape(persistent=True, watch_accessed_variables=False)
        self._inside = False  # between __enter__ and __exit__: the tape records

    def __enter__(self) -> ForwardAccumulator:
        self._tape.__enter__()
        self._tape.watch(self._primals)
        self._inside = True
        return self

    def __exit__(self, *exc: Any) -> None:
        self._inside = False
        self._tape.__exit__(*exc)

    def jvp(self, primals: Any, unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """``J t`` for each tensor of ``primals`` (a tensor or nested structure)."""
        mode = unconnected_mode(unconnected_gradients)
        flat = [convert_to_tensor(y) for y in nest.flatten(primals)]
        return nest.pack_sequence_as(primals, [finish(y, self._jvp(y), mode) for y in flat])

    def _jvp(self, y: Tensor) -> Tensor | None:
        if not y.dtype.is_differentiable:
            return None
        tape = self._tape
        pause = tape.stop_recording() if self._inside else contextlib.nullcontext()
        with pause:
            u = ones_like(y)  # any cotangent will do: the VJP is linear in it
            grads = tape.vjp([y], [u], self._primals)
            terms = [
                reduce_sum(multiply(g, t))
                for g, t in zip(grads, self._tangents, strict=True)
                if g is not None
            ]
            if not terms:
                return None
            s = terms[0] if len(terms) == 1 else add_n(terms)
            (jvp,) = backprop([s], [ones_like(s)], [u])
        return jvp
