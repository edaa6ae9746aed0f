"""``tf.data``: input pipelines in memory, on NumPy, with TF's element structure and order.

``Dataset.from_tensor_slices((x, y)).shuffle(n, seed=s).batch(b).map(f)`` yields TF's
elements in TF's order: ``shuffle`` is TF's ring-buffer algorithm on TF's Philox stream,
seeded as TF seeds it (``tf.random.set_seed`` and the op seed), reshuffling each
iteration as TF does; ``map``/``filter``/``reduce``/``scan`` functions are traced once, from
the element spec, and the trace runs per element.

Differences from TF, on purpose: elements are computed in the calling thread when asked
for (``prefetch``, ``num_parallel_calls`` and ``deterministic`` are accepted and change
nothing, as if TF ran them deterministically, and ``tf.data.Options`` are kept, merged and
read back as TF's, changing nothing); ``cache`` keeps memory only; ``flat_map``
and ``interleave`` trace their function once and replay it per element
(:mod:`.traced_datasets`), ``group_by_window``'s ``reduce_func`` runs eagerly per element.  Inside a
``function``, ``for x in dataset`` is a graph loop over a fresh iterator made each time the
function runs, as TF's AutoGraph makes it (:mod:`.loop`).
"""

from __future__ import annotations

from symgrad.data import experimental
from symgrad.data import loop as _loop  # noqa: F401  (declares the ops of `for x in dataset` in a function)
from symgrad.data.base import AUTOTUNE, INFINITE, UNKNOWN, OwnedIterator
from symgrad.data.dataset import Dataset
from symgrad.data.options import Options, ThreadingOptions
from symgrad.data.windows import DatasetSpec

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN
Iterator = OwnedIterator

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetSpec",
    "Iterator",
    "Options",
    "ThreadingOptions",
    "experimental",
]
