"""The Update workspace as a user meets it: keys, the workspace bar, clicks, the controls, undo.

Every test drives the window the way a lecturer does (shortcuts, buttons, clicks on a token,
typing in a spin box) and reads what is on screen: which page the stack shows, the title, the
token rows' snapshot, the detail panel's text, the controls' values, the push chart's legend.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from event_log import EventLog
from PySide6.QtCore import QEvent, QRect, Qt
from PySide6.QtWidgets import QApplication, QWidget
from workspaces import (
    assert_showing,
    ctrl,
    workspace_button,
)

from grpo_desktop.model.workbench import COMPARE, LAB, UPDATE
from grpo_desktop.window.main_window import MainWindow


def show_update(qtbot, window: MainWindow):
    ctrl(qtbot, window, Qt.Key.Key_U)
    QApplication.processEvents()
    assert_showing(window, UPDATE)
    return window.update_page


# --- switching workspaces ---------------------------------------------------------------------


def test_the_window_opens_on_the_lab_and_builds_no_update_page(window):
    assert_showing(window, LAB)
    built = window.findChild(QWidget, "updateView")
    assert built is None, "the Update page is built the first time it is shown"


def test_ctrl_u_shows_the_update_page_and_ctrl_u_again_returns_to_the_lab(qtbot, window):
    page = show_update(qtbot, window)
    assert page.objectName() == "updateView" and page.isVisible()
    assert window.windowTitle().startswith("Update step · ")
    ctrl(qtbot, window, Qt.Key.Key_U)
    assert_showing(window, LAB)
    assert not page.isVisible()


def test_ctrl_l_returns_to_the_lab_and_ctrl_l_in_the_lab_stays_there(qtbot, window):
    show_update(qtbot, window)
    ctrl(qtbot, window, Qt.Key.Key_L)
    assert_showing(window, LAB)
    ctrl(qtbot, window, Qt.Key.Key_L)
    assert_showing(window, LAB)  # the lab cannot be switched off, only away from


def test_ctrl_e_still_toggles_easy_vs_hard_from_the_lab_and_from_update(qtbot, window):
    ctrl(qtbot, window, Qt.Key.Key_E)
    assert_showing(window, COMPARE)
    ctrl(qtbot, window, Qt.Key.Key_E)
    assert_showing(window, LAB)
    show_update(qtbot, window)
    ctrl(qtbot, window, Qt.Key.Key_E)
    assert_showing(window, COMPARE)
    ctrl(qtbot, window, Qt.Key.Key_U)
    assert_showing(window, UPDATE)
    ctrl(qtbot, window, Qt.Key.Key_E)
    assert_showing(window, COMPARE)
    ctrl(qtbot, window, Qt.Key.Key_L)
    assert_showing(window, LAB)


def test_the_workspace_bar_buttons_switch_workspaces(qtbot, window):
    update = workspace_button(window, "updateWorkspaceAction")
    lab = workspace_button(window, "labWorkspaceAction")
    compare = workspace_button(window, "compareAction")
    assert update.text() == "Update step" and lab.text() == "Lab"
    qtbot.mouseClick(update, Qt.MouseButton.LeftButton)
    assert_showing(window, UPDATE)
    assert update.isChecked() and not lab.isChecked()
    qtbot.mouseClick(update, Qt.MouseButton.LeftButton)  # again: back to the lab
    assert_showing(window, LAB)
    qtbot.mouseClick(compare, Qt.MouseButton.LeftButton)
    assert_showing(window, COMPARE)
    qtbot.mouseClick(lab, Qt.MouseButton.LeftButton)
    assert_showing(window, LAB)
    qtbot.mouseClick(lab, Qt.MouseButton.LeftButton)  # the checked lab button stays checked
    assert_showing(window, LAB)


def test_the_view_menu_lists_the_workspaces_with_their_keys(window):
    entries = {
        action.text(): action.shortcut().toString()
        for action in window.view_menu.actions()
        if action in window.workspace_actions
    }
    assert {
        "Lab": "Ctrl+L",
        "Update step": "Ctrl+U",
        "Easy vs hard, side by side": "Ctrl+E",
    }.items() <= entries.items()  # a later workspace (training) may join them
    window.update_action.trigger()  # what choosing the menu entry does
    assert_showing(window, UPDATE)
    window.lab_action.trigger()
    assert_showing(window, LAB)


def test_the_update_page_and_its_parts_are_lesson_targets(qtbot, window):
    page = show_update(qtbot, window)
    assert window.highlight_target("update") is page
    assert window.highlight_target("tokens") is page.rows
    assert window.highlight_target("push-chart") is page.chart
    assert window.highlight_target("token-detail") is page.detail
    assert window.highlight_target("update-controls") is page.controls


# --- the lab's group drives the update ------------------------------------------------------


def row_signs(page) -> list[set[int]]:
    """Per answer: the signs of its tokens' pushes (clipped tokens push 0)."""
    return [
        {(token.push > 0) - (token.push < 0) for token in row.tokens if token.push != 0}
        for row in page.token_rows.snapshot.rows
    ]


def test_toggling_a_card_in_the_lab_changes_the_shown_update_rows(qtbot, window):
    ctrl(qtbot, window, Qt.Key.Key_L)
    qtbot.keyClick(window, Qt.Key.Key_2)  # card 2 (wrong in the seed group) becomes right
    page = show_update(qtbot, window)
    rows = page.token_rows.snapshot.rows
    assert [row.reward for row in rows] == [1, 1, 0, 1]
    assert rows[1].advantage > 0 and row_signs(page)[1] == {1}
    assert rows[1].total_push > 0


def test_toggling_while_the_update_page_is_shown_updates_it_at_once(qtbot, window):
    page = show_update(qtbot, window)
    before = page.token_rows.snapshot.rows
    assert before[1].reward == 0 and before[1].advantage < 0 and row_signs(page)[1] == {-1}
    window.workbench.toggle(1)
    after = page.token_rows.snapshot.rows
    assert after[1].reward == 1 and after[1].advantage > 0 and row_signs(page)[1] == {1}
    assert page.chart.bar_heights()[0][1] > 0, "the push chart's bar changed sign too"
    ctrl(qtbot, window, Qt.Key.Key_Z)
    assert page.token_rows.snapshot.rows[1].advantage < 0
    assert page.chart.bar_heights()[0][1] < 0


def test_a_change_made_while_the_page_was_hidden_shows_when_it_is_shown_again(qtbot, window):
    page = show_update(qtbot, window)
    assert page.token_rows.snapshot.rows[3].reward == 1
    ctrl(qtbot, window, Qt.Key.Key_L)
    qtbot.keyClick(window, Qt.Key.Key_4)  # card 4: right → wrong, in the lab
    assert window.state.snapshot.rewards == (1, 0, 0, 0)
    show_update(qtbot, window)
    row = page.token_rows.snapshot.rows[3]
    assert row.reward == 0 and row.advantage < 0 and row_signs(page)[3] == {-1}


# --- clicking a token -------------------------------------------------------------------------


def click_token(qtbot, page, row: int, column: int) -> None:
    view = page.token_rows
    rect = view.token_rect(row, column)
    assert rect.isValid()
    page.rows.ensureVisible(rect.center().x(), rect.center().y())
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=rect.center())


def test_the_detail_panel_invites_a_click_until_a_token_is_clicked(qtbot, window):
    page = show_update(qtbot, window)
    assert page.detail.computation() is None
    assert "Click any token" in page.detail.plain_text()


@pytest.mark.parametrize(("row", "column"), [(0, 0), (1, 2), (3, 5)])
def test_clicking_a_token_shows_its_computation_in_the_detail_panel(qtbot, window, row, column):
    page = show_update(qtbot, window)
    click_token(qtbot, page, row, column)
    computation = page.detail.computation()
    assert computation is not None
    assert (computation.row, computation.column) == (row, column)
    text = page.detail.plain_text()
    assert text.startswith(computation.title)
    assert f"#{row + 1}" in computation.title
    assert "Click any token" not in text
    assert page.token_rows.selected() == (row, column)
    assert computation.rows, "the computation lists its steps"
    for step in computation.rows:
        assert step.value in text


def test_the_selected_tokens_computation_follows_a_card_toggle(qtbot, window):
    page = show_update(qtbot, window)
    click_token(qtbot, page, 1, 0)
    before = page.detail.plain_text()
    window.workbench.toggle(1)
    assert page.detail.computation().row == 1
    assert page.detail.plain_text() != before, "the advantage changed sign: so did the push"


# --- the controls -----------------------------------------------------------------------------


def type_into(qtbot, spin, text: str) -> None:
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, text)
    qtbot.keyClick(spin, Qt.Key.Key_Return)


def test_typing_eps_high_changes_the_settings_and_ctrl_z_shows_the_old_value(qtbot, window):
    page = show_update(qtbot, window)
    spin = page.controls.eps_high_spin
    assert spin.value() == pytest.approx(0.2)
    type_into(qtbot, spin, "0.35")
    assert window.workbench.update_settings.eps_high == pytest.approx(0.35)
    assert page.state.snapshot.settings.eps_high == pytest.approx(0.35)
    assert window.undo_stack.count() == 1
    ctrl(qtbot, window, Qt.Key.Key_Z)
    assert window.workbench.update_settings.eps_high == pytest.approx(0.2)
    assert spin.value() == pytest.approx(0.2), "the control shows the old value again"
    assert window.undo_stack.count() == 1 and window.undo_stack.index() == 0


def test_setting_a_spin_box_and_finishing_the_edit_is_one_undo_step(qtbot, window):
    page = show_update(qtbot, window)
    spin = page.controls.eps_high_spin
    spin.setValue(0.3)
    spin.editingFinished.emit()
    assert window.workbench.update_settings.eps_high == pytest.approx(0.3)
    assert window.undo_stack.count() == 1
    window.undo_action.trigger()
    assert spin.value() == pytest.approx(0.2)
    window.redo_action.trigger()
    assert spin.value() == pytest.approx(0.3)


def test_length_bias_shows_two_answers_and_one_ctrl_z_restores_the_problem(qtbot, window):
    page = show_update(qtbot, window)
    before = (window.state.problem.id, window.state.snapshot.rewards)
    qtbot.mouseClick(page.controls.length_bias_button, Qt.MouseButton.LeftButton)
    assert window.state.problem.id == "length-bias-sum"
    rows = page.token_rows.snapshot.rows
    assert len(rows) == 2 and [row.reward for row in rows] == [1, 0]
    assert len(rows[1].tokens) > 2 * len(rows[0].tokens), "the wrong answer rambles"
    main, compare = page.chart.legend_texts()
    assert "token-mean" in main and "seq-mean-token-mean" in compare
    assert "seq-mean-token-mean" not in main
    assert len(page.chart.bar_heights()[0]) == 2
    assert_showing(window, UPDATE)  # the button changes the group, not the workspace
    ctrl(qtbot, window, Qt.Key.Key_Z)
    assert (window.state.problem.id, window.state.snapshot.rewards) == before
    assert len(page.token_rows.snapshot.rows) == 4


def test_clip_higher_sets_the_asymmetric_clip_and_clips_some_tokens(qtbot, window):
    page = show_update(qtbot, window)
    assert not any(t.clipped for row in page.token_rows.snapshot.rows for t in row.tokens)
    qtbot.mouseClick(page.controls.clip_higher_button, Qt.MouseButton.LeftButton)
    settings = window.workbench.update_settings
    assert (settings.eps_low, settings.eps_high) == pytest.approx((0.2, 0.28))
    assert page.controls.eps_low_spin.value() == pytest.approx(0.2)
    assert page.controls.eps_high_spin.value() == pytest.approx(0.28)
    snapshot = page.state.snapshot
    assert any(token.clipped for row in snapshot.rows for token in row.tokens)
    assert snapshot.clip_fraction > 0
    assert "clipped 0%" not in page.numbers.text()
    # the symmetric clip hatched beside it: the form, the legend and the one line say so
    assert page.controls.compare_eps_high_spin.value() == pytest.approx(0.2)
    assert page.chart.main_legend.text() == "TRL · dapo, ε 0.2/0.28 (solid)"
    assert page.chart.compare_legend.text() == "TRL · dapo, ε 0.2/0.2 (hatched)"
    assert page.status.text().startswith("Tokens with A > 0 keep their push longer")
    ctrl(qtbot, window, Qt.Key.Key_Z)
    assert window.workbench.update_settings.eps_high == pytest.approx(0.2)


# --- look -------------------------------------------------------------------------------------


def test_switching_theme_restyles_the_page(qtbot, window):
    page = show_update(qtbot, window)
    click_token(qtbot, page, 0, 0)
    window.presentation.set_theme("projector", remember=False)
    QApplication.processEvents()
    theme = window.presentation.theme
    assert page.token_rows.theme.name == "projector"
    assert theme.text in page.status.styleSheet()
    assert theme.surface in page.detail.styleSheet()
    assert page.detail.computation() is not None, "the selection survives a theme change"
    window.presentation.set_theme("dark", remember=False)
    assert page.token_rows.theme.name == "dark"
    window.presentation.set_theme("light", remember=False)


def test_zoom_200_enlarges_the_pages_text(qtbot, window):
    page = show_update(qtbot, window)
    before = page.status.font().pointSizeF()
    window.presentation.set_zoom(2.0, remember=False)
    QApplication.processEvents()
    try:
        assert page.status.font().pointSizeF() > before * 1.2
        assert page.isVisible() and page.controls.isVisible() and page.chart.isVisible()
    finally:
        window.presentation.set_zoom(1.0, remember=False)


def test_a_net_push_that_prints_as_zero_is_called_no_net_change(qtbot, window):
    """The seed group's advantages sum to 0, so seq-mean-token-mean's net push is 0 up to float
    noise: the caption must not say "goes up" (or down) beside "net 0.000"."""
    page = show_update(qtbot, window)
    lines = page.chart.caption_text().splitlines()
    assert lines[1] == "verl · seq-mean-token-mean: net 0.000 (no net change)"
    assert "−0.0000" not in page.numbers.text()


def test_reveal_scrolls_a_part_of_a_short_column_into_view_and_keeps_it_there(qtbot, window):
    """On a short screen the right column scrolls; a part a lesson rings is brought into view."""
    window.presentation.set_theme("projector", remember=False)
    window.resize(1024, 768)
    page = show_update(qtbot, window)
    column = page.right_column
    qtbot.waitUntil(lambda: column.verticalScrollBar().maximum() > 0)
    column.verticalScrollBar().setValue(0)

    def in_view(widget) -> bool:
        top_left = widget.mapTo(column.viewport(), widget.rect().topLeft())
        return column.viewport().rect().contains(QRect(top_left, widget.size()))

    assert not in_view(page.detail)
    page.reveal(page.detail)
    assert in_view(page.detail)
    window.resize(1024, 760)  # a re-layout keeps it in view
    qtbot.waitUntil(lambda: in_view(page.detail))
    page.reveal(page.controls)
    assert in_view(page.controls)
    page.reveal(None)  # nothing ringed: the column scrolls freely
    column.verticalScrollBar().setValue(column.verticalScrollBar().maximum())
    window.resize(1024, 768)
    QApplication.processEvents()
    assert column.verticalScrollBar().value() > 0
    window.presentation.set_theme("light", remember=False)


def test_gspo_counts_its_clipped_share_in_answers_not_tokens(qtbot, window):
    """GSPO clips one ratio per answer (TRL ``importance_sampling_level="sequence"``), so its
    share is of the answers; the token-level presets say tokens."""
    page = show_update(qtbot, window)
    assert " of tokens" in page.numbers.text()
    combo = page.controls.preset_combo
    combo.activated.emit(combo.findData("trl/gspo"))
    QApplication.processEvents()
    assert page.state.snapshot.preset.name == "trl/gspo"
    assert " of answers" in page.numbers.text() and " of tokens" not in page.numbers.text()


# --- what a toggle's frame leaves to idle time ------------------------------------------------


def test_idle_time_lays_out_the_rows_a_card_toggle_brings(qtbot, window, monkeypatch):
    from grpo_desktop.views.update import token_painter

    page = show_update(qtbot, window)
    view = page.token_rows
    warmed = []
    page.state.toggles_warmed.connect(warmed.append)
    window.workbench.toggle(2)  # a new group: its toggles' texts are told once things are quiet
    qtbot.waitUntil(lambda: bool(warmed) and not page.state.warming and not view.warming)
    assert len(warmed[-1]) == 4 and all(tokens for tokens in warmed[-1])
    flowed = []
    original = token_painter.flow_row
    monkeypatch.setattr(token_painter, "flow_row", lambda *a: flowed.append(a) or original(*a))
    for card in (0, 3, 0):
        coming = warmed[-1][card]
        window.workbench.toggle(card)
        QApplication.processEvents()
        assert view.snapshot.rows[card].tokens.texts == coming
        assert flowed == [], "the toggled row's chips were laid out before the click"
        qtbot.waitUntil(lambda: not page.state.warming and not view.warming)


def test_a_toggle_that_keeps_the_rows_height_asks_no_relayout_of_the_column(qtbot, window):
    from grpo_desktop.core.lab.problems import Trace, get_problem

    base = get_problem("mult-23x47")
    work = "".join(f"Step {k}: 23 × 40 = 920, then 23 × 7 = 161.\n" for k in range(6))
    traces = tuple(  # a toggle swaps one digit: new chips, in as many lines
        Trace(correct=f"{work}Answer: 1081", wrong=f"{work}Answer: 1071") for _ in range(4)
    )
    problem = replace(base, id="one-digit", traces=traces, group_size=4)
    page = show_update(qtbot, window)
    window.workbench.set_problem(problem)
    QApplication.processEvents()
    view = page.token_rows
    viewport = page.rows.viewport()
    log = EventLog(QEvent.Type.LayoutRequest, viewport)
    height = view.height()
    window.workbench.toggle(1)
    QApplication.processEvents()
    assert view.snapshot.rows[1].tokens.texts[-1] in (" 1081", " 1071")
    assert view.height() == height and viewport not in log.seen


def test_a_toggle_whose_steps_run_after_its_frame_keeps_the_rows_in_place(qtbot, window):
    from grpo_desktop.core.lab.problems import Trace, get_problem

    base = get_problem("mult-23x47")
    work = "".join(f"Step {k}: 23 × 47 = 23 × 40 + 23 × 7, so far {920 + k}.\n" for k in range(80))
    traces = tuple(  # long answers: the inner steps run after the click's frame
        Trace(correct=f"{work}Answer: 1081", wrong=f"{work}Answer: 1071") for _ in range(8)
    )
    problem = replace(base, id="long", traces=traces, group_size=8, default_rewards=(1, 0) * 4)
    page = show_update(qtbot, window)
    window.workbench.set_problem(problem)
    settings = window.workbench.update_settings
    window.workbench.set_update_settings(replace(settings, inner_steps=4))
    qtbot.waitUntil(lambda: not page.state.pending)
    for _ in range(5):
        QApplication.processEvents()
    rows_top = page.rows.mapTo(page, page.rows.rect().topLeft())
    status_height = page.status_slot.height()
    numbers = page.numbers.text()
    column = page.findChild(QWidget, "updateTokensColumn")
    log = EventLog(QEvent.Type.LayoutRequest, page.splitter, page.parts, column)
    window.workbench.toggle(1)
    QApplication.processEvents()
    assert page.state.pending and page.status.text().startswith("Taking 4 inner steps")
    assert page.numbers.text() != numbers, "a new loss line, and not a line more"
    assert log.seen == [], "nothing above the rows was laid out again"
    assert page.status_slot.height() == status_height
    assert page.rows.mapTo(page, page.rows.rect().topLeft()) == rows_top
    qtbot.waitUntil(lambda: not page.state.pending)
    QApplication.processEvents()
    assert not page.status.text().startswith("Taking")
    assert page.rows.mapTo(page, page.rows.rect().topLeft()) == rows_top
