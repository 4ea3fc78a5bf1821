"""Write files atomically: a crash or a full disk never leaves half a file behind.

The text goes to a temporary file in the same folder, is flushed to disk, and then replaces the
target in one step (``os.replace``), so the old file stays intact until the new one is complete.

Only a regular file (or a new name) is written: a FIFO or a device node is refused, not replaced.
A symlink is written through: the file it points to gets the new content and the link stays a
link. Temporaries a killed write left behind (``.<name>.<pid>.<8 characters>.tmp``, our own
naming) are removed the next time we write in that folder, and at start-up from the folders of
the recent files, as soon as the process that made them is gone (older temporaries, named
without a process id, once they are :data:`STALE_SECONDS` old).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from grpo_desktop.core.common.jsonfile import NotARegularFileError, kind_of_file

__all__ = [
    "STALE_SECONDS",
    "remove_left_temporaries",
    "remove_stale_temporaries",
    "write_bytes_atomically",
    "write_target",
    "write_text_atomically",
]

#: A temporary older than this is left from a write that died; a live write takes well under it.
STALE_SECONDS = 15 * 60
#: ``tempfile.mkstemp(prefix=".<name>.<pid>.", suffix=".tmp")``: eight characters from this
#: alphabet, after the writing process's id (absent in the names of earlier versions).
_TEMPORARY = re.compile(r"\..+?(?:\.(?P<pid>[0-9]{1,10}))?\.[a-z0-9_]{8}\.tmp")


def write_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` must replace: ``path`` itself, or the end of its symlinks
    (which need not exist yet). A symlink loop is an ``OSError`` (ELOOP), as opening it would be."""
    target = Path(path)
    if not target.is_symlink():
        return target
    try:
        return Path(os.path.realpath(target, strict=True))
    except FileNotFoundError:  # a dangling link: create the file it points to
        return Path(os.path.realpath(target))
    except OSError as error:
        if error.errno is None:  # Python 3.11 raises a bare OSError for a loop
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from None
        raise


def write_bytes_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data``; :class:`NotARegularFileError` if ``path`` is a FIFO, a
    device, a socket or a folder: replacing one would silently swap it for a regular file (as
    root, ``/dev/null`` itself), and writing into it could block or never land."""
    target = write_target(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise NotARegularFileError(kind_of_file(mode))
    folder = target.parent if str(target.parent) else Path(".")
    remove_stale_temporaries(folder)
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=folder
    )
    try:
        # mkstemp makes the file private (0600); a saved scenario or export should get the
        # permissions any new file gets (or keep those of the file it replaces).
        os.chmod(temporary, _mode_for(target))
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove_stale_temporaries(folder: Path, now: float | None = None) -> list[str]:
    """Delete this module's temporaries in ``folder`` whose writer is gone: regular files named
    exactly like ours, never a symlink or a folder. Returns the names removed."""
    limit = (time.time() if now is None else now) - STALE_SECONDS
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                continue
            pid = match.group("pid")
            if info.st_mtime < limit or (pid is not None and _process_gone(int(pid))):
                os.unlink(entry.path)
                removed.append(entry.name)
        except OSError:
            continue  # gone already, or not ours to remove: never fail a save over it
    return removed


def remove_left_temporaries(folders: Iterable[Path]) -> list[str]:
    """At start-up: clear what killed writes left in ``folders`` (each once)."""
    removed: list[str] = []
    for folder in dict.fromkeys(folders):
        removed += remove_stale_temporaries(folder)
    return removed


def _process_gone(pid: int) -> bool:
    """True only when no process has this id. A live one (ours or another user's) or an
    unanswerable question keeps the file: on Windows ``os.kill`` would end the process, so
    there a temporary waits for :data:`STALE_SECONDS` instead."""
    if os.name != "posix" or pid == os.getpid() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # PermissionError: it exists, owned by someone else
        return False
    return False


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_text_atomically(path: str | os.PathLike[str], text: str) -> None:
    write_bytes_atomically(path, text.encode("utf-8"))
