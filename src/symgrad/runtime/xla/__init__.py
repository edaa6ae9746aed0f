"""symgrad on XLA, through JAX: ``function(jit_compile=True)`` and the lowering API.

A traced graph (forward and gradient ops alike) lowers op by op to one JAX function,
compiled once by ``jax.jit``; each op type's lowering is the ``lowerings["jax"]`` field
of its op record (tables by op family in this package, installed at first use, so
``import symgrad`` never imports JAX).  NumPy stays the default backend; JAX is the
optional extra ``pip install symgrad[jax]``.

The API (for ``function``, and for other runtimes such as ``tf.distribute``):

* ``available()`` -> bool: JAX can be imported;
* ``require()``: raise ``ImportError`` naming the extra when it cannot;
* ``compile_graph(fetches, feeds, targets=(), name=...)`` -> ``Compiled``: a callable
  ``compiled(feed_arrays) -> fetched NumPy arrays`` whose variables are read and written
  at the call boundary (``compiled.jitted`` is the raw ``jax.jit`` function of
  ``(feeds, read variables, donated and other written variables)``, for sharding it);
* ``compile_function(concrete_function)`` -> ``Compiled`` for a trace's outputs;
* ``UnsupportedOpError``: TF's error for a graph with an op that has no lowering;
  ``XlaLimitError`` (a kind of it): a graph XLA cannot express, as TF's bridge cannot
  (a loop gradient without ``maximum_iterations``, a shape computed at run time).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

from symgrad.runtime.xla.engine import UnsupportedOpError, XlaLimitError

__all__ = [
    "UnsupportedOpError",
    "XlaLimitError",
    "available",
    "compile_function",
    "compile_graph",
    "require",
]

_INSTALL_HINT = (
    "jit_compile=True compiles with XLA through JAX, which is not installed. "
    "Install it with `pip install symgrad[jax]` (or `pip install jax`), or leave "
    "jit_compile=None to run on the NumPy backend."
)


def available() -> bool:
    try:
        return importlib.util.find_spec("jax") is not None and _import_jax()
    except (ImportError, ValueError):
        return False


def _import_jax() -> bool:
    import jax  # noqa: F401

    return True


def require() -> None:
    """Raise ``ImportError`` (saying how to install the extra) when JAX is missing."""
    try:
        _import_jax()
    except ImportError as e:
        raise ImportError(_INSTALL_HINT) from e


def compile_graph(
    fetches: Sequence[Any], feeds: Sequence[Any], targets: Sequence[Any] = (), name: str = "graph"
) -> Any:
    require()
    from symgrad.runtime.xla.compiled import Compiled

    return Compiled(fetches, feeds, targets, name)


def compile_function(cf: Any) -> Any:
    """The compiled form of a ``ConcreteFunction``: its outputs from its feeds."""
    return compile_graph(cf.outputs, cf._feeds, cf.graph.stateful_ops[-1:], cf.graph.name)
