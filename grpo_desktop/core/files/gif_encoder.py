"""Animated GIFs for slides, encoded with Pillow: one palette per animation, no dithering.

Why Pillow: the GIF container is simple, but a good one also needs LZW compression, a palette
chosen from the pictures, and each frame cropped to the part that changed (a moving bar redraws
a strip, not the slide). Pillow does all of it in C, is maintained by a large team, and ships
wheels for every platform PySide6 runs on; our own encoder would be slower and another thing to
keep right.

The palette is the theme's own colours, exactly, then the colours the anti-aliased edges and
text need, chosen by median cut from a few sample frames. Every frame maps to it without
dithering, so a flat bar or background stays one clean colour (dithering would sprinkle noise
on it and bloat the file), and a pixel of exactly a theme colour gets exactly that entry. The
animation loops forever; its last frame holds for its own delay.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["GifBuilder", "RgbFrame", "hex_rgb"]

PALETTE_SIZE = 256  # GIF's most
SAMPLE_SHRINK = 2  # sample frames are read at half size to choose the palette (nearest pixel)


@dataclass(frozen=True)
class RgbFrame:
    """One picture as packed 8-bit RGB rows (3 bytes a pixel, no padding) and its delay."""

    width: int
    height: int
    pixels: bytes
    duration_ms: int

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise ValueError(f"a frame needs a size, got {self.width}x{self.height}")
        if len(self.pixels) != self.width * self.height * 3:
            raise ValueError("a frame's pixels must be width × height × 3 bytes of RGB")
        if self.duration_ms < 10:
            raise ValueError("a GIF frame lasts at least 10 ms (its delay is in 1/100 s)")


def hex_rgb(colour: str) -> tuple[int, int, int]:
    """``"#0072b2"`` → ``(0, 114, 178)``."""
    text = colour.lstrip("#")
    if len(text) != 6:
        raise ValueError(f"expected a colour like #0072b2, got {colour!r}")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def _image(frame: RgbFrame):
    from PIL import Image

    return Image.frombytes("RGB", (frame.width, frame.height), frame.pixels)


class GifBuilder:
    """Frames in, GIF bytes out: the palette first (from samples), then each frame as it comes.

    Frames are reduced to one byte a pixel as they are added, so a long animation never holds
    its full-colour pictures; ``encode`` writes the file in memory (write it atomically).
    """

    def __init__(self, samples: Sequence[RgbFrame], key_colours: Iterable[str] = ()) -> None:
        from PIL import Image

        if not samples:
            raise ValueError("the palette needs at least one sample frame")
        self.size = (samples[0].width, samples[0].height)
        exact: list[tuple[int, int, int]] = []
        for colour in key_colours:
            rgb = hex_rgb(colour)
            if rgb not in exact:
                exact.append(rgb)
        exact = exact[: PALETTE_SIZE // 4]
        sheet = self._sample_sheet([_image(sample) for sample in samples])
        chosen = sheet.quantize(
            colors=PALETTE_SIZE - len(exact),
            method=Image.Quantize.MEDIANCUT,
            dither=Image.Dither.NONE,
        )
        flat = chosen.getpalette() or []
        picked = [tuple(flat[i : i + 3]) for i in range(0, len(flat), 3)]
        colours = exact + [rgb for rgb in picked if rgb not in exact]
        colours = colours[:PALETTE_SIZE]
        colours += [colours[-1]] * (PALETTE_SIZE - len(colours))
        self.palette = [channel for rgb in colours for channel in rgb]
        self._exact = [(r << 16) | (g << 8) | b for r, g, b in exact]  # palette entries 0, 1, …
        self._palette_image = Image.new("P", (1, 1))
        self._palette_image.putpalette(self.palette)
        self._frames: list = []
        self._durations: list[int] = []

    @staticmethod
    def _sample_sheet(images: list):
        """The sample frames stacked, read at half size by nearest pixel (no new colours)."""
        from PIL import Image

        width, height = images[0].size
        small = (max(1, width // SAMPLE_SHRINK), max(1, height // SAMPLE_SHRINK))
        sheet = Image.new("RGB", (small[0], small[1] * len(images)))
        for index, image in enumerate(images):
            sheet.paste(image.resize(small, Image.Resampling.NEAREST), (0, index * small[1]))
        return sheet

    def __len__(self) -> int:
        return len(self._frames)

    def add(self, frame: RgbFrame) -> None:
        """Map ``frame`` to the palette (nearest colour, no dithering) and keep it."""
        from PIL import Image

        if (frame.width, frame.height) != self.size:
            raise ValueError(
                f"every frame must be {self.size[0]}x{self.size[1]}, "
                f"got {frame.width}x{frame.height}"
            )
        indexed = _image(frame).quantize(palette=self._palette_image, dither=Image.Dither.NONE)
        # Pillow looks colours up in a cache of 4 × 4 × 4 boxes, so a flat white can come out as
        # a near-white median-cut entry of the same box: the theme's own colours are set exactly.
        pixels = np.frombuffer(frame.pixels, dtype=np.uint8).reshape(-1, 3).astype(np.uint32)
        packed = (pixels[:, 0] << 16) | (pixels[:, 1] << 8) | pixels[:, 2]
        indices = np.array(indexed, dtype=np.uint8).reshape(-1)
        for index, colour in enumerate(self._exact):
            indices[packed == colour] = index
        exact = Image.frombytes("P", self.size, indices.tobytes())
        exact.putpalette(self.palette)
        self._frames.append(exact)
        self._durations.append(frame.duration_ms)

    def encode(self) -> bytes:
        """The animated GIF: GIF89a, looping forever, each frame's delay its duration."""
        if not self._frames:
            raise ValueError("an animation needs at least one frame")
        out = io.BytesIO()
        first, *rest = self._frames
        first.save(
            out,
            format="GIF",
            save_all=True,
            append_images=rest,
            duration=list(self._durations),
            loop=0,  # the NETSCAPE2.0 extension: play forever
            disposal=1,  # leave each frame in place: the next one draws only what changed
            optimize=False,  # keep the palette as chosen: the theme's colours stay exact
        )
        return out.getvalue()
