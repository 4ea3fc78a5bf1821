"""The presenter view on a real X display with two screens (presenter_checks.py under Xvfb)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_real_display import run_checks_under_xvfb

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("xvfb")]  # see test_real_display.py

CHECKS = Path(__file__).with_name("presenter_checks.py")


def test_the_presenter_view_on_two_screens(tmp_path):
    run_checks_under_xvfb(CHECKS, tmp_path, "-screen 0 1920x1080x24 -screen 1 1920x1080x24")
