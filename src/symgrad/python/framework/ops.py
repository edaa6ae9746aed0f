"""``from tensorflow.python.framework.ops import _gradient_registry`` works with symgrad too."""

from symgrad.core.gradient_registry import (  # noqa: F401
    NoGradient,
    NotDifferentiable,
    RegisterGradient,
    _gradient_registry,
    gradient_registry,
    no_gradient,
)
from symgrad.core.graph import Graph, Operation, Tensor, get_default_graph, name_scope  # noqa: F401
from symgrad.ops.core import convert_to_tensor  # noqa: F401


def get_name_scope() -> str:
    """The current name scope of the default graph (``ops.get_name_scope``)."""
    return get_default_graph().get_name_scope()
