"""Undo and redo go through the same state path and name what they undo."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QUndoStack

from grpo_desktop.model import commands
from grpo_desktop.model.lab_state import LabState


def test_toggle_undoes_and_redoes_and_is_named(qapp):
    state = LabState()
    stack = QUndoStack()
    stack.push(commands.toggle_trace(state, 2))
    assert state.correct[2] is True
    assert stack.undoText() == "Mark trace 3 right"
    stack.undo()
    assert state.correct[2] is False
    stack.redo()
    assert state.correct[2] is True


def test_consecutive_group_size_changes_merge_into_one_step(qapp):
    state = LabState()
    stack = QUndoStack()
    for size in (5, 6, 7):
        stack.push(commands.set_group_size(state, size))
    assert stack.count() == 1 and stack.undoText() == "Group size 7"
    stack.undo()
    assert state.group_size == 4


def test_a_command_that_changes_nothing_stays_off_the_stack(qapp):
    state = LabState()
    stack = QUndoStack()
    stack.push(commands.apply_reward_pattern(state, "seed", "1, 0, 0, 1"))
    assert stack.count() == 0


def test_undo_restores_problem_and_group_after_a_preset(qapp):
    state = LabState()
    before = state.memento()
    stack = QUndoStack()
    stack.push(commands.apply_reward_pattern(state, "hard", "Hard"))
    stack.undo()
    assert state.memento() == before


def test_a_lab_change_that_raises_pushes_nothing_and_changes_nothing(qtbot):
    """QUndoStack.push swallows an exception in redo and keeps the command, its Python side
    freed (a crash at the next collection, found by the soak): the stack applies first."""
    import gc

    from grpo_desktop.model.commands import LabCommand, UndoStack
    from grpo_desktop.model.lab_state import LabState

    stack = UndoStack()
    lab = LabState()
    before = lab.memento()

    def refused(state: LabState) -> None:
        state.set_score(0, float("nan"))

    with pytest.raises(ValueError, match="reward must be"):
        stack.push(LabCommand(lab, "Reward of trace 1: nan", refused))
    gc.collect()
    assert stack.count() == 0 and lab.memento() == before
    stack.push(LabCommand(lab, "Toggle trace 1", lambda state: state.toggle(0)))
    assert stack.count() == 1 and lab.memento() != before
    stack.undo()
    assert lab.memento() == before
