"""The menu entry install: what lands in the XDG data folder, and that uninstall removes only it.

Every test passes a tmp data_home (or points XDG_DATA_HOME and HOME at tmp): the real home is
never touched.
"""

from __future__ import annotations

import configparser
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from grpo_desktop import desktop_entry
from grpo_desktop.desktop_entry import (
    APP_ID,
    ICON_SIZES,
    desktop_entry_text,
    icon_path,
    install_desktop_entry,
    resolve_data_home,
    uninstall_desktop_entry,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _no_real_home(tmp_path, monkeypatch):
    """Whatever a test forgets to pass, the default lands in tmp, never in the real home."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-default"))


def expected_files(home: Path) -> set[Path]:
    hicolor = home / "icons" / "hicolor"
    files = {
        home / "applications" / "grpo-desktop.desktop",
        home / "metainfo" / f"{APP_ID}.metainfo.xml",
        hicolor / "scalable" / "apps" / "grpo-desktop.svg",
    }
    files |= {hicolor / f"{n}x{n}" / "apps" / "grpo-desktop.png" for n in ICON_SIZES}
    return files


def read_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return parser["Desktop Entry"]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_MAGIC
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_install_writes_entry_icons_and_metainfo(tmp_path):
    home = tmp_path / "share"
    written = install_desktop_entry(home, exec_path="/opt/grpo/bin/grpo-desktop")

    assert set(written) == expected_files(home)
    assert len(written) == len(set(written))
    assert {p for p in home.rglob("*") if p.is_file()} == expected_files(home)

    entry = read_entry(home / "applications" / "grpo-desktop.desktop")
    assert entry["Type"] == "Application"
    assert entry["Name"] == "GRPO Desktop"
    assert entry["Exec"] == "/opt/grpo/bin/grpo-desktop"
    assert entry["Icon"] == "grpo-desktop"
    assert entry["Terminal"] == "false"
    assert entry["Categories"].split(";")[:2] == ["Education", "Science"]
    assert entry["StartupWMClass"] == "grpo-desktop"

    for size in ICON_SIZES:
        data = home / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "grpo-desktop.png"
        assert png_size(data.read_bytes()) == (size, size)
    svg = (home / "icons" / "hicolor" / "scalable" / "apps" / "grpo-desktop.svg").read_text()
    assert "<svg" in svg and "#009E73" in svg and "#D55E00" in svg
    metainfo = (home / "metainfo" / f"{APP_ID}.metainfo.xml").read_text()
    assert f"<id>{APP_ID}</id>" in metainfo
    assert '<launchable type="desktop-id">grpo-desktop.desktop</launchable>' in metainfo


def test_installed_files_are_readable_not_executable(tmp_path):
    for path in install_desktop_entry(tmp_path, exec_path="grpo-desktop"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert not list(tmp_path.rglob(".*.tmp")), "atomic writes left a temporary file"


def test_install_twice_replaces_files_and_picks_up_a_moved_launcher(tmp_path):
    install_desktop_entry(tmp_path, exec_path="/old/bin/grpo-desktop")
    written = install_desktop_entry(tmp_path, exec_path="/new/bin/grpo-desktop")
    assert set(written) == expected_files(tmp_path)
    assert read_entry(tmp_path / "applications" / "grpo-desktop.desktop")["Exec"] == (
        "/new/bin/grpo-desktop"
    )


def test_uninstall_removes_exactly_the_installed_files(tmp_path):
    apps = tmp_path / "applications"
    apps.mkdir()
    other_entry = apps / "other-app.desktop"
    other_entry.write_text("[Desktop Entry]\nName=Other\n")
    other_icon = tmp_path / "icons" / "hicolor" / "48x48" / "apps" / "other.png"
    other_icon.parent.mkdir(parents=True)
    other_icon.write_bytes(PNG_MAGIC)

    written = install_desktop_entry(tmp_path, exec_path="grpo-desktop")
    removed = uninstall_desktop_entry(tmp_path)

    assert set(removed) == set(written)
    assert not any(path.exists() for path in written)
    assert other_entry.read_text() == "[Desktop Entry]\nName=Other\n"
    assert other_icon.read_bytes() == PNG_MAGIC
    assert {p for p in tmp_path.rglob("*") if p.is_file()} == {other_entry, other_icon}


def test_uninstall_when_nothing_is_installed_removes_nothing(tmp_path):
    keep = tmp_path / "applications" / "keep.desktop"
    keep.parent.mkdir()
    keep.write_text("x")
    assert uninstall_desktop_entry(tmp_path) == []
    assert keep.read_text() == "x"


def test_default_folder_is_xdg_data_home_then_local_share(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert resolve_data_home() == tmp_path / "xdg"
    written = install_desktop_entry(exec_path="grpo-desktop")
    assert all(path.is_relative_to(tmp_path / "xdg") for path in written)

    monkeypatch.setenv("XDG_DATA_HOME", "relative/is/ignored")  # the spec: absolute paths only
    assert resolve_data_home() == tmp_path / "home" / ".local" / "share"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert resolve_data_home() == tmp_path / "home" / ".local" / "share"


@pytest.mark.parametrize(
    ("path", "exec_value"),
    [
        ("/usr/bin/grpo-desktop", "/usr/bin/grpo-desktop"),
        ("/home/a b/.venv/bin/grpo-desktop", '"/home/a b/.venv/bin/grpo-desktop"'),
        ("/srv/100%/grpo-desktop", "/srv/100%%/grpo-desktop"),
        ('/x/$HOME"q/grpo-desktop', '"/x/\\\\$HOME\\\\"q/grpo-desktop"'),
    ],
)
def test_exec_path_is_quoted_as_the_spec_asks(path, exec_value):
    assert f"\nExec={exec_value}\n" in desktop_entry_text(path)


def test_exec_finds_the_running_launcher(tmp_path, monkeypatch):
    launcher = tmp_path / "venv" / "bin" / "grpo-desktop"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(launcher), "--install-desktop-entry"])
    assert desktop_entry.executable_command() == str(launcher)

    monkeypatch.setattr(sys, "argv", ["-m"])  # python -m grpo_desktop: look on PATH instead
    monkeypatch.setenv("PATH", str(launcher.parent))
    assert desktop_entry.executable_command() == str(launcher)

    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert desktop_entry.executable_command() == "grpo-desktop"


@pytest.mark.parametrize("size", [*ICON_SIZES, 1, 20, 1000])
def test_icon_path_gives_a_png_at_least_that_big(size):
    path = icon_path(size)
    width, height = png_size(path.read_bytes())
    assert width == height
    assert width >= min(size, max(ICON_SIZES))
    if size in ICON_SIZES:
        assert width == size


def test_shipped_desktop_file_is_valid():
    """desktop-file-validate, where installed (apt-get install desktop-file-utils)."""
    if not os.path.exists("/usr/bin/desktop-file-validate"):
        pytest.skip("desktop-file-validate is not installed (Debian: desktop-file-utils)")
    source = Path(str(desktop_entry._resources() / "grpo-desktop.desktop"))
    result = subprocess.run(
        ["desktop-file-validate", str(source)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout
