"""Fixtures the views' tests share."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def run():
    """A training run of every algorithm, 3 seeds, 10 of its 20 steps taken: made once per test
    module, which only reads it."""
    from grpo_desktop.core.training.run import TrainingConfig, TrainingRun

    run = TrainingRun(TrainingConfig(steps=20, seeds=3))
    run.run(10)
    return run
