"""The four numbers a class reads from the back row: par, std, pushed up, pushed down."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout

from grpo_desktop.formatting import number
from grpo_desktop.snapshot import LabSnapshot
from grpo_desktop.theme import LIGHT, Theme
from grpo_desktop.widgets.fonts import scaled_font


class StatTile(QFrame):
    """A caption, one big number and a one-line note."""

    def __init__(self, value_name: str, caption: str, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{value_name}Tile")
        self.caption = QLabel(caption, objectName="statCaption")
        self.value = QLabel("–", objectName=value_name)
        self.value.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.note = QLabel(objectName="statNote")
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 6, 12, 6)
        column.setSpacing(0)
        column.addWidget(self.caption)
        column.addWidget(self.value)
        column.addWidget(self.note)

    def show_value(self, value: str, note: str, accessible: str) -> None:
        self.value.setText(value)
        self.note.setText(note)
        self.setAccessibleName(accessible)


class StatsPanel(QFrame):
    """Group mean (par), group std, pushed up, pushed down — updated on every change."""

    def __init__(self, theme: Theme = LIGHT, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("statsPanel")
        self.par = StatTile("statPar", "Group mean (par)")
        self.std = StatTile("statStd", "Group std")
        self.pushed_up = StatTile("statPushedUp", "▲ Pushed up")
        self.pushed_down = StatTile("statPushedDown", "▼ Pushed down")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        for tile in self.tiles:
            row.addWidget(tile, 1)
        self.set_theme(theme)

    @property
    def tiles(self) -> tuple[StatTile, ...]:
        return (self.par, self.std, self.pushed_up, self.pushed_down)

    def show_snapshot(self, snapshot: LabSnapshot) -> None:
        stats = snapshot.stats
        convention = snapshot.convention
        par = number(stats.mean, 4)
        self.par.show_value(par, "the baseline every answer is compared with", f"Group mean {par}")
        std = number(stats.std, 4)
        std_note = {0: "population std", 1: "sample std (n − 1)"}.get(
            convention.ddof, "not divided by (shown for reference)"
        )
        self.std.show_value(std, std_note, f"Group std {std}")
        up, down = stats.pushed_up, stats.pushed_down
        self.pushed_up.show_value(
            str(up), "answer above par" if up == 1 else "answers above par", f"Pushed up {up}"
        )
        self.pushed_down.show_value(
            str(down),
            "answer below par" if down == 1 else "answers below par",
            f"Pushed down {down}",
        )

    def set_theme(self, theme: Theme) -> None:
        self.setStyleSheet(
            f"StatTile {{ background: {theme.surface}; border: 1px solid {theme.border};"
            f" border-radius: 8px; }}"
            f"StatTile QLabel {{ background: transparent; border: none; color: {theme.text}; }}"
            f"StatTile #statCaption, StatTile #statNote {{ color: {theme.muted}; }}"
            f"#statPushedUpTile #statPushedUp, #statPushedUpTile #statCaption"
            f" {{ color: {theme.up}; }}"
            f"#statPushedDownTile #statPushedDown, #statPushedDownTile #statCaption"
            f" {{ color: {theme.down}; }}"
        )
        for tile in self.tiles:
            tile.caption.setFont(scaled_font(self, 1.1 * theme.type_scale, bold=True))
            tile.value.setFont(scaled_font(self, 2.6 * theme.type_scale, bold=True))
            tile.note.setFont(scaled_font(self, 0.9 * theme.type_scale))
