"""The Update workspace: the lab's answers as tokens, each coloured by its push under a real loss.

It lays out four views (token rows, the two-preset push chart, the selected token's computation,
the controls) and wires them to the model: the views' requests go to the workbench (settings,
the Length bias and Clip-higher presets, all undoable) or to :class:`UpdateState` (which token
is selected), and every snapshot it emits is rendered once by each view. Built the first time the
workspace is shown, so start-up does not pay for it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from grpo_desktop.core.theme import Theme
from grpo_desktop.core.update_snapshot import UpdateSettings, UpdateSnapshot
from grpo_desktop.model.update_state import UpdateState
from grpo_desktop.model.workbench import Workbench
from grpo_desktop.views.fonts import scaled_font
from grpo_desktop.views.push_chart import PushChart
from grpo_desktop.views.token_detail import TokenDetailPanel
from grpo_desktop.views.token_rows import TokenRowsScroll
from grpo_desktop.views.update_controls import UpdateControls

STANDIN_NOTE = (
    "Stand-in policy: each token's log-probability comes from a seeded table of logits, not a "
    "language model; inner steps are real gradient steps of the chosen loss on that table. "
    "Tokens are GPT-2's pre-tokenizer pieces; real tokenizers split them further."
)


class UpdatePage(QWidget):
    """The Update workspace's page (objectName ``updateView``)."""

    def __init__(self, workbench: Workbench, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("updateView")
        self.workbench = workbench
        self.state = UpdateState(workbench, self)
        self.rows = TokenRowsScroll(theme)
        self.chart = PushChart(theme)
        self.detail = TokenDetailPanel(theme)
        self.controls = UpdateControls(theme)
        self.note = QLabel(STANDIN_NOTE, objectName="standinNote")
        self.status = QLabel(objectName="updateStatus")
        self.numbers = QLabel(objectName="updateNumbers")
        for label in (self.note, self.status, self.numbers):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        self._build_layout()
        self.rows.rows_view.token_requested.connect(self.state.select)
        self.controls.settings_requested.connect(self.request_settings)
        self.controls.length_bias_requested.connect(workbench.show_length_bias)
        self.controls.clip_higher_requested.connect(workbench.show_clip_higher)
        self.state.snapshot_changed.connect(self.render)
        self.set_theme(theme)
        self.render(self.state.snapshot)

    @property
    def token_rows(self):
        """The token rows widget itself (inside its scroll area)."""
        return self.rows.rows_view

    def _build_layout(self) -> None:
        left = QWidget(objectName="updateTokensColumn")
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.setSpacing(6)
        left_column.addWidget(self.status)
        left_column.addWidget(self.numbers)
        left_column.addWidget(self.rows, 1)

        right = QSplitter(Qt.Orientation.Vertical, objectName="updateRightColumn")
        right.addWidget(self.controls)
        right.addWidget(self.chart)
        right.addWidget(self.detail)
        right.setStretchFactor(0, 0)
        right.setStretchFactor(1, 3)
        right.setStretchFactor(2, 2)
        right.setChildrenCollapsible(False)
        self.chart.setMinimumHeight(200)
        self.detail.setMinimumHeight(140)

        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="updateSplitter")
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        left.setMinimumWidth(380)
        right.setMinimumWidth(300)
        self.splitter = splitter

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        column.addWidget(self.note)
        column.addWidget(splitter, 1)

    # --- requests ---------------------------------------------------------------------------

    def request_settings(self, settings: UpdateSettings) -> None:
        self.workbench.set_update_settings(settings)

    def set_active(self, active: bool) -> None:
        """Shown or hidden: the snapshot is only kept up to date while the page is on screen."""
        self.state.set_shown(active)

    # --- rendering --------------------------------------------------------------------------

    def render(self, snapshot: UpdateSnapshot) -> None:
        self.status.setText(snapshot.status)
        self.numbers.setText(_numbers_line(snapshot))
        self.rows.show_snapshot(snapshot)
        self.chart.show_snapshot(snapshot)
        self.detail.show_snapshot(snapshot)
        self.controls.show_snapshot(snapshot)

    def set_theme(self, theme: Theme) -> None:
        self.rows.set_theme(theme)
        self.chart.set_theme(theme)
        self.detail.set_theme(theme)
        self.controls.set_theme(theme)
        self.note.setFont(scaled_font(0.9 * theme.type_scale))
        self.note.setStyleSheet(f"color: {theme.muted};")
        self.status.setFont(scaled_font(1.1 * theme.type_scale, bold=True))
        self.status.setStyleSheet(f"color: {theme.text};")
        self.numbers.setFont(scaled_font(theme.type_scale))
        self.numbers.setStyleSheet(f"color: {theme.text};")


def _numbers_line(snapshot: UpdateSnapshot) -> str:
    """The loss and its diagnostics in one line, as a trainer's log prints them."""
    parts = [
        f"{snapshot.preset.label}: loss {_signed(snapshot.loss)}",
        f"clipped {snapshot.clip_fraction:.0%} of tokens",
    ]
    if snapshot.kl_mean is not None:
        parts.append(f"mean KL {snapshot.kl_mean:.4f}")
    parts.append(f"{snapshot.compare_preset.label}: loss {_signed(snapshot.compare_loss)}")
    return " · ".join(parts)


def _signed(value: float) -> str:
    return f"{value:+.4f}".replace("-", "−")
