"""The warning shown exactly when every reward in the group is equal: zero learning signal.

It can take a row of a layout (its space reserved while hidden) or, with ``float_over``, be drawn
over the bottom edge of another widget, so no blank band waits for it (DESIGN §6: nothing moves
either way).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QWidget

from grpo_desktop.core.formatting import number
from grpo_desktop.core.snapshot import LabSnapshot
from grpo_desktop.core.theme import LIGHT, Theme
from grpo_desktop.views.fonts import scaled_font


class DegenerateBanner(QFrame):
    """Visible only for a degenerate group; its space stays reserved so nothing jumps."""

    covering_changed = Signal(int)  # floating: px of the host's bottom it covers (0 when hidden)

    FLOAT_MARGIN = 8  # px between a floating banner and its host's edges

    def __init__(self, theme: Theme = LIGHT, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("degenerateBanner")
        self._host: QWidget | None = None
        self._covering = 0
        self._degenerate = False  # what the last snapshot asked for (survives reparenting)
        policy = self.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        policy.setVerticalPolicy(QSizePolicy.Policy.Fixed)
        self.setSizePolicy(policy)
        self.icon = QLabel("⚠", objectName="bannerIcon")
        self.message = QLabel(objectName="bannerMessage")
        self.message.setWordWrap(True)
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 8, 14, 8)
        row.addWidget(self.icon)
        row.addWidget(self.message, 1)
        # The text is there while hidden too, so the reserved space is the space it will need.
        self.message.setText(self.message_for(all_right=False))
        self.setAccessibleName("Degenerate group: zero learning signal")
        self.set_theme(theme)
        self.hide()

    def show_snapshot(self, snapshot: LabSnapshot) -> None:
        stats = snapshot.stats
        self._degenerate = bool(stats.degenerate)
        if not stats.degenerate:
            self.hide()
            return
        reward = float(stats.rewards[0])
        self.message.setText(self.message_for(all_right=reward > 0, reward=reward))
        self.show()

    def float_over(self, host: QWidget) -> None:
        """Draw over ``host``'s bottom edge, full width, instead of taking a row of a layout."""
        self.setParent(host)  # hides it: Qt hides a widget whose parent changes
        self._host = host  # only now: placing it while still a window would raise() a window
        self.setVisible(self._degenerate)
        host.installEventFilter(self)
        self._place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._host and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self._place()
        return False

    def setVisible(self, visible: bool) -> None:  # Qt override: hide() and show() come here
        super().setVisible(visible)
        if self._host is not None:
            self._place()

    def covering(self) -> int:
        """Floating: how many px of the host's bottom the shown banner covers (else 0)."""
        return self._covering

    def float_height(self, host_width: int) -> int:
        """The px of a host this wide that the banner covers when shown (margins included)."""
        width = max(1, host_width - 2 * self.FLOAT_MARGIN)
        return self._height_at(width) + 2 * self.FLOAT_MARGIN

    def _height_at(self, width: int) -> int:
        height = self.heightForWidth(width) if self.hasHeightForWidth() else -1
        # A wrapped label's size hint is for a narrower width: taller than needed here.
        return height if height > 0 else self.sizeHint().height()

    def _place(self) -> None:
        host = self._host
        if host is None:
            return
        margin = self.FLOAT_MARGIN
        width = max(1, host.width() - 2 * margin)
        height = self._height_at(width)
        self.setGeometry(margin, max(0, host.height() - height - margin), width, height)
        self.raise_()
        covering = height + 2 * margin if self.isVisibleTo(host) else 0
        if covering != self._covering:
            self._covering = covering
            self.covering_changed.emit(covering)

    @staticmethod
    def message_for(all_right: bool, reward: float | None = None) -> str:
        everyone = "right (reward 1)" if all_right else "wrong (reward 0)"
        if reward is not None and reward not in (0.0, 1.0):  # weighted or hand-set rewards
            everyone = f"worth {number(reward, 4)}"
        return (
            f"<b>Degenerate group — zero learning signal.</b> Every answer is {everyone}, so every "
            "reward equals the mean and every advantage is exactly 0: no token moves. An "
            "all-correct or all-wrong group teaches nothing; the training signal lives on problems "
            "the model gets right only some of the time."
        )

    def set_theme(self, theme: Theme) -> None:
        self.setStyleSheet(
            f"#degenerateBanner {{ background: {theme.banner_fill}; border: 2px solid"
            f" {theme.banner_text}; border-radius: 8px; }}"
            f"#degenerateBanner QLabel {{ color: {theme.banner_text}; background: transparent;"
            f" border: none; }}"
        )
        self.icon.setFont(scaled_font(2.0 * theme.type_scale, bold=True))
        self.message.setFont(scaled_font(1.1 * theme.type_scale))
        self._place()
