"""The warning shown exactly when every reward in the group is equal: zero learning signal."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy

from grpo_desktop.core.snapshot import LabSnapshot
from grpo_desktop.core.theme import LIGHT, Theme
from grpo_desktop.views.fonts import scaled_font


class DegenerateBanner(QFrame):
    """Visible only for a degenerate group; its space stays reserved so nothing jumps."""

    def __init__(self, theme: Theme = LIGHT, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("degenerateBanner")
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
        if not stats.degenerate:
            self.hide()
            return
        self.message.setText(self.message_for(all_right=stats.rewards[0] > 0))
        self.show()

    @staticmethod
    def message_for(all_right: bool) -> str:
        everyone = "right (reward 1)" if all_right else "wrong (reward 0)"
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
