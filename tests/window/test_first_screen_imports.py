"""The lab's first screen loads only what it shows (issue #14: start-up near a bare window).

The Update and Training workspaces, lessons, scenario files, rollout readers and exports load on
first use; a fresh process that builds and shows the main window must not import them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

DEFERRED = (
    "grpo_desktop.core.formulas.clipped_loss",
    "grpo_desktop.core.update.update_snapshot",
    "grpo_desktop.core.update.update_step",
    "grpo_desktop.core.training.run",
    "grpo_desktop.core.training.training_config",
    "grpo_desktop.core.files.lessons",
    "grpo_desktop.core.files.scenario",
    "grpo_desktop.core.runs.rollouts",
    "grpo_desktop.views.lab.ppo_panel",  # "One model, not four": built when its tab shows
    "grpo_desktop.views.lab.reward_panel",
    "grpo_desktop.window.export_controller",
    "uuid",
    "ziamath",  # typesets the math right after the first screen (install_deferred_features)
)

# The modules are read when the window first paints: a busy machine can take longer than the
# 150 ms after which the window loads its deferred features, and those are not the first screen.
PROGRAM = """
import json, sys
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from grpo_desktop.window.main_window import MainWindow

class FirstPaint(QObject):
    modules = None

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and self.modules is None:
            self.modules = sorted(sys.modules)
        return False

first_paint = FirstPaint()
window = MainWindow()
window.installEventFilter(first_paint)
window.show()
while first_paint.modules is None:
    app.processEvents()
print(json.dumps(first_paint.modules))
"""


def test_showing_the_lab_imports_no_other_workspace(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(  # from an empty folder: the installed app, not the source tree
        [sys.executable, "-c", PROGRAM],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert "grpo_desktop.views.lab.trace_card" in loaded  # the probe did build the lab
    assert sorted(loaded.intersection(DEFERRED)) == []
