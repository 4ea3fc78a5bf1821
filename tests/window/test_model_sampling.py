"""Presets ▸ Sample from the tiny model…: its answers open in the Lab as one undo step."""

from __future__ import annotations

import pytest
from label_ink import ink_in_last_column
from PySide6.QtWidgets import QApplication, QLabel

from grpo_desktop.core.tinylm import load_model
from grpo_desktop.window.model_sampling import WHAT_THE_MODEL_IS, ModelSamplingDialog


def lab_state(window) -> tuple:
    return (window.state.snapshot, window.undo_stack.count(), window.workbench.workspace)


def open_dialog(window) -> ModelSamplingDialog:
    action = window.findChild(type(window.sample_action), "sampleModelAction")
    assert action is not None and action.shortcut().isEmpty()
    assert action in window.findChild(type(window.file_menu), "presetsMenu").actions()
    action.trigger()
    QApplication.processEvents()
    dialog = window.model_sampling_dialog
    assert dialog.isVisible()
    return dialog


def test_the_dialog_opens_g_cards_with_the_models_completions_for_that_seed(window):
    window.request_group_size(8)
    dialog = open_dialog(window)
    assert WHAT_THE_MODEL_IS in dialog.findChild(type(dialog.message), "modelSamplingAbout").text()
    assert dialog.group_size_spin.value() == 8
    dialog.set_prompt("23+45=")
    dialog.seed_spin.setValue(4)
    count = window.undo_stack.count()
    assert dialog.sample() is True
    assert not dialog.isVisible()
    recorded = window.state.recorded
    assert recorded is not None and recorded.run_format == "tinylm"
    assert recorded.texts == tuple(load_model().sample("23+45=", 8, 4))
    assert recorded.answer_key == "68." and recorded.seed == 4
    snapshot = window.state.snapshot
    assert len(snapshot.rewards) == 8
    assert list(snapshot.rewards) == [float(t == "68.") for t in recorded.texts]
    assert window.undo_stack.count() == count + 1
    assert "seed 4" in window.statusBar().currentMessage()
    assert dialog.seed_spin.value() == 5  # the next sample draws new answers
    # The panels say what the group is: the tiny model's, graded by the lab, not a run's.
    panel = window.lab.problem_panel
    details = panel.details.text().replace("\u200b", "")  # breakable(): zero-width spaces
    assert details == (
        "Sampled in the lab · the tiny language model (107,820 parameters), seed 4 · "
        "8 answers to 23+45="
    )
    assert panel.chooser.currentText().endswith("(from the tiny model)")
    assert snapshot.worked_math.steps[0].title.startswith("Rewards graded when the model wrote")


def test_a_bad_prompt_says_why_in_the_dialog_and_leaves_the_lab_untouched(window):
    dialog = open_dialog(window)
    before = lab_state(window)
    dialog.set_prompt("What is 2+2?")
    assert dialog.sample() is False
    assert dialog.isVisible() and dialog.message.isVisible()
    assert "cannot read" in dialog.message.text() and "'W'" in dialog.message.text()
    assert lab_state(window) == before
    dialog.set_prompt("")
    assert dialog.sample() is False and "Type a prompt" in dialog.message.text()
    assert lab_state(window) == before
    dialog.reject()


def test_undo_brings_the_previous_group_back(window):
    def shown() -> tuple:
        snapshot = window.state.snapshot
        return (snapshot.problem, tuple(snapshot.rewards), window.state.group_size)

    before = shown()
    dialog = open_dialog(window)
    dialog.set_prompt("sort 5203=")
    dialog.group_size_spin.setValue(6)
    assert dialog.sample() is True
    assert window.state.recorded is not None and window.state.group_size == 6
    window.undo_stack.undo()
    assert window.state.recorded is None
    assert shown() == before
    window.undo_stack.redo()
    assert window.state.recorded.prompt == "sort 5203="


def test_open_model_samples_from_a_saved_checkpoint_and_a_broken_file_changes_nothing(
    window, tmp_path, monkeypatch
):
    """File ▸ Open model…, in the dialog: a checkpoint `grpo-desktop lm train --save` wrote is
    sampled from and named; a file that is not one is one line, and the model stays."""
    from PySide6.QtWidgets import QFileDialog

    broken = tmp_path / "notes.npz"
    broken.write_text("not a checkpoint", encoding="utf-8")
    saved = tmp_path / "trained.npz"
    load_model().save(saved)
    dialog = open_dialog(window)
    chosen = iter([str(broken), str(saved)])
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (next(chosen), ""))
    assert dialog.ask_checkpoint() is False
    assert "notes.npz" in dialog.message.text() and dialog.message.isVisibleTo(dialog)
    assert dialog.model_label.text().startswith("the shipped checkpoint")
    assert dialog.ask_checkpoint() is True
    assert dialog.model_label.text() == "trained.npz" and not dialog.message.isVisibleTo(dialog)
    dialog.set_prompt("23+45=")
    assert dialog.sample() is True
    recorded = window.state.recorded
    assert recorded.file_name == str(saved) and recorded.origin.endswith(", trained.npz")
    assert recorded.texts == tuple(load_model(saved).sample("23+45=", recorded.group_size, 0))


def test_a_checkpoint_named_like_html_is_named_as_plain_text(window, tmp_path, monkeypatch):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QFileDialog

    hostile = tmp_path / "<b>bold<\u202eevil.npz"
    hostile.write_text("not a checkpoint", encoding="utf-8")
    dialog = open_dialog(window)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(hostile), ""))
    assert dialog.ask_checkpoint() is False
    assert dialog.message.textFormat() == Qt.TextFormat.PlainText
    assert "<b>bold<" in dialog.message.text() and "\u202e" not in dialog.message.text()


def test_the_dialog_samples_from_the_checkpoint_the_policy_names(window, tmp_path):
    """File ▸ Open model… sets the policy; the sampling dialog then writes with those weights."""
    saved = tmp_path / "policy.npz"
    load_model().save(saved)
    assert window.policy_menu.open_checkpoint(str(saved))
    dialog = open_dialog(window)
    assert dialog.checkpoint == str(saved) and dialog.model_label.text() == "policy.npz"


@pytest.mark.parametrize("theme", ["light", "projector"])
def test_every_setting_names_itself_whole_in_each_theme(window, theme):
    window.presentation.set_theme(theme, remember=False)
    dialog = open_dialog(window)
    labels = [label for label in dialog.findChildren(QLabel) if label.buddy() is not None]
    assert {label.text() for label in labels} >= {"&Prompt", "&Seed", "&Temperature"}
    cut = [label.text() for label in labels if ink_in_last_column(label)]
    assert cut == []
