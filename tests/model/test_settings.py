"""Settings persist, and a corrupt or hand-edited file falls back to defaults with a log note."""

from __future__ import annotations

import logging

from PySide6.QtCore import QByteArray, QSettings

from grpo_desktop.model.settings import AppSettings


def ini_settings(path) -> QSettings:
    return QSettings(str(path), QSettings.Format.IniFormat)


def test_values_round_trip_through_the_file(tmp_path):
    path = tmp_path / "s.ini"
    settings = AppSettings(ini_settings(path))
    settings.theme = "projector"
    settings.zoom = 1.5
    settings.animate = False
    settings.geometry = QByteArray(b"geometry")
    settings.add_recent_file(tmp_path / "a.grpo.json")
    settings.sync()
    again = AppSettings(ini_settings(path))
    assert (again.theme, again.zoom, again.animate) == ("projector", 1.5, False)
    assert again.geometry == QByteArray(b"geometry")
    assert again.recent_files == [str((tmp_path / "a.grpo.json").resolve())]


def test_defaults_when_nothing_is_saved(tmp_path):
    settings = AppSettings(ini_settings(tmp_path / "none.ini"))
    assert (settings.theme, settings.zoom, settings.animate) == ("light", 1.0, True)
    assert settings.recent_files == [] and settings.geometry is None


def test_unusable_values_fall_back_with_a_log_note(tmp_path, caplog):
    path = tmp_path / "s.ini"
    path.write_text("[view]\ntheme=neon\nzoom=huge\nanimate=maybe\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="grpo_desktop.model.settings"):
        settings = AppSettings(ini_settings(path))
        assert (settings.theme, settings.zoom, settings.animate) == ("light", 1.0, True)
    assert "neon" in caplog.text and "huge" in caplog.text


def test_zoom_outside_75_to_300_percent_falls_back(tmp_path):
    path = tmp_path / "s.ini"
    path.write_text("[view]\nzoom=9\n", encoding="utf-8")
    assert AppSettings(ini_settings(path)).zoom == 1.0


def test_a_corrupt_file_is_reported_and_defaults_are_used(tmp_path, caplog):
    path = tmp_path / "s.ini"
    path.write_bytes(b"[view\x00\xff\xfe garbage \n zoom = = =\n[[[")
    with caplog.at_level(logging.WARNING, logger="grpo_desktop.model.settings"):
        settings = AppSettings(ini_settings(path))
        assert (settings.theme, settings.zoom) == ("light", 1.0)
    assert "could not be read" in caplog.text and "FormatError" in caplog.text


def test_recent_files_keep_the_newest_eight_without_duplicates(tmp_path):
    settings = AppSettings(ini_settings(tmp_path / "s.ini"))
    for i in range(10):
        settings.add_recent_file(tmp_path / f"{i}.grpo.json")
    settings.add_recent_file(tmp_path / "5.grpo.json")
    files = settings.recent_files
    assert len(files) == 8 and files[0].endswith("5.grpo.json")
    assert len(set(files)) == 8
