"""DESIGN §3: pyarrow before 14.0.1 unpickles extension types found in a parquet file's schema
(CVE-2023-47248), so reading a crafted ``completions_*.parquet`` could run code.

Both extras that bring pyarrow require a fixed release; these tests fail if the pin loosens or a
vulnerable build is installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser as a package, when installed
    tomllib = pytest.importorskip("tomli")

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
FIRST_FIXED = Version("14.0.1")
LAST_VULNERABLE = Version("14.0.0")


@pytest.mark.parametrize("extra", ["rollouts", "test"])
def test_every_extra_that_brings_pyarrow_requires_a_fixed_release(extra):
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    (pyarrow,) = [
        Requirement(line)
        for line in project["optional-dependencies"][extra]
        if Requirement(line).name == "pyarrow"
    ]
    assert FIRST_FIXED in pyarrow.specifier
    assert LAST_VULNERABLE not in pyarrow.specifier, f"{extra} allows pyarrow {pyarrow.specifier}"


def test_the_installed_pyarrow_is_a_fixed_release():
    pyarrow = pytest.importorskip("pyarrow")
    assert Version(pyarrow.__version__) >= FIRST_FIXED
