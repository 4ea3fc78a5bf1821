"""What the app remembers between runs: theme, zoom, animation, reduced motion, window geometry,
recent files.

Backed by ``QSettings`` in INI format. A corrupt or hand-edited settings file never stops the app:
each value is checked, and anything unreadable falls back to its default with a note in the log.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from pathlib import Path

from PySide6.QtCore import QByteArray, QLockFile, QSettings

from grpo_desktop.core.common.jsonfile import NotARegularFileError, check_regular_file
from grpo_desktop.core.common.theme import DEFAULT_THEME, THEMES

log = logging.getLogger(__name__)

ZOOM_MIN, ZOOM_MAX, ZOOM_DEFAULT = 0.75, 3.0, 1.0
#: How long each captioned step of the reward → advantage animation lasts (View ▸ Animation step):
#: long enough for a class to read "Step 1 of 2: subtract par …" before step 2 begins.
ANIMATION_STEP_CHOICES_MS = (500, 1000, 1500, 2500, 4000)
ANIMATION_STEP_DEFAULT_MS = 1500
MAX_RECENT_FILES = 8
#: A settings file holds a few hundred bytes; anything past this is not ours to parse.
MAX_SETTINGS_BYTES = 1_000_000
ORGANIZATION = "GRPO Desktop"
APPLICATION = "GRPO Desktop"


class AppSettings:
    """Typed, validated access to the app's QSettings.

    ``remember=False`` reads the user's settings but keeps every change in memory: a
    ``--screenshot`` run lays the window out at its own size and must leave the saved geometry,
    theme and recent files — and the file itself, even a corrupt one — exactly as they were.
    """

    def __init__(self, settings: QSettings | None = None, remember: bool = True) -> None:
        self._settings: QSettings | None = settings
        self._remember = remember
        self._file_name = settings.fileName() if settings is not None else ""
        if settings is None:
            path = user_settings_path()
            self._file_name = str(path)
            problem = unusable_settings_file(path)
            if problem is None:
                self._settings = QSettings(
                    QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION
                )
            else:
                # QSettings would block forever on a FIFO, or read a device without end: this
                # run keeps its settings in memory and never opens that path.
                log.warning("settings file %s is unusable (%s); using defaults", *problem)
        if self._settings is None:
            self._usable = False
        elif self._settings.status() != QSettings.Status.NoError:
            log.warning(
                "settings file %s could not be read (%s); using defaults",
                self._settings.fileName(),
                self._settings.status().name,
            )
            self._usable = False
        else:
            self._usable = True
        self._memory: dict[str, object] = {}

    @property
    def file_name(self) -> str:
        return self._file_name

    def _value(self, key: str, default: object) -> object:
        if key in self._memory or self._settings is None:
            return self._memory.get(key, default)
        if not self._usable:
            return default
        return self._settings.value(key, default)

    def _set(self, key: str, value: object) -> None:
        if self._settings is None or not self._remember:
            self._memory[key] = value
        else:
            self._settings.setValue(key, value)

    def _fallback(self, key: str, raw: object, default: object) -> object:
        log.warning("setting %r has an unusable value %r; using %r", key, raw, default)
        return default

    @property
    def theme(self) -> str:
        raw = self._value("view/theme", DEFAULT_THEME)
        return raw if raw in THEMES else self._fallback("view/theme", raw, DEFAULT_THEME)

    @theme.setter
    def theme(self, name: str) -> None:
        self._set("view/theme", name)

    @property
    def zoom(self) -> float:
        raw = self._value("view/zoom", ZOOM_DEFAULT)
        try:
            zoom = float(raw)
        except (TypeError, ValueError):
            return self._fallback("view/zoom", raw, ZOOM_DEFAULT)
        if not ZOOM_MIN <= zoom <= ZOOM_MAX:
            return self._fallback("view/zoom", raw, ZOOM_DEFAULT)
        return zoom

    @zoom.setter
    def zoom(self, zoom: float) -> None:
        self._set("view/zoom", float(zoom))

    @property
    def animate(self) -> bool:
        raw = self._value("view/animate", True)
        if isinstance(raw, bool):
            return raw
        if str(raw).lower() in ("true", "false"):
            return str(raw).lower() == "true"
        return bool(self._fallback("view/animate", raw, True))

    @animate.setter
    def animate(self, on: bool) -> None:
        self._set("view/animate", bool(on))

    @property
    def reduce_motion(self) -> bool:
        """View ▸ Reduce motion: animations become instant steps, playback steps on key presses."""
        raw = self._value("view/reduce_motion", False)
        if isinstance(raw, bool):
            return raw
        if str(raw).lower() in ("true", "false"):
            return str(raw).lower() == "true"
        return bool(self._fallback("view/reduce_motion", raw, False))

    @reduce_motion.setter
    def reduce_motion(self, on: bool) -> None:
        self._set("view/reduce_motion", bool(on))

    @property
    def animation_step_ms(self) -> int:
        """Each captioned animation step's duration in ms, one of the View menu's choices."""
        raw = self._value("view/animation_step_ms", ANIMATION_STEP_DEFAULT_MS)
        try:
            value = int(str(raw))
        except (TypeError, ValueError):
            value = -1
        if value not in ANIMATION_STEP_CHOICES_MS:
            self._fallback("view/animation_step_ms", raw, ANIMATION_STEP_DEFAULT_MS)
            return ANIMATION_STEP_DEFAULT_MS
        return value

    @animation_step_ms.setter
    def animation_step_ms(self, ms: int) -> None:
        if ms not in ANIMATION_STEP_CHOICES_MS:
            raise ValueError(f"an animation step lasts one of {ANIMATION_STEP_CHOICES_MS} ms")
        self._set("view/animation_step_ms", int(ms))

    @property
    def geometry(self) -> QByteArray | None:
        raw = self._value("window/geometry", None)
        return raw if isinstance(raw, QByteArray) and not raw.isEmpty() else None

    @geometry.setter
    def geometry(self, data: QByteArray) -> None:
        self._set("window/geometry", data)

    @property
    def recent_files(self) -> list[str]:
        raw = self._value("files/recent", [])
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
            return list(self._fallback("files/recent", raw, []))
        return raw[:MAX_RECENT_FILES]

    def add_recent_file(self, path: str | Path) -> list[str]:
        text = recent_file_key(path)
        files = [text] + [p for p in self.recent_files if p != text]
        self._set("files/recent", files[:MAX_RECENT_FILES])
        return files[:MAX_RECENT_FILES]

    def remove_recent_file(self, path: str) -> None:
        self._set("files/recent", [p for p in self.recent_files if p != path])

    def sync(self) -> None:
        if self._settings is not None and self._remember:
            self._settings.sync()


def recent_file_key(path: str | Path) -> str:
    """How a recent file is remembered: its resolved absolute path, or (when resolving fails,
    e.g. on a symlink loop) its absolute path as given; never an exception."""
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):  # RuntimeError: "Symlink loop" before Python 3.13
        return os.path.abspath(path)


def user_settings_path() -> Path:
    """Where ``QSettings`` keeps the app's INI file, found without opening it: a probe for an
    organisation that has no file names the folder (``QSettings.setPath`` is honoured)."""
    probe = QSettings(
        QSettings.Format.IniFormat,
        QSettings.Scope.UserScope,
        f"grpo-desktop-probe-{os.urandom(16).hex()}",
        "probe",
    )
    folder = Path(probe.fileName()).parent.parent
    return folder / ORGANIZATION / f"{APPLICATION}.ini"


def unusable_settings_file(path: Path) -> tuple[str, str] | None:
    """``(path, why)`` when the INI file, or the organisation-wide one QSettings also reads,
    exists but is not a regular file of a sane size; ``None`` when Qt may open them."""
    for candidate in (path, path.parent.with_name(f"{ORGANIZATION}.ini")):
        try:
            size = check_regular_file(candidate).st_size
        except NotARegularFileError as error:
            return str(candidate), str(error)
        except OSError:
            continue  # missing or unreadable: QSettings copes (it reports an access error)
        if size > MAX_SETTINGS_BYTES:
            return str(candidate), f"it is {size:,} bytes, more than {MAX_SETTINGS_BYTES:,}"
    return None


def remove_left_settings_temporaries(path: Path) -> list[str]:
    """Delete the ``<file>.XXXXXX`` copies a killed settings write left beside ``path``.

    Qt writes the INI through such a temporary while it holds ``<file>.lock``; if we can take
    that lock, no process is writing, so any temporary there is a leftover (a stale lock of a
    dead process is taken over by QLockFile itself). Returns the names removed."""
    lock = QLockFile(f"{path}.lock")
    if not lock.tryLock(0):
        return []
    removed: list[str] = []
    try:
        leftover = re.compile(re.escape(path.name) + r"\.[A-Za-z0-9]{6}")
        try:
            entries = list(os.scandir(path.parent))
        except OSError:
            return removed
        for entry in entries:
            if not leftover.fullmatch(entry.name):
                continue
            try:
                if stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):
                    os.unlink(entry.path)
                    removed.append(entry.name)
            except OSError:
                continue
    finally:
        lock.unlock()
    return removed
