"""One rule for every text: a window larger than 1280×800 shows all of it larger (the screen
scale in the application font), not only the cards and the worked math."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QFont, QFontInfo, QGuiApplication
from PySide6.QtWidgets import QApplication

from grpo_desktop.window.main_window import MainWindow
from grpo_desktop.window.stage_controls import screen_scale_for


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def px(font: QFont) -> int:
    return QFontInfo(font).pixelSize()


def read_sizes(window: MainWindow) -> dict[str, int]:
    """Pixel sizes of what a class reads: tiles, prompt, toolbar, ticks, lesson bar, tokens."""
    lab = window.lab
    sizes = {
        "par": px(lab.stats_panel.par.value.font()),
        "prompt": px(lab.problem_panel.prompt.font()),
        "toolbar": px(window.toolbar.widgetForAction(window.sample_action).font()),
        "ticks": px(lab.chart.getPlotItem().getAxis("left").style["tickFont"]),
    }
    window.lessons.start("group-is-baseline")
    settle()
    sizes["lesson title"] = px(window.lessons.bar.lesson_title.font())
    sizes["lesson text"] = px(window.lessons.bar.step_text.font())
    window.lessons.exit()
    window.workbench.set_workspace("update")
    settle()
    sizes["token chips"] = px(window.update_page.rows.widget()._current_style().chip)
    window.workbench.set_workspace("lab")
    settle()
    return sizes


@pytest.fixture
def laid_out(qtbot):
    made = []
    font = QGuiApplication.font()

    def make(size: tuple[int, int], theme: str) -> MainWindow:
        window = MainWindow()
        qtbot.addWidget(window)
        made.append(window)
        window.install_deferred_features()
        window.presentation.set_theme(theme, remember=False)
        window.resize(*size)
        window.show()
        settle()
        window.presentation.fit_to(QSize(*size))  # the screen is this size, as on a projector
        window.resize(*size)
        settle()
        return window

    yield make
    for window in made:
        window.undo_stack.setClean()
        window.presentation.fit_to(None)
    QApplication.setFont(font)


@pytest.fixture(scope="module")
def sizes_at_1280x800() -> dict[str, dict[str, int]]:
    """What each theme reads at 1280×800, per theme: several tests compare larger windows with
    it, and a window built, laid out and walked through a lesson and the Update page for it costs
    about 2 s of CPU; read once per module."""
    return {}


def reference_sizes(sizes_at_1280x800, laid_out, theme: str) -> dict[str, int]:
    if theme not in sizes_at_1280x800:
        sizes_at_1280x800[theme] = read_sizes(laid_out((1280, 800), theme))
    return sizes_at_1280x800[theme]


def test_the_screen_scale_is_the_smaller_ratio_to_1280x800_in_steps_and_never_below_1():
    assert screen_scale_for(QSize(1280, 800)) == 1.0
    assert screen_scale_for(QSize(1024, 768)) == 1.0
    assert screen_scale_for(QSize(1920, 1080)) == 1.35
    assert screen_scale_for(QSize(3840, 2160)) == 2.7
    assert screen_scale_for(QSize(2560, 1440)) == 1.8


@pytest.mark.parametrize("theme", ["light", "projector"])
def test_at_3840x2160_every_text_a_class_reads_is_at_least_twice_its_1280x800_size(
    laid_out, sizes_at_1280x800, theme
):
    small = reference_sizes(sizes_at_1280x800, laid_out, theme)
    large = read_sizes(laid_out((3840, 2160), theme))
    too_small = {
        name: (small[name], large[name]) for name in small if large[name] < 2 * small[name]
    }
    assert too_small == {}, "name: (px at 1280x800, px at 3840x2160)"


def test_at_1920x1080_the_token_chips_and_ticks_grow_too(laid_out, sizes_at_1280x800):
    small = reference_sizes(sizes_at_1280x800, laid_out, "light")
    large = read_sizes(laid_out((1920, 1080), "light"))
    for name in ("token chips", "ticks", "par", "toolbar"):
        assert large[name] >= 1.25 * small[name], (name, small[name], large[name])


def test_a_click_keeps_every_font_and_a_smaller_window_shrinks_them_back(laid_out, qtbot):
    window = laid_out((1920, 1080), "light")
    font = QGuiApplication.font()
    assert window.presentation.screen_scale > 1.0
    window.request_toggle(1)
    settle()
    assert QGuiApplication.font() == font, "a click rebuilt the fonts"
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.presentation.screen_scale == 1.0)
    assert QGuiApplication.font().pointSizeF() < font.pointSizeF()
