"""``tf.train.Checkpoint`` and ``tf.train.CheckpointManager``: object-based checkpoints.

A checkpoint saves the variables reachable from its root through attributes: its keyword
arguments (``Checkpoint(model=m, optimizer=opt)``), the attributes of each ``tf.Module``
(lists, tuples and dicts included), and each optimizer's own variables.  Each value's key is
its path (``model/layers/0/w``); an object reached twice is saved once, under the first path
in sorted attribute order.  Restoring walks the same paths in the objects now alive.

Restoring is all or nothing: every value is checked against its variable's shape and dtype
before any variable changes, and a mismatch is a ValueError naming each one.  Values for
variables that do not exist yet, such as an optimizer's slots before its first step, wait in
that optimizer and are set when it makes them (TF's deferred restoration).  The file format
is described in :mod:`.checkpoint_format`.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from symgrad.api.module import Module, _leaves
from symgrad.core import dtypes as dt
from symgrad.core.graph import get_default_graph
from symgrad.ops.state.variables import Variable
from symgrad.train import checkpoint_format as fmt
from symgrad.train.variable_io import assign_values, check_values, outermost


def _trackable(x: Any) -> bool:
    return isinstance(x, Variable | Module) or hasattr(x, "_checkpoint_children")


def _escape(part: Any) -> str:
    return str(part).replace("%", "%25").replace("/", "%2F")


def attribute_children(attrs: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, object) for the trackable values in ``attrs``, containers expanded."""
    out = []
    for name in sorted(attrs):
        for path, leaf in _leaves(attrs[name], (name,)):
            if _trackable(leaf):
                out.append(("/".join(_escape(p) for p in path), leaf))
    return out


def _children(obj: Any) -> list[tuple[str, Any]]:
    hook = getattr(obj, "_checkpoint_children", None)
    if hook is not None:
        return hook()  # type: ignore[no-any-return]
    if isinstance(obj, Module):
        return attribute_children(vars(obj))
    return []


_SLOT = ".OPTIMIZER_SLOT"


def walk(root: Any) -> tuple[dict[str, Variable], dict[str, Any]]:
    """(key -> variable, path -> other object) of everything reachable from ``root``.

    A TF1 optimizer's slots are keyed by their variable's path, as TF keys them:
    ``model/w/.OPTIMIZER_SLOT/optimizer/m`` (variable names differ between runs; paths do
    not)."""
    variables: dict[str, Variable] = {}
    objects: dict[str, Any] = {}
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", root)]
    while stack:
        path, obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, Variable):
            variables[path] = obj
            continue
        objects[path] = obj
        stack.extend(
            (f"{path}/{name}" if path else name, child) for name, child in reversed(_children(obj))
        )
    path_of = {id(v): key for key, v in variables.items()}
    for opt_path, obj in list(objects.items()):
        for slot_name, var, slot in getattr(obj, "_checkpoint_slots", lambda: [])():
            if id(var) in path_of and id(slot) not in seen:
                variables[f"{path_of[id(var)]}/{_SLOT}/{opt_path}/{slot_name}"] = slot
    return variables, objects


# -------------------------------------------------------------------------------------
# Checkpoint


class CheckpointLoadStatus:
    """What a restore matched: ``assert_consumed()`` fails on checkpoint values nothing
    took (or still waiting for their variable) and on variables the checkpoint lacked."""

    def __init__(
        self,
        path: str | None,
        unused: list[str],
        missing: list[str],
        deferring: list[Any],
        matched: int,
    ) -> None:
        self.save_path = path
        self._unused, self._missing, self._deferring = unused, missing, deferring
        self._matched = matched

    def assert_consumed(self) -> CheckpointLoadStatus:
        waiting = sum(d._checkpoint_pending() for d in self._deferring)
        if self._unused or waiting:
            raise AssertionError(
                f"Unresolved values in checkpoint {self.save_path}: "
                f"{self._unused}"
                + (f" and {waiting} waiting for variables not made yet" if waiting else "")
            )
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        if self._missing:
            raise AssertionError(
                f"Objects not found in checkpoint {self.save_path}: {self._missing}"
            )
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        if not self._matched:
            raise AssertionError(
                f"Nothing in checkpoint {self.save_path} matched this object graph"
            )
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run: the values were set when ``restore`` was called."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: the values were set when ``restore`` was called."""


class Checkpoint:
    """``Checkpoint(model=..., optimizer=...)``: save, write, restore and read the
    variables reachable from its arguments (see the module docstring)."""

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        for name, value in kwargs.items():
            if not _trackable(value):
                raise ValueError(
                    f"`Checkpoint` was expecting a trackable object (a Variable, "
                    f"tf.Module, optimizer or Checkpoint), got {value!r} for "
                    f"{name}."
                )
            setattr(self, name, value)
        self._root = root
        self._save_counter: Variable | None = None

    def _checkpoint_children(self) -> list[tuple[str, Any]]:
        items = _children(self._root) if self._root is not None else []
        items += attribute_children({k: v for k, v in vars(self).items() if not k.startswith("_")})
        if self._save_counter is not None:
            items.append(("save_counter", self._save_counter))
        return items

    @property
    def save_counter(self) -> Variable:
        """An int64 variable counting the saves (numbers ``save``'s checkpoints)."""
        if self._save_counter is None:
            with outermost(get_default_graph()).as_default():
                self._save_counter = Variable(
                    0, trainable=False, name="save_counter", dtype=dt.int64
                )
        return self._save_counter

    def write(self, file_prefix: str, options: Any = None) -> str:
        """Write the checkpoint at exactly ``file_prefix``; returns it."""
        variables, _ = walk(self)
        return fmt.write(
            os.fspath(file_prefix), {key: np.asarray(v.numpy()) for key, v in variables.items()}
        )

    def save(self, file_prefix: str, options: Any = None) -> str:
        """Write ``<file_prefix>-<n>`` (n counts the saves) and record it as the latest in
        its directory's state file."""
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write(f"{os.fspath(file_prefix)}-{int(counter.numpy())}")
        fmt.write_state(os.path.dirname(path), path, [path])
        return path

    def read(self, save_path: str, options: Any = None) -> CheckpointLoadStatus:
        return self.restore(save_path, options)

    def restore(self, save_path: str | None, options: Any = None) -> CheckpointLoadStatus:
        """Set the variables from checkpoint ``save_path`` (None: nothing to restore)."""
        if save_path is None:
            return CheckpointLoadStatus(None, [], [], [], 0)
        save_path = os.fspath(save_path)
        entries = fmt.read(save_path)
        if "save_counter" in entries:
            _ = self.save_counter
        variables, objects = walk(self)
        matched = [(key, v, entries[key]) for key, v in variables.items() if key in entries]
        check_values(matched)
        assign_values([(v, value) for _, v, value in matched])
        unused = [
            key
            for key in entries
            if key not in variables and not _defer(variables, objects, key, entries[key])
        ]
        missing = [key for key in variables if key not in entries]
        deferring = [o for o in objects.values() if hasattr(o, "_checkpoint_pending")]
        return CheckpointLoadStatus(save_path, unused, missing, deferring, len(matched))


def _defer(
    variables: dict[str, Variable], objects: dict[str, Any], key: str, value: np.ndarray
) -> bool:
    """Hand ``value`` to the object that will make its variable later, if there is one: a
    slot's optimizer (with the slot's variable), else the deepest object above ``key``."""
    if f"/{_SLOT}/" in key:
        var_path, _, rest = key.partition(f"/{_SLOT}/")
        opt_path, _, slot_name = rest.rpartition("/")
        opt, var = objects.get(opt_path), variables.get(var_path)
        return (
            opt is not None
            and var is not None
            and hasattr(opt, "_checkpoint_defer_slot")
            and opt._checkpoint_defer_slot(var, slot_name, value)
        )
    for path in sorted(objects, key=len, reverse=True):
        obj = objects[path]
        if (
            key.startswith(path + "/")
            and hasattr(obj, "_checkpoint_defer")
            and obj._checkpoint_defer(key[len(path) + 1 :], value)
        ):
            return True
    return False


# -------------------------------------------------------------------------------------
# CheckpointManager


class CheckpointManager:
    """Numbered saves of a Checkpoint in one directory, keeping the last ``max_to_keep``."""

    def __init__(
        self,
        checkpoint: Checkpoint,
        directory: str,
        max_to_keep: int | None,
        keep_checkpoint_every_n_hours: float | None = None,
        checkpoint_name: str = "ckpt",
        step_counter: Any = None,
        checkpoint_interval: Any = None,
        init_fn: Any = None,
        last_checkpoint_step: Any = None,
    ) -> None:
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(
                f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}."
            )
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        state = fmt.read_state(self._directory)
        self._checkpoints = [p for p in state[1] if fmt.exists(p)] if state else []
        self._latest = state[0] if state and fmt.exists(state[0]) else None

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The kept checkpoints, oldest first."""
        return list(self._checkpoints)

    @property
    def latest_checkpoint(self) -> str | None:
        return self._latest

    def save(
        self, checkpoint_number: Any = None, check_interval: bool = True, options: Any = None
    ) -> str:
        """Write ``<directory>/ckpt-<n>``; delete the oldest beyond ``max_to_keep``."""
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        n = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = self._checkpoint.write(f"{self._prefix}-{n}")
        if path in self._checkpoints:
            self._checkpoints.remove(path)
        self._checkpoints.append(path)
        while self._max_to_keep is not None and len(self._checkpoints) > self._max_to_keep:
            fmt.remove(self._checkpoints.pop(0))
        self._latest = path
        fmt.write_state(self._directory, path, self._checkpoints)
        return path

    def restore_or_initialize(self) -> str | None:
        """Restore the latest checkpoint if there is one, else call ``init_fn``."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None
