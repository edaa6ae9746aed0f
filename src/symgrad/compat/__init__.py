"""``tf.compat.v1`` and ``tf.compat.v2``: the names TF2-era programs reach the APIs by.

``tf.compat.v1`` is TF1's API: the functions whose arguments TF2 changed have TF1's
signatures there (``v1.nn.dropout(x, keep_prob)``, ``v1.reduce_sum(..., keep_dims)``), and
every other name is ``tf``'s (``tf.compat.v1.Session`` is ``tf.Session``: TF1-only names
that conflict with nothing stay at the top level too).  ``tf.compat.v2`` is ``tf`` without
the TF1-only names.  ``v1.disable_eager_execution()`` and ``v1.disable_v2_behavior()`` are
accepted and change one thing, the seeds of top-level random ops (TF1's graph rules, so a
TF1 program draws TF1's numbers): at top level an op runs at once when its inputs have
values and stays symbolic when one comes from a placeholder, so TF1 programs run as they
are.
"""

from __future__ import annotations

from symgrad.compat import v1, v2

__all__ = ["v1", "v2"]
