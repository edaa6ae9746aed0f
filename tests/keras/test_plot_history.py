"""examples/plot_history.py: a fit's History drawn one panel per metric (needs matplotlib,
the demo extra; skipped without it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
pytest.importorskip("matplotlib", reason="plot_history needs matplotlib (the demo extra)")
sys.path.insert(0, str(EXAMPLES))
from plot_history import plot_history  # noqa: E402


def png_size(path: Path) -> tuple[int, int]:
    png = path.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def test_one_panel_per_metric_with_its_validation_curve(tmp_path: Path) -> None:
    logs = {"accuracy": [0.5, 0.7], "loss": [1.0, 0.6], "val_accuracy": [0.4, 0.6]}
    assert plot_history(logs, tmp_path / "h.png") == ["accuracy", "loss"]
    assert png_size(tmp_path / "h.png") == (800, 320)  # 2 panels of 4 x 3.2 in at 100 dpi


def test_history_without_training_metrics_says_so(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no training metrics in the history"):
        plot_history({"val_loss": [1.0]}, tmp_path / "h.png")


def test_the_script_fits_and_saves_the_plot(tmp_path: Path) -> None:
    out = tmp_path / "history.png"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "plot_history.py"), str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"saved: {out}" in proc.stdout
    assert png_size(out) == (800, 320)  # accuracy and loss
