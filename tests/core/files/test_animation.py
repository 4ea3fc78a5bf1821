"""The slide animations as data: frame timing on the fixed frame rate, values, captions."""

from __future__ import annotations

import pytest

from grpo_desktop.core.common.theme import LIGHT
from grpo_desktop.core.files.animation import (
    FRAME_MS,
    FRAME_RATE,
    HOLD_END_MS,
    HOLD_MIDDLE_MS,
    HOLD_START_MS,
    PHASE_MS,
    TRAINING_GROWTH_MS,
    TRAINING_HOLD_MS,
    advantage_animation,
    advantage_captions,
    check_animation_size,
    ease_in_out_cubic,
    first_steps_snapshot,
    training_animation,
)
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.core.training.training_config import TrainingConfig


def snapshot(rewards=(1, 0, 0, 1), convention="textbook"):
    return build_snapshot(get_problem("mult-23x47"), [bool(r) for r in rewards], convention)


def test_the_frame_rate_is_whole_hundredths_that_slide_apps_do_not_clamp():
    assert FRAME_MS * FRAME_RATE == 1000
    assert FRAME_MS % 10 == 0  # a GIF delay is in 1/100 s: 4/100 exactly
    assert FRAME_MS >= 20  # below 2/100 s PowerPoint, Keynote, browsers and Impress slow it down
    assert 20 <= FRAME_RATE <= 25


def test_frames_follow_the_frame_rate_and_the_hold_times():
    frames = advantage_animation(snapshot(), LIGHT)
    moving = PHASE_MS // FRAME_MS
    assert len(frames) == 3 + 2 * (moving - 1)
    assert frames[0].ticks * FRAME_MS == HOLD_START_MS
    middle = frames[moving]
    assert middle.ticks * FRAME_MS == HOLD_MIDDLE_MS + FRAME_MS
    assert frames[-1].ticks * FRAME_MS == HOLD_END_MS + FRAME_MS
    between = frames[1:moving] + frames[moving + 1 : -1]
    assert all(frame.ticks == 1 for frame in between)
    total = sum(frame.duration_ms for frame in frames)
    assert total == HOLD_START_MS + 2 * PHASE_MS + HOLD_MIDDLE_MS + HOLD_END_MS


def test_first_frame_shows_rewards_the_middle_r_minus_mean_and_the_last_advantages():
    shot = snapshot((1, 0, 0, 0, 1))
    frames = advantage_animation(shot, LIGHT)
    stats = shot.stats
    assert frames[0].values == (1.0, 0.0, 0.0, 0.0, 1.0)
    assert frames[PHASE_MS // FRAME_MS].values == pytest.approx(tuple(stats.centered))
    assert frames[-1].values == pytest.approx(tuple(stats.advantages))
    # Phase 1 moves the first bar from r = 1 down to r − mean = 0.6 and never past either end.
    moving = [frame.values[0] for frame in frames[: PHASE_MS // FRAME_MS + 1]]
    assert moving == sorted(moving, reverse=True)
    assert moving[0] == 1.0 and moving[-1] == pytest.approx(0.6)
    panel = frames[0].figure.panels[0]
    assert panel.reference == (pytest.approx(0.4), "par = 0.4")
    assert frames[-1].figure.panels[0].reference == (0.0, "0")
    assert frames[0].figure.panels[0].marks[0].labels == ("1", "0", "0", "0", "1")
    assert frames[1].figure.panels[0].marks[0].labels == ()  # no labels while bars move


def test_captions_say_each_step_with_the_groups_numbers():
    frames = advantage_animation(snapshot(), LIGHT)
    captions = list(dict.fromkeys(frame.caption for frame in frames))
    assert captions == list(advantage_captions(snapshot()))
    assert "par, is 0.5" in captions[0]
    assert captions[1].startswith("Step 1 of 2: subtract the group mean (par = 0.5)")
    assert captions[2].startswith("Step 2 of 2: divide by the std = 0.5")
    assert "2 pushed up" in captions[3] and "2 pushed down" in captions[3]
    assert all(frame.figure.title == frame.caption for frame in frames)


def test_one_y_range_and_axes_for_every_frame():
    frames = advantage_animation(snapshot((1, 0, 0, 0, 0, 0, 0, 1)), LIGHT)
    panels = [frame.figure.panels[0] for frame in frames]
    assert len({(p.y_range, p.y_ticks, p.x_range, p.x_ticks) for p in panels}) == 1
    low, high = panels[0].y_range
    assert all(low <= v <= high for frame in frames for v in frame.values)


@pytest.mark.parametrize(
    ("convention", "words"),
    [("rloo", "leave-one-out"), ("dr_grpo", "no division by the std"), ("trl", "std + 1e-4")],
)
def test_the_second_caption_follows_the_convention(convention, words):
    assert words in advantage_captions(snapshot(convention=convention))[2]


def test_an_all_equal_group_says_it_teaches_nothing():
    captions = advantage_captions(snapshot((1, 1, 1, 1)))
    assert "std is 0" in captions[2]
    assert "teaches nothing" in captions[3]


def test_easing_is_qts_in_out_cubic():
    assert ease_in_out_cubic(0.0) == 0.0 and ease_in_out_cubic(1.0) == 1.0
    assert ease_in_out_cubic(0.5) == pytest.approx(0.5)
    assert ease_in_out_cubic(0.25) == pytest.approx(0.0625)


def test_training_frames_grow_a_step_at_a_time_then_hold():
    steps = 12
    run = first_steps_snapshot(TrainingConfig(algorithms=("grpo", "rloo"), seeds=2), steps)
    frames = training_animation(run, LIGHT)
    shown = [int(frame.values[0]) for frame in frames]
    assert shown == list(range(steps + 1))
    assert frames[-1].duration_ms == TRAINING_HOLD_MS
    assert all(frame.ticks == 1 for frame in frames[1:-1])
    for frame, step in zip(frames, shown):
        assert frame.caption in frame.figure.title
        assert str(step) in frame.caption
        panel = frame.figure.panels[0]
        assert panel.x_range == (0.0, float(steps))
        assert all(x <= step for mark in panel.marks for x in mark.x)
    assert [entry.text for entry in frames[0].figure.legend] == ["GRPO", "RLOO"]


def test_a_long_run_shows_several_steps_a_frame_within_the_growth_time():
    run = first_steps_snapshot(TrainingConfig(algorithms=("grpo",), seeds=1), 400)
    frames = training_animation(run, LIGHT)
    assert len(frames) - 1 <= TRAINING_GROWTH_MS // FRAME_MS
    assert frames[-1].values == (400.0,)


def test_sizes_and_steps_out_of_range_are_refused():
    assert check_animation_size(1920, 1080) == (1920, 1080)
    with pytest.raises(ValueError, match="320x180 to 3840x2160"):
        check_animation_size(7680, 4320)
    with pytest.raises(ValueError, match="1 to 500"):
        first_steps_snapshot(TrainingConfig(), 0)
