"""grpo-desktop --export-animation FILE.gif: headless, exit codes, one-line errors."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from PIL import Image

from grpo_desktop.app import main
from grpo_desktop.core.files.animation import FRAME_MS, HOLD_START_MS


def run_app(*args: str, env_changes: dict[str, str | None] | None = None):
    env = dict(os.environ)
    for key, value in (env_changes or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run(
        [sys.executable, "-m", "grpo_desktop", *args],
        cwd=env["HOME"],  # not the repository root: that would import the source folder
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )


def test_the_animation_is_written_headless_at_the_size_asked_for(tmp_path):
    target = tmp_path / "slide.gif"
    result = run_app(
        "--export-animation", str(target), "--size", "640x360", "--rewards", "1,0,0,0,1",
        "--convention", "trl", "--theme", "projector",
        env_changes={"QT_QPA_PLATFORM": None, "DISPLAY": None, "WAYLAND_DISPLAY": None},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"wrote {target} (640x360, 81 frames")
    data = target.read_bytes()
    image = Image.open(io.BytesIO(data))
    assert data[:6] == b"GIF89a" and b"NETSCAPE2.0" in data and image.info["loop"] == 0
    assert image.size == (640, 360)
    assert image.info["duration"] == HOLD_START_MS
    image.seek(1)
    assert image.info["duration"] == FRAME_MS


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--export-animation", "x.png"], "writes a .gif file"),
        (["--export-animation", "x.gif", "--size", "100x100"], "320x180 to 3840x2160"),
        (["--export-animation", "x.gif", "--rewards", "1,2"], "rewards must be 0s and 1s"),
        (["--export-animation", "x.gif", "--convention", "nope"], "nope"),
        (["--export-animation", "x.gif", "--training-steps", "0"], "1 to 500"),
        (["--export-animation", "x.gif", "--screenshot", "x.png"], "not both"),
    ],
)
def test_bad_arguments_are_one_line_with_status_2(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_training_steps_need_the_export(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--training-steps", "5"])
    assert exit_info.value.code == 2
    assert "--training-steps goes with --export-animation" in capsys.readouterr().err


def test_a_folder_is_an_unwritable_path_with_status_1(tmp_path, capsys):
    folder = tmp_path / "slides.gif"
    folder.mkdir()
    assert main(["--export-animation", str(folder)]) == 1
    err = capsys.readouterr().err
    reason = f"Cannot save the animation to {folder}: it is a folder, not a file."
    assert err == f"grpo-desktop: error: {reason}\n"


def test_a_missing_folder_is_status_1(tmp_path):
    target = tmp_path / "missing" / "slide.gif"
    result = run_app("--export-animation", str(target), "--size", "320x180")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"grpo-desktop: error: cannot write {target}: No such file or directory"
    ]
