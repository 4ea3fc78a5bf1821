"""The title bar names what is on screen: the scenario's own title, the problem, the file."""

from __future__ import annotations

from grpo_desktop.core.files.scenario import Scenario, load_scenario, save_scenario
from grpo_desktop.window.main_window import MainWindow


def test_an_opened_scenarios_title_shows_in_the_title_bar_and_is_saved_back(window, tmp_path):
    window: MainWindow
    path = tmp_path / "week3.grpo.json"
    note = "Week 3: why the lone right answer gets +2"
    save_scenario(Scenario.from_lab(window.state.memento(), "textbook", "reward", title=note), path)
    assert window.document.open_path(path)
    assert window.windowTitle().startswith(f"{note} · Multiply 23 × 47 — week3.grpo.json")
    assert note in window.statusBar().currentMessage()
    window.request_toggle(0)
    assert window.document.save()
    assert load_scenario(path).title == note


def test_without_a_scenario_title_the_title_bar_names_the_problem(window):
    assert window.windowTitle().startswith("Multiply 23 × 47 — Untitled")
