"""Install the app into the Linux desktop menu: a .desktop file, icons and AppStream metainfo.

``grpo-desktop --install-desktop-entry`` copies the files shipped in ``grpo_desktop.resources`` into
the user's XDG data folder (``$XDG_DATA_HOME``, else ``~/.local/share``), so a pip- or
pipx-installed app shows up in the application menu with its icon; no root, no system folders.
``--uninstall-desktop-entry`` removes exactly those files and nothing else.

Pure Python (no Qt): it works on a machine with no display. Every file is written atomically.
"""

from __future__ import annotations

import os
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from grpo_desktop.core.common.atomic import write_bytes_atomically

if TYPE_CHECKING:  # importlib.resources.abc is 3.11+; 3.10 spells it importlib.abc
    from importlib.resources.abc import Traversable

__all__ = [
    "APP_ID",
    "DESKTOP_FILE_NAME",
    "DESKTOP_ID",
    "EXECUTABLE_NAME",
    "ICON_NAME",
    "ICON_SIZES",
    "METAINFO_FILE_NAME",
    "desktop_entry_text",
    "executable_command",
    "icon_path",
    "install_desktop_entry",
    "planned_files",
    "resolve_data_home",
    "uninstall_desktop_entry",
]

#: The AppStream component id (reverse DNS of the project's home, hyphens spelled as underscores).
APP_ID = "io.github.grpo_desktop.GrpoDesktop"
#: The desktop file id: Qt's ``setDesktopFileName(DESKTOP_ID)`` makes it the Wayland app id, and
#: it is the X11 WM_CLASS instance of the ``grpo-desktop`` launcher (StartupWMClass).
DESKTOP_ID = "grpo-desktop"
DESKTOP_FILE_NAME = f"{DESKTOP_ID}.desktop"
METAINFO_FILE_NAME = f"{APP_ID}.metainfo.xml"
ICON_NAME = "grpo-desktop"
EXECUTABLE_NAME = "grpo-desktop"
#: The PNG sizes shipped in resources/icons/hicolor/<N>x<N>/apps/.
ICON_SIZES = (16, 32, 48, 64, 128, 256)

# Characters that force an Exec argument into double quotes (Desktop Entry spec, "Exec key").
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def _resources() -> Traversable:
    return resources.files("grpo_desktop.resources")


def icon_path(size: int = 256) -> Traversable:
    """The shipped PNG icon of ``size`` px, or the smallest larger one (the largest if none is).

    For a Qt window icon: ``QIcon(str(icon_path(size)))`` for each size in :data:`ICON_SIZES`.
    """
    chosen = next((s for s in ICON_SIZES if s >= size), ICON_SIZES[-1])
    return _resources() / "icons" / "hicolor" / f"{chosen}x{chosen}" / "apps" / f"{ICON_NAME}.png"


def resolve_data_home(explicit: Path | None = None) -> Path:
    """``explicit``, else an absolute ``$XDG_DATA_HOME``, else ``~/.local/share``."""
    if explicit is not None:
        return Path(explicit)
    xdg = os.environ.get("XDG_DATA_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg)
    return Path.home() / ".local" / "share"


def planned_files(home: Path | None = None) -> list[tuple[Path, Traversable]]:
    """(target, shipped source) for each file an install writes (see resolve_data_home)."""
    base = resolve_data_home(home)
    source = _resources()
    hicolor = base / "icons" / "hicolor"
    files: list[tuple[Path, Traversable]] = [
        (base / "applications" / DESKTOP_FILE_NAME, source / DESKTOP_FILE_NAME),
        (hicolor / "scalable" / "apps" / f"{ICON_NAME}.svg", source / "icons" / f"{ICON_NAME}.svg"),
    ]
    for size in ICON_SIZES:
        name = f"{size}x{size}"
        files.append((hicolor / name / "apps" / f"{ICON_NAME}.png", icon_path(size)))
    files.append((base / "metainfo" / METAINFO_FILE_NAME, source / METAINFO_FILE_NAME))
    return files


def _quote_exec_argument(argument: str) -> str:
    """One Exec argument, quoted and escaped as the Desktop Entry spec asks."""
    if not argument or any(char in _RESERVED for char in argument):
        escaped = "".join("\\" + char if char in '"`$\\' else char for char in argument)
        argument = f'"{escaped}"'
        # The string-value escape applies on top of the quoting rule: each backslash doubles.
        argument = argument.replace("\\", "\\\\")
    return argument.replace("%", "%%")


def executable_command() -> str:
    """The absolute path of the running ``grpo-desktop`` launcher, else the bare name.

    Pointing Exec at the launcher of *this* install (a venv, pipx, a bundle) makes the menu entry
    work even when that folder is not on the desktop session's PATH.
    """
    candidates = []
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).stem == EXECUTABLE_NAME:
        candidates.append(argv0)
    found = shutil.which(EXECUTABLE_NAME)
    if found:
        candidates.append(found)
    for candidate in candidates:
        path = Path(candidate)
        if path.is_file() and os.access(path, os.X_OK) and "\n" not in candidate:
            return str(path.absolute())
    return EXECUTABLE_NAME


def desktop_entry_text(exec_path: str | None = None) -> str:
    """The shipped .desktop file with ``Exec=`` pointing at ``exec_path`` (default: this one)."""
    command = executable_command() if exec_path is None else exec_path
    template = (_resources() / DESKTOP_FILE_NAME).read_text(encoding="utf-8")
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = f"Exec={_quote_exec_argument(command)}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def install_desktop_entry(
    data_home: Path | None = None, exec_path: str | None = None
) -> list[Path]:
    """Write the menu entry, icons and metainfo under ``data_home``; return the written paths.

    ``data_home`` defaults to ``$XDG_DATA_HOME`` or ``~/.local/share``. Installing again replaces
    the files (each atomically), so it also repairs an entry whose launcher moved.
    """
    written = []
    for target, source in planned_files(data_home):
        if target.name == DESKTOP_FILE_NAME:
            data = desktop_entry_text(exec_path).encode("utf-8")
        else:
            data = source.read_bytes()
        target.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomically(target, data)
        os.chmod(target, 0o644)  # mkstemp creates 0600; menus and icon caches expect 0644
        written.append(target)
    return written


def uninstall_desktop_entry(data_home: Path | None = None) -> list[Path]:
    """Remove exactly the files an install writes (folders and other files stay); return them."""
    removed = []
    for target, _source in planned_files(data_home):
        try:
            target.unlink()
        except FileNotFoundError:
            continue
        removed.append(target)
    return removed
