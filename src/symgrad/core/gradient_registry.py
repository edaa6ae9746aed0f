"""The gradient registry: op type -> gradient function, with TensorFlow's public contract.

A gradient function is ``fn(op, *grads)``: ``op`` is the forward Operation and
``grads`` holds one upstream gradient per op output.  It returns one gradient (or
None) per op input.  ``NoGradient("Type")`` registers None: the op is a dead end.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

GradFn = Callable[..., Any]


class Registry:
    """A name -> function map that refuses a second registration of the same name."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._registry: dict[str, tuple[GradFn | None, str]] = {}

    def register(self, fn: GradFn | None, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError("op_type must be a string")
        if name in self._registry:
            where = self._registry[name][1]
            raise KeyError(
                f"Registering two {self.name} with name '{name}'! "
                f"(Previous registration was in {where})"
            )
        self._registry[name] = (fn, _location(fn))

    def lookup(self, name: str) -> GradFn | None:
        try:
            return self._registry[name][0]
        except KeyError:
            raise LookupError(f"{self.name} registry has no entry for: {name}") from None

    def entry(self, name: str) -> tuple[GradFn | None, str] | None:
        """``(fn, where registered)`` for ``name``, or None: one lookup, for the backprop
        loop (``name in registry`` then ``lookup`` would be two)."""
        return self._registry.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._registry

    def list(self) -> list[str]:
        return sorted(self._registry)

    def location(self, name: str) -> str:
        return self._registry[name][1]


def _location(fn: Any) -> str:
    if fn is None:  # _location <- register <- no_gradient <- the declaring module
        caller = sys._getframe(3)
        return f"NoGradient at {caller.f_code.co_filename}:{caller.f_lineno}"
    code = getattr(fn, "__code__", None)
    if code is None:
        return repr(fn)
    return f"{fn.__name__} {code.co_filename}:{code.co_firstlineno}"


gradient_registry = Registry("gradient")
_gradient_registry = gradient_registry  # TF's private name, which seed 000 imports


class RegisterGradient:
    """Decorator: ``@RegisterGradient("MatMul")`` on ``fn(op, grad)``; returns fn unchanged."""

    def __init__(self, op_type: str) -> None:
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn: GradFn) -> GradFn:
        gradient_registry.register(fn, self._op_type)
        return fn


def runs_user_code(fn: GradFn) -> GradFn:
    """Mark a built-in rule that calls the user's code (a custom_gradient's grad_fn): the
    ops it makes record their own source lines, not the line that asked for the gradient
    (see ``autodiff.backprop.apply_rule``)."""
    USER_CODE_RULES.add(fn)
    return fn


USER_CODE_RULES: set[GradFn] = set()


def no_gradient(op_type: str) -> None:
    """Declare ``op_type`` not differentiable: no gradient flows through it, and no error."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    gradient_registry.register(None, op_type)


NoGradient = no_gradient
NotDifferentiable = no_gradient


# --- array rules: a built-in gradient rule's NumPy form, for the eager tape -------------------
#
# ``@array_rule("Sin")`` on ``fn(xs, ys, attrs, grads, needs)`` declares the NumPy form of
# the built-in rule registered for "Sin": ``xs``/``ys`` are the op's input/output arrays,
# ``attrs`` its attrs, ``grads`` one array per output (None where no gradient flows), and
# ``needs[i]`` says whether input i's gradient is wanted (the fn may return None for
# others).  It returns one array (or None) per input, equal bit for bit, in dtype and
# shape, to what the registered rule gives when its ops run eagerly; a test checks
# each against its rule.  The eager tape calls it instead of the rule only where the
# rule would build ops nobody reads: no tape records the backward pass, no gradient
# override names the op, and the registry still holds the rule it was declared beside.

ArrayRule = Callable[..., Any]
ARRAY_RULES: dict[str, tuple[GradFn | None, ArrayRule]] = {}


def array_rule(op_type: str) -> Callable[[ArrayRule], ArrayRule]:
    """Decorator: ``fn`` is the NumPy form of ``op_type``'s registered gradient rule."""

    def register(fn: ArrayRule) -> ArrayRule:
        entry = gradient_registry.entry(op_type)
        if entry is None:
            raise LookupError(f"array_rule({op_type!r}): register its gradient rule first")
        ARRAY_RULES[op_type] = (entry[0], fn)
        return fn

    return register


def array_rule_for(op_type: str) -> ArrayRule | None:
    """The NumPy form of ``op_type``'s rule, while the registry still holds that rule."""
    pair = ARRAY_RULES.get(op_type)
    if pair is None:
        return None
    entry = gradient_registry.entry(op_type)
    return pair[1] if entry is not None and entry[0] is pair[0] else None
