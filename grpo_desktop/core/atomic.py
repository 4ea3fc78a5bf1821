"""Write files atomically: a crash or a full disk never leaves half a file behind.

The text goes to a temporary file in the same folder, is flushed to disk, and then replaces the
target in one step (``os.replace``), so the old file stays intact until the new one is complete.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
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


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_text_atomically(path: str | os.PathLike[str], text: str) -> None:
    write_bytes_atomically(path, text.encode("utf-8"))
