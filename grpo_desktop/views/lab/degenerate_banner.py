"""The warning shown exactly when every reward in the group is equal: zero learning signal.

It can take a row of a layout (its space reserved while hidden) or, with ``float_over``, be drawn
over the bottom edge of another widget, so no blank band waits for it (DESIGN §6: nothing moves
either way). Over a chart it floats inside the plot's data area, given as ``area``, never over
the axes and their numbers; ``set_short`` gives it a two-line message for a half-width column.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QRect, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QWidget

from grpo_desktop.core.common.formatting import number
from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.views.common.fonts import scaled_font


class DegenerateBanner(QFrame):
    """Visible only for a degenerate group; its space stays reserved so nothing jumps."""

    covering_changed = Signal(int)  # floating: px of the host's bottom it covers (0 when hidden)

    FLOAT_MARGIN = 8  # px between a floating banner and its host's edges

    def __init__(self, theme: Theme = LIGHT, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("degenerateBanner")
        # Styled by this property, not the object name, which a lab's views prefix ("easy.").
        self.setProperty("degenerateBanner", True)
        self._host: QWidget | None = None
        self._covering = 0
        self._degenerate = False  # what the last snapshot asked for (survives reparenting)
        self._area: Callable[[], QRect] | None = None  # where in the host it may float
        self._short = False
        self._reward: float | None = None
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
        self._reward = float(stats.rewards[0])
        self._set_message()
        self.show()

    def set_short(self, short: bool) -> None:
        """The two-sentence message (a half-width column, e.g. easy vs hard), or the full one."""
        self._short = short
        self._set_message()
        self._place()

    def _set_message(self) -> None:
        reward = self._reward
        if reward is None:
            text = self.message_for(all_right=False, short=self._short)
        else:
            text = self.message_for(all_right=reward > 0, reward=reward, short=self._short)
        self.message.setText(text)

    def float_over(self, host: QWidget, area: Callable[[], QRect] | None = None) -> None:
        """Draw over ``host``'s bottom edge, full width, instead of taking a row of a layout.

        ``area`` gives the part of ``host`` to float in (a chart's data area: the banner then
        sits at its bottom, clear of the axes); call :meth:`place` when that part moves.
        """
        self.setParent(host)  # hides it: Qt hides a widget whose parent changes
        self._area = area
        self._host = host  # only now: placing it while still a window would raise() a window
        self.setVisible(self._degenerate)
        host.installEventFilter(self)
        self._place()

    # The host is read from ``__dict__``: when Python's garbage collector takes a banner and its
    # host together (a cycle), it may clear the banner's attributes first; deleting the host
    # then still sends the banner its host's last events and hides it ("no attribute _host").

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        kind = event.type()
        if kind in (QEvent.Type.Resize, QEvent.Type.Show) and watched is self.__dict__.get("_host"):
            self._place()
        return False

    def setVisible(self, visible: bool) -> None:  # Qt override: hide() and show() come here
        super().setVisible(visible)
        if self.__dict__.get("_host") is not None:
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

    def place(self) -> None:
        """Float again where the host's area now is (e.g. a chart's axes changed width)."""
        self._place()

    def _place(self) -> None:
        host = self._host
        if host is None:
            return
        if self.isHidden():
            # Placed when shown (setVisible): fitting its wrapped text to every resize of the
            # host and every snapshot while hidden cost the first screen 1.2 ms for nothing.
            self._set_covering(0)
            return
        margin = self.FLOAT_MARGIN
        area = host.rect() if self._area is None else self._area().intersected(host.rect())
        width = max(1, area.width() - 2 * margin)
        height = self._height_at(width)
        if area != host.rect() and height + 2 * margin > area.height():
            # No room inside the area (a chart squeezed to its least height): float over the
            # whole host as before, rather than spill out of it.
            area = host.rect()
            width = max(1, area.width() - 2 * margin)
            height = self._height_at(width)
        top = max(area.top(), area.bottom() + 1 - height - margin)
        self.setGeometry(area.left() + margin, top, width, height)
        self.raise_()
        self._set_covering(height + 2 * margin if self.isVisibleTo(host) else 0)

    def _set_covering(self, covering: int) -> None:
        if covering != self._covering:
            self._covering = covering
            self.covering_changed.emit(covering)

    @staticmethod
    def message_for(all_right: bool, reward: float | None = None, short: bool = False) -> str:
        everyone = "right (reward 1)" if all_right else "wrong (reward 0)"
        if reward is not None and reward not in (0.0, 1.0):  # weighted or hand-set rewards
            everyone = f"worth {number(reward, 4)}"
        if short:
            return (
                f"<b>Degenerate group — zero learning signal.</b> Every answer is {everyone}: "
                "every advantage is 0, nothing is learned."
            )
        return (
            f"<b>Degenerate group — zero learning signal.</b> Every answer is {everyone}, so every "
            "reward equals the mean and every advantage is exactly 0: no token moves. An "
            "all-correct or all-wrong group teaches nothing; the training signal lives on problems "
            "the model gets right only some of the time."
        )

    def set_theme(self, theme: Theme) -> None:
        self.setStyleSheet(
            f'QFrame[degenerateBanner="true"] {{ background: {theme.banner_fill};'
            f" border: 2px solid {theme.banner_text}; border-radius: 8px; }}"
            f'QFrame[degenerateBanner="true"] QLabel {{ color: {theme.banner_text};'
            f" background: transparent; border: none; }}"
        )
        self.icon.setFont(scaled_font(2.0 * theme.type_scale, bold=True))
        self.message.setFont(scaled_font(1.1 * theme.type_scale))
        self._place()
