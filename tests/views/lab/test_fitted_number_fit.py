"""A stat's number keeps its fitted font per text, and fits again when its font or room changes."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetricsF

from grpo_desktop.views.lab.stats_panel import FittedNumber


def fitted_width(number: FittedNumber) -> float:
    """The text's width at the label's font, scaled as the shown font is (as the fit works)."""
    scale = number.shown_font().pointSizeF() / number.font().pointSizeF()
    return QFontMetricsF(number.font()).horizontalAdvance(number.text()) * scale


def test_a_number_shown_again_fits_the_room_and_font_it_has_now(qtbot):
    number = FittedNumber("statTest")
    qtbot.addWidget(number)
    font = QFont()
    font.setPointSizeF(40)
    number.setFont(font)
    number.resize(600, 80)
    number.show()
    number.setText("0.4841")
    assert number.shown_font().pointSizeF() == 40  # room enough: the label's own size
    number.setText("0.5")
    number.resize(90, 80)  # narrower than "0.4841" at 40 pt
    number.setText("0.4841")
    assert number.shown_font().pointSizeF() < 40
    assert fitted_width(number) <= number.contentsRect().width() + 1
    larger = QFont(font)
    larger.setPointSizeF(60)
    number.setFont(larger)
    number.resize(900, 80)
    assert number.shown_font().pointSizeF() == 60
