"""``grpo-desktop worksheet``: a lesson's PDF from the terminal, with no display; a bad argument
is one line and status 2, an unwritable path one line and status 1; never half a file."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from pypdf import PdfReader

from grpo_desktop.app import HEADLESS_COMMANDS, main


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        status = main(["worksheet", *args])
    except SystemExit as exit_:  # argparse's usage errors exit, as in every other command
        status = exit_.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_it_is_a_headless_command():
    assert "worksheet" in HEADLESS_COMMANDS


def test_it_writes_the_answer_key_on_letter(qapp, capsys, tmp_path):
    out = tmp_path / "key.pdf"
    status, stdout, err = run(
        capsys, "--lesson", "group-is-baseline", "--out", str(out), "--answers", "--paper", "letter"
    )
    assert (status, err) == (0, "")
    assert str(out) in stdout and "answer key" in stdout
    reader = PdfReader(io.BytesIO(out.read_bytes()))
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (612, 792)
    assert "Answer key" in " ".join(reader.pages[0].extract_text().split())
    assert [p.name for p in tmp_path.iterdir()] == ["key.pdf"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--lesson", "no-such-lesson"), "unknown lesson 'no-such-lesson'; choose from:"),
        (("--lesson", "group-is-baseline", "--paper", "a3"), "invalid choice: 'a3'"),
    ],
)
def test_a_bad_argument_is_one_line_and_status_2(capsys, tmp_path, args, words):
    status, out, err = run(capsys, *args, "--out", str(tmp_path / "x.pdf"))
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err
    assert list(tmp_path.iterdir()) == []


def test_a_folder_or_a_fifo_as_out_is_refused(capsys, tmp_path):
    status, _, err = run(capsys, "--lesson", "group-is-baseline", "--out", str(tmp_path))
    assert status == 2 and "it is a folder" in err and len(err.strip().splitlines()) == 1
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.pdf"
        os.mkfifo(fifo)
        status, _, err = run(capsys, "--lesson", "group-is-baseline", "--out", str(fifo))
        assert status == 2 and "named pipe" in err and len(err.strip().splitlines()) == 1


def test_an_unwritable_path_is_one_line_and_status_1(qapp, capsys, tmp_path):
    missing = tmp_path / "missing" / "sheet.pdf"
    status, out, err = run(capsys, "--lesson", "group-is-baseline", "--out", str(missing))
    assert status == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and "does not exist" in err


def test_it_needs_no_display_and_no_widgets(tmp_path):
    out = tmp_path / "sheet.pdf"
    program = (
        "import sys\n"
        "from grpo_desktop.app import main\n"
        "status = main(['worksheet', '--lesson', 'update-step-length-bias', "
        f"'--out', {str(out)!r}])\n"
        "print('widgets' if 'PySide6.QtWidgets' in sys.modules else 'gui only')\n"
        "sys.exit(status)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)  # the command chooses offscreen itself
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "gui only"
    assert out.read_bytes().startswith(b"%PDF")
