"""``tensorflow.python.framework.tensor_util``: ``constant_value``, a tensor's value when it
is known without running a graph (an eager value or a Const), else None."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core.graph import Tensor
from symgrad.core.op_registry import constant_value as _known


def constant_value(tensor: Any, partial: bool = False) -> np.ndarray | None:
    if not isinstance(tensor, Tensor):
        return np.asarray(tensor)
    return _known(tensor)
