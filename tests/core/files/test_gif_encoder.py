"""The GIF encoder: GIF89a, loops forever, each frame's delay, the size, exact theme colours."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from grpo_desktop.core.files.gif_encoder import GifBuilder, RgbFrame, hex_rgb

SURFACE, UP, DOWN = "#fbfbfb", "#00745a", "#b34a00"


def frame(width, height, bar_height, duration_ms):
    """A flat background with two bars and a soft edge (colours the palette must approximate)."""
    rows = []
    surface, up, down = hex_rgb(SURFACE), hex_rgb(UP), hex_rgb(DOWN)
    for y in range(height):
        row = []
        for x in range(width):
            if x < width // 3 and y >= height - bar_height:
                row.append(up)
            elif x >= 2 * width // 3 and y >= height - bar_height:
                row.append(down)
            elif x == width // 2:
                row.append((y * 7 % 256, 120, 200))  # a gradient: more colours than flat ones
            else:
                row.append(surface)
        rows.append(bytes(v for rgb in row for v in rgb))
    return RgbFrame(width, height, b"".join(rows), duration_ms)


@pytest.fixture
def gif():
    frames = [frame(64, 36, h, d) for h, d in ((4, 2000), (10, 40), (20, 40), (30, 3000))]
    builder = GifBuilder([frames[0], frames[-1]], (SURFACE, UP, DOWN))
    for item in frames:
        builder.add(item)
    return builder.encode()


def test_header_loop_and_size(gif):
    assert gif[:6] == b"GIF89a"
    assert b"NETSCAPE2.0" in gif
    image = Image.open(io.BytesIO(gif))
    assert image.size == (64, 36)
    assert image.info["loop"] == 0  # forever
    assert image.n_frames == 4


def test_each_frame_keeps_its_delay(gif):
    image = Image.open(io.BytesIO(gif))
    delays = []
    for index in range(image.n_frames):
        image.seek(index)
        delays.append(image.info["duration"])
    assert delays == [2000, 40, 40, 3000]


def test_flat_theme_colours_stay_exact(gif):
    image = Image.open(io.BytesIO(gif))
    image.seek(image.n_frames - 1)
    rgb = image.convert("RGB")
    assert rgb.getpixel((2, 2)) == hex_rgb(SURFACE)
    assert rgb.getpixel((2, 35)) == hex_rgb(UP)
    assert rgb.getpixel((63, 35)) == hex_rgb(DOWN)


def test_bad_frames_are_refused():
    with pytest.raises(ValueError, match="width × height × 3"):
        RgbFrame(2, 2, b"\0" * 5, 40)
    with pytest.raises(ValueError, match="at least 10 ms"):
        RgbFrame(1, 1, b"\0\0\0", 5)
    builder = GifBuilder([frame(8, 8, 2, 40)])
    with pytest.raises(ValueError, match="every frame must be 8x8"):
        builder.add(frame(9, 8, 2, 40))
