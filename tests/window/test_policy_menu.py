"""View ▸ Policy and File ▸ Open model…: the policy is one undo step; a bad file changes nothing."""

from __future__ import annotations

from grpo_desktop.core.training.policy_choice import PolicyChoice


def test_choosing_the_tiny_model_in_the_view_menu_is_one_undo_step(window):
    menu = window.policy_menu
    menu.actions["tinylm"].trigger()
    assert window.workbench.policy == PolicyChoice("tinylm")
    window.workbench.undo_stack.undo()
    assert window.workbench.policy == PolicyChoice("toy")
    assert menu.actions["toy"].isChecked() and not menu.actions["tinylm"].isChecked()


def test_open_model_teaches_on_the_checkpoint_and_names_it_in_the_menu(window, tmp_path):
    from grpo_desktop.core.tinylm import load_model

    path = tmp_path / "after-grpo.npz"
    load_model().save(path)
    menu = window.policy_menu
    assert menu.open_checkpoint(str(path))
    assert window.workbench.policy == PolicyChoice("tinylm", str(path))
    assert menu.actions["tinylm"].text() == "Tiny language model (after-grpo.npz)"
    menu.actions["toy"].trigger()
    menu.actions["tinylm"].trigger()  # back to the model: the checkpoint chosen before
    assert window.workbench.policy == PolicyChoice("tinylm", str(path))


def test_a_file_that_is_not_a_checkpoint_is_one_plain_message_and_nothing_changes(window, tmp_path):
    bad = tmp_path / "<b>notes.npz"
    bad.write_text("not a model", encoding="utf-8")
    shown: list[str] = []
    menu = window.policy_menu
    menu.report = shown.append
    assert not menu.open_checkpoint(str(bad))
    assert len(shown) == 1 and shown[0].startswith("The model was not opened: ")
    assert "<b>notes.npz" in shown[0]  # the name as it is, for a plain-text message box
    assert window.workbench.policy == PolicyChoice("toy")
    assert window.workbench.undo_stack.count() == 0


def test_a_checkpoint_named_with_an_ampersand_is_named_as_it_is(window, tmp_path):
    from grpo_desktop.core.tinylm import load_model

    path = tmp_path / "a&b.npz"
    load_model().save(path)
    assert window.policy_menu.open_checkpoint(str(path))
    action = window.policy_menu.actions["tinylm"]
    assert action.text() == "Tiny language model (a&&b.npz)"  # shown as "a&b.npz"
    assert action.iconText() == "Tiny language model (a&b.npz)"
