"""User functions of a pipeline (``map``, ``filter``, ``reduce``, ...), traced once.

TF traces a ``map_func`` into a graph when ``map`` is called, from the input's
``element_spec`` (so Python side effects run once, and shapes the function sees are the
spec's, ``None`` where unknown), then runs that graph per element.  Here the trace is a
symgrad ``function`` with the spec as its ``input_signature``; each element calls the
concrete function.  A tuple element is passed as separate arguments, anything else
(a dict, a namedtuple, one tensor) as one argument, as TF's ``_should_unpack`` decides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symgrad.autograph import converter as autograph
from symgrad.core import nest
from symgrad.core.context import init_scope
from symgrad.data import structure
from symgrad.runtime.function import TensorSpec, function


class Traced:
    """``fn`` traced for arguments of ``specs`` (a list: one entry per argument)."""

    def __init__(self, fn: Callable[..., Any], specs: list[Any], what: str) -> None:
        if not callable(fn):
            raise ValueError(
                f"Argument `func` must be a callable. Received func={fn!r} (of type {type(fn)})"
            )
        self.specs = specs
        self.what = what

        converted = autograph.convert(fn, strict=False)  # TF runs AutoGraph on these too

        def body(*args: Any) -> Any:
            ret = converted(*args)
            if isinstance(ret, list):  # tf.data reads a returned list as a tuple
                ret = tuple(ret)
            return structure.normalize(ret)

        body.__name__ = getattr(fn, "__name__", "map_func")
        with init_scope():
            self._cf = function(body, input_signature=specs).get_concrete_function()
        specs_out = [TensorSpec(t.shape, t.dtype) for t in self._cf.outputs]
        self.output_spec = nest.pack_sequence_as(self._cf._structure, specs_out)

    @property
    def is_identity(self) -> bool:
        """The function returns its inputs unchanged (TF eliminates such a map)."""
        outs, ins = self._cf.outputs, self._cf.inputs
        return len(outs) == len(ins) and all(o is i for o, i in zip(outs, ins, strict=True))

    def call(self, args: list[structure.Flat]) -> Any:
        """The outputs (eager tensors) for one flat value per argument."""
        tensors = [structure.to_tensors(s, a) for s, a in zip(self.specs, args, strict=True)]
        return self._cf(*tensors)

    def flat(self, args: list[structure.Flat]) -> structure.Flat:
        """Outputs as arrays; run while the pipeline is stepped (under ``init_scope``)."""
        return structure.arrays(self.call(args))


def element_args(spec: Any) -> tuple[list[Any], Callable[[structure.Flat], list[Any]]]:
    """The argument specs for an element of ``spec`` and how to split a flat element."""
    if type(spec) is tuple:
        sizes = [len(structure.flatten(s)) for s in spec]

        def split(flat: structure.Flat) -> list[Any]:
            out, i = [], 0
            for n in sizes:
                out.append(flat[i : i + n])
                i += n
            return out

        return list(spec), split
    return [spec], lambda flat: [flat]


def for_element(fn: Callable[..., Any], spec: Any, what: str) -> tuple[Traced, Any]:
    specs, split = element_args(spec)
    return Traced(fn, specs, what), split


def scalar_bool(traced: Traced) -> None:
    """A predicate must return a scalar bool tensor (TF's ValueError at ``filter``)."""
    out = traced.output_spec
    if (
        not isinstance(out, TensorSpec)
        or out.dtype.name != "bool"
        or out.shape.rank not in (0, None)
    ):
        raise ValueError(
            f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
            f"return type was {out}."
        )
