"""``tf.nn.embedding_lookup``: rows of an embedding table, with TF's sparse gradient.

One table (a tensor or a Variable) is a gather on axis 0, so the table's gradient is an
``IndexedSlices`` of the looked-up rows (ids flattened), as TF's ResourceGather and
GatherV2 rules give it; ``max_norm`` clips each looked-up embedding by its l2-norm.
"""

from __future__ import annotations

from typing import Any

from symgrad.api.clip_ops import clip_by_norm
from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.array import structure as array
from symgrad.ops.array.gather import gather
from symgrad.ops.core import identity


def embedding_lookup(
    params: Any,
    ids: Any,
    max_norm: Any = None,
    name: str | None = None,
    partition_strategy: str = "mod",
    validate_indices: bool = True,
) -> Tensor:
    """``params[ids]`` (rows of one table); ``max_norm`` limits each row's l2-norm.

    TF1's third positional argument is ``partition_strategy``: a string there is read as
    it.  A table split over several tensors (a list of more than one) is not supported.
    """
    if isinstance(max_norm, str):  # TF1's signature: (params, ids, partition_strategy, ...)
        max_norm = None
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, list | tuple):
        if not params:
            raise ValueError("Length of params is currently 0. Need at least one param.")
        if len(params) > 1:
            raise NotImplementedError(
                f"embedding_lookup: params split over {len(params)} tensors (a partitioned "
                "table) is not supported by symgrad; pass one tensor or Variable"
            )
        params = params[0]
    with name_scope(name, "embedding_lookup"):
        ids_t = array.int_tensor(ids, "ids")
        result = gather(params, ids_t)
        if max_norm is not None:
            ids_rank, rank = ids_t.shape.rank, result.shape.rank
            if ids_rank is None or rank is None:
                raise NotImplementedError("embedding_lookup with max_norm needs static ranks")
            result = clip_by_norm(result, max_norm, axes=list(range(ids_rank, rank)))
        return identity(result)
