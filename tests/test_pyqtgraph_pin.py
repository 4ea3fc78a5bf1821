"""The pyqtgraph pin in pyproject.toml admits only the versions views/common/pyqtgraph_internals.py
was
checked against: the app reads pyqtgraph's private attributes, so a newer release must be checked
(and VERIFIED widened) before the pin may admit it."""

from __future__ import annotations

import re
from pathlib import Path

from grpo_desktop.views.common.pyqtgraph_internals import VERIFIED, version_tuple

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_the_pin_admits_exactly_the_verified_pyqtgraph_versions():
    # The dependency's line, read as text: tomllib is Python 3.11+, and the app runs on 3.10.
    (pin,) = re.findall(r'^\s*"(pyqtgraph[^"]*)"', PYPROJECT.read_text(encoding="utf-8"), re.M)
    low = re.search(r">=\s*([\d.]+)", pin)
    high = re.search(r"<\s*([\d.]+)", pin)
    assert low and high, f"pyqtgraph needs both bounds, got {pin!r}"
    oldest, newest = (version_tuple(v) for v in VERIFIED)
    assert version_tuple(low.group(1)) == oldest
    major, minor, patch = newest
    assert version_tuple(high.group(1)) == (major, minor, patch + 1)
