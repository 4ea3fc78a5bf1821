"""The rollouts browser: what a lecturer sees of a real run's steps and groups, and what it asks."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from rollout_files import needs_pyarrow, write_trl, write_verl

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.core.runs.rollouts import GroupSummary, StepSummary, open_rollouts
from grpo_desktop.views.files.rollouts_browser import (
    PROMPT_COLUMN,
    RolloutsBrowser,
    plain_tooltip,
    shared_prefix,
)


@pytest.fixture
def browser(qtbot):
    view = RolloutsBrowser(LIGHT)
    qtbot.addWidget(view)
    view.resize(1000, 640)
    return view


@pytest.fixture
def verl_source(tmp_path):
    return open_rollouts(write_verl(tmp_path / "run"))


def show(view: RolloutsBrowser, source) -> None:
    view.show_source(source.path.name, source.format, source.steps)


def summary(prompts: list[str], step: int = 3, source: str = "3.jsonl") -> StepSummary:
    groups = tuple(
        GroupSummary(prompt=p, size=2, mean=0.5, degenerate=False, rewards=(1.0, 0.0))
        for p in prompts
    )
    return StepSummary(step, source, groups, 0.0, (0, 0, 0.5, 1, 1), (2,) + (0,) * 8 + (2,))


def test_lists_every_step_and_the_first_steps_groups(browser, verl_source):
    show(browser, verl_source)
    assert browser.steps_list.count() == 2
    assert browser.steps_list.item(0).text() == "Step 1 · 33% degenerate"
    assert browser.model.rowCount() == 3
    assert "verl rollouts: run · 2 steps, 6 groups, 24 answers" in browser.source_label.text()


def test_a_steps_stats_show_its_degenerate_fraction_and_reward_distribution(browser, verl_source):
    show(browser, verl_source)
    browser.select_step(2)
    assert browser.step_title.text() == "Step 2 · 2.jsonl"
    assert "Degenerate: 2 of 3 (67%)" in browser.step_stats.text()
    assert browser.quantiles.text() == "Rewards: min 0 · 25 % 0 · median 1 · 75 % 1 · max 1"
    assert browser.bars.counts == verl_source.step(2).reward_histogram
    assert not browser.convention.isVisibleTo(browser)  # verl logs no advantages


def test_each_row_shows_the_groups_size_mean_rewards_and_whether_it_is_degenerate(
    browser, verl_source
):
    show(browser, verl_source)
    cells = [
        [browser.proxy.index(row, column).data() for column in (0, 2, 3, 4, 5)] for row in range(3)
    ]
    assert cells == [
        ["1", "4", "1", "1, 1, 1, 1", "yes"],
        ["2", "4", "0.5", "1, 0, 0, 1", "no"],
        ["3", "4", "0.25", "0, 0, 0, 1", "no"],
    ]


def test_search_keeps_only_the_groups_whose_prompt_matches(browser, verl_source, qtbot):
    show(browser, verl_source)
    qtbot.keyClicks(browser.search, "WHAT IS 2")
    assert browser.visible_prompts() == ["… 2: what is 2 + 1? <|assistant|>"]
    assert browser.shown_count.text() == "1 of 3 groups"
    browser.search.clear()
    assert browser.proxy.rowCount() == 3


def test_only_groups_with_a_learning_signal_hides_the_degenerate_ones(browser, verl_source):
    show(browser, verl_source)
    browser.select_step(2)
    browser.informative.setChecked(True)
    assert browser.proxy.rowCount() == 1
    assert browser.shown_count.text() == "1 of 3 groups"
    assert browser.selected_group() == 1  # the one row left is selected, ready for Enter


def test_a_template_every_prompt_shares_is_said_once_above_the_table(browser, verl_source):
    show(browser, verl_source)
    assert browser.shared.isVisibleTo(browser)
    assert browser.shared.text().startswith("Every prompt starts with: <|user|>Step 1, question")
    assert browser.visible_prompts()[0] == "… 0: what is 0 + 1? <|assistant|>"


def test_shared_prefix_is_kept_when_it_is_short_or_would_leave_nothing():
    assert shared_prefix(["What is 2 + 2?", "What is 3 + 3?"]) == ""  # "What is " is short
    assert shared_prefix(["only one prompt here at all"]) == ""
    same = "You are a helpful assistant. Solve the problem"
    assert shared_prefix([same, same + " quickly"]) == "You are a helpful assistant. Solve the "
    assert shared_prefix(["x" * 30, "x" * 30]) == ""


def test_html_in_a_prompt_or_file_name_is_shown_literally(browser, qtbot):
    prompts = ["<b>bold</b> <img src='x.png'> What is 1+1?", "<i>2</i> & what is 2+2?"]
    step = summary(prompts, source="<h1>3</h1>.jsonl")
    browser.show_source("<u>run</u>", "verl", [step])
    assert browser.visible_prompts() == prompts
    assert "<u>run</u>" in browser.source_label.text()
    for label in browser.findChildren(QLabel):
        if label.buddy() is None and label.text():
            assert label.textFormat() == Qt.TextFormat.PlainText or label is browser.steps_heading
    assert browser.step_title.text() == "Step 3 · <h1>3</h1>.jsonl"
    tooltip = browser.proxy.index(0, PROMPT_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    assert tooltip == plain_tooltip(prompts[0]) and "&lt;b&gt;bold&lt;/b&gt;" in tooltip


def test_a_prompt_on_many_lines_shows_on_one(browser):
    browser.show_source("run", "verl", [summary(["First line\n\n  second\tline", "Other"])])
    assert browser.visible_prompts()[0] == "First line second line"


def test_double_click_asks_for_that_group_in_file_order_even_when_sorted(
    browser, verl_source, qtbot
):
    show(browser, verl_source)
    browser.select_step(2)
    browser.table.sortByColumn(3, Qt.SortOrder.DescendingOrder)  # mean reward, highest first
    top = browser.proxy.index(2, 0)  # lowest mean: group 3 of step 2 (all wrong)
    assert top.data() == "3"
    with qtbot.waitSignal(browser.group_requested) as signal:
        browser.table.doubleClicked.emit(top)
    assert signal.args == [2, 2]


def test_enter_opens_the_selected_group_once(browser, verl_source, qtbot):
    show(browser, verl_source)
    browser.show()
    qtbot.waitExposed(browser)
    browser.select_group(1)
    asked = []
    browser.group_requested.connect(lambda step, group: asked.append((step, group)))
    browser.table.setFocus()
    qtbot.keyClick(browser.table, Qt.Key.Key_Return)
    assert asked == [(1, 1)]


def test_open_in_lab_is_off_until_a_group_is_selected(browser, verl_source, qtbot):
    assert not browser.open_button.isEnabled()
    show(browser, verl_source)
    assert browser.open_button.isEnabled()
    qtbot.keyClicks(browser.search, "no such prompt")
    assert not browser.open_button.isEnabled()


@needs_pyarrow
def test_a_trl_step_names_the_convention_that_reproduces_the_logged_advantages(browser, tmp_path):
    source = open_rollouts(write_trl(tmp_path))
    show(browser, source)
    assert browser.convention.isVisibleTo(browser)
    assert browser.convention.text().startswith(
        'Logged advantages: reproduced by the TRL convention, TRL scale_rewards="group" (max |diff|'
    )
    assert not browser.problems.isVisibleTo(browser)


@needs_pyarrow
def test_tampered_advantages_say_no_convention_and_the_problem(browser, tmp_path):
    import pyarrow.parquet as pq

    path = write_trl(tmp_path)
    table = pq.read_table(path)
    advantages = table.column("advantage").to_pylist()
    advantages[1] += 0.5
    table = table.set_column(table.schema.get_field_index("advantage"), "advantage", [advantages])
    pq.write_table(table, path)
    show(browser, open_rollouts(path))
    assert browser.convention.text().startswith(
        "Logged advantages: no convention reproduces them (closest max |diff|"
    )
    assert browser.problems.isVisibleTo(browser)
    assert "no convention reproduces the logged advantages" in browser.problems.text()


def test_the_projector_theme_makes_the_text_larger(browser, verl_source):
    show(browser, verl_source)
    before = browser.table.font().pointSizeF()
    browser.set_theme(PROJECTOR)
    assert browser.table.font().pointSizeF() > before
    assert browser.model.rowCount() == 3  # the rows are still there, restyled


def test_the_reward_bars_paint_without_a_display(browser, verl_source):
    show(browser, verl_source)
    browser.show()
    image = browser.bars.grab().toImage()
    assert image.width() > 0 and image.pixelColor(image.width() // 2, 0).isValid()


def test_a_search_that_finds_nothing_says_what_it_searched(browser, verl_source, qtbot):
    show(browser, verl_source)
    assert browser.table.placeholder == ""
    qtbot.keyClicks(browser.search, "<b>wallet")
    assert browser.proxy.rowCount() == 0
    assert browser.table.placeholder.startswith("No group's prompt contains “<b>wallet”.")
    browser.show()
    browser.table.grab()  # paints the sentence (as plain text) without error


def test_a_sort_the_lecturer_chose_holds_on_the_next_step(browser, verl_source):
    show(browser, verl_source)
    browser.table.sortByColumn(3, Qt.SortOrder.DescendingOrder)
    browser.select_step(2)
    means = [browser.proxy.index(row, 3).data() for row in range(3)]
    assert means == ["1", "0.75", "0"]
    browser.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    browser.select_step(1)
    assert [browser.proxy.index(row, 0).data() for row in range(3)] == ["1", "2", "3"]


def test_bidi_zero_width_and_control_characters_from_a_file_show_as_escapes(browser):
    """A bidi override must not make a run's "evil<RLO>exe.txt" read as "evil.txt.exe"."""
    hidden = "\u202e\u200b\u2066\ufeff\x1b"
    escaped = "\\u202e\\u200b\\u2066\\ufeff\\x1b"
    step = replace(
        summary([f"What is{hidden} 2 + 2?", "Other"], source=f"evil{hidden}exe.jsonl"),
        problems=(f"step 3: odd prompt {hidden}",),
        notes=(f"step 3: column not read as rewards: 'ok{hidden}' (text)",),
    )
    browser.show_source(f"run{hidden}", "verl", [step])
    shown = [
        browser.windowTitle(),
        browser.source_label.text(),
        browser.step_title.text(),
        browser.problems.text(),
        browser.notes.text(),
        browser.steps_list.item(0).toolTip(),
        *browser.visible_prompts(),
        browser.proxy.index(0, PROMPT_COLUMN).data(Qt.ItemDataRole.ToolTipRole),
    ]
    for text in shown:
        assert not any(char in text for char in hidden), text
    assert browser.windowTitle() == f"Rollouts — run{escaped}"
    assert browser.step_title.text() == f"Step 3 · evil{escaped}exe.jsonl"
    assert browser.visible_prompts()[0] == f"What is{escaped} 2 + 2?"
    assert browser.notes.text() == f"Note: step 3: column not read as rewards: 'ok{escaped}' (text)"
    assert not browser.notes.isHidden() and browser.notes.textFormat() == Qt.TextFormat.PlainText


def test_a_step_without_notes_hides_the_notes_line(browser, verl_source):
    show(browser, verl_source)
    assert browser.notes.isHidden() and browser.notes.text() == ""


def test_a_step_whose_degenerate_fraction_is_unknown_says_unknown(browser):
    """verl cannot split a prompt drawn twice (no ``uid`` in ``_dump_generations``): the core
    reports None, and the browser says "unknown" rather than a percentage."""
    step = replace(summary(["Twice", "Once"]), degenerate_fraction=None)
    browser.show_source("3.jsonl", "verl", [step])
    assert browser.steps_list.item(0).text() == "Step 3 · unknown degenerate"
    assert "Degenerate: unknown" in browser.step_stats.text()


@needs_pyarrow
def test_chat_prompts_show_as_turns_with_the_shared_system_prompt_said_once(browser, tmp_path):
    """TRL's conversational prompts (lists of ``{role, content}``, commit de62232) read as
    "system: …" / "user: …" turns; the rows show the user turn that differs."""
    from library_writers import chat, trl_table, write_trl_completions

    system = "You are a careful math tutor. Reason step by step, then box the final answer."
    questions = ["What is 2 + 2?", "What is 3 + 5?", "Name a prime above 10."]
    prompts = [chat(system, q) for q in questions for _ in range(2)]
    table = trl_table(1, prompts, ["a"] * 6, {"acc": [1.0, 0.0] * 3}, 2)
    show(browser, open_rollouts(write_trl_completions(tmp_path, table)))
    assert browser.visible_prompts() == [f"… {q}" for q in questions]
    assert browser.shared.text().startswith("Every prompt starts with: system: You are a careful")
    assert "{" not in browser.shared.toolTip() and "role" not in browser.shared.text()


# --- the keyboard alone -------------------------------------------------------------------------


def focus_name(widget) -> str:
    """A focused widget's name, or a button's words when it has none."""
    return widget.objectName() or widget.text()


def test_tab_follows_reading_order_and_leaves_the_table(browser, qtbot):
    from PySide6.QtWidgets import QApplication

    browser.show()
    qtbot.waitExposed(browser)
    browser.activateWindow()
    browser.show_source("run", "verl", [summary(["a", "b", "c"], 1), summary(["d"], 2)])
    qtbot.waitUntil(lambda: QApplication.focusWidget() is browser.table)
    seen = []
    for _ in range(7):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        seen.append(focus_name(QApplication.focusWidget()))
    # Tab never walks the table's cells: from the groups straight to the buttons, then round.
    assert seen == [
        "openGroupButton",
        "Close",
        "rolloutSteps",
        "rolloutSearch",
        "informativeOnly",
        "rolloutSort",
        "rolloutGroups",
    ]


def test_steps_and_groups_are_chosen_and_opened_with_keys(browser, qtbot):
    browser.show()
    browser.show_source("run", "verl", [summary(["a", "b"], 1), summary(["d", "e", "f"], 2)])
    browser.steps_list.setFocus()
    qtbot.keyClick(browser.steps_list, Qt.Key.Key_Down)
    assert browser.current_step.step == 2 and browser.model.rowCount() == 3
    browser.table.setFocus()
    qtbot.keyClick(browser.table, Qt.Key.Key_Down)
    with qtbot.waitSignal(browser.group_requested) as blocker:
        qtbot.keyClick(browser.table, Qt.Key.Key_Return)
    assert blocker.args == [2, 1]


def test_the_sort_box_sorts_as_a_heading_click_does_and_follows_it(browser):
    browser.show_source("run", "verl", [summary(["b prompt", "c prompt", "a prompt"], 1)])
    combo = browser.sort_combo
    assert combo.currentText() == "File order, ascending"
    combo.setCurrentIndex(combo.findText("Prompt, ascending"))
    combo.activated.emit(combo.currentIndex())
    assert browser.visible_prompts() == ["a prompt", "b prompt", "c prompt"]
    browser.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)  # as a heading's click does
    assert combo.currentText() == "File order, descending"
    assert browser.visible_prompts() == ["a prompt", "c prompt", "b prompt"]
