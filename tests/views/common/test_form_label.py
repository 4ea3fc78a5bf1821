"""Form labels keep their last letter whole: the ink of an "e" or "t" can reach past the text's
advance, and a label paints only inside its box."""

from __future__ import annotations

import pytest
from label_ink import ink_in_last_column
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QSpinBox

from grpo_desktop.views.common.form_label import FormLabel


@pytest.mark.parametrize("text", ["&Temperature", "Learning rate", "&Prompt", "Ta&rget pass rate"])
@pytest.mark.parametrize("pixels", range(11, 41, 3))
def test_a_label_at_its_size_hint_shows_its_last_letter_whole(qtbot, text, pixels):
    field = QSpinBox()
    label = FormLabel(text, field)
    qtbot.addWidget(label)
    qtbot.addWidget(field)
    font = QFont(label.font())
    font.setPixelSize(pixels)
    label.setFont(font)
    label.resize(label.sizeHint())
    assert not ink_in_last_column(label)


def test_the_room_follows_the_font_and_the_mnemonic_focuses_the_field(qtbot):
    field = QSpinBox()
    label = FormLabel("&Temperature", field)
    qtbot.addWidget(label)
    qtbot.addWidget(field)
    small = label.contentsMargins().right()
    font = QFont(label.font())
    font.setPixelSize(40)
    label.setFont(font)
    assert label.contentsMargins().right() > small >= 1
    assert label.buddy() is field
