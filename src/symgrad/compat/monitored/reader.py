"""``tf.compat.v1.train.NewCheckpointReader`` and ``init_from_checkpoint`` over symgrad's
checkpoint files (the format of :mod:`symgrad.train.checkpoint_format`).

``init_from_checkpoint`` follows TF's ``checkpoint_utils._init_from_checkpoint``: the map
is walked sorted by checkpoint name; a variable (or the name of one ``get_variable`` made)
takes the checkpoint tensor named; ``"old/": "new/"`` maps every ``get_variable``
variable under scope ``new`` to the tensor of the same name under ``old`` (``"/": "/"``
for all).  The variable's initializer then sets the checkpoint's value (the value is read
when ``init_from_checkpoint`` is called; TF reads it when the initializer runs); a variable
made at top level is assigned at once, as in TF's eager mode.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from symgrad.api.variable_scope import _store
from symgrad.compat.tf1_app import tf_logging as logging
from symgrad.core import dtypes as dt
from symgrad.core.errors import InvalidArgumentError, NotFoundError
from symgrad.ops.core import constant
from symgrad.ops.state.variables import Variable
from symgrad.train import checkpoint_format as fmt


class CheckpointReader:
    """The values of one checkpoint, read once: ``get_tensor``, ``has_tensor``, the
    name-to-shape and name-to-dtype maps, ``debug_string``."""

    def __init__(self, prefix: str) -> None:
        if not fmt.exists(prefix):
            raise NotFoundError(
                "Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                f"files for {prefix}"
            )
        self._prefix = prefix
        self._entries = fmt.read(prefix)

    def get_tensor(self, tensor_str: Any) -> np.ndarray:
        name = tensor_str.decode() if isinstance(tensor_str, bytes) else str(tensor_str)
        if name not in self._entries:
            raise NotFoundError(f"Key {name} not found in checkpoint")
        value = self._entries[name]
        return value.copy() if value.ndim else value[()]

    def has_tensor(self, tensor_str: Any) -> bool:
        name = tensor_str.decode() if isinstance(tensor_str, bytes) else str(tensor_str)
        return name in self._entries

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        return {k: list(v.shape) for k, v in self._entries.items()}

    def get_variable_to_dtype_map(self) -> dict[str, dt.DType]:
        return {k: dt.as_dtype(v.dtype) for k, v in self._entries.items()}

    def debug_string(self) -> bytes:
        lines = [
            f"{k} ({dt.as_dtype(v.dtype).name}) {list(v.shape)}"
            for k, v in sorted(self._entries.items())
        ]
        return ("\n".join(lines) + "\n").encode()


def NewCheckpointReader(filepattern: Any) -> CheckpointReader:
    """A reader of the checkpoint with prefix ``filepattern``."""
    path = filepattern.decode() if isinstance(filepattern, bytes) else os.fspath(filepattern)
    return CheckpointReader(path)


def _checkpoint_file(ckpt_dir_or_file: Any) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = fmt.latest_checkpoint(path)
        if latest is None:
            raise ValueError(
                f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}"
            )
        return latest
    return path


def _set_initial_value(var: Variable, value: np.ndarray) -> None:
    graph = var.graph
    if graph.eager:
        var.assign(value)
        return
    with graph.as_default(), graph.control_dependencies(None), graph.name_scope(None):
        var._initial_value = constant(value, var.dtype, name=f"{var.op.name}/checkpoint_value")
    var._initializer = None


def init_from_checkpoint(ckpt_dir_or_file: Any, assignment_map: Any) -> None:
    """Make the variables named by ``assignment_map`` initialize from a checkpoint."""
    prefix = _checkpoint_file(ckpt_dir_or_file)
    reader = NewCheckpointReader(prefix)
    variable_map = reader.get_variable_to_shape_map()
    pairs = assignment_map.items() if isinstance(assignment_map, Mapping) else assignment_map
    store_vars = _store().variables
    for name_in_ckpt, current in sorted(pairs, key=lambda pair: pair[0]):
        var = current if isinstance(current, Variable) else store_vars.get(current)
        if var is not None:
            if name_in_ckpt not in variable_map:
                raise ValueError(
                    f"Tensor {name_in_ckpt} is not found in {ckpt_dir_or_file} checkpoint "
                    f"{variable_map}"
                )
            if not var.get_shape().is_compatible_with(variable_map[name_in_ckpt]):
                raise ValueError(
                    f"Shape of variable {var.name} ({var.get_shape()}) doesn't match with "
                    f"shape of tensor {name_in_ckpt} ({variable_map[name_in_ckpt]}) from "
                    "checkpoint reader."
                )
            _set(var, reader, name_in_ckpt, ckpt_dir_or_file)
            continue
        scopes = current[: current.rindex("/")] if "/" in current else ""
        if not name_in_ckpt.endswith("/"):
            raise ValueError(
                f"Assignment map with scope only name {scopes} should map to scope only "
                f"{name_in_ckpt}. Should be 'scope/': 'other_scope/'."
            )
        names = sorted(n for n in store_vars if not scopes or n.startswith(scopes + "/"))
        for var_name in names:
            full = var_name[len(scopes) :]
            if current != "/":
                full = full[1:]
            if name_in_ckpt != "/":
                full = name_in_ckpt + full
            if full.endswith("/"):
                full = full[:-1]
            if full not in variable_map:
                raise ValueError(
                    f"Tensor {full} ({var_name[len(scopes) + 1 :]} in {name_in_ckpt}) is not "
                    f"found in {ckpt_dir_or_file} checkpoint"
                )
            _set(store_vars[var_name], reader, full, ckpt_dir_or_file)


def _set(var: Variable, reader: CheckpointReader, key: str, where: Any) -> None:
    value = np.asarray(reader.get_tensor(key))
    if value.dtype != var.dtype.np:
        raise InvalidArgumentError(
            f"tensor_name = {key}; expected dtype {var.dtype.name} does not equal original "
            f"dtype {dt.as_dtype(value.dtype).name}"
        )
    _set_initial_value(var, value)
    logging.debug("Initialize variable %s from checkpoint %s with %s", var.op.name, where, key)


__all__ = ["CheckpointReader", "NewCheckpointReader", "init_from_checkpoint"]
