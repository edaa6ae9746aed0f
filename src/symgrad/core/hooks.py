"""What a lower layer calls that a higher one provides: the higher layer registers it.

The layers import downward only (``docs/design.md``).  Where a lower layer needs a
construct of a higher one, the higher one provides it here when it is imported, and the
lower one calls it by name:

* ``"autograph"`` -- autograph's converter, which ``function`` applies to a Python
  function before tracing it;
* ``"cond"`` -- control flow's ``cond``, for a gradient rule that must choose at run time
  (``MatrixSolveLs`` with an unknown matrix shape);
* ``"why_none"`` -- ``GradientTape.why_none``'s explanation, from the tools;
* ``"IndexedSlices"`` -- the sparse family's type, which the array family's ``GatherV2``
  gradient returns;
* ``"enable_check_numerics"`` / ``"disable_check_numerics"`` -- the NaN check, from the
  tools, behind ``tf.debugging``'s names.

Importing ``symgrad`` imports every layer, so every hook is there before user code runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_PROVIDED: dict[str, Callable[..., Any]] = {}


def provide(name: str, fn: Callable[..., Any]) -> None:
    """Register ``fn`` as the hook ``name`` (a layer above the caller does this once)."""
    _PROVIDED[name] = fn


def hook(name: str) -> Callable[..., Any]:
    """The function registered as ``name``."""
    try:
        return _PROVIDED[name]
    except KeyError:
        raise RuntimeError(
            f"symgrad's {name!r} is provided by a higher layer that has not been imported; "
            "import symgrad (not only one of its modules)"
        ) from None
