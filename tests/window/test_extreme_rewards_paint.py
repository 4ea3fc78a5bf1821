"""Rewards at the ends of float64 paint in every workspace (found by the soak, issue 24).

A reward of 2.2e-308 set by hand made the charts zoom to a range Qt's transforms cannot scale
(a segfault in the paint), and the token chips' colour scale overflow to inf. Each case paints in
a child process, so a crash fails one test instead of ending the run.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PAINT_EVERY_WORKSPACE = """
import sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from grpo_desktop.model.settings import AppSettings
from grpo_desktop.window.main_window import MainWindow
window = MainWindow(settings=AppSettings(remember=False))
window.install_deferred_features()
window.resize(1280, 800)
window.show()
workbench = window.workbench
workbench.set_convention(sys.argv[1])
workbench.set_by_hand(True)
value = float(sys.argv[2])
for index, score in enumerate((value, 0.0, value, 0.0)):
    workbench.set_score(index, score)
for view in ("advantage", "reward"):
    workbench.set_view(view, animate=False)
    for workspace in ("lab", "update", "compare"):
        workbench.set_workspace(workspace)
        for _ in range(3):
            app.processEvents()
        window.grab()
window.export_actions.chart_png_bytes()
print("painted")
"""


# A whole app per case (about 2 s): the development loop keeps the soak's case, textbook at
# 2.2e-308; the other eleven are slow.
SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    "value",
    ["2.2e-308", *(pytest.param(v, marks=SLOW) for v in ("5e-324", "1e-13", "1e100"))],
)
@pytest.mark.parametrize(
    "convention",
    [*(pytest.param(c, marks=SLOW) for c in ("rloo", "dr_grpo")), "textbook"],
)
def test_rewards_at_the_ends_of_float64_paint_in_every_workspace(convention, value):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", PAINT_EVERY_WORKSPACE, convention, value],
        capture_output=True,
        text=True,
        env=env,
        cwd=env["HOME"],
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "painted"
