"""The layers of DESIGN §2: import-linter's contracts hold, and the pure core loads no Qt."""

from __future__ import annotations

import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import grpo_desktop.core

QT_MODULES = ("PySide6", "shiboken6", "pyqtgraph")
ROOT = Path(__file__).resolve().parent.parent


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


def test_the_import_contracts_in_pyproject_hold():
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint_imports, "import-linter is a test dependency: pip install '.[test]'"
    result = subprocess.run([lint_imports], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_every_module_of_the_pure_core_loads_no_qt():
    names = [
        module.name
        for module in pkgutil.walk_packages(grpo_desktop.core.__path__, "grpo_desktop.core.")
        if not module.ispkg
    ]
    assert "grpo_desktop.core.formulas.advantages" in names and len(names) > 10
    assert loaded_qt_modules_after("\n".join(f"import {name}" for name in names)) == []


def test_score_command_imports_no_qt():
    code = "from grpo_desktop.app import main\nmain(['score', '1', '0', '0', '1'])"
    assert loaded_qt_modules_after(code) == []
