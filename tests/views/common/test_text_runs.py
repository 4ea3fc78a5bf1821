"""text_runs: text drawn once into a pixmap looks as if drawn directly, never shows an old
value, colour or size, stays within the shared budget and is drawn directly when switched off."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QTransform

from grpo_desktop.views.common import render_cache, text_runs
from grpo_desktop.views.common.render_cache import DRAWINGS, DrawingCache

FLAGS = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
INK = QColor("#1a1a2e")
PAPER = QColor("#fbfaf7")


@pytest.fixture(autouse=True)
def fresh_drawings(qapp):
    text_runs.forget()
    yield
    text_runs.forget()


def font(pixels: int, bold: bool = True) -> QFont:
    chosen = QFont()
    chosen.setPixelSize(pixels)
    chosen.setBold(bold)
    return chosen


def canvas(ratio: float = 1.0) -> QImage:
    image = QImage(int(320 * ratio), int(90 * ratio), QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(PAPER)
    return image


def drawn(
    text: str,
    *,
    kept: bool,
    ratio: float = 1.0,
    size: int = 40,
    colour: QColor = INK,
    left: float = 4.0,
    transform: QTransform | None = None,
) -> QImage:
    image = canvas(ratio)
    painter = QPainter(image)
    if transform is not None:
        painter.setTransform(transform)
    if kept:
        text_runs.draw_text(painter, QRectF(left, 5, 300, 80), FLAGS, text, font(size), colour)
    else:
        painter.setFont(font(size))
        painter.setPen(colour)
        painter.drawText(QRectF(left, 5, 300, 80), FLAGS, text)
    painter.end()
    return image


def pixels(image: QImage) -> np.ndarray:
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 4].astype(int)


def ink(image: QImage) -> int:
    return int((pixels(image) != pixels(canvas(image.devicePixelRatio()))).any(axis=1).sum())


@pytest.mark.parametrize("left", [4.0, 4.25, 4.5])
@pytest.mark.parametrize("size", [14, 40])
def test_a_kept_run_draws_exactly_the_pixels_of_direct_drawing(left, size):
    direct = drawn("0.4375", kept=False, size=size, left=left)
    assert ink(direct) > 0
    assert drawn("0.4375", kept=True, size=size, left=left) == direct  # drawn into the pixmap
    assert text_runs.runs_kept() == 1
    assert drawn("0.4375", kept=True, size=size, left=left) == direct  # blitted from it


def test_at_twice_the_pixels_a_run_is_as_crisp_as_direct_drawing():
    # Glyphs of up to 64 device pixels come from Qt's glyph cache: exactly the same pixels.
    assert drawn("−0.25", kept=True, ratio=2.0, size=20) == drawn(
        "−0.25", kept=False, ratio=2.0, size=20
    )
    # Bigger glyphs are filled as paths; where a curve's edge crosses a pixel the two fills
    # may round that pixel's coverage one way or the other, by a few levels at most.
    big_kept = drawn("0.4375", kept=True, ratio=2.0, size=60)
    big_direct = drawn("0.4375", kept=False, ratio=2.0, size=60)
    assert big_kept.size() == big_direct.size()
    difference = np.abs(pixels(big_kept) - pixels(big_direct))
    assert difference.max() <= 8
    inked = (pixels(big_direct) != pixels(canvas(2.0))).sum()
    assert (difference > 0).sum() < 0.01 * inked


def test_a_new_value_colour_or_size_shows_the_new_text_never_an_old_one():
    drawn("0.25", kept=True)
    assert drawn("0.75", kept=True) == drawn("0.75", kept=False)
    red = QColor("#b03030")
    assert drawn("0.75", kept=True, colour=red) == drawn("0.75", kept=False, colour=red)
    # A zoom is a new font size; a screen of another pixel ratio is another ratio.
    assert drawn("0.75", kept=True, size=48) == drawn("0.75", kept=False, size=48)
    assert drawn("0.75", kept=True, ratio=2.0, size=20) == drawn(
        "0.75", kept=False, ratio=2.0, size=20
    )
    assert text_runs.runs_kept() == 5


def test_a_rotated_painter_draws_directly_and_keeps_nothing():
    turned = QTransform().rotate(10)
    assert drawn("0.5", kept=True, transform=turned) == drawn("0.5", kept=False, transform=turned)
    assert text_runs.runs_kept() == 0


def test_runs_stay_within_the_shared_budget(monkeypatch):
    small = DrawingCache(200_000)
    monkeypatch.setattr(text_runs, "DRAWINGS", small)
    for value in range(300):
        drawn(f"{value / 7:.4f}", kept=True)
        assert small.bytes <= small.max_bytes
    assert 0 < small.kept(text_runs.KIND) < 300
    assert drawn("0.1429", kept=True) == drawn("0.1429", kept=False)  # aged out: drawn afresh


def test_switched_off_every_run_is_drawn_directly_and_none_is_kept(monkeypatch):
    monkeypatch.setattr(render_cache, "CACHING", False)
    before = DRAWINGS.bytes
    assert drawn("0.4375", kept=True) == drawn("0.4375", kept=False)
    assert text_runs.runs_kept() == 0
    assert DRAWINGS.bytes == before
