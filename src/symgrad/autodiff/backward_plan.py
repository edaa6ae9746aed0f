"""The eager backward pass's schedule over a tape's records, cached by the tape's structure.

A training loop records the same ops, wired the same way, at every step; only the
tensors differ.  ``wire`` makes one pass over the records: it numbers the tensors a
gradient may reach (*slots*: the sources' first, then each active record's outputs), and
writes down what determines the pass, with no ids in it: each active record's op type,
its inputs' slots (-1: no gradient wanted there: not reached, or not differentiable),
its output slots, which source indices each source slot answers for, and the targets'
slots.  That signature keys a cache of ``Plan``\\ s: the records to run in ``backprop``'s
order (the pending counts and queue, simulated once on the slots, since they depend on
the structure only), each with its array rule and which inputs want a gradient, and for
each source the slots whose gradients sum to its own.  Shapes, dtypes of the values and
attrs are read by the rules when they run, so nothing in a plan depends on them; a
changed gradient registry is checked at every use (``Plan.current``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from symgrad.core.eager import EagerTensor
from symgrad.core.gradient_registry import ARRAY_RULES, array_rule_for, gradient_registry
from symgrad.core.graph import Tensor

# A step: (active index, array rule or None, needs, input slots, output slots, skipped inputs).
Step = tuple[int, Any, tuple[bool, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
Wiring = tuple[Any, ...]  # an active record's (op type, input slots, output slots)


class Plan:
    """One structure's backward schedule (see the module docstring); immutable once built."""

    __slots__ = ("is_source", "keys_of", "rules", "slots", "source_slots", "steps")

    def __init__(self, wiring: list[Wiring], sources: Any, targets: tuple[int, ...]) -> None:
        self.slots = 1 + max(
            [s for w in wiring for s in w[2]] + [s for s, _ in sources], default=-1
        )
        order = _schedule(wiring, targets)
        rules = {w[0]: array_rule_for(w[0]) for w in wiring}
        # What ``array_rule_for`` read for each op type: its array rule's entry and the
        # registry's, compared by identity at each use (``current``).
        registry = gradient_registry._registry  # op type -> (rule, where)
        self.rules = tuple((t, ARRAY_RULES.get(t), registry.get(t)) for t in rules)
        self.steps: list[Step] = []
        for j in order:
            op_type, ins, outs = wiring[j]
            skip = tuple(i for i, s in enumerate(ins) if s < 0)
            needs = tuple(s >= 0 for s in ins)
            self.steps.append((j, rules[op_type], needs, ins, outs, skip))
        self.source_slots = tuple(s for s, _ in sources)
        self.is_source = tuple(s in self.source_slots for s in range(self.slots))
        self.keys_of = _keys_of(sources)

    def current(self) -> bool:
        """Is each op type's array rule (or its lack) as when the plan was made?"""
        arrays, registry = ARRAY_RULES.get, gradient_registry._registry.get
        for op_type, pair, entry in self.rules:
            if arrays(op_type) is not pair or registry(op_type) is not entry:
                return False
        return True


def _schedule(wiring: list[Wiring], targets: tuple[int, ...]) -> list[int]:
    """The active records in the order ``backprop`` runs them: those the targets depend
    on, each once all its consumers between sources and targets have reported."""
    producer = {s: j for j, w in enumerate(wiring) for s in w[2]}
    pending = [-1] * len(wiring)  # -1: not between a source and a target
    for s in targets:
        at = producer.get(s)
        if at is not None:
            pending[at] = 0
    for j in range(len(wiring) - 1, -1, -1):  # consumers come after their producers
        if pending[j] >= 0:
            for s in wiring[j][1]:
                p = producer.get(s)
                if p is not None:
                    pending[p] = pending[p] + 1 if pending[p] > 0 else 1
    ready = deque(j for j in range(len(wiring) - 1, -1, -1) if pending[j] == 0)
    order = []
    while ready:  # as the pass releases them: after each record, its inputs' producers
        j = ready.popleft()
        order.append(j)
        for s in wiring[j][1]:
            p = producer.get(s)
            if p is not None:
                pending[p] -= 1
                if pending[p] == 0:
                    ready.append(p)
    return order


def _keys_of(sources: Any) -> tuple[tuple[int, ...], ...]:
    """Source index -> its slots, in order (a slot listed twice for it: once)."""
    n = 1 + max((i for _, idx in sources for i in idx), default=-1)
    keys_of: list[list[int]] = [[] for _ in range(n)]
    for s, idx in sources:
        for i in idx:
            if not keys_of[i] or keys_of[i][-1] != s:
                keys_of[i].append(s)
    return tuple(map(tuple, keys_of))


def wire(
    records: Iterable[Any], source_of: dict[Any, list[int]], var_index: dict[int, list[int]]
) -> tuple[list[tuple[Any, Any]], dict[Any, int], list[Wiring]]:
    """The active records (those a source reaches) with their inputs, each tensor key's
    slot, and each active record's wiring; a recorded read of a source variable becomes a
    source (added to ``source_of``)."""
    slot_of = {k: i for i, k in enumerate(source_of)}
    active: list[tuple[Any, Any]] = []
    wiring: list[Wiring] = []
    get = slot_of.get
    for r in records:
        light = type(r) is EagerTensor
        op_type = r._type if light else r.type
        if var_index and op_type == "ReadVariableOp":
            var = id(r._attrs["var"])
            if var in var_index:
                k = id(r) if light else (id(r), 0)
                source_of.setdefault(k, []).extend(var_index[var])
                slot_of.setdefault(k, len(slot_of))
        if light:
            op = r._op
            ins = r._inputs if op is None else op.inputs
            if not ins:  # (a variable's read)
                continue
        else:
            ins = r.inputs
        slots = []
        wanted = False
        for t in ins:
            s = get(id(t) if type(t) is EagerTensor else (id(t.op), t.value_index))
            if s is not None and t.dtype.is_differentiable:
                wanted = True
                slots.append(s)
            else:
                slots.append(-1)
        if wanted:
            if light:
                outs: tuple[int, ...] = (slot_of.setdefault(id(r), len(slot_of)),)
            else:
                outs = tuple(
                    slot_of.setdefault((id(r), i), len(slot_of))
                    for i in range(len(r.output_dtypes))
                )
            active.append((r, ins))
            wiring.append((op_type, tuple(slots), outs))
    return active, slot_of, wiring


_CACHE: dict[Any, Plan] = {}
_CACHE_SIZE = 64  # structures kept; a loop has one or a few (more: it starts over)


def plan_for(
    wiring: list[Wiring],
    slot_of: dict[Any, int],
    source_of: dict[Any, list[int]],
    targets: Sequence[Tensor],
) -> tuple[Plan, tuple[int, ...]]:
    """The plan for this structure (cached), and the targets' slots (-1: none)."""
    get = slot_of.get
    target_slots = tuple(
        [get(id(t) if type(t) is EagerTensor else (id(t.op), t.value_index), -1) for t in targets]
    )
    sources = tuple([(slot_of[k], tuple(idx)) for k, idx in source_of.items()])
    key = (tuple(wiring), sources, target_slots)
    plan = _CACHE.get(key)
    if plan is None or not plan.current():
        plan = Plan(wiring, sources, target_slots)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = plan
    return plan, target_slots
