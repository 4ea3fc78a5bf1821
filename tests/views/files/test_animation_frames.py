"""Painting an animation's frames: the size asked for, the theme's colours, a steady plot."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.core.files.animation import advantage_animation
from grpo_desktop.core.files.gif_encoder import hex_rgb
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.files.animation_frames import AnimationPainter, animation_gif_bytes


@pytest.fixture
def frames(qapp):
    shot = build_snapshot(get_problem("mult-23x47"), [True, False, False, True], "textbook")
    return advantage_animation(shot, LIGHT)


def colour_count(image: Image.Image, colour: str) -> int:
    wanted = hex_rgb(colour)
    return sum(count for count, rgb in image.getcolors(1 << 20) if rgb == wanted)


def test_frames_are_painted_at_the_size_asked_for(frames):
    painter = AnimationPainter(frames, LIGHT, (640, 360))
    rgb = painter.rgb(0)
    assert (rgb.width, rgb.height) == (640, 360)
    assert rgb.duration_ms == frames[0].duration_ms
    assert painter.sample_indices() == (0, (len(frames) - 1) // 2, len(frames) - 1)


def test_the_gif_plays_every_frame_for_its_time_with_the_themes_colours(frames):
    data = animation_gif_bytes(frames, LIGHT, (640, 360))
    image = Image.open(io.BytesIO(data))
    assert data[:6] == b"GIF89a" and image.info["loop"] == 0
    assert image.size == (640, 360) and image.n_frames == len(frames)
    delays = []
    for index in range(image.n_frames):
        image.seek(index)
        delays.append(image.info["duration"])
    assert delays == [frame.duration_ms for frame in frames]
    image.seek(0)
    first = image.convert("RGB")
    image.seek(image.n_frames - 1)
    last = image.convert("RGB")
    assert first.getpixel((2, 2)) == hex_rgb(LIGHT.surface)
    # Rewards 1 0 0 1: two green bars of height 1 and two flat red ones; at the end the red bars
    # reach −1, as tall as the green ones.
    assert colour_count(first, LIGHT.up) > 8 * colour_count(first, LIGHT.down)
    ratio = colour_count(last, LIGHT.down) / colour_count(last, LIGHT.up)
    assert ratio == pytest.approx(1.0, rel=0.05)


def test_captions_of_any_length_leave_the_plot_in_place(qapp):
    """The x axis, its ticks and its label are the same in every frame: the strip under the plot
    is identical pixel for pixel from the first frame to the last (nothing jumped)."""
    shot = build_snapshot(get_problem("mult-23x47"), [True, False, False, True], "trl")
    frames = advantage_animation(shot, PROJECTOR)
    painter = AnimationPainter(frames, PROJECTOR, (640, 360))
    strips = [
        painter.image(i).copy(0, 320, 640, 40) for i in (0, len(frames) // 2, len(frames) - 1)
    ]
    assert strips[0] == strips[1] == strips[2]
