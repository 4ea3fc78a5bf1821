"""The Lab's "Take one step" (Ctrl+K): each answer's probability before and after one GRPO
step, in the One step tab, as one undo step; live with the group; on the tiny model's own group
the real network takes the step; a real run's group says why it cannot."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication
from rollout_files import recorded

from grpo_desktop.core.lab.problems import DEFAULT_PROBLEM_ID, get_problem
from grpo_desktop.core.training.one_step import toy_one_step
from grpo_desktop.views.lab.one_step_panel import PREDICT_TEXT


def take(window):
    window.take_step_action.trigger()
    QApplication.processEvents()
    return window.lab_page.one_step_panel


def test_the_tab_asks_for_a_prediction_before_the_step(window):
    window.explain_tabs.setCurrentIndex(3)
    QApplication.processEvents()
    panel = window.lab_page.one_step_panel
    assert window.explain_tabs.tabText(3) == "One step"
    assert panel.prompt.text() == PREDICT_TEXT and panel.prompt.isVisibleTo(panel)
    assert panel.take_button.isVisibleTo(panel) and not panel.bars.isVisibleTo(panel)


def test_ctrl_k_takes_the_step_and_shows_each_answers_before_and_after(window):
    assert window.take_step_action.shortcut().toString() == "Ctrl+K"
    panel = take(window)
    assert window.explain_tabs.currentIndex() == 3
    expected = toy_one_step(
        get_problem(DEFAULT_PROBLEM_ID),
        [True, False, False, True],
        [1.0, 0.0, 0.0, 1.0],
        convention="textbook",
        preset=window.workbench.update_settings.preset,
    )
    description = panel.bars.accessibleDescription()
    for answer in expected.answers:
        assert f"{answer.p_before:.4f} before, {answer.p_after:.4f} after" in description
    assert panel.caption.text().startswith("After one step, 2 answers are more likely")
    assert "toy policy" in panel.policy.text() and not panel.prompt.isVisibleTo(panel)


def test_undo_takes_the_step_back_and_a_click_updates_it_live(window):
    panel = take(window)
    window.workbench.toggle(1)  # #2 right too: three answers above the new mean
    QApplication.processEvents()
    assert panel.caption.text().startswith("After one step, 3 answers are more likely")
    window.workbench.undo_stack.undo()  # the click
    window.workbench.undo_stack.undo()  # the step
    QApplication.processEvents()
    assert panel.prompt.isVisibleTo(panel) and not panel.bars.isVisibleTo(panel)


def test_the_tiny_models_group_is_stepped_by_the_model_that_wrote_it(window):
    from grpo_desktop.core.tinylm import load_model
    from grpo_desktop.core.tinylm.lab_group import sample_lab_group

    window.workbench.open_recorded_group(sample_lab_group(load_model(), "23+45=", 8, 0))
    panel = take(window)
    assert "tiny language model that wrote these answers" in panel.policy.text()
    assert "more likely" in panel.caption.text()


def test_a_real_runs_group_says_why_there_is_no_step(window):
    window.workbench.open_recorded_group(recorded((1.0, 0.0, 1.0)))
    panel = take(window)
    assert panel.caption.text().startswith("A real run's group")
    assert not panel.bars.isVisibleTo(panel)


def test_nothing_is_computed_while_the_tab_is_hidden(window, monkeypatch):
    take(window)
    state = window.lab_page.one_step_state()
    window.explain_tabs.setCurrentIndex(0)
    built = []
    monkeypatch.setattr(state, "_build", lambda: built.append(1))
    window.workbench.toggle(0)
    assert built == []
