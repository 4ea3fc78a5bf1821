"""The Update workspace on a group the tiny model wrote: its tokens, the model named, the
spill-over in view; a bad checkpoint is one sentence; the toy's group offers a model sample."""

from __future__ import annotations

import functools
from dataclasses import replace

from PySide6.QtWidgets import QApplication

from grpo_desktop.core.tinylm import load_model
from grpo_desktop.core.tinylm.lab_group import sample_lab_group
from grpo_desktop.core.tinylm.lm_update import END_CHIP
from grpo_desktop.core.training.policy_choice import TINY_LM, PolicyChoice
from grpo_desktop.model.workbench import UPDATE
from grpo_desktop.window import update_page as update_page_module


@functools.cache
def _group():
    return sample_lab_group(load_model(), "23+45=", 8, 0)


def _show_update(window):
    window.workbench.set_workspace(UPDATE)
    QApplication.processEvents()
    return window.update_page


def test_a_model_group_shows_the_models_tokens_and_its_spillover(window):
    window.workbench.open_recorded_group(_group())
    page = _show_update(window)
    rows = page.state.snapshot.rows
    assert ["".join(row.tokens.texts) for row in rows] == [
        text.replace(".", END_CHIP) for text in _group().texts
    ]
    assert page.note.text().startswith("Tiny language model: 107,820 parameters")
    assert "pretrained 400 steps on addition and digit sorting" in page.note.text()
    assert page.spillover.isVisible()
    assert "held-out sums" in page.spillover.caption_text()
    top = page.spillover.mapTo(window, page.spillover.rect().topLeft()).y()
    assert top + 100 < window.height(), "the spill-over is in view at 1280×800"
    assert not page.offer.isVisible()


def test_a_bad_checkpoint_is_one_sentence_and_the_standin(window, tmp_path):
    window.workbench.open_recorded_group(replace(_group(), file_name=str(tmp_path / "x.npz")))
    page = _show_update(window)
    assert page.status.text().startswith("The group's checkpoint cannot be loaded")
    assert page.note.text() == update_page_module.STANDIN_NOTE
    assert not page.spillover.isVisible()


def test_the_model_policy_on_a_hand_written_group_offers_to_sample(window, monkeypatch):
    opened = []
    monkeypatch.setattr("grpo_desktop.window.model_sampling.open_model_sampling", opened.append)
    page = _show_update(window)
    assert not page.offer.isVisible()
    window.workbench.set_policy(PolicyChoice(TINY_LM))
    QApplication.processEvents()
    assert page.offer.isVisible()
    assert "written by hand" in page.offer_text.text()
    page.sample_button.click()
    assert opened == [window]
    window.workbench.open_recorded_group(_group())
    _show_update(window)
    assert not page.offer.isVisible()
