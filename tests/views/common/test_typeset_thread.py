"""The typesetter off the GUI thread: the lines a click asks for are typeset on another thread
(ziamath is pure Python: 9-45 ms a line held a click landing meanwhile), then drawn on the GUI
thread; typesetting now (a screenshot, ``finish``) still gives typeset math at once."""

from __future__ import annotations

import gc
import itertools
import sys
import threading

import pytest
from PySide6.QtCore import QObject

from grpo_desktop.views.common import math_render

_numbers = itertools.count(1)


@pytest.fixture
def ziamath_calls(monkeypatch):
    """The threads ziamath typesets on, one entry a line (its ``Latex`` is watched)."""
    assert math_render.load_typesetter()
    ziamath = sys.modules["ziamath"]
    original = ziamath.Latex
    threads: list[threading.Thread] = []

    def watched(*args, **kwargs):
        threads.append(threading.current_thread())
        return original(*args, **kwargs)

    monkeypatch.setattr(ziamath, "Latex", watched)
    return threads


def new_line() -> str:
    """A line never typeset before in this process."""
    return rf"\bar{{r}} = \tfrac{{{next(_numbers)}}}{{7}} = 0.{next(_numbers):04d}"


def test_a_line_asked_for_is_typeset_off_the_gui_thread_and_then_drawn(qtbot, ziamath_calls):
    switch_interval = sys.getswitchinterval()
    owner = QObject()
    ready: list[int] = []
    later = math_render.TypesetLater(lambda: ready.append(1), owner)
    latex = new_line()
    later.ask(latex, "#123456")
    assert later.waiting and not math_render.is_typeset(latex, "#123456")
    qtbot.waitUntil(lambda: ready == [1], timeout=10_000)
    assert ziamath_calls and all(t is not threading.main_thread() for t in ziamath_calls)
    assert not later.waiting
    math = math_render.typeset(latex, "#123456")  # drawn on the GUI thread from its SVG
    assert math is not None and math.renderer.isValid() and math.width_em > 0
    assert len(ziamath_calls) == 1, "the line was typeset once"
    assert gc.isenabled(), "the collector runs again once the thread's lines are back"
    assert sys.getswitchinterval() == switch_interval, "and the GIL changes hands as before"


def test_finish_typesets_the_lines_asked_for_at_once(qtbot, ziamath_calls):
    owner = QObject()
    ready: list[int] = []
    later = math_render.TypesetLater(lambda: ready.append(1), owner)
    lines = [new_line() for _ in range(3)]
    for latex in lines:
        later.ask(latex, "#000000")
    later.finish()
    assert ready == [1] and not later.waiting
    assert all(math_render.typeset(latex, "#000000") is not None for latex in lines)
    assert all(t is threading.main_thread() for t in ziamath_calls)


def test_finish_while_a_line_is_on_the_thread_waits_for_it_and_draws_it(
    qtbot, ziamath_calls, monkeypatch
):
    """The typesetter is used by one thread at a time: ``finish`` waits for the line the other
    thread is typesetting, then typesets it (or takes its drawing) itself."""
    ziamath = sys.modules["ziamath"]
    watched = ziamath.Latex
    started, release = threading.Event(), threading.Event()

    def slow(*args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            started.set()
            release.wait(10)
        return watched(*args, **kwargs)

    monkeypatch.setattr(ziamath, "Latex", slow)
    owner = QObject()
    ready: list[int] = []
    later = math_render.TypesetLater(lambda: ready.append(1), owner)
    latex = new_line()
    later.ask(latex, "#000000")
    qtbot.waitUntil(started.is_set, timeout=10_000)
    threading.Timer(0.2, release.set).start()
    later.finish()
    assert ready == [1] and not later.waiting
    assert math_render.typeset(latex, "#000000") is not None
    qtbot.waitUntil(lambda: not math_render._waiting, timeout=10_000)  # the thread's line back
    assert ready == [1], "ready once: the line back from the thread asks for nothing more"
    assert gc.isenabled()


def test_a_synchronous_load_waits_for_the_import_under_way_on_the_other_thread(qtbot, monkeypatch):
    assert math_render.load_typesetter()
    monkeypatch.setattr(math_render, "_typesetter", None)
    monkeypatch.setattr(math_render, "_imported", None)
    monkeypatch.setattr(math_render, "_import_asked", False)
    monkeypatch.delitem(sys.modules, "ziamath")  # imported afresh (its parts stay imported)
    owner = QObject()
    loaded: list[int] = []
    math_render.load_typesetter_in_background(owner, lambda: loaded.append(1))
    assert math_render.load_typesetter(), "a screenshot or an export loads it now"
    assert math_render.typeset(new_line(), "#000000") is not None
    qtbot.waitUntil(lambda: loaded == [1], timeout=10_000)
    assert gc.isenabled()
