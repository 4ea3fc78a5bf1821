"""Pixel font sizes of what a class reads, laid out at three window sizes in two themes.

    .venv/bin/python benchmarks/measure_type.py

Prints one row per (size, theme): the stat tiles' values, the prompt, the lesson bar's title and
step text, a toolbar button, the Update step's token chips, the advantage chart's tick labels and
the cards' A line, each as the font's pixel height (QFontInfo.pixelSize).
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtGui import QFont, QFontInfo
from PySide6.QtWidgets import QApplication

SIZES = ((1280, 800), (1920, 1080), (3840, 2160))
THEMES = ("light", "projector")


def px(font: QFont) -> int:
    return QFontInfo(font).pixelSize()


def settle() -> None:
    for _ in range(5):
        QApplication.processEvents()


def measure(window) -> dict[str, int]:
    lab = window.lab
    tile = lab.stats_panel.par
    toolbar = window.toolbar
    button = next(
        toolbar.widgetForAction(action)
        for action in toolbar.actions()
        if not action.isSeparator() and toolbar.widgetForAction(action) is not None
    )
    card = lab.trace_grid.cards()[0]
    style = card._current_style()
    axis = lab.chart.getPlotItem().getAxis("left")
    sizes = {
        "tile": px(tile.value.font()),
        "prompt": px(lab.problem_panel.prompt.font()),
        "toolbar": px(button.font()),
        "ticks": px(axis.style["tickFont"] or QFont()),
        "card A": px(style.advantage if not card._compact else style.compact_advantage),
        "math": px(window.math_panel.font()),
    }
    window.lessons.start("group-is-baseline")
    settle()
    bar = window.lessons.bar
    sizes["lesson title"] = px(bar.lesson_title.font())
    sizes["lesson text"] = px(bar.step_text.font())
    window.lessons.exit()
    settle()
    window.workbench.set_workspace("update")
    settle()
    rows = window.update_page.rows
    view = rows.widget()
    sizes["chips"] = px(view._current_style().chip)
    sizes["push ticks"] = px(
        window.update_page.chart.plot_widget.getPlotItem().getAxis("left").style["tickFont"]
        or QFont()
    )
    window.workbench.set_workspace("training")
    settle()
    charts = window.training_page.charts
    sizes["train ticks"] = px(
        charts.plots()[0].getPlotItem().getAxis("left").style["tickFont"] or QFont()
    )
    window.workbench.set_workspace("lab")
    settle()
    return sizes


def main() -> int:
    app = QApplication(sys.argv[:1])
    app.setOrganizationName("grpo-desktop-measure")
    from grpo_desktop.app import quiet_offscreen_size_hints

    quiet_offscreen_size_hints()
    from PySide6.QtCore import QSize

    from grpo_desktop.window.main_window import MainWindow

    header = None
    for theme in THEMES:
        for width, height in SIZES:
            window = MainWindow()
            window.install_deferred_features()
            window.presentation.set_theme(theme, remember=False)
            window.resize(width, height)
            window.show()
            settle()
            window.presentation.fit_to(QSize(width, height))
            window.resize(width, height)
            settle()
            sizes = measure(window)
            if header is None:
                header = list(sizes)
                print(f"{'size':>10} {'theme':>9} " + " ".join(f"{k:>12}" for k in header))
            print(f"{width}x{height:<5} {theme:>9} " + " ".join(f"{sizes[k]:>12}" for k in header))
            window.presentation.set_theme("light", remember=False)
            window.workbench.undo_stack.setClean()
            window.close()
            window.deleteLater()
            settle()
    return 0


if __name__ == "__main__":
    sys.exit(main())
