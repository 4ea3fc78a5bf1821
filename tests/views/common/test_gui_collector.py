"""The garbage collector stays off worker threads: Qt objects are freed on the GUI thread."""

from __future__ import annotations

import gc
import threading

import pytest
from PySide6.QtCore import QObject, QTimer

from grpo_desktop.views.common import gui_collector


@pytest.fixture
def collector_on(qtbot):
    """Automatic collection on, and no worker of an earlier test still out."""
    qtbot.waitUntil(lambda: not gui_collector.paused(), timeout=30_000)
    assert gc.isenabled()
    yield
    qtbot.waitUntil(lambda: not gui_collector.paused(), timeout=30_000)


def test_pauses_nest_and_the_last_resume_switches_collection_back_on(collector_on):
    gui_collector.pause()
    gui_collector.pause()
    assert not gc.isenabled()
    gui_collector.resume()
    assert not gc.isenabled()  # one pause still out
    gui_collector.resume()
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        gui_collector.resume()


def test_a_collector_switched_off_by_someone_else_stays_off(collector_on):
    gc.disable()
    try:
        gui_collector.pause()
        gui_collector.resume()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_collection_is_off_while_a_worker_runs_and_on_once_it_has_ended(qtbot, collector_on):
    release = threading.Event()
    worker = gui_collector.start_worker(release.wait, "test-worker")
    qtbot.wait(3 * gui_collector.REAP_MS)
    assert worker.is_alive() and not gc.isenabled()
    release.set()
    qtbot.waitUntil(gc.isenabled, timeout=5_000)
    assert not worker.is_alive()


def test_qt_garbage_is_freed_on_the_gui_thread_however_much_a_worker_allocates(
    qtbot, collector_on
):
    """A collection run on a worker thread freed a closed window's widgets there ("Timers
    cannot be stopped from another thread"), and the suite crashed later."""
    freed_on: list[str] = []
    for _ in range(5):
        garbage = QObject()
        garbage.cycle = garbage  # only a collection frees it
        timer = QTimer(garbage)
        timer.start(60_000)  # a running timer: Qt warns when another thread stops it
        garbage.destroyed.connect(lambda *_: freed_on.append(threading.current_thread().name))
        del garbage, timer

    def allocate() -> None:  # enough container objects for many automatic collections
        for _ in range(50):
            [[] for _ in range(10_000)]

    worker = gui_collector.start_worker(allocate, "allocating-worker")
    worker.join()
    qtbot.waitUntil(gc.isenabled, timeout=5_000)
    gc.collect()
    assert freed_on == ["MainThread"] * 5
