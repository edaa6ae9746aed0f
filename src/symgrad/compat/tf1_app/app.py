"""``tf.compat.v1.app``: ``run`` and ``flags``, as TF 2.21's (absl's ``app.run`` under TF's
flags parser), without absl.

``run(main=None, argv=None)``: the first time, installs absl's logging handler on the root
logger (:mod:`symgrad.compat.tf1_app.absl_logging`) and defines ``--help`` (``-?``),
``--helpshort`` and ``--helpfull``; parses ``argv`` (``sys.argv`` when None) with
``FLAGS(argv, known_only=True)``, as TF's ``run`` does, so unknown flags stay in the list
``main`` gets; stops with exit status 0 after parsing under ``--only_check_args``; sets
``--verbosity`` to 0 (INFO) when it was not given; then ``sys.exit(main(argv))`` (a main
returning None exits with 0).  A parse error propagates as the exception (TF's parser
raises it past absl's usage handling).  ``main`` defaults to the ``main`` of
``__main__``.  Later calls only parse and run, as absl's.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from symgrad.compat.tf1_app import absl_logging as _absl_logging
from symgrad.compat.tf1_app import flags as flags
from symgrad.compat.tf1_app.flag import Flag, _BoolParser
from symgrad.compat.tf1_app.help_text import text_wrap

__all__ = ["flags", "run"]

_initialized = False


class _HelpFlag(Flag):
    """``--help``: prints the program's usage and its own flags, then exits with 1."""

    full = False

    def __init__(self, name: str, text: str, short_name: str | None = None) -> None:
        super().__init__(_BoolParser(), name, False, text, short_name, boolean=True)

    def parse(self, argument: Any) -> None:
        if self._parse(argument):
            _usage(shorthelp=not self.full)
            if not self.full:
                print()
                print("Try --helpfull to get a list of all flags.")
            sys.exit(1)


class _HelpfullFlag(_HelpFlag):
    full = True


def _usage(shorthelp: bool) -> None:
    """absl's ``usage``: the main module's docstring (``%s`` is the program) or a USAGE
    line, then the flags (the main module's for the short help)."""
    doc = sys.modules["__main__"].__doc__
    if not doc:
        doc = text_wrap(f"\nUSAGE: {sys.argv[0]} [flags]\n", indent="       ", firstline_indent="")
    else:
        with contextlib.suppress(OverflowError, TypeError, ValueError):
            doc %= (sys.argv[0],) * (doc.count("%") - 2 * doc.count("%%"))
    fv = flags.FLAGS.__dict__["__wrapped"]
    flag_str = fv.main_module_help() if shorthelp else fv.get_help()
    sys.stdout.write(doc)
    if flag_str:
        sys.stdout.write("\nflags:\n")
        sys.stdout.write(flag_str)
    sys.stdout.write("\n")


def _define_help_flags() -> None:
    fv = flags.FLAGS.__dict__["__wrapped"]
    for flag in (
        _HelpFlag("help", "show this help", "?"),
        _HelpFlag("helpshort", "show this help"),
        _HelpfullFlag("helpfull", "show full help"),
    ):
        if flag.name not in fv:
            fv.register(flag, "absl.app")


def _parse(argv: Any) -> list[str]:
    """TF's parser: unknown flags are left for main."""
    return flags.FLAGS(sys.argv if argv is None else argv, known_only=True)  # type: ignore[no-any-return]


def run(main: Any = None, argv: Any = None) -> None:
    """Parses the flags and exits with ``main(remaining_argv)``'s value (see the module)."""
    global _initialized
    main = main or sys.modules["__main__"].main
    if _initialized:
        args = _parse(argv)
    else:
        fv = flags.FLAGS.__dict__["__wrapped"]
        _absl_logging.install(fv["verbosity"].value)
        _define_help_flags()
        args = _parse(argv)
        if fv["only_check_args"].value:
            sys.exit(0)
        if fv["verbosity"].using_default_value:
            flags.FLAGS.verbosity = 0
        _initialized = True
    sys.exit(main(args))
