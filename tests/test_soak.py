"""The soak (benchmarks/soak.py) keeps working: a short seeded run is clean and says what it did.

The full soak (5,000 actions and more) is run by hand and reported in issue notes; this test only
keeps its machinery from rotting (an action that no longer finds its widget, a renamed QAction,
an invariant the window changed under it). It runs in a subprocess: the soak owns its own
QApplication, settings folder and patched dialogs, none of which may leak into other tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SOAK = Path(__file__).resolve().parent.parent / "benchmarks" / "soak.py"


def run_soak(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, str(SOAK), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


@pytest.mark.slow  # 300 actions in a fresh app: about 25 s on the 2-core machine
def test_a_short_seeded_soak_is_clean_and_reports_what_it_did(tmp_path):
    result = run_soak("--actions", "300", "--seed", "7", "--json")
    report = json.loads(result.stdout)
    assert report["actions"] == 300
    assert report["counts"] == dict.fromkeys(report["counts"], 0), result.stdout
    assert report["aborted"] == ""
    assert result.returncode == 0, result.stderr[-2000:]
    assert set(report["workspaces_seen"]) == {"lab", "update", "training", "compare"}
    assert len(report["actions_by_kind"]) >= 25  # most kinds ran, not one over and over
    rss = report["rss_mb"]
    assert 0 < rss["start"] <= rss["peak"] and rss["end"] <= rss["peak"]


def test_an_unknown_action_kind_is_refused_before_anything_runs():
    result = run_soak("--skip", "no_such_kind", timeout=30)
    assert result.returncode == 2
    assert "unknown kind" in result.stderr
