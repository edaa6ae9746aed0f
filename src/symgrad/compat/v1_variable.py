"""``tf.compat.v1.Variable``: a ``tf.Variable`` that takes TF1's keywords too."""

from __future__ import annotations

from typing import Any

from symgrad.ops.state.variable_enums import VariableAggregation, VariableSynchronization
from symgrad.ops.state.variables import Variable


class VariableV1(Variable):
    """A ``tf.Variable`` that also takes TF1's ``collections``, ``expected_shape`` and
    ``use_resource``; ``collections`` other than the global and trainable ones get the
    variable added.

    The argument order is the one TF 2.21 calls with (its metaclass's ``_variable_call``):
    TF2's, then TF1's extra keywords, so a positional TF1-era call means there what it
    means in TF 2.21 (``Variable(v, True, ["c"])`` is ``validate_shape=["c"]``), not what
    TF1's documented ``__init__`` order says."""

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool | None = None,
        validate_shape: bool = True,
        caching_device: Any = None,
        name: str | None = None,
        variable_def: Any = None,
        dtype: Any = None,
        import_scope: Any = None,
        constraint: Any = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
        shape: Any = None,
        experimental_enable_variable_lifting: Any = None,
        expected_shape: Any = None,
        collections: Any = None,
        use_resource: Any = None,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise TypeError(f"Variable.__init__() got an unexpected keyword argument {kwargs}")
        super().__init__(
            initial_value,
            trainable=trainable,
            validate_shape=validate_shape,
            name=name,
            dtype=dtype,
            shape=shape,
        )
        from symgrad.api.variable_scope import GraphKeys, add_to_collection

        for key in collections or ():
            if key not in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES):
                add_to_collection(key, self)
