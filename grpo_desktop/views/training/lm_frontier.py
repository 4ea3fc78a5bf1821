"""The learning frontier on the tiny model: every held-out prompt as a dot at its exact pass rate.

x is a prompt's exact pass rate p (the model's probability of writing the right answer), y the
chance that a group of G answers to it has mixed rewards, 1 − p^G − (1 − p)^G: only such groups
teach. The dots are the held-out prompts the run never trains on, at the latest evaluation, so
the class watches them move right as training on other prompts carries over.

A view (DESIGN §2): the curve and dots come from the ``LMRunSnapshot``; both items are made once
and updated in place.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.tinylm.lm_run_snapshot import LMRunSnapshot, rate_text
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.training.scene_activation import keep_scene_active

__all__ = ["TITLE", "LMFrontierPlot", "frontier_caption"]

TITLE = "The learning frontier: held-out prompts"
DOT_PX = 7.0  # before the theme's type scale


def frontier_caption(snapshot: LMRunSnapshot) -> str:
    """What the dots are, with where they stand now (plain text)."""
    size = snapshot.config.group_size
    count = len(snapshot.dots_p)
    if snapshot.dots_step is None:
        return f"The curve: the share of groups of G\u00a0=\u00a0{size} with mixed rewards."
    middle = int(((snapshot.dots_p > 0.05) & (snapshot.dots_p < 0.95)).sum())
    return (
        f"Dots: the {count} held-out prompts at their exact pass rates after step "
        f"{snapshot.dots_step}; {middle} lie between 0.05 and 0.95, where groups of "
        f"G\u00a0=\u00a0{size} still teach (mean {rate_text(float(snapshot.dots_p.mean()))})."
    )


class LMFrontierPlot(QWidget):
    """The frontier's curve and the held-out dots (objectName ``lmFrontierPlot``)."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lmFrontierPlot")
        self.title = QLabel(TITLE, objectName="lmFrontierTitle")
        self.caption = QLabel(objectName="lmFrontierCaption")
        for label in (self.title, self.caption):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        self.plot_widget = pg.PlotWidget()
        keep_scene_active(self.plot_widget)  # a page shown paints once
        self.plot_widget.setAccessibleName("Learning frontier with the held-out prompts as dots")
        self.plot_widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        plot = self.plot_widget.getPlotItem()
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.setXRange(-0.02, 1.02, padding=0)
        plot.setYRange(-0.03, 1.05, padding=0)
        self.curve = self.plot_widget.plot([], [])
        self.dots = pg.ScatterPlotItem(pxMode=True)
        self._shown_curve: tuple | None = None  # the arrays drawn: unchanged, not drawn again
        self._shown_dots: tuple | None = None
        self.plot_widget.addItem(self.dots)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.title)
        column.addWidget(self.caption)
        column.addWidget(self.plot_widget, 1)
        self._theme = theme
        self.set_theme(theme)

    def show_snapshot(self, snapshot: LMRunSnapshot) -> None:
        """The curve when G changes, the dots when an evaluation moved them: a step without an
        evaluation (nine in ten) redraws neither (500 dots cost a few ms on every step)."""
        if not _same(self._shown_curve, (snapshot.frontier_p, snapshot.frontier_y)):
            self._shown_curve = (snapshot.frontier_p, snapshot.frontier_y)
            self.curve.setData(snapshot.frontier_p, snapshot.frontier_y)
        if not _same(self._shown_dots, (snapshot.dots_p, snapshot.dots_y)):
            self._shown_dots = (snapshot.dots_p, snapshot.dots_y)
            self.dots.setData(snapshot.dots_p, snapshot.dots_y)
        caption = frontier_caption(snapshot)
        if caption != self.caption.text():
            self.caption.setText(caption)
            self.plot_widget.setAccessibleDescription(caption)

    def dot_positions(self) -> tuple:
        """The (x, y) arrays of the dots drawn."""
        return self.dots.getData()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        scale = theme.type_scale
        self.title.setFont(scaled_font(1.05 * scale, bold=True))
        self.caption.setFont(scaled_font(0.95 * scale))
        self.setStyleSheet(f"#lmFrontierTitle, #lmFrontierCaption {{ color: {theme.text}; }}")
        self.plot_widget.setBackground(theme.surface)
        tick_font = scaled_font(0.9 * scale)
        axis_pen = QPen(QColor(theme.muted))
        axis_pen.setWidthF(max(1.0, theme.stroke_width * 0.75))
        plot = self.plot_widget.getPlotItem()
        style = {"font-size": f"{tick_font.pointSizeF():.1f}pt"}
        for name, text in (("bottom", "exact pass rate p"), ("left", "groups that teach")):
            axis = plot.getAxis(name)
            axis.setPen(axis_pen)
            axis.setTextPen(theme.text)
            axis.setTickFont(tick_font)
            plot.setLabel(name, text, color=theme.muted, **style)
        self.curve.setPen(pg.mkPen(theme.muted, width=2.0 * theme.stroke_width))
        dot = QColor(theme.series[2])
        dot.setAlpha(150)
        self.dots.setSize(DOT_PX * scale)
        self.dots.setBrush(pg.mkBrush(dot))
        self.dots.setPen(pg.mkPen(theme.surface, width=0.5))


def _same(shown: tuple | None, new: tuple) -> bool:
    """Whether the arrays drawn are ``new``'s (the same objects, or equal values)."""
    return shown is not None and all(
        a is b or (np.shape(a) == np.shape(b) and np.array_equal(a, b))
        for a, b in zip(shown, new, strict=True)
    )
