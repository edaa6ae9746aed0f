"""``tf.nn.compute_average_loss`` and ``tf.nn.scale_regularization_loss``: a replica's
share of a loss, so that summing the replicas' gradients gives the global batch's."""

from __future__ import annotations

from typing import Any

from symgrad.distribute import distribute_lib


def _replica_only(what: str) -> None:
    if distribute_lib.has_strategy() and distribute_lib.in_cross_replica_context():
        raise RuntimeError(
            f"You are calling `{what}` in cross replica context, while it was expected "
            "to be called in replica context."
        )


def compute_average_loss(
    per_example_loss: Any, sample_weight: Any = None, global_batch_size: Any = None
) -> Any:
    """sum(per_example_loss · sample_weight) / global_batch_size; the global batch size is
    by default this replica's batch size times the number of replicas."""
    from symgrad.ops.array.structure import broadcast_to, cast, shape
    from symgrad.ops.core import convert_to_tensor
    from symgrad.ops.math.elementwise import divide, multiply
    from symgrad.ops.reduction.reduce import reduce_sum

    loss = convert_to_tensor(per_example_loss)
    dtype = loss.dtype
    if loss.shape.rank == 0:
        raise ValueError(
            "Invalid value passed for `per_example_loss`. Expected a tensor with at least "
            f"rank 1. Received: {per_example_loss!r}"
        )
    if sample_weight is not None:
        weight = cast(convert_to_tensor(sample_weight), dtype)
        loss = multiply(loss, broadcast_to(weight, shape(loss)))
    if global_batch_size is None:
        _replica_only("compute_average_loss")
        replicas = distribute_lib.get_strategy().num_replicas_in_sync
        global_batch_size = shape(loss)[0] * replicas
    size = convert_to_tensor(global_batch_size)
    if size.shape.rank != 0 or not size.dtype.is_integer:
        raise ValueError(f"global_batch_size must be a scalar integer, got {global_batch_size!r}")
    if size.has_value() and int(size.numpy()) <= 0:
        raise ValueError(f"global_batch_size must be positive, got {int(size.numpy())}")
    return divide(reduce_sum(loss), cast(size, dtype))


def scale_regularization_loss(regularization_loss: Any) -> Any:
    """sum(regularization_loss) / the number of replicas."""
    from symgrad.ops.array.structure import cast
    from symgrad.ops.core import convert_to_tensor
    from symgrad.ops.math.elementwise import divide
    from symgrad.ops.reduction.reduce import reduce_sum

    _replica_only("scale_regularization_loss")
    replicas = distribute_lib.get_strategy().num_replicas_in_sync
    loss = reduce_sum(convert_to_tensor(regularization_loss))
    return divide(loss, cast(replicas, loss.dtype))
