"""absl's help text for flags (``--help``, ``str(FLAGS)``): each flag as
``  --[no]fast: go fast`` with its default and syntax on indented lines, wrapped at the
terminal's width (80 when not a terminal)."""

from __future__ import annotations

import shutil
import sys
import textwrap
from typing import Any


def get_help_width() -> int:
    """The terminal's width when stdout is one (at least 40), else 80, as absl's."""
    if not sys.stdout.isatty():
        return 80
    columns = shutil.get_terminal_size((80, 24)).columns
    return columns if columns >= 40 else 80


def text_wrap(
    text: str, length: int | None = None, indent: str = "", firstline_indent: str | None = None
) -> str:
    """Wraps each paragraph (line) of ``text`` at ``length`` with absl's indents."""
    length = get_help_width() if length is None else length
    indent = "" if indent is None else indent
    firstline_indent = indent if firstline_indent is None else firstline_indent
    if len(indent) >= length:
        raise ValueError("Length of indent exceeds length")
    if len(firstline_indent) >= length:
        raise ValueError("Length of first line indent exceeds length")
    result: list[str] = []
    first = textwrap.TextWrapper(
        width=length, initial_indent=firstline_indent, subsequent_indent=indent
    )
    later = textwrap.TextWrapper(width=length, initial_indent=indent, subsequent_indent=indent)
    wrapper = first
    for paragraph in (p.strip() for p in text.expandtabs(4).splitlines()):
        result.extend(wrapper.wrap(paragraph) if paragraph else [""])
        wrapper = later
    return "\n".join(result)


def flag_help(flag: Any, prefix: str = "  ") -> str:
    """One flag's help entry."""
    text = f"-{flag.short_name}," if flag.short_name else ""
    text += f"--[no]{flag.name}: " if flag.boolean else f"--{flag.name}: "
    text = text_wrap(text + flag.help, indent=prefix + "  ", firstline_indent=prefix)
    if flag.default_as_str:
        text += "\n" + text_wrap(f"(default: {flag.default_as_str})", indent=prefix + "  ")
    if flag.parser.syntactic_help:
        text += "\n" + text_wrap(f"({flag.parser.syntactic_help})", indent=prefix + "  ")
    return text


def usage_lines(module: str, flags: list[Any], prefix: str) -> str:
    """A module's section: ``\\nmodule:`` and its flags sorted by name ('' for none)."""
    if not flags:
        return ""
    entries = [flag_help(f, prefix + "  ") for f in sorted(flags, key=lambda f: f.name)]
    return "\n".join([f"\n{prefix}{module}:", *entries])
