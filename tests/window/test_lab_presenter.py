"""LabPresenter: after a render and a quiet moment, the next toggle's drawings are made ahead."""

from __future__ import annotations

from grpo_desktop.views.common.render_cache import DRAWINGS
from grpo_desktop.views.common.text_runs import KIND
from grpo_desktop.window import lab_presenter


def counting_get(drawn: list):
    """``DRAWINGS.get`` that notes each drawing it has to make."""
    get = DRAWINGS.get

    def counted(key, render):
        return get(key, lambda: drawn.append(key[0]) or render())

    return counted


def test_idle_time_draws_the_next_toggles_numbers_and_lines_ahead(sized, qtbot, monkeypatch):
    window = sized((1280, 800), group_size=16)
    presenter = window.lab
    qtbot.waitUntil(lambda: not presenter.preparing(), timeout=5000)  # the first screen's
    window.workbench.toggle(3, presenter.state)
    assert presenter.preparing()  # due once the lab has been quiet a moment
    qtbot.waitUntil(lambda: not presenter.preparing(), timeout=5000)
    drawn: list = []
    monkeypatch.setattr(DRAWINGS, "get", counting_get(drawn))
    in_view = presenter.trace_grid.indices_in_view()
    wrong = next(i for i in in_view if not presenter.state.correct[i])
    window.workbench.toggle(wrong, presenter.state)  # a card in view: one right more
    window.repaint()
    assert KIND not in drawn  # the tiles' new numbers were drawn ahead
    assert "advantage line" not in drawn  # and every card's new advantage lines


def test_a_new_render_starts_the_drawing_ahead_again_and_finishing_does_it_all(
    sized, qtbot, monkeypatch
):
    monkeypatch.setattr(lab_presenter, "PREPARE_DELAY_MS", 60_000)  # never on its own here
    window = sized((1280, 800), group_size=16)
    presenter = window.lab
    prepared = []
    monkeypatch.setattr(
        presenter.stats_panel, "prepare", lambda snapshot: prepared.append(snapshot)
    )
    window.workbench.toggle(0, presenter.state)
    presenter._prepare_next()  # one piece: the first toggle's snapshot
    window.workbench.toggle(1, presenter.state)  # a new render: what was ahead is dropped
    presenter.finish_preparing()
    assert not presenter.preparing()
    flags = presenter.state.correct
    assert prepared and all(
        sum(card.correct for card in snapshot.cards) in (sum(flags) - 1, sum(flags) + 1)
        for snapshot in prepared
    )
    assert {sum(card.correct for card in snapshot.cards) for snapshot in prepared} == {
        sum(flags) - 1,
        sum(flags) + 1,
    }


def test_nothing_is_drawn_ahead_for_a_lab_off_screen(sized, monkeypatch):
    presenter = sized((1280, 800)).lab
    monkeypatch.setattr(presenter._gate, "_shown", False)  # another workspace shows
    asked = []
    monkeypatch.setattr(presenter.state, "toggled_snapshot", lambda index: asked.append(index))
    presenter.finish_preparing()
    assert asked == []
