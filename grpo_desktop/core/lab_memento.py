"""Everything needed to put one lab back exactly as it was: undo, reset, scenario files, lessons.

The convention is not here: it belongs to the whole workbench (every group on screen shares one),
so undoing a change to one lab can never leave it on a different convention from the others.
"""

from __future__ import annotations

from dataclasses import dataclass

from grpo_desktop.core.problems import Problem


@dataclass(frozen=True)
class LabMemento:
    problem: Problem
    correct: tuple[bool, ...]
    sample_seed: int | None
