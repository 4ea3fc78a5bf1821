"""Python's garbage collector runs in idle time once the lab has drawn ahead, not in a click."""

from __future__ import annotations

import gc

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from grpo_desktop.views.common.math_render import typesetting_busy
from grpo_desktop.views.lab.trace_card import TraceCard
from grpo_desktop.window.idle_collection import collect_while_idle


@pytest.fixture(autouse=True)
def no_typesetting_job_out(qtbot):
    """The collector is paused while the typesetting thread has a job out (by design: see
    ``math_render._give``), and an earlier test's window may have left one out: it comes back
    here, so the tests start with the collector as a click finds it."""
    qtbot.waitUntil(lambda: not typesetting_busy(), timeout=30_000)


@pytest.fixture
def thresholds():
    """Put the collector's thresholds back as they were after the test."""
    kept = gc.get_threshold()
    yield gc.set_threshold
    gc.set_threshold(*kept)


def test_young_objects_are_collected_and_nothing_is_left_due():
    gc.collect()
    garbage = [[index] for index in range(300)]  # containers the collector counts
    assert gc.get_count()[0] > 0
    assert collect_while_idle() == 1
    young, middle, _old = gc.get_count()
    assert young < 10 and middle == 0  # all collected (the test's own few objects since)
    del garbage


def test_a_full_collection_due_next_is_made_in_idle_time(thresholds):
    thresholds(700, 10, 1)  # any middle-aged pass would now start a full one
    assert collect_while_idle() == 2
    young, middle, old = gc.get_count()
    assert young < 10 and middle == 0 and old == 0  # all collected (the test's own few since)


def test_a_disabled_collector_is_left_alone():
    gc.disable()
    try:
        assert collect_while_idle() == -1
    finally:
        gc.enable()


def test_a_click_after_the_lab_has_drawn_ahead_runs_no_collection(window):
    window.workbench.set_group_size(16)
    window.install_deferred_features()
    QApplication.processEvents()
    collections: list[int] = []

    def heard(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(info["generation"])

    for card_index in (1, 2, 3, 4, 5, 6, 7, 8):
        # Idle time leaves objects behind (typesetting, drawing ahead): nearly a young
        # generation's worth, so that the click's own objects would set a collection off.
        leftovers = [[index] for index in range(650)]
        window.math_panel.finish_typesetting()
        window.lab.finish_preparing()  # as 150 ms of quiet would, then the collector
        card = window.findChild(TraceCard, f"traceCard{card_index}")
        centre = QPoint(card.width() // 2, card.height() // 2)
        gc.callbacks.append(heard)
        try:  # the click's frame: the toggle, every view told, the window painted
            QTest.mouseClick(
                card, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre
            )
            window.repaint()
        finally:
            gc.callbacks.remove(heard)
        QApplication.processEvents()
        del leftovers
    assert window.workbench.lab.snapshot.cards[1].correct is not None
    assert collections == []


def test_what_lives_once_the_pages_are_built_is_kept_out_of_full_passes():
    from grpo_desktop.window.idle_collection import freeze_long_lived

    pages = [[index] for index in range(200)]  # stands in for the pages the prebuild built
    cycle: list = []
    cycle.append(cycle)  # garbage the young collection frees before anything is kept
    del cycle
    frozen = gc.get_freeze_count()
    freeze_long_lived()
    try:
        assert gc.get_freeze_count() >= frozen + len(pages)
        tracked = {id(thing) for thing in gc.get_objects()}
        assert not any(id(page) in tracked for page in pages)  # a full pass no longer scans them
    finally:
        gc.unfreeze()
