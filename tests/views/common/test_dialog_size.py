"""A dialog opens at a size measured in its text's line height, within its screen."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout

from grpo_desktop.views.common.dialog_size import SCREEN_SHARE, text_sized


def dialog_at(qtbot, pixels: int) -> QDialog:
    dialog = QDialog()
    qtbot.addWidget(dialog)
    font = QFont(dialog.font())
    font.setPixelSize(pixels)
    dialog.setFont(font)
    return dialog


def test_twice_the_text_opens_twice_as_large(qtbot):
    small, large = dialog_at(qtbot, 12), dialog_at(qtbot, 24)
    line = QFontMetricsF(small.font()).height()
    assert text_sized(small, 20, 10).width() == round(20 * line)
    ratio = text_sized(large, 20, 10).width() / text_sized(small, 20, 10).width()
    assert 1.9 < ratio < 2.1
    ratio = text_sized(large, 20, 10).height() / text_sized(small, 20, 10).height()
    assert 1.9 < ratio < 2.1


def test_a_dialog_larger_than_its_screen_is_kept_within_it(qtbot):
    dialog = dialog_at(qtbot, 40)
    room = dialog.screen().availableGeometry().size()
    size = text_sized(dialog, 200, 200)
    assert size.width() == int(room.width() * SCREEN_SHARE)
    assert size.height() == int(room.height() * SCREEN_SHARE)


def test_never_below_what_its_layout_needs(qtbot):
    dialog = dialog_at(qtbot, 12)
    column = QVBoxLayout(dialog)
    for index in range(30):
        column.addWidget(QLabel(f"setting {index}"))
    needed = dialog.minimumSizeHint()
    size = text_sized(dialog, 2, 2)
    assert size.width() >= needed.width() and size.height() >= needed.height()
