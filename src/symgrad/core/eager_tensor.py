"""The light eager tensor: an eager op's one output, whose ``Operation`` is built lazily.

``symgrad.core.eager`` makes these (its docstring says when and with what fields);
``materialize`` builds the op on first access to ``tensor.op``, with the fields and graph
entry it would have had if built at once; ``frozen_light`` makes the constant the memory
sweep puts in place of one (``symgrad.core.history``).
"""

from __future__ import annotations

import weakref
from typing import Any

from symgrad.core.devices import eager_name
from symgrad.core.graph import _IN_PACKAGE_MAX as _SITES_MAX
from symgrad.core.graph import _SITES, Graph, Operation, Tensor
from symgrad.core.shapes import TensorShape, as_shape

_new_op = Operation.__new__


class EagerTensor(Tensor):
    """An eager op's one output, whose ``Operation`` is built when first read (``op``).

    Reads that need no op (value, dtype, shape, name, graph, device, printing, operators)
    are answered from the tensor's own fields.  ``_inputs`` is None once the op exists:
    the op holds the inputs then, and the memory sweep cuts the op's edges.
    """

    # ``dtype``, ``shape`` and ``graph`` are slots here, where Tensor has properties that
    # read the op: the shape rules read them for every op.  ``set_shape`` keeps the
    # shape and the op's (once built) the same.
    __slots__ = (
        "_at",
        "_attrs",
        "_control",
        "_count",
        "_device",
        "_inputs",
        "_name",
        "_op",
        "_override",
        "_tb",
        "_type",
        "_value",
        "dtype",
        "graph",
        "shape",
    )
    value_index = 0  # one output (shadows Tensor's slot, which stays unset)
    _at: int  # -1, or with _tb a code object, the instruction (``_site``)
    _attrs: dict[str, Any]  # NO_ATTRS, or the op's own
    _control: tuple[Operation, ...]
    _count: int  # > 0: the name is "<_name>_<_count>", formatted when read (op_name)
    _device: str
    _inputs: tuple[Tensor, ...] | None
    _name: str
    _op: Operation | None
    _override: str | None
    _tb: Any  # (file, line), or the user's code object until built: _site
    _type: str
    _value: Any
    dtype: Any
    graph: Graph
    shape: TensorShape

    @property
    def op(self) -> Operation:  # type: ignore[override]
        op = self._op
        return op if op is not None else materialize(self)

    def set_shape(self, shape: Any) -> None:
        self.shape = self.shape.merge_with(as_shape(shape))
        if self._op is not None:
            self._op.output_shapes[0] = self.shape

    @property
    def name(self) -> str:
        return op_name(self) + ":0"

    @property
    def device(self) -> str:
        return eager_name(self._device)  # type: ignore[no-any-return]

    @property
    def eager_value(self) -> Any:
        return self._value

    def has_value(self) -> bool:
        return True


_new_tensor = EagerTensor.__new__
NO_ATTRS: dict[str, Any] = {}  # the attrs of the light tensors of ops without any (read only)


def op_name(t: EagerTensor) -> str:
    """The name of ``t``'s op.  The fast path's counter names are formatted when read."""
    count = t._count
    return t._name if not count else f"{t._name}_{count}"


def materialize(t: EagerTensor) -> Operation:
    """``t``'s op, built now as ``Operation(...)`` would have built it when ``t`` was made.

    Under the graph's sweep lock: the sweep reads and cuts ``t._inputs``, which building
    the op hands to it, so a build waits for a sweep in another thread to finish (and
    a second reader finds the op the first one built)."""
    with t.graph._sweeping:
        op = t._op
        return op if op is not None else _build(t)


def _build(t: EagerTensor) -> Operation:
    op = _new_op(Operation)
    op.graph = graph = t.graph
    op.type = t._type
    op.name = name = op_name(t)
    op.inputs = t._inputs  # type: ignore[assignment]  # not None until built
    attrs = t._attrs
    op._attrs = attrs if attrs is not NO_ATTRS else {}
    op.output_dtypes = [t.dtype]
    op.output_shapes = [t.shape]
    op.output_values = [t._value]
    op._outs = [weakref.ref(t)]
    op._gradient_op_type = t._override
    op.control_inputs = t._control
    op.traceback = _site(t._tb, t._at)
    op.device = t._device
    op.skip_input_indices = None
    t._op, t._inputs = op, None
    by_name = graph._by_name
    ref = by_name.get(name)
    if ref is not None and ref() is t:  # the name now finds the op, held or not by t
        by_name[name] = weakref.ref(op)
    return op


def frozen_light(t: EagerTensor) -> EagerTensor:
    """A Const standing for ``t`` (not materialised) in the sweep: same name and value."""
    c = _new_tensor(EagerTensor)
    c._op, c._value, c.dtype, c.shape = None, t._value, t.dtype, t.shape
    c._name, c._count, c._type, c._inputs, c.graph = t._name, t._count, "Const", (), t.graph
    c._attrs = {"value": t._value, "dtype": t.dtype}
    c._override, c._control, c._tb, c._at, c._device = None, (), t._tb, t._at, t._device
    return c


def _site(code: Any, lasti: int) -> tuple[str, int]:
    """A light tensor's traceback as (file, line): the fast path's (code, instruction)
    turned into the line ``frame.f_lineno`` read then would have given; else ``code``,
    the (file, line) itself (``lasti`` -1)."""
    if lasti < 0:
        return code  # type: ignore[no-any-return]
    key = (id(code), lasti)  # remembered as ``graph._site_of`` remembers a frame's line:
    hit = _SITES.get(key)  # the walk below is as long as the code (an optimizer's six
    if hit is not None and hit[0] is code:  # updates, materialised: 15K bytecodes)
        return hit[1]  # type: ignore[no-any-return]
    site: Any = code.co_filename, None  # as f_lineno: no line
    for start, end, line in code.co_lines():
        if start <= lasti < end:
            site = code.co_filename, line
            break
    if len(_SITES) >= _SITES_MAX:
        _SITES.clear()
    _SITES[key] = (code, site)
    return site
