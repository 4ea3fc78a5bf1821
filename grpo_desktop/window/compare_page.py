"""Easy vs hard, side by side: the same formula on two groups, each fully interactive.

The seed's point is that the same reward means different things in different groups: the lone
wrong answer of an easy group gets −2.0, the lone right answer of a hard group +2.0. Each side is a
complete ``LabPresenter``; the loud rare answers are starred and one sentence under each chart
says why.

The page fits its window without scrolling (a laptop at 1024×768 included): every card shows at
its full height, the charts take the height that is left (each shows its whole y range), and the
degenerate banner floats over the bottom of its chart's plot area (never its axes) instead of
reserving a blank row.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QRect, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.views.common.fonts import scaled_font, screen_scale
from grpo_desktop.window.lab_presenter import LabPresenter

CHART_MIN_HEIGHT = 110  # px: the whole ±R range with its ticks and the bars' labels
CHART_ROW = 5  # summary, heading, problem, stats, cards, chart, note
CARD_SCALE_HEIGHT = 760  # px of page per 1× card font: a taller screen draws the cards larger
MAX_CARD_SCALE = 3.0


class CompareSide(QObject):
    """One column's pieces: the pane's views, a heading and the sentence on its loudest answer.

    The view lays both sides out in one grid so their rows line up: a prompt that wraps on one
    side must not push that side's chart below the other's.
    """

    def __init__(self, pane: LabPresenter, heading: str, object_name: str) -> None:
        super().__init__()
        self.setObjectName(object_name)
        self.pane = pane
        self.heading = QLabel(heading, objectName="compareHeading")
        self.note = QLabel(objectName="loudestNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        pane.trace_grid.compact_above = 0  # small cards leave the charts room to be read
        pane.trace_grid.set_fit_contents(True)  # every card shown: no scroll area in the page
        pane.chart.setMinimumHeight(CHART_MIN_HEIGHT)
        # The bars stand under their cards, numbered: the axis title's line goes to the bars.
        pane.chart.advantage_plot.set_card_title_shown(False)
        # Over the plot's data area only: the axes and their numbers stay readable, and in a
        # degenerate group the bars are all 0, so the area's bottom half holds nothing.
        pane.banner.set_short(True)
        pane.banner.float_over(pane.chart, self._data_area)
        pane.chart.getPlotItem().vb.sigResized.connect(pane.banner.place)
        pane.stats_panel.set_compact(True)  # half the width: one row of four short tiles
        pane.problem_panel.set_compact(True)
        pane.trace_grid.show_snapshot(pane.state.snapshot)
        pane.set_highlight_loudest(True)
        pane.state.snapshot_changed.connect(self.show_snapshot)
        self.show_snapshot(pane.state.snapshot)

    def _data_area(self) -> QRect:
        """The chart's plot area (inside its axes), in the chart's own coordinates."""
        chart = self.pane.chart
        box = chart.getPlotItem().vb
        return chart.mapFromScene(box.sceneBoundingRect()).boundingRect()

    @property
    def rows(self) -> tuple[QWidget, ...]:
        pane = self.pane
        return (
            self.heading,
            pane.problem_panel,
            pane.stats_panel,
            pane.trace_grid,
            pane.chart,
            self.note,
        )

    def show_snapshot(self, snapshot: LabSnapshot) -> None:
        note = snapshot.worked_math.loudest_note
        self.note.setText(f"★ {note}" if note else "No answer is rare in this group.")

    def set_theme(self, theme: Theme) -> None:
        self.heading.setFont(scaled_font(1.4 * theme.type_scale, bold=True))
        self.note.setFont(scaled_font(theme.type_scale))  # an explanation: smaller than numbers
        for label in (self.heading, self.note):
            label.setStyleSheet(f"color: {theme.text};")


class CompareView(QWidget):
    """Two labs side by side (objectName ``compareView``)."""

    def __init__(self, left: LabPresenter, right: LabPresenter, theme: Theme) -> None:
        super().__init__()
        self.setObjectName("compareView")
        self.left = CompareSide(left, "Easy problem", "compareEasy")
        self.right = CompareSide(right, "Hard problem", "compareHard")
        for side in (self.left, self.right):
            side.setParent(self)
        self.summary = QLabel(
            "Same formula, two groups: a reward means something only relative to its own group. "
            "Being the rare outcome makes an answer loud.",
            objectName="compareSummary",
        )
        self.summary.setWordWrap(True)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(16)
        grid.setVerticalSpacing(4)
        grid.addWidget(self.summary, 0, 0, 1, 2)
        for column, side in enumerate((self.left, self.right)):
            for row, widget in enumerate(side.rows, start=1):
                grid.addWidget(widget, row, column)
            grid.setColumnStretch(column, 1)
        grid.setRowStretch(CHART_ROW, 1)  # the charts take the height that is left
        self.set_theme(theme)

    def set_narrated(self, narrated: bool) -> None:
        """A lesson's bar tells the story: the page's own summary and notes make room for it."""
        for label in (self.summary, self.left.note, self.right.note):
            label.setVisible(not narrated)

    def heightForWidth(self, width: int) -> int:  # Qt override
        """The least height the page needs at ``width``, not its preferred one.

        A resizable scroll area asks this for the page's height: the preferred height (wrapped
        text's hint, the charts' hints) would make the page scroll on a screen it fits.
        """
        return self.layout().totalMinimumHeightForWidth(width)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        """A tall screen draws the cards larger (their numbers are read from the back row).

        Scaled from the height the page is shown in (its scroll area's viewport), never from its
        own height, which the cards' size itself can stretch.
        """
        super().resizeEvent(event)
        shown_in = self.parentWidget()
        height = shown_in.height() if shown_in is not None else self.height()
        # The application font already carries the screen scale (views/common/fonts.py): the cards
        # grow only by what the page's height gives beyond it, or the two would compound.
        scale = min(MAX_CARD_SCALE, max(1.0, height / CARD_SCALE_HEIGHT / screen_scale()))
        scale = round(scale * 10) / 10  # in steps of 0.1: a small resize does not rescale
        for side in (self.left, self.right):
            side.pane.trace_grid.set_card_scale(scale)

    @property
    def panes(self) -> tuple[LabPresenter, LabPresenter]:
        return (self.left.pane, self.right.pane)

    def set_theme(self, theme: Theme) -> None:
        self.summary.setFont(scaled_font(1.15 * theme.type_scale))
        self.summary.setStyleSheet(f"color: {theme.text};")
        for side in (self.left, self.right):
            side.set_theme(theme)
            side.pane.set_theme(theme)
