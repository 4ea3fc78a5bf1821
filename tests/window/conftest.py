"""Fixtures the rollouts controller's tests share: its messages and the groups it opens."""

from __future__ import annotations

import pytest


@pytest.fixture
def errors(window, monkeypatch):
    """The messages the rollouts controller would show, instead of modal boxes."""
    shown: list[str] = []
    monkeypatch.setattr(window.rollouts, "show_error", shown.append)
    return shown


@pytest.fixture
def opened(monkeypatch):
    """The groups handed to the workbench (``Workbench.open_recorded_group`` is replaced: the
    tests check what reaches it)."""
    from grpo_desktop.model.workbench import Workbench

    groups = []
    monkeypatch.setattr(Workbench, "open_recorded_group", lambda self, group: groups.append(group))
    return groups
