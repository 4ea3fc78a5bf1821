"""Typeset math: every LaTeX the app writes renders, once; it is drawn in the theme's ink; the
panels copy plain text with Ctrl+C and the LaTeX with Copy as LaTeX."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication

from grpo_desktop.core.common.theme import THEMES
from grpo_desktop.core.formulas import advantages as core
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import load_problems
from grpo_desktop.views.common import math_render
from grpo_desktop.views.common.math_render import OBJECT_CHARACTER, render_count, typeset
from grpo_desktop.views.lab.math_panel import MathPanel


@pytest.fixture(autouse=True)
def typesetter():
    assert math_render.load_typesetter()


def every_latex() -> set[str]:
    """Every formula and worked line of every shipped problem's default group and a mixed group,
    under every convention."""
    found: set[str] = set()
    for problem in load_problems():
        for convention in core.CONVENTIONS:
            for correct in (problem.default_group(4), (True, False, False, False, True)):
                worked = build_snapshot(problem, list(correct), convention).worked_math
                found.add(worked.formula_latex)
                for step in worked.steps:
                    found.update(latex for latex in step.latex if latex)
    return found


def test_every_latex_the_app_writes_is_typeset_without_falling_back(qapp):
    refused = [latex for latex in sorted(every_latex()) if typeset(latex, "#000000") is None]
    assert refused == []


def test_a_line_is_typeset_once_and_then_comes_from_the_cache(qapp):
    latex = r"\bar{r} = \tfrac{1 + 0 + 0 + 1}{4} = 0.4321"
    before = render_count()
    first = typeset(latex, "#123456")
    assert render_count() == before + 1
    assert typeset(latex, "#123456") is first
    assert render_count() == before + 1
    typeset(latex, "#654321")  # another ink is another drawing
    assert render_count() == before + 2


def test_latex_the_typesetter_refuses_falls_back_to_plain_text(qapp):
    assert typeset(r"\frac{1}{", "#000000") is None
    assert math_render.math_format(r"\frac{1}{", "1/", "#000000") is None


@pytest.mark.parametrize("theme", list(THEMES.values()), ids=list(THEMES))
def test_the_math_is_drawn_in_the_themes_text_colour(qapp, theme):
    math = typeset(r"\sigma = \sqrt{0.25} = 0.5", theme.text)
    image = QImage(400, 80, QImage.Format.Format_ARGB32)
    image.fill(QColor(theme.surface))
    painter = QPainter(image)
    math.renderer.render(painter, QRectF(0, 0, math.width_em * 40, math.height_em * 40))
    painter.end()
    ink = QColor(theme.text)
    inked = sum(
        1
        for x in range(image.width())
        for y in range(image.height())
        if image.pixelColor(x, y) == ink
    )
    assert inked > 50  # solid strokes in exactly the theme's text colour


def shown_panel(qtbot, rewards) -> MathPanel:
    from grpo_desktop.core.lab.problems import get_problem

    panel = MathPanel(THEMES["light"])
    qtbot.addWidget(panel)
    panel.resize(520, 620)
    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), [bool(r) for r in rewards]))
    panel.show()
    QApplication.processEvents()
    panel.finish_typesetting()  # as a moment later: its lines are typeset after the frame
    return panel


def test_the_panel_typesets_its_math_and_keeps_the_plain_text(qtbot):
    panel = shown_panel(qtbot, [1, 0, 0, 1])
    assert OBJECT_CHARACTER in panel.document().toPlainText()  # the lines are typeset
    text = panel.plain_text()
    assert OBJECT_CHARACTER not in text
    assert "mean = (1+0+0+1)/4 = 2/4 = 0.5" in text
    assert "A = (r − mean) / std" in text


def test_copy_as_latex_and_ctrl_c(qtbot):
    panel = shown_panel(qtbot, [1, 0, 0, 1])
    clipboard = QApplication.clipboard()
    qtbot.keyClick(
        panel, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    latex = clipboard.text()
    assert latex.splitlines()[1] == r"\bar{r} = \tfrac{1 + 0 + 0 + 1}{4} = \tfrac{2}{4} = 0.5"
    assert latex.splitlines()[0].startswith(r"A_i = \frac{r_i - \bar{r}}{\sigma}")
    panel.selectAll()
    qtbot.keyClick(panel, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert clipboard.text() == panel.plain_text()
    assert "mean = (1+0+0+1)/4" in clipboard.text()
    assert clipboard.mimeData().formats() == ["text/plain"]  # no rich text with its math holes


COPY_THEN_QUIT = """
import sys
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from grpo_desktop.views.common.math_render import TypesetBrowser
browser = TypesetBrowser()
browser.setPlainText("mean = 0.5")
browser.selectAll()
browser.copy()
assert QApplication.clipboard().text() == "mean = 0.5"
"""


def test_a_process_that_copied_from_the_math_exits_cleanly(tmp_path):
    """The clipboard keeps what was copied until the process exits: data made in Python was
    then deleted after the interpreter had gone, and the app crashed on quitting."""
    import os
    import subprocess
    import sys

    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", COPY_THEN_QUIT], env=environment, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]


def test_a_click_reuses_the_unchanged_lines(qtbot):
    from grpo_desktop.core.lab.problems import get_problem

    panel = shown_panel(qtbot, [1, 0, 0, 1])
    problem = get_problem("mult-23x47")
    panel.show_snapshot(build_snapshot(problem, [True, True, False, True]))
    panel.finish_typesetting()
    panel.show_snapshot(build_snapshot(problem, [True, False, False, True]))
    before = render_count()
    panel.show_snapshot(build_snapshot(problem, [True, True, False, True]))
    QApplication.processEvents()
    assert render_count() == before  # every line of a group seen before is in the cache


def test_a_click_to_a_new_group_typesets_its_new_lines_after_the_frame(qtbot):
    """A new line costs about 9 ms to typeset: a click shows it as plain text at once and the
    typeset line follows, one per turn of the event loop, never inside the click."""
    from grpo_desktop.core.lab.problems import get_problem

    panel = shown_panel(qtbot, [1, 0, 0, 1])
    before = render_count()
    # hand-set rewards no other test shows: lines that cannot be in the cache yet
    scores = [0.1372, 0.9146, 0.2718, 0.5059]
    correct = [True, True, False, True]
    new = build_snapshot(get_problem("mult-23x47"), correct, scores=scores)
    panel.show_snapshot(new)
    assert render_count() == before  # nothing typeset inside the click
    assert "0.1372" in panel.toPlainText()  # the new numbers are on screen as plain text
    qtbot.waitUntil(lambda: render_count() > before and OBJECT_CHARACTER in _raw(panel))
    panel.finish_typesetting()
    fresh = MathPanel(THEMES["light"])
    qtbot.addWidget(fresh)
    fresh.resize(panel.size())
    fresh.show_snapshot(new)
    fresh.finish_typesetting()
    assert _raw(panel).count(OBJECT_CHARACTER) == _raw(fresh).count(OBJECT_CHARACTER) > 0


def _raw(panel) -> str:
    return panel.document().toRawText()


def test_the_screen_reader_hears_the_plain_text(qtbot):
    from PySide6.QtGui import QAccessible

    panel = shown_panel(qtbot, [1, 0, 0, 1])
    interface = QAccessible.queryAccessibleInterface(panel)
    value = interface.text(QAccessible.Text.Value)
    assert OBJECT_CHARACTER not in value
    assert "std = √0.25 = 0.5" in value


def test_typeset_lines_blit_what_direct_drawing_draws_and_follow_a_new_group(qtbot, monkeypatch):
    from grpo_desktop.views.common import render_cache, text_runs

    panel = shown_panel(qtbot, [1, 0, 0, 1])
    kept = panel.grab().toImage()
    assert render_cache.DRAWINGS.kept("typeset line") > 0
    assert panel.grab().toImage() == kept  # blitted
    monkeypatch.setattr(render_cache, "CACHING", False)
    assert alike(panel.grab().toImage(), kept)  # drawn directly: the same pixels
    monkeypatch.setattr(render_cache, "CACHING", True)
    from grpo_desktop.core.lab.problems import get_problem

    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), [True, True, False, True]))
    panel.finish_typesetting()
    new = panel.grab().toImage()
    assert new != kept
    monkeypatch.setattr(render_cache, "CACHING", False)
    assert alike(panel.grab().toImage(), new)  # the new numbers, no old line left
    text_runs.forget()


def alike(a: QImage, b: QImage) -> bool:
    """Equal but for the last bit of an edge pixel or two (a curve's coverage rounded apart)."""
    import numpy as np

    def values(image: QImage) -> np.ndarray:
        rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1)
        return rows[:, : image.width() * 4].astype(int)

    return a.size() == b.size() and int(np.abs(values(a) - values(b)).max()) <= 1
