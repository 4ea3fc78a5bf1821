"""Fixtures the model's tests share."""

from __future__ import annotations

import pytest


@pytest.fixture
def workbench(qapp):
    """A fresh Workbench, as the app makes one (test_training_state.py gives its own a small
    training configuration)."""
    from grpo_desktop.model.workbench import Workbench

    return Workbench()
