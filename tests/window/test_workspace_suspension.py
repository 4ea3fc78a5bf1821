"""While the Update page shows the lab's group, the lab's own views wait and catch up on return."""

from __future__ import annotations

from grpo_desktop.model.workbench import LAB, UPDATE


def test_the_hidden_lab_renders_nothing_while_update_shows_then_catches_up(window, monkeypatch):
    rendered = []
    grid = window.lab.trace_grid
    real = grid.show_snapshot
    monkeypatch.setattr(grid, "show_snapshot", lambda *a, **k: (rendered.append(1), real(*a, **k)))
    window.workbench.set_workspace(UPDATE)
    window.workbench.toggle(0)
    window.workbench.toggle(1)
    assert rendered == []  # two clicks' worth of lab rendering saved
    window.workbench.set_workspace(LAB)
    assert len(rendered) == 1  # the latest group, once
    shown = [window.lab.trace_grid.card(i).card_state.reward for i in range(4)]
    assert shown == [card.reward for card in window.workbench.lab.snapshot.cards]


def test_the_worked_math_catches_up_after_the_update_page(window):
    before = window.math_panel.toPlainText()
    window.workbench.set_workspace(UPDATE)
    window.workbench.toggle(1)
    assert window.math_panel.toPlainText() == before
    window.workbench.set_workspace(LAB)
    assert window.math_panel.toPlainText() != before


def test_the_status_bar_says_what_to_do_in_each_workspace(window):
    from grpo_desktop.window.main_window import WORKSPACE_HINTS

    for workspace in ("update", "training", "compare", "lab"):
        window.workbench.set_workspace(workspace)
        assert window.statusBar().currentMessage() == WORKSPACE_HINTS[workspace]
    assert "token" in WORKSPACE_HINTS["update"] and "Play" in WORKSPACE_HINTS["training"]


def test_the_labs_group_controls_rest_while_the_training_run_shows(window, qtbot):
    from PySide6.QtCore import Qt

    window.workbench.set_workspace("training")
    assert not window.group_size_spin.isEnabled() and not window.sample_action.isEnabled()
    before = window.workbench.lab.correct
    qtbot.keyClick(window, Qt.Key.Key_1)  # would toggle an unseen card
    assert window.workbench.lab.correct == before
    window.workbench.set_workspace("update")
    assert window.group_size_spin.isEnabled() and window.reward_pattern_actions["easy"].isEnabled()
