"""File ▸ Export ▸ Animation… on a real window: the dialog, the job, the file, a folder refused."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from grpo_desktop.views.common import gui_collector
from grpo_desktop.window.animation_export import AnimationDialog, AnimationRequest


@pytest.fixture
def window(qtbot):
    from grpo_desktop.model.lab_state import LabState
    from grpo_desktop.window.main_window import MainWindow

    state = LabState()
    state.set_problem("mult-23x47", [1, 0, 0, 1])
    win = MainWindow(state=state)
    qtbot.addWidget(win)
    with qtbot.waitExposed(win):
        win.show()
    win.install_deferred_features()
    return win


@pytest.fixture
def animation(window):
    return window.export_actions.animation


@pytest.fixture
def warnings(animation, monkeypatch):
    seen: list[str] = []
    monkeypatch.setattr(animation, "warn", seen.append)
    return seen


def ask(animation, monkeypatch, request, path):
    asked: list[tuple[str, str, str]] = []
    monkeypatch.setattr(animation, "ask_request", lambda: request)

    def ask_path(title, default_name, filters):
        asked.append((title, default_name, filters))
        return str(path)

    monkeypatch.setattr(animation.exports, "ask_path", ask_path)
    return asked


def test_the_menu_lists_the_animation(window):
    export_menu = window.export_actions.export_menu
    assert "Animation…" in [action.text() for action in export_menu.actions()]


def test_the_group_animation_is_written_as_a_gif(window, animation, monkeypatch, qtbot, tmp_path):
    request = AnimationRequest("advantage", (640, 360), "light")
    asked = ask(animation, monkeypatch, request, tmp_path / "lab")
    job = animation.export_animation()
    assert job is not None
    assert asked[0][1] == "grpo-mult-23x47-1001-animation.gif"
    assert asked[0][2] == "GIF animation (*.gif)"
    qtbot.waitUntil(lambda: not job.is_running(), timeout=30_000)
    written = tmp_path / "lab.gif"  # the suffix the dialog could not add
    data = written.read_bytes()
    image = Image.open(io.BytesIO(data))
    assert data[:6] == b"GIF89a" and image.size == (640, 360) and image.n_frames > 50
    assert "Saved animation" in window.statusBar().currentMessage()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_the_training_runs_first_steps_are_written(animation, monkeypatch, qtbot, tmp_path):
    request = AnimationRequest("training", (640, 360), "projector", steps=6)
    ask(animation, monkeypatch, request, tmp_path / "run.gif")
    job = animation.export_animation()
    qtbot.waitUntil(lambda: not job.is_running(), timeout=30_000)
    image = Image.open(tmp_path / "run.gif")
    assert image.n_frames == 7  # steps 0 to 6
    # The collector, paused while the pool's thread worked, runs again once that thread ends.
    qtbot.waitUntil(lambda: not gui_collector.paused(), timeout=10_000)


def test_a_folder_is_refused_with_one_plain_message(animation, monkeypatch, warnings, tmp_path):
    folder = tmp_path / "slides.gif"
    folder.mkdir()
    ask(animation, monkeypatch, AnimationRequest("advantage", (640, 360), "light"), folder)
    assert animation.export_animation() is None
    assert warnings == [f"Cannot save the animation to {folder}: it is a folder, not a file."]
    assert list(folder.iterdir()) == []


def test_a_cancelled_export_writes_nothing(animation, monkeypatch, qtbot, tmp_path):
    ask(
        animation,
        monkeypatch,
        AnimationRequest("advantage", (640, 360), "light"),
        tmp_path / "x.gif",
    )
    job = animation.export_animation()
    job.cancel()
    qtbot.waitUntil(lambda: not job.is_running())  # a loaded machine stops it later, not never
    assert list(tmp_path.iterdir()) == []
    qtbot.waitUntil(lambda: not gui_collector.paused(), timeout=10_000)


def test_the_dialog_offers_presets_and_a_custom_size(window, qtbot):
    dialog = AnimationDialog(window, "projector", has_run=False)
    qtbot.addWidget(dialog)
    request = dialog.request()
    assert request == AnimationRequest("advantage", (1280, 720), "projector", steps=40)
    assert not dialog.steps.isEnabled() and not dialog.width_box.isEnabled()
    dialog.what.setCurrentIndex(dialog.what.findData("training"))
    dialog.size_choice.setCurrentIndex(dialog.size_choice.count() - 1)  # Custom…
    assert dialog.steps.isEnabled() and dialog.width_box.isEnabled()
    dialog.width_box.setValue(800)
    dialog.height_box.setValue(450)
    dialog.steps.setValue(25)
    assert dialog.request() == AnimationRequest("training", (800, 450), "projector", steps=25)
