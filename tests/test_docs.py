"""The docs' examples run: every ```python block of README.md and docs/*.md, in order.

Blocks of one file run in order in one fresh interpreter (later blocks continue earlier
ones), in a temporary directory.  A ``print(...)  # expected`` line's
comment must appear in what the block printed (``...`` matches anything), so the numbers
the docs show are the numbers the code gives (decimals within float32 rounding).  A block
right after a ``<!-- no-run: why -->`` line is skipped (an excerpt of a module, or a
failure shown on purpose); one after ``<!-- needs-dot -->`` runs only where Graphviz's
``dot`` is installed.
"""

from __future__ import annotations

import doctest
import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from symgrad.tools import api

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"(<!-- (?:no-run|needs-dot)[^>]*-->\s*)?```python\n(.*?)```", re.S)
_EXPECT = re.compile(r"^\s*print\(.*\)\s+#\s*(.+)$")


def _blocks(path: Path) -> list[str]:
    has_dot = shutil.which("dot") is not None
    return [
        code
        for mark, code in _BLOCK.findall(path.read_text())
        if not mark or ("needs-dot" in mark and has_dot)
    ]


def _expected(code: str) -> list[tuple[re.Pattern[str], list[str]]]:
    """Each ``# expected`` comment as a pattern whose decimal numbers are groups, and the
    numbers it shows (compared by ``_close``: the last bit of a float, and so the last
    printed digit, may differ between CPUs and NumPy versions)."""
    found = []
    for line in code.splitlines():
        m = _EXPECT.match(line)
        if m:
            wants: list[str] = []
            parts = []
            split = m.group(1).split("...")
            for k, part in enumerate(split):
                pieces = _NUMBER.split(" ".join(part.split()))
                if k + 1 < len(split) and len(pieces) > 1 and not pieces[-1]:
                    pieces[-3:] = ["".join(pieces[-3:])]  # "-999999.98...": digits to come
                wants += pieces[1::2]
                parts.append(
                    "".join(
                        re.escape(p) if i % 2 == 0 else _NUMBER.pattern
                        for i, p in enumerate(pieces)
                    )
                )
            found.append((re.compile(".*".join(parts), re.S), wants))
    return found


_NUMBER = re.compile(r"(-?\d+\.\d+(?:e[-+]?\d+)?)")


def _close(got: str, want: str) -> bool:
    """Within 2e-6 relative (float32 rounding), or, for a number printed with 3 or more
    decimals, one unit of the last one (a rounding boundary: 0.4248 against 0.4249)."""
    g, w = float(got), float(want)
    decimals = len(want.split("e")[0].split(".")[1])
    unit = 10.0**-decimals * 1.01 if decimals >= 3 and "e" not in want else 0.0
    return abs(g - w) <= max(2e-6 * abs(w), unit)


def _shows(printed: str, pattern: re.Pattern[str], wants: list[str]) -> bool:
    return any(
        all(_close(g, w) for g, w in zip(m.groups(), wants)) for m in pattern.finditer(printed)
    )


_MARK = "=====doc-block-end====="


@pytest.mark.parametrize("path", [f for f in FILES if _blocks(f)], ids=lambda p: p.name)
def test_doc_examples_run(path: Path, tmp_path: Path) -> None:
    """Each file runs in a fresh interpreter, as a reader would run it (its op types and
    gradient rules must not leak into the rest of the suite)."""
    blocks = _blocks(path)
    program = f"\nprint({_MARK!r})\n".join(blocks) + f"\nprint({_MARK!r})\n"
    script = tmp_path / f"{path.stem}_examples.py"
    script.write_text(program)
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, f"{path.name}: the examples failed:\n{run.stderr[-3000:]}"
    outputs = run.stdout.split(_MARK + "\n")
    for i, code in enumerate(blocks):
        printed = " ".join(outputs[i].split())
        for pattern, wants in _expected(code):
            assert _shows(printed, pattern, wants), (
                f"{path.name} block {i + 1}: expected {pattern.pattern!r} in {printed!r}"
            )


# The extras some modules need (runtime/xla: [jax]); the oldest-NumPy CI run has none.
_OPTIONAL = {"jax", "h5py"}


def _modules() -> list[str]:
    src = ROOT / "src"
    return sorted(
        ".".join(p.relative_to(src).with_suffix("").parts).removesuffix(".__init__")
        for p in (src / "symgrad").rglob("*.py")
        if p.name != "__main__.py"
    )


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name: str) -> None:
    """The ``>>>`` examples in the package's docstrings give the output they show."""
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name not in _OPTIONAL:
            raise
        pytest.skip(f"{name} needs {e.name}, an optional extra")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"


def test_readme_lists_the_api_the_code_covers() -> None:
    text = (ROOT / "README.md").read_text()
    section = text[text.index(api.START) : text.index(api.END) + len(api.END)]
    assert section == api.markdown(), "run: python -m symgrad api --write README.md"
