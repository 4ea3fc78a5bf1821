"""Paint an animation's frames for a slide: each frame's figure at the chosen size, as RGB.

The frames are the export's own figures (``export_figures.paint_figure``: the theme's colours,
type sized for a slide, the caption as the title), drawn on a ``QImage`` so no window or display
is needed. A caption that wraps to two lines would push the plot down on some frames and make it
jump; every caption is given as many lines as the longest one needs, so the plot stays put.

A view (DESIGN §2): it paints what ``core/files/animation.py`` decided and computes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QImage

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.files.animation import AnimationFrame
from grpo_desktop.core.files.gif_encoder import GifBuilder, RgbFrame
from grpo_desktop.views.files.export_figures import CANVAS, MARGIN, TITLE_PX, figure_png_image

__all__ = ["AnimationPainter", "animation_gif_bytes", "key_colours"]


def key_colours(theme: Theme) -> tuple[str, ...]:
    """The theme's flat colours, which the GIF's palette keeps exactly."""
    return (
        theme.surface,
        theme.text,
        theme.muted,
        theme.border,
        theme.up,
        theme.down,
        theme.neutral,
        theme.focus,
        *theme.series,
    )


def _title_lines(caption: str, theme: Theme) -> int:
    """How many lines ``caption`` takes as a figure's title on the slide canvas."""
    font = QFont()
    font.setPixelSize(max(1, round(TITLE_PX * theme.type_scale)))
    font.setBold(True)
    metrics = QFontMetricsF(font)
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap)
    box = QRectF(0, 0, CANVAS[0] - 2 * MARGIN, 10_000)
    return max(1, round(metrics.boundingRect(box, flags, caption).height() / metrics.lineSpacing()))


class AnimationPainter:
    """Paints the frames of one animation at one size and theme, one at a time."""

    def __init__(
        self, frames: Sequence[AnimationFrame], theme: Theme, size: tuple[int, int]
    ) -> None:
        if not frames:
            raise ValueError("an animation needs at least one frame")
        self.frames = tuple(frames)
        self.theme = theme
        self.size = size
        lines = {caption: _title_lines(caption, theme) for caption in {f.caption for f in frames}}
        self._lines = max(lines.values())
        self._own_lines = lines

    def __len__(self) -> int:
        return len(self.frames)

    def sample_indices(self) -> tuple[int, ...]:
        """The frames the palette is chosen from: the first, the middle and the last."""
        last = len(self.frames) - 1
        return tuple(sorted({0, last // 2, last}))

    def image(self, index: int) -> QImage:
        """Frame ``index`` as an image of the chosen size."""
        frame = self.frames[index]
        padding = self._lines - self._own_lines[frame.caption]
        figure = frame.figure
        if padding:  # blank lines under a shorter caption keep the plot where the others have it
            figure = replace(figure, title=figure.title + "\n\u00a0" * padding)
        return figure_png_image(figure, self.theme, self.size)

    def rgb(self, index: int) -> RgbFrame:
        """Frame ``index`` as packed RGB with its duration, for the GIF encoder."""
        image = self.image(index).convertToFormat(QImage.Format.Format_RGB888)
        width, height = image.width(), image.height()
        row = width * 3
        stride = image.bytesPerLine()
        data = bytes(image.constBits())[: stride * height]
        if stride != row:  # Qt pads each row to 4 bytes
            data = b"".join(data[y * stride : y * stride + row] for y in range(height))
        return RgbFrame(width, height, data, self.frames[index].duration_ms)


def animation_gif_bytes(
    frames: Sequence[AnimationFrame], theme: Theme, size: tuple[int, int]
) -> bytes:
    """The whole animation as GIF bytes, in one go (the command line; the window paints a frame
    per timer tick instead, so it stays responsive)."""
    painter = AnimationPainter(frames, theme, size)
    builder = GifBuilder([painter.rgb(i) for i in painter.sample_indices()], key_colours(theme))
    for index in range(len(painter)):
        builder.add(painter.rgb(index))
    return builder.encode()
