"""What the app remembers between runs: theme, zoom, animation, window geometry, recent files.

Backed by ``QSettings`` in INI format. A corrupt or hand-edited settings file never stops the app:
each value is checked, and anything unreadable falls back to its default with a note in the log.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from grpo_desktop.core.theme import DEFAULT_THEME, THEMES

log = logging.getLogger(__name__)

ZOOM_MIN, ZOOM_MAX, ZOOM_DEFAULT = 0.75, 3.0, 1.0
MAX_RECENT_FILES = 8
ORGANIZATION = "GRPO Desktop"
APPLICATION = "GRPO Desktop"


class AppSettings:
    """Typed, validated access to the app's QSettings."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self._settings = settings or QSettings(
            QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION
        )
        if self._settings.status() != QSettings.Status.NoError:
            log.warning(
                "settings file %s could not be read (%s); using defaults",
                self._settings.fileName(),
                self._settings.status().name,
            )
            self._usable = False
        else:
            self._usable = True

    @property
    def file_name(self) -> str:
        return self._settings.fileName()

    def _value(self, key: str, default: object) -> object:
        if not self._usable:
            return default
        return self._settings.value(key, default)

    def _fallback(self, key: str, raw: object, default: object) -> object:
        log.warning("setting %r has an unusable value %r; using %r", key, raw, default)
        return default

    @property
    def theme(self) -> str:
        raw = self._value("view/theme", DEFAULT_THEME)
        return raw if raw in THEMES else self._fallback("view/theme", raw, DEFAULT_THEME)

    @theme.setter
    def theme(self, name: str) -> None:
        self._settings.setValue("view/theme", name)

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
        self._settings.setValue("view/zoom", float(zoom))

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
        self._settings.setValue("view/animate", bool(on))

    @property
    def geometry(self) -> QByteArray | None:
        raw = self._value("window/geometry", None)
        return raw if isinstance(raw, QByteArray) and not raw.isEmpty() else None

    @geometry.setter
    def geometry(self, data: QByteArray) -> None:
        self._settings.setValue("window/geometry", data)

    @property
    def recent_files(self) -> list[str]:
        raw = self._value("files/recent", [])
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
            return list(self._fallback("files/recent", raw, []))
        return raw[:MAX_RECENT_FILES]

    def add_recent_file(self, path: str | Path) -> list[str]:
        text = str(Path(path).resolve())
        files = [text] + [p for p in self.recent_files if p != text]
        self._settings.setValue("files/recent", files[:MAX_RECENT_FILES])
        return files[:MAX_RECENT_FILES]

    def remove_recent_file(self, path: str) -> None:
        self._settings.setValue("files/recent", [p for p in self.recent_files if p != path])

    def sync(self) -> None:
        self._settings.sync()
