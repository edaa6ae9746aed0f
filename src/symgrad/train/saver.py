"""``tf.compat.v1.train.Saver``: TF1's name-based checkpoints, saved and restored in a Session.

Values are keyed by variable name (``w``, ``layer/w``, ``w/Adam``), so a program that makes
the same variables can restore them whatever objects hold them.  The files are symgrad's
(see :mod:`.checkpoint_format`); no meta graph is written (``write_meta_graph`` is accepted
and ignored: a symgrad graph is rebuilt by running the program again).  Restoring checks
every value's presence, shape and dtype before one Session run sets them all.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from symgrad.core.errors import InvalidArgumentError, NotFoundError
from symgrad.core.graph import get_default_graph
from symgrad.ops.state.variables import Variable, global_variables
from symgrad.train import checkpoint_format as fmt
from symgrad.train.optimizer_v1 import var_name
from symgrad.train.variable_io import assign_values, outermost, prepare_restore


def _var_dict(var_list: Any) -> dict[str, Variable]:
    if isinstance(var_list, dict):
        items = list(var_list.items())
    else:
        items = [(var_name(v), v) for v in var_list]
    out: dict[str, Variable] = {}
    for name, v in items:
        if not isinstance(v, Variable):
            raise TypeError(f"Variable to save is not a Variable: {v!r}")
        if name in out:
            raise ValueError(f"At least two variables have the same name: {name}")
        out[name] = v
    return out


class Saver:
    """``saver.save(sess, path, global_step=...)`` and ``saver.restore(sess, path)``."""

    def __init__(
        self,
        var_list: Any = None,
        reshape: bool = False,
        sharded: bool = False,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours: float = 10000.0,
        name: str | None = None,
        restore_sequentially: bool = False,
        saver_def: Any = None,
        builder: Any = None,
        defer_build: bool = False,
        allow_empty: bool = False,
        write_version: int = 2,
        pad_step_number: bool = False,
        save_relative_paths: bool = False,
        filename: str | None = None,
    ) -> None:
        self._graph = outermost(get_default_graph())
        variables = global_variables() if var_list is None else var_list
        self._vars = _var_dict(variables)
        if not self._vars and not allow_empty:
            raise ValueError("No variables to save")
        prepare_restore(list(self._vars.values()))  # TF's Saver makes its restore ops now
        self._max_to_keep = max_to_keep
        self._pad = pad_step_number
        self._last_checkpoints: list[str] = []

    # -- saving
    def save(
        self,
        sess: Any,
        save_path: str,
        global_step: Any = None,
        latest_filename: str | None = None,
        meta_graph_suffix: str = "meta",
        write_meta_graph: bool = True,
        write_state: bool = True,
        strip_default_attrs: bool = False,
        save_debug_info: bool = False,
    ) -> str:
        """Write the variables' values as read in ``sess``; returns the checkpoint prefix
        (``save_path-<global_step>`` when a step is given)."""
        save_path = os.fspath(save_path)
        if global_step is not None:
            step = global_step if isinstance(global_step, int) else int(sess.run(global_step))
            save_path = f"{save_path}-{step:08d}" if self._pad else f"{save_path}-{step}"
        names = list(self._vars)
        values = sess.run([self._vars[n] for n in names]) if names else []
        fmt.write(
            save_path,
            {n: np.asarray(v, dtype=self._vars[n].dtype.np) for n, v in zip(names, values)},
        )
        if write_state:
            self._remember(save_path)
            fmt.write_state(
                os.path.dirname(save_path),
                save_path,
                self._last_checkpoints,
                latest_filename or fmt.STATE_FILE,
            )
        return save_path

    def _remember(self, path: str) -> None:
        if path in self._last_checkpoints:
            self._last_checkpoints.remove(path)
        self._last_checkpoints.append(path)
        while self._max_to_keep and len(self._last_checkpoints) > self._max_to_keep:
            fmt.remove(self._last_checkpoints.pop(0))

    # -- restoring
    def restore(self, sess: Any, save_path: str | None) -> None:
        """Set every variable of this Saver from checkpoint ``save_path`` in ``sess``."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not fmt.exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        entries = fmt.read(save_path)
        pairs = []
        for name, v in self._vars.items():
            if name not in entries:
                raise NotFoundError(f"Key {name} not found in checkpoint {save_path}")
            value = entries[name]
            if tuple(value.shape) != tuple(v.shape.as_list()) or value.dtype != v.dtype.np:
                raise InvalidArgumentError(
                    f"Restoring from checkpoint failed: variable {name} has shape {v.shape} "
                    f"and dtype {v.dtype.name}, the checkpoint has shape {value.shape} and "
                    f"dtype {value.dtype}. No variable was changed."
                )
            pairs.append((v, value))
        assign_values(pairs, session=sess)

    # -- the list of recent checkpoints
    @property
    def last_checkpoints(self) -> list[str]:
        return list(self._last_checkpoints)

    def set_last_checkpoints(self, last_checkpoints: list[str]) -> None:
        self._last_checkpoints = list(last_checkpoints)

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: list[Any]) -> None:
        self._last_checkpoints = [p for p, _ in last_checkpoints_with_time]

    def recover_last_checkpoints(self, checkpoint_paths: list[str]) -> None:
        self._last_checkpoints = [p for p in checkpoint_paths if fmt.exists(p)]
