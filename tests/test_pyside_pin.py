"""DESIGN §3: PySide6 6.12.0 crashes when an item is removed from a QGraphicsScene repeatedly.

The dependency pin keeps us below 6.12; these tests fail if a build with that crash is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys

import PySide6

REMOVE_LOOP = """
import os
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QGraphicsScene
app = QApplication([])
scene = QGraphicsScene()
for _ in range(2000):
    item = QGraphicsRectItem(0, 0, 10, 10)
    scene.addItem(item)
    scene.removeItem(item)
    del item
import gc
gc.collect()
print("ok")
"""


def test_installed_pyside6_is_not_the_crashing_release():
    assert PySide6.__version__ != "6.12.0"


def test_removing_scene_items_repeatedly_does_not_crash():
    # In a subprocess: a "Fatal Python error" would otherwise take the whole test run down.
    result = subprocess.run(
        [sys.executable, "-c", REMOVE_LOOP],
        cwd=os.environ["HOME"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"
