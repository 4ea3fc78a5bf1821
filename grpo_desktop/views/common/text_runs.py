"""Text drawn once: a run of text drawn into a pixmap per look, kept and blitted.

A click at 200 % zoom repaints the big numbers of the stat tiles, the chart's value labels and
the other text of the window with glyphs twice the size. Qt's raster engine keeps glyphs up to
64 device pixels in its glyph cache; larger ones (a stat tile's number at 200 %) it fills as
paths, each glyph through the scan converter on every paint, which made those four numbers a
quarter of a click's instructions there. A text run here is one ``QPainter.drawText`` call (its
box, flags, text, font and colour), drawn the first time into a transparent pixmap at the
painter's device pixel ratio and from then on blitted, so a look seen before costs one blit at
any size.

The drawings live in ``render_cache.DRAWINGS`` (kind ``"text run"``), in its one byte budget.
The key is everything the pixels depend on: the text, the font (``QFont.key``), the colour, the
flags, the box's size, the device pixel ratio, the painter's text hints and where the box falls
within a device pixel. A new theme, zoom or font is a new font or colour, hence new keys; the
old drawings age out of the budget (``forget`` drops them at once). With
``GRPO_DESKTOP_RENDER_CACHE=0`` (``render_cache.CACHING`` False) every run is drawn directly,
the same call on the same painter. A painter that rotates, shears or scales other than by its
device's pixel ratio, or paints with an opacity or composition of its own, draws directly too.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPixmap, QTransform

from grpo_desktop.views.common import render_cache
from grpo_desktop.views.common.render_cache import DRAWINGS

__all__ = ["KIND", "draw_kept", "draw_text", "forget", "runs_kept"]

KIND = "text run"  # the kind of drawing in render_cache.DRAWINGS
_SUBPIXEL_STEPS = 64  # a box's place within a device pixel, in these steps (Qt's 26.6 fixed point)
_SOURCE_OVER = QPainter.CompositionMode.CompositionMode_SourceOver
_HINTS = (  # the painter's hints a drawing depends on
    QPainter.RenderHint.TextAntialiasing
    | QPainter.RenderHint.Antialiasing
    | QPainter.RenderHint.SmoothPixmapTransform
    | QPainter.RenderHint.VerticalSubpixelPositioning
)


class _Drawing(QPixmap):
    """A kept drawing and where its top left sits against its box's (shifted) top left."""

    offset = QPointF()


def draw_text(
    painter: QPainter,
    rect: QRectF | QRect,
    flags: int | Qt.AlignmentFlag,
    text: str,
    font: QFont,
    colour: QColor,
) -> None:
    """``painter.drawText(rect, flags, text)`` in ``font`` and ``colour``, from a kept drawing.

    The painter's own font and pen are left as they were.
    """
    rect = QRectF(rect)
    flags = int(flags)
    if not text:
        return

    def draw(target: QPainter, local: QRectF) -> None:
        target.setFont(font)
        target.setPen(colour)
        target.drawText(local, flags, text)

    def bounds(local: QRectF) -> QRectF:
        metrics = QFontMetricsF(font)
        covered = metrics.boundingRect(local, flags, text)
        if not flags & Qt.TextFlag.TextDontClip:
            covered = covered.intersected(local)
        pad = 2.0 + 0.15 * metrics.height()  # overhangs, italics, antialiasing
        return covered.adjusted(-pad, -pad, pad, pad)

    key = (KIND, text, font.key(), colour.rgba(), flags)
    draw_kept(painter, rect, key, draw, bounds, direct=rect.isEmpty())


def draw_kept(
    painter: QPainter,
    rect: QRectF,
    key: tuple,
    draw: Callable[[QPainter, QRectF], None],
    bounds: Callable[[QRectF], QRectF] | None = None,
    direct: bool = False,
) -> None:
    """``draw(painter, rect)``, from a drawing kept under ``key`` (which starts with its kind
    and holds everything the drawing depends on but the box's size and place).

    ``bounds(local)`` is what ``draw`` may cover when given the box ``local`` (default: the box,
    a pixel around it). ``draw`` may change the painter's font, pen, brush and hints.
    """
    ratio = None if direct else _device_ratio(painter)
    if not render_cache.caching() or ratio is None:
        painter.save()
        draw(painter, rect)
        painter.restore()
        return
    device = painter.deviceTransform().map(rect.topLeft())
    # Where the box falls within a device pixel: the antialiasing depends on it.
    fraction_x = round((device.x() - math.floor(device.x())) * _SUBPIXEL_STEPS)
    fraction_y = round((device.y() - math.floor(device.y())) * _SUBPIXEL_STEPS)
    hints = int(painter.renderHints().value) & int(_HINTS.value)
    full_key = (*key, rect.width(), rect.height(), ratio, hints, fraction_x, fraction_y)
    shift = QPointF(fraction_x / _SUBPIXEL_STEPS / ratio, fraction_y / _SUBPIXEL_STEPS / ratio)
    local = QRectF(shift, rect.size())

    def render() -> QPixmap:
        covered = bounds(local) if bounds is not None else local.adjusted(-1, -1, 1, 1)
        left = math.floor(covered.left() * ratio) / ratio
        top = math.floor(covered.top() * ratio) / ratio
        width = math.ceil(covered.right() * ratio) / ratio - left
        height = math.ceil(covered.bottom() * ratio) / ratio - top
        pixmap = _Drawing(max(1, round(width * ratio)), max(1, round(height * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        pixmap.offset = QPointF(left, top)
        target = QPainter(pixmap)
        target.setRenderHints(QPainter.RenderHint(hints))
        target.translate(-left, -top)
        draw(target, local)
        target.end()
        return pixmap

    pixmap = DRAWINGS.get(full_key, render)
    assert isinstance(pixmap, _Drawing)
    painter.drawPixmap(rect.topLeft() - shift + pixmap.offset, pixmap)


def forget() -> None:
    """Drop every kept text run (the next paint draws each afresh)."""
    DRAWINGS.clear(KIND)


def runs_kept() -> int:
    return DRAWINGS.kept(KIND)


def _device_ratio(painter: QPainter) -> float | None:
    """The device's pixel ratio when the painter only translates (and scales by that ratio) and
    paints plainly; None when a kept drawing could not match direct drawing."""
    if painter.opacity() != 1.0 or painter.compositionMode() != _SOURCE_OVER:
        return None
    device = painter.device()
    ratio = device.devicePixelRatioF() if device is not None else 1.0
    transform = painter.deviceTransform()
    if transform.type().value > QTransform.TransformationType.TxScale.value:
        return None
    if not (math.isclose(transform.m11(), ratio) and math.isclose(transform.m22(), ratio)):
        return None
    return ratio
