"""Settings persist, and a corrupt or hand-edited file falls back to defaults with a log note."""

from __future__ import annotations

import logging
import os
import stat
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray, QSettings

from grpo_desktop.model.settings import (
    APPLICATION,
    MAX_SETTINGS_BYTES,
    ORGANIZATION,
    AppSettings,
    user_settings_path,
)


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


def test_reduce_motion_is_remembered_and_a_bad_value_falls_back(tmp_path, caplog):
    path = tmp_path / "s.ini"
    settings = AppSettings(ini_settings(path))
    assert settings.reduce_motion is False  # motion is on until a user turns it off
    settings.reduce_motion = True
    settings.sync()
    assert AppSettings(ini_settings(path)).reduce_motion is True
    path.write_text("[view]\nreduce_motion=sometimes\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="grpo_desktop.model.settings"):
        assert AppSettings(ini_settings(path)).reduce_motion is False
    assert "sometimes" in caplog.text


def test_reduce_motion_stays_in_memory_when_not_remembered(tmp_path):
    path = tmp_path / "s.ini"
    settings = AppSettings(ini_settings(path), remember=False)
    settings.reduce_motion = True
    assert settings.reduce_motion is True
    settings.sync()
    assert AppSettings(ini_settings(path)).reduce_motion is False


def test_the_animation_step_is_remembered_and_a_bad_value_falls_back(tmp_path, caplog):
    path = tmp_path / "s.ini"
    settings = AppSettings(ini_settings(path))
    assert settings.animation_step_ms == 1500  # time to read each captioned step
    settings.animation_step_ms = 2500
    settings.sync()
    assert AppSettings(ini_settings(path)).animation_step_ms == 2500
    with pytest.raises(ValueError):
        settings.animation_step_ms = 7
    # Not "slow" (as long as "2500"): QSettings' size-and-time cache could keep the old file.
    path.write_text("[view]\nanimation_step_ms=glacial\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="grpo_desktop.model.settings"):
        assert AppSettings(ini_settings(path)).animation_step_ms == 1500
    assert "glacial" in caplog.text
    path.write_text("[view]\nanimation_step_ms=3\n", encoding="utf-8")
    assert AppSettings(ini_settings(path)).animation_step_ms == 1500


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


def _construct_with_timeout(seconds: float = 3.0) -> AppSettings:
    result: list[AppSettings] = []
    worker = threading.Thread(target=lambda: result.append(AppSettings()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "start-up blocked on the settings file"
    return result[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("which", ["app", "organisation"])
def test_a_fifo_at_the_settings_path_does_not_hang_start_up(caplog, which):
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fifo = path if which == "app" else path.parent.with_name(f"{ORGANIZATION}.ini")
    os.mkfifo(fifo)
    with caplog.at_level(logging.WARNING, logger="grpo_desktop.model.settings"):
        settings = _construct_with_timeout()
    assert "not a regular file" in caplog.text
    assert (settings.theme, settings.zoom, settings.recent_files) == ("light", 1.0, [])
    settings.theme = "projector"  # kept for this run, in memory
    settings.sync()
    assert settings.theme == "projector"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_the_settings_path_is_where_qsettings_keeps_the_file(private_home):
    settings = QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION
    )
    assert user_settings_path() == Path(settings.fileName())
    assert AppSettings().file_name == settings.fileName()


def test_an_oversized_settings_file_is_not_read(caplog):
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"[view]\ntheme=projector\n" + b";" * MAX_SETTINGS_BYTES)
    with caplog.at_level(logging.WARNING, logger="grpo_desktop.model.settings"):
        assert AppSettings().theme == "light"
    assert "unusable" in caplog.text


def test_settings_that_do_not_remember_read_the_file_and_keep_changes_in_memory(tmp_path):
    path = tmp_path / "s.ini"
    path.write_text("[view]\ntheme=dark\nzoom=1.5\n", encoding="utf-8")
    settings = AppSettings(ini_settings(path), remember=False)
    assert (settings.theme, settings.zoom) == ("dark", 1.5)
    settings.theme = "projector"
    settings.add_recent_file(tmp_path / "a.grpo.json")
    settings.sync()
    assert settings.theme == "projector"
    assert settings.recent_files == [str((tmp_path / "a.grpo.json").resolve())]
    assert path.read_text(encoding="utf-8") == "[view]\ntheme=dark\nzoom=1.5\n"


def test_a_killed_settings_writes_temporary_is_removed_when_nobody_holds_the_lock(tmp_path):
    from grpo_desktop.model.settings import remove_left_settings_temporaries

    ini = tmp_path / "GRPO Desktop.ini"
    ini.write_text("[view]\ntheme=dark\n", encoding="utf-8")
    leftover = tmp_path / "GRPO Desktop.ini.aB3xY9"
    leftover.write_text("[view]\nthe", encoding="utf-8")
    unrelated = tmp_path / "GRPO Desktop.ini.bak"
    unrelated.write_text("kept", encoding="utf-8")
    assert remove_left_settings_temporaries(ini) == [leftover.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == [ini.name, unrelated.name]


def test_a_settings_temporary_stays_while_another_process_holds_the_lock(tmp_path):
    from PySide6.QtCore import QLockFile

    from grpo_desktop.model.settings import remove_left_settings_temporaries

    ini = tmp_path / "GRPO Desktop.ini"
    in_progress = tmp_path / "GRPO Desktop.ini.aB3xY9"
    in_progress.write_text("[view]\nthe", encoding="utf-8")
    writer = QLockFile(f"{ini}.lock")
    assert writer.tryLock(0)
    try:
        other = QLockFile(f"{ini}.lock")
        assert not other.tryLock(0)  # the same process cannot take it twice either
        assert remove_left_settings_temporaries(ini) == []
    finally:
        writer.unlock()
    assert in_progress.exists()
