"""Test set-up: Qt renders offscreen, and nothing touches the user's real settings or home."""

import os

# Must run before anything imports Qt: with no display and no platform set, Qt aborts pytest.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    """Each test gets its own empty home, config and data folders and its own QSettings file."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    from PySide6.QtCore import QSettings

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(home / ".config"))
    return home


@pytest.fixture(autouse=True)
def no_blocking_prompts(monkeypatch):
    """Closing a window with unsaved changes asks a modal question; tests answer 'discard'.

    Tests of the prompt itself override ``ask_keep_changes`` again.
    """
    from grpo_desktop.document import ScenarioDocument

    monkeypatch.setattr(ScenarioDocument, "ask_keep_changes", lambda self: "discard")
