"""The layer rules of DESIGN §2 that an import graph can check."""

from __future__ import annotations

import os
import subprocess
import sys

QT_MODULES = ("PySide6", "shiboken6", "pyqtgraph")


def loaded_qt_modules_after(code: str) -> list[str]:
    probe = (
        f"{code}\nimport sys\n"
        f"print('QT:' + ','.join(m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=os.environ["HOME"],  # the installed package, not the repository's source folder
        capture_output=True,
        text=True,
        check=True,
    )
    marker = result.stdout.splitlines()[-1]
    assert marker.startswith("QT:")
    return [name for name in marker[3:].split(",") if name]


def test_core_imports_no_qt():
    assert loaded_qt_modules_after("import grpo_desktop.core") == []


def test_score_command_imports_no_qt():
    code = "from grpo_desktop.app import main\nmain(['score', '1', '0', '0', '1'])"
    assert loaded_qt_modules_after(code) == []
