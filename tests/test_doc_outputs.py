"""The outputs and counts the docs show are what the code prints.

``tests/test_docs.py`` runs every ```python block; here, a block followed at once by a
plain ``` block (the output it prints) must print that output: whitespace collapsed,
file paths reduced to ``<file>:<line>`` (docs show short names), op names without their
counting suffix (``Const_83`` as ``Const``), the two-digit errors of
``check-gradients`` (``8.6e-10``) read as any such number, and ``...`` in the shown
output matching anything; what is shown may be a part of what is printed.  The counts
the docs quote (the registry check's ``N OK, 0 FAIL, M SKIP``) are checked against the
tool, and no doc points to a file outside the repository.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"(<!-- (?:no-run|needs-dot)[^>]*-->\s*)?```(\w*)\n(.*?)```", re.S)
_MARK = "=====doc-block-end====="


def _pairs(text: str) -> list[tuple[str, str | None]]:
    """(code, shown output or None) for each block that runs, in order."""
    has_dot = shutil.which("dot") is not None
    found = list(_FENCE.finditer(text))
    out: list[tuple[str, str | None]] = []
    for i, m in enumerate(found):
        mark, lang, code = m.groups()
        if lang != "python" or (mark and not ("needs-dot" in mark and has_dot)):
            continue
        nxt = found[i + 1] if i + 1 < len(found) else None
        shown = None
        if (
            nxt is not None
            and nxt.group(2) == ""
            and not nxt.group(1)
            and text[m.end() : nxt.start()].strip() == ""
            and not nxt.group(3).startswith("$ ")  # a command's transcript: see below
        ):
            shown = nxt.group(3)
        out.append((code, shown))
    return out


def normalize(text: str) -> str:
    text = re.sub(r"[\w./<>-]*\.py:\d+", "<file>:<line>", text)
    text = re.sub(r"[\w./<>-]*\.py lines", "<file> lines", text)
    text = re.sub(r"\blines? \d+(-\d+)?", "lines <n>", text)
    text = re.sub(r"\b\d\.\de-\d\d\b", "<err>", text)
    text = re.sub(r" at 0x[0-9a-f]+", "", text)
    # eager op names count up over all the blocks run before: Const_83 reads as Const
    text = re.sub(r"\b([A-Za-z][A-Za-z0-9]*)_\d+(?=\b|_)", r"\1", text)
    return " ".join(text.split())


def _pattern(shown: str) -> re.Pattern[str]:
    parts = [re.escape(p) for p in normalize(shown).split("...")]
    return re.compile(".*".join(parts), re.S)


@pytest.mark.parametrize(
    "path", [f for f in FILES if any(s for _, s in _pairs(f.read_text()))], ids=lambda p: p.name
)
def test_shown_outputs_are_printed(path: Path, tmp_path: Path) -> None:
    pairs = _pairs(path.read_text())
    program = "".join(f"{code}\nprint({_MARK!r})\n" for code, _ in pairs)
    script = tmp_path / f"{path.stem}_outputs.py"
    script.write_text(program)
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, f"{path.name}: the examples failed:\n{run.stderr[-3000:]}"
    printed = run.stdout.split(_MARK + "\n")
    for i, (_, shown) in enumerate(pairs):
        if shown is None:
            continue
        got = normalize(printed[i])
        assert _pattern(shown).search(got), (
            f"{path.name} block {i + 1} printed:\n{printed[i]}\nbut the doc shows:\n{shown}"
        )


# --------------------------------------------------------------------------------------
# Command transcripts (``$ python -m symgrad check-gradients ...``) and the counts quoted


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "symgrad", *args], cwd=cwd, capture_output=True, text=True
    )


def _transcripts(text: str, command: str) -> list[tuple[str, int | None]]:
    """(shown output, shown exit status) of each transcript of ``$ command``."""
    out = []
    for block in re.findall(r"```\n(\$ .*?)```", text, re.S):
        lines = block.splitlines()
        if lines[0] != f"$ {command}":
            continue
        status = None
        if "$ echo $?" in lines:
            k = lines.index("$ echo $?")
            status, lines = int(lines[k + 1]), lines[:k]
        out.append(("\n".join(lines[1:]), status))
    return out


def _module_source() -> str:
    text = (ROOT / "docs" / "check_gradients.md").read_text()
    [code] = [c for _, lang, c in _FENCE.findall(text) if c.startswith("# my_ops.py")]
    return code


@pytest.mark.parametrize("path", ["README.md", "docs/check_gradients.md"])
def test_the_check_gradients_transcript_of_my_ops(path: str, tmp_path: Path) -> None:
    (tmp_path / "my_ops.py").write_text(_module_source())
    shown = _transcripts(
        (ROOT / path).read_text(), "python -m symgrad check-gradients --module my_ops"
    )
    assert shown, f"{path} shows no transcript of the my_ops check"
    run = _cli(["check-gradients", "--module", "my_ops"], tmp_path)
    for text, status in shown:
        assert _pattern(text).search(normalize(run.stdout)), run.stdout
        assert status in (None, run.returncode)


@pytest.fixture(scope="module")
def registry_check(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    return _cli(["check-gradients"], tmp_path_factory.mktemp("registry"))


def test_the_registry_transcript_and_counts(registry_check) -> None:
    out = registry_check.stdout
    assert registry_check.returncode == 0, out[-2000:]
    summary = re.search(r"(\d+) OK, (\d+) FAIL, (\d+) SKIP", out.splitlines()[-1])
    assert summary is not None
    counts = f"{summary[1]} OK, {summary[2]} FAIL, {summary[3]} SKIP"
    [(text, _)] = _transcripts(
        (ROOT / "docs" / "check_gradients.md").read_text(), "python -m symgrad check-gradients"
    )
    assert _pattern(text).search(normalize(out)), (
        f"docs/check_gradients.md: the tool prints {counts}"
    )
    readme = (ROOT / "README.md").read_text()
    quoted = re.findall(r"whole registry: `(\d+ OK, \d+ FAIL, \d+ SKIP)`", readme)
    assert quoted == [counts], f"README.md quotes {quoted}; the tool prints {counts}"


def test_no_doc_points_outside_the_repository() -> None:
    for path in FILES:
        text = path.read_text()
        for outside in ("TF_SEMANTICS", "DESIGN.md", "../shared", "shared/seeds"):
            assert outside not in text, f"{path.name} mentions {outside}, which users do not have"
        for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if "://" in link:
                continue
            assert (path.parent / link).exists(), f"{path.name} links to missing {link}"
