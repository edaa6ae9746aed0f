"""The eager backward pass's schedule over a tape's records, cached by the tape's structure.

A training loop records the same ops, wired the same way, at every step; only the
tensors differ.  The tape writes the structure down as it records (``GradientTape``'s
``_wiring``): it numbers each tensor it comes to know (*slots*: a watched tensor, a
watched variable's read, a record's output, in the order they became known), and for
each record its op type, its inputs' slots (-1: no gradient can reach there: unknown to
the tape, or not differentiable) and its outputs' slots, with no ids in it.  That
wiring, which slots answer for which sources and the targets' slots key a cache of
``Plan``\\ s: the records a source reaches, in ``backprop``'s order (the pending counts and
queue, simulated once on the slots, since they depend on the structure only), each with
its array rule and which inputs want a gradient, which slots more than one gradient can
reach (only those collect a list to sum), and for each source the slots whose gradients
sum to its own.  Shapes, dtypes of the values and attrs are read by the rules
when they run, so nothing in a plan depends on them; a changed gradient registry is
checked at every use (``Plan.current``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from operator import is_
from typing import Any

from symgrad.core.gradient_registry import ARRAY_RULES, array_rule_for, gradient_registry

# A step: (record index, array rule or None, needs, input slots (the sink, ``Plan.slots``,
# for those no gradient must reach), output slots, skipped inputs, the output slot where
# the op has one, held alone and no source's (else -1), does an input's slot hold a list).
Step = tuple[
    int, Any, tuple[bool, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], int, bool
]
Wiring = tuple[Any, ...]  # a record's (op type, input slots, output slots)


class Plan:
    """One structure's backward schedule (see the module docstring); immutable once built."""

    __slots__ = (
        "entries",
        "is_source",
        "keys_of",
        "late",
        "lone",
        "maker",
        "makers",
        "multi",
        "pairs",
        "slots",
        "source_slots",
        "steps",
        "targets",
        "types",
    )

    def __init__(self, wiring: Sequence[Wiring], sources: Any, targets: tuple[int, ...]) -> None:
        # The records a source reaches, each input no source reaches marked -1 (as the
        # general engine's ``skip_input_indices``): indices into the tape's records.
        reached = {s for slots in sources for s in slots}
        active: list[int] = []
        wired: list[Wiring] = []
        for j, (op_type, ins, outs) in enumerate(wiring):
            if any(s in reached for s in ins):
                active.append(j)
                wired.append((op_type, tuple(s if s in reached else -1 for s in ins), outs))
                reached.update(outs)
        self.slots = 1 + max(reached, default=-1)
        self.targets = tuple(s if s in reached else -1 for s in targets)
        order = _schedule(wired, self.targets)
        rules = {w[0]: array_rule_for(w[0]) for w in wired}
        # What ``array_rule_for`` read for each op type: its array rule's entry and the
        # registry's, compared by identity at each use (``current``).
        registry = gradient_registry._registry  # op type -> (rule, where)
        self.types = tuple(rules)
        self.pairs = tuple(map(ARRAY_RULES.get, self.types))
        self.entries = tuple(map(registry.get, self.types))
        self.source_slots = tuple(dict.fromkeys(s for slots in sources for s in slots))
        sink = self.slots  # (an extra slot: written, never read)
        self.is_source = tuple(s in self.source_slots for s in range(sink + 1))
        # How many gradients can reach each slot (a seed, a step's): a slot one can reach
        # holds it alone, as ``backprop``'s sum of one part is that part, else a list of
        # them in order (``multi``), summed when read.  ``maker``: a slot's one step's
        # record index (-1: none, or a list's: the pass notes who made it).
        reach = [0] * (sink + 1)
        maker = [-1] * (sink + 1)
        for s in self.targets:
            reach[s] += 1  # (a -1 counts at the sink, which is never read)
        for _, ins, _ in wired:
            for s in ins:
                reach[s] += 1
        self.multi = tuple(n > 1 for n in reach[:sink]) + (False,)
        self.steps: list[Step] = []
        for j in order:
            op_type, ins, outs = wired[j]
            skip = tuple(i for i, s in enumerate(ins) if s < 0)
            needs = tuple(s >= 0 for s in ins)
            to = tuple(s if s >= 0 else sink for s in ins)
            one = outs[0] if len(outs) == 1 else -1
            if one >= 0 and (self.multi[one] or self.is_source[one]):
                one = -1  # (``gathered`` sums it, or keeps a source's)
            fan = any(self.multi[s] for s in to)
            self.steps.append((active[j], rules[op_type], needs, to, outs, skip, one, fan))
            for s in ins:
                maker[s] = active[j]
        self.maker = tuple(-1 if m else j for j, m in zip(maker, self.multi, strict=True))
        # The source slots no step's output whose gradients are summed after the pass.
        outputs = {s for w in wired for s in w[2]}
        self.late = tuple(s for s in self.source_slots if self.multi[s] and s not in outputs)
        # Each source's slots, in the order the slots first answer for a source.
        first = {s: k for k, s in enumerate(self.source_slots)}
        self.keys_of = tuple(tuple(sorted(slots, key=first.__getitem__)) for slots in sources)
        # Each source's one slot, where each has one and none shares it (else None).
        lone = tuple(k[0] for k in self.keys_of if len(k) == 1)
        self.lone = lone if len(lone) == len(self.keys_of) == len(set(lone)) else None
        # Their makers' record indices, where one step's rule feeds each (else None).
        makers = tuple(self.maker[s] for s in lone)
        self.makers = makers if self.lone is not None and min(makers, default=0) >= 0 else None

    def current(self) -> bool:
        """Is each op type's array rule (or its lack) as when the plan was made?"""
        types = self.types  # (C loops, compared by identity: this runs at every gradient)
        return all(map(is_, map(ARRAY_RULES.get, types), self.pairs)) and all(
            map(is_, map(gradient_registry._registry.get, types), self.entries)
        )


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


_CACHE: dict[Any, Plan] = {}
_CACHE_SIZE = 64  # structures kept; a loop has one or a few (more: it starts over)


def plan_for(wiring: Sequence[Wiring], sources: Any, targets: tuple[int, ...]) -> Plan:
    """The plan for this structure (cached): a tape's ``wiring``, ``sources``: each
    source's slots (by source index), the targets' slots (-1: none)."""
    key = (tuple(wiring), sources, targets)
    plan = _CACHE.get(key)
    if plan is None or not plan.current():
        plan = Plan(wiring, sources, targets)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = plan
    return plan
