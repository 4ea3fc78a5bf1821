"""The presenter view on a real X display with two screens (presenter_checks.py under Xvfb)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_real_display import xvfb_run

pytestmark = pytest.mark.slow  # a second pytest under Xvfb

CHECKS = Path(__file__).with_name("presenter_checks.py")


def test_the_presenter_view_on_two_screens(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="xcb")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY"):
        env.pop(name, None)
    command = [
        xvfb_run(),
        "--auto-servernum",
        "--server-args=-screen 0 1920x1080x24 -screen 1 1920x1080x24 -nolisten tcp",
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=-ra",
        str(CHECKS),
    ]
    result = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    report = f"$ {' '.join(command)}\n{result.stdout}\n{result.stderr}"
    assert result.returncode == 0, report
    assert " passed" in result.stdout and "skipped" not in result.stdout, report
