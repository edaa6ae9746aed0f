"""AutoGraph, and ``tf.autograph``: the converter ``function`` applies to Python control flow.

``to_graph(f)`` returns ``f`` with its tensor-dependent ``if`` / ``while`` / ``for`` turned
into ``cond`` / ``while_loop`` calls (what ``function`` traces when ``autograph=True``);
``experimental.do_not_convert`` marks a function to run as written, and
``experimental.set_loop_options`` gives a converted loop shape invariants or a maximum
number of iterations.  The converter is ``converter``, its passes ``passes``, and the
operators converted code calls ``operators``; ``function`` finds the converter through
the registration in ``converter`` (runtime never imports this package).
"""

from __future__ import annotations

from types import SimpleNamespace

from symgrad.autograph.converter import do_not_convert, set_loop_options, to_graph
from symgrad.core import missing as _missing

experimental = SimpleNamespace(do_not_convert=do_not_convert, set_loop_options=set_loop_options)

__all__ = ["experimental", "to_graph"]

__getattr__ = _missing.module_getattr("tf.autograph")
