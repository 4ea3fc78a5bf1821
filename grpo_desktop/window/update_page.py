"""The Update workspace: the lab's answers as tokens, each coloured by its push under a real loss.

It lays out five views (token rows, the two-preset push chart, the selected token's computation,
the controls, and on the tiny model the spill-over chart) and wires them to the model: the views'
requests go to the workbench (settings, the Length bias and Clip-higher presets, all undoable) or
to :class:`UpdateState` (which token is selected; the model owns it), and every snapshot it emits
is rendered once by each view. Built in idle time after the window's first paint, a part per
step (``idle_prebuild.py``), or when first needed, so start-up does not pay for it. On the tiny
model with a group it did not write, one line says so and offers to sample a group from the model.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.update.update_settings import UpdateSettings
from grpo_desktop.core.update.update_snapshot import UpdateSnapshot
from grpo_desktop.model.update_state import UpdateState
from grpo_desktop.model.workbench import Workbench
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.label_slot import LabelSlot
from grpo_desktop.views.update.push_chart import PushChart
from grpo_desktop.views.update.spillover_chart import SpilloverChart
from grpo_desktop.views.update.token_detail import TokenDetailPanel
from grpo_desktop.views.update.token_rows import TokenRowsScroll
from grpo_desktop.views.update.update_controls import UpdateControls
from grpo_desktop.window.layout_helpers import AfterResize, ColumnScroll

STANDIN_NOTE = (
    "Stand-in policy: each token's log-probability comes from a seeded table of logits, not a "
    "language model; inner steps are real gradient steps of the chosen loss on that table. "
    "Tokens are GPT-2's pre-tokenizer pieces; real tokenizers split them further."
)
PLOT_MIN_HEIGHT = 160  # the push chart's bars and axes, under its title, caption and legend
SPILLOVER_MIN_HEIGHT = 140  # the spill-over's bars, under its title and caption
SPILLOVER_SHARE = 0.5  # of the tokens column's height, while the tiny model steps the group
SAMPLE_BUTTON = "Sample a group from the tiny model…"
DETAIL_MIN_HEIGHT = 100  # the title and a first step of the computation (it scrolls inside)
RIGHT_SHARE = 0.4  # of the page's width, for controls, chart and detail
CHART_SHARE = 0.55  # of the column's height below the controls


class UpdatePage(QWidget):
    """The Update workspace's page (objectName ``updateView``)."""

    model_sample_requested = Signal()  # "Sample a group from the tiny model…"

    def __init__(
        self,
        workbench: Workbench,
        state: UpdateState,
        theme: Theme,
        parent: QWidget | None = None,
        stepwise: bool = False,
    ) -> None:
        """The page, built whole; or with ``stepwise`` only begun: iterating :attr:`steps` then
        builds it a part per step (the idle prebuild gives each its own turn of the event loop,
        ``idle_prebuild.py``), and the page is whole once they are done."""
        super().__init__(parent)
        self.setObjectName("updateView")
        self.workbench = workbench
        self.state = state
        self.steps: Iterator[str] = self._build_steps(theme)
        if not stepwise:
            deque(self.steps, maxlen=0)

    def _build_steps(self, theme: Theme) -> Iterator[str]:
        """Each view, then the layout and wiring, the theme and the first render: each a step
        of about a frame's work at most (each step's name is yielded after it)."""
        self.rows = TokenRowsScroll(theme)
        yield "token rows"
        self.chart = PushChart(theme, stepwise=True)
        for part in self.chart.steps:
            yield f"push chart: {part}"
        self.detail = TokenDetailPanel(theme)
        yield "token detail"
        self.controls = UpdateControls(theme, stepwise=True)
        for part in self.controls.steps:
            yield f"controls: {part}"
        self.spillover = SpilloverChart(theme, stepwise=True)
        for part in self.spillover.steps:
            yield f"spill-over chart: {part}"
        self.note = QLabel(STANDIN_NOTE, objectName="standinNote")
        self.status = QLabel(objectName="updateStatus")
        self.numbers = QLabel(objectName="updateNumbers")
        self.offer = QWidget(objectName="modelOffer")
        self.offer_text = QLabel(objectName="modelOfferText")
        self.sample_button = QPushButton(SAMPLE_BUTTON, objectName="sampleFromModelButton")
        for label in (self.note, self.status, self.numbers, self.offer_text):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        self._build_layout()
        workbench = self.workbench
        self.rows.rows_view.token_requested.connect(self.state.select)
        self.controls.settings_requested.connect(self.request_settings)
        self.controls.length_bias_requested.connect(workbench.show_length_bias)
        self.controls.clip_higher_requested.connect(workbench.show_clip_higher)
        self.sample_button.clicked.connect(self.model_sample_requested)
        self.model_sample_requested.connect(self._open_model_sampling)
        workbench.policy_changed.connect(self._show_offer)
        self.state.snapshot_changed.connect(self.render)
        self.state.toggles_warmed.connect(self.rows.rows_view.warm_rows)
        yield "layout"
        self.set_theme(theme)
        yield "theme"
        self.render(self.state.snapshot)  # the state now, whatever changed during the steps
        yield "render"

    @property
    def token_rows(self):
        """The token rows widget itself (inside its scroll area)."""
        return self.rows.rows_view

    def _build_layout(self) -> None:
        left = QWidget(objectName="updateTokensColumn")
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.setSpacing(6)
        # In slots: a toggle's new status and numbers re-lay out nothing unless they need
        # another height, and the status while the inner steps run keeps the finished one's
        # height, so the token rows below it stay where they are (label_slot.py).
        self.status_slot = LabelSlot(self.status)
        self.numbers_slot = LabelSlot(self.numbers)
        left_column.addWidget(self.status_slot)
        left_column.addWidget(self.numbers_slot)
        # The tokens above, the spill-over below (on the tiny model only: its answers are a few
        # characters, so their rows need little height and the spill-over stays in view).
        tokens_and_spillover = QSplitter(Qt.Orientation.Vertical, objectName="updateLeftSplit")
        tokens_and_spillover.addWidget(self.rows)
        tokens_and_spillover.addWidget(self.spillover)
        tokens_and_spillover.setChildrenCollapsible(False)
        self.spillover.plot_widget.setMinimumHeight(SPILLOVER_MIN_HEIGHT)
        self.spillover.setVisible(False)
        self.left_split = tokens_and_spillover
        AfterResize(tokens_and_spillover, self._balance_left)
        AfterResize(self.spillover, self._fit_chart)
        left_column.addWidget(tokens_and_spillover, 1)

        # Controls, chart and detail share the column in a splitter (drag to give the chart or
        # the detail more room). Each keeps the height it needs: the controls whole, the chart
        # its wrapped title, caption and legend over a plot at least PLOT_MIN_HEIGHT px tall.
        # A screen too short for that (1024×768 on a projector, a 200 % zoom) scrolls the
        # column rather than squeezing it: a squeezed column had cut the chart's caption and
        # flattened its plot to a few pixels, and its minimum height had grown the window.
        parts = QSplitter(Qt.Orientation.Vertical, objectName="updateRightColumn")
        parts.addWidget(self.controls)
        parts.addWidget(self.chart)
        parts.addWidget(self.detail)
        parts.setStretchFactor(0, 0)
        parts.setStretchFactor(1, 3)
        parts.setStretchFactor(2, 2)
        parts.setChildrenCollapsible(False)
        self.chart.plot_widget.setMinimumHeight(PLOT_MIN_HEIGHT)
        self.detail.setMinimumHeight(DETAIL_MIN_HEIGHT)
        self.parts = parts
        self._revealed: QWidget | None = None  # a part a lesson rings: kept in view
        right = ColumnScroll(parts, "updateRightScroll")
        self.right_column = right
        AfterResize(self.chart, self._fit_chart)
        AfterResize(right.viewport(), self._balance_column)

        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="updateSplitter")
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)  # as RIGHT_SHARE: _balance_splitter re-shares on resize
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        left.setMinimumWidth(380)
        self.splitter = splitter
        AfterResize(splitter, self._balance_splitter)

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        offer_row = QHBoxLayout(self.offer)
        offer_row.setContentsMargins(0, 0, 0, 0)
        offer_row.addWidget(self.offer_text, 1)
        offer_row.addWidget(self.sample_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.sample_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.offer.setVisible(False)

        column.addWidget(self.note)
        column.addWidget(self.offer)
        column.addWidget(splitter, 1)

    def _balance_splitter(self) -> None:
        """Tokens 60 %, the right column 40 %, or up to half when that keeps each control's
        label beside its field: a form with labels above its fields is ~100 px taller, which a
        short screen (1024×768 on a projector) cannot spare."""
        total = sum(self.splitter.sizes())
        if total <= 0:
            return
        bar = self.right_column.verticalScrollBar().sizeHint().width()
        compact = self.controls.beside_width() + bar
        right = max(round(total * RIGHT_SHARE), min(compact, round(total * 0.5)))
        right = min(right, total - self.splitter.widget(0).minimumWidth())
        self.splitter.setSizes([total - right, right])

    def _balance_left(self) -> None:
        """The spill-over SPILLOVER_SHARE of the tokens column (its minimum at least)."""
        if not self.spillover.isVisibleTo(self):
            return
        total = sum(self.left_split.sizes())
        if total <= 0:
            return
        chart = max(self.spillover.minimumSizeHint().height(), round(total * SPILLOVER_SHARE))
        self.left_split.setSizes([max(0, total - chart), chart])

    def _balance_column(self) -> None:
        """The controls their height; of the rest, the chart CHART_SHARE and the detail the
        remainder (each at least its minimum): a clicked token's computation needs room too."""
        total = sum(self.parts.sizes())
        if total <= 0:
            return
        controls = self.controls.minimumSizeHint().expandedTo(self.controls.minimumSize()).height()
        rest = max(0, total - controls)
        chart = max(self.chart.minimumHeight(), round(rest * CHART_SHARE))
        detail = max(self.detail.minimumHeight(), rest - chart)
        self.parts.setSizes([controls, chart, detail])
        self._keep_revealed()

    def reveal(self, widget: QWidget | None) -> None:
        """Keep ``widget`` (the controls, the chart or the detail) in view, scrolling the right
        column to it now and after each re-layout: a lesson's spotlight must never ring a part
        scrolled out of sight. Any other widget (or None) lets the column scroll freely again,
        from its top: the controls in view, as the page opens."""
        inside = widget is not None and self.parts.isAncestorOf(widget)
        self._revealed = widget if inside else None
        if not inside:
            self.right_column.verticalScrollBar().setValue(0)
        self._keep_revealed()
        QTimer.singleShot(0, self, self._keep_revealed)  # once the new layout has settled

    def _keep_revealed(self) -> None:
        # Not ensureWidgetVisible: for the detail (a text browser) it shows only its text cursor.
        widget = self._revealed
        if widget is None:
            return
        bar = self.right_column.verticalScrollBar()
        top = widget.mapTo(self.parts, widget.rect().topLeft()).y()
        bottom = top + widget.height()
        value = bar.value()
        if bottom > value + self.right_column.viewport().height():
            value = bottom - self.right_column.viewport().height()
        bar.setValue(min(value, top))  # a part taller than the view shows its top

    def _fit_chart(self) -> None:
        """Each chart's minimum (the push chart's, the spill-over's): its wrapped text at its
        width over a plot of the least height, so a short screen never cuts its caption."""
        for chart in (self.chart, self.spillover):
            if chart is self.spillover and not chart.isVisibleTo(self):
                continue  # hidden (the stand-in): fitted when it shows (render, its resize)
            needed = chart.layout().totalMinimumHeightForWidth(chart.width())
            if needed != chart.minimumHeight():
                chart.setMinimumHeight(needed)

    # --- requests ---------------------------------------------------------------------------

    def request_settings(self, settings: UpdateSettings) -> None:
        self.workbench.set_update_settings(settings)

    def _open_model_sampling(self) -> None:
        from grpo_desktop.window.model_sampling import open_model_sampling  # loads the model

        open_model_sampling(self.window())

    # --- rendering --------------------------------------------------------------------------

    def render(self, snapshot: UpdateSnapshot) -> None:
        self.note.setText(snapshot.policy_note or STANDIN_NOTE)
        on_model = snapshot.spillover is not None
        if on_model != self.spillover.isVisibleTo(self):
            self.spillover.setVisible(on_model)
            QTimer.singleShot(0, self, self._balance_left)
        self.spillover.show_spillover(snapshot.spillover)
        self._show_offer()
        self.status_slot.set_text(snapshot.status, keep_height=snapshot.pending)
        self.numbers_slot.set_text(_numbers_line(snapshot), keep_height=snapshot.pending)
        self.rows.show_snapshot(snapshot)
        self.chart.show_snapshot(snapshot)
        self.detail.show_snapshot(snapshot)
        self.controls.show_snapshot(snapshot)
        self._fit_chart()  # a new caption or legend may wrap to more lines

    def _show_offer(self, *_args: object) -> None:
        """On the tiny model with a group it did not write: say so, and offer to sample one."""
        recorded = self.workbench.lab.snapshot.recorded
        from_model = recorded is not None and recorded.from_model
        shown = self.workbench.policy.is_model and not from_model
        if shown:
            source = (
                "written by hand (a problem's traces)"
                if recorded is None
                else "read from a run's file"
            )
            self.offer_text.setText(
                f"The policy is the tiny language model, but this group was {source}, "
                "so the step runs on the stand-in."
            )
        self.offer.setVisible(shown)

    def set_theme(self, theme: Theme) -> None:
        self.rows.set_theme(theme)
        self.spillover.set_theme(theme)
        self.offer_text.setFont(scaled_font(theme.type_scale))
        self.offer_text.setStyleSheet(f"color: {theme.text};")
        self.chart.set_theme(theme)
        self.detail.set_theme(theme)
        self.controls.set_theme(theme)
        self.note.setFont(scaled_font(0.9 * theme.type_scale))
        self.note.setStyleSheet(f"color: {theme.muted};")
        self.status.setFont(scaled_font(1.1 * theme.type_scale, bold=True))
        self.status.setStyleSheet(f"color: {theme.text};")
        self.numbers.setFont(scaled_font(theme.type_scale))
        self.numbers.setStyleSheet(f"color: {theme.text};")
        self._fit_chart()


def _numbers_line(snapshot: UpdateSnapshot) -> str:
    """The loss and its diagnostics in one line, as a trainer's log prints them."""
    main, compare = snapshot.side_labels
    parts = [
        f"{main}: loss {_signed(snapshot.loss)}",
        f"clipped {snapshot.clip_fraction:.0%} of {snapshot.preset.clipped_unit}",
    ]
    if snapshot.kl_mean is not None:
        parts.append(f"mean KL {snapshot.kl_mean:.4f}")
    parts.append(f"{compare}: loss {_signed(snapshot.compare_loss)}")
    parts.append(f"clipped {snapshot.compare_clip_fraction:.0%}")
    return " · ".join(parts)


def _signed(value: float) -> str:
    """Four decimals with a real minus; a value that rounds to zero is 0.0000, never −0.0000."""
    text = f"{value:+.4f}"
    if float(text) == 0:
        return "0.0000"
    return text.replace("-", "−")
