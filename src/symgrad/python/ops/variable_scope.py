"""``tensorflow.python.ops.variable_scope``: TF1's variable scopes, for the names TF's own
tests import from it (``variable_scope``, ``get_variable``, ``variable``, ...)."""

from symgrad.api.variable_scope import (  # noqa: F401
    AUTO_REUSE,
    VariableScope,
    get_variable,
    get_variable_scope,
    variable_scope,
)
from symgrad.ops.state.variables import Variable as variable  # noqa: F401
