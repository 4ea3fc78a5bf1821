"""Headless commands end the Unix way: a closed pipe is quiet, a full disk is one line, Ctrl-C 130.

Each case runs the real ``grpo-desktop`` process, because the failures happen at the boundary
between it and the shell: the interpreter's final flush, a signal, a device that refuses writes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from grpo_desktop.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_WRITE_ERROR,
    run_command,
)

COMMAND = [sys.executable, "-m", "grpo_desktop"]


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONWARNINGS"] = "default"  # a warning would show in stderr, where we look
    return env


def _closed_pipe_run(*args: str) -> subprocess.CompletedProcess:
    """Run the command with stdout a pipe whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [*COMMAND, *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=_environment(),
            cwd=os.environ["HOME"],
            timeout=300,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args",
    [
        ("score", "1", "0", "0", "1"),
        ("score", "1", "0", "0", "1", "--json"),
        ("train", "--steps", "3", "--seeds", "1", "--json"),
    ],
    ids=["score", "score-json", "train-json"],
)
def test_a_closed_pipe_ends_the_command_quietly(args):
    result = _closed_pipe_run(*args)
    assert result.returncode == EXIT_BROKEN_PIPE
    assert result.stderr == ""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_disk_is_one_line_and_status_1():
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [*COMMAND, "score", "1", "0", "0", "1"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=_environment(),
            cwd=os.environ["HOME"],
            timeout=120,
        )
    assert result.returncode == EXIT_WRITE_ERROR
    assert result.stderr.splitlines() == [
        "grpo-desktop score: error: cannot write the output (No space left on device)"
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")
def test_ctrl_c_during_a_training_run_is_status_130_without_a_traceback():
    # A command run from a terminal hears Ctrl-C; a child inherits an ignored or blocked SIGINT
    # from its parent (then the run went on to its end, status 0), so the test worker hands it
    # on as a terminal would, whatever an earlier test left.
    ignored = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        process = subprocess.Popen(
            [*COMMAND, "train", "--steps", "5000", "--seeds", "8"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_environment(),
            cwd=os.environ["HOME"],
        )
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        signal.signal(signal.SIGINT, ignored)
    time.sleep(3)  # past start-up: inside the run
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == EXIT_INTERRUPTED
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == "grpo-desktop train: interrupted"
    assert stdout == ""


def test_a_write_error_on_stdout_is_reported_not_raised(capsys):
    def command() -> int:
        raise OSError(5, "Input/output error")

    assert run_command("grpo-desktop score", command) == EXIT_WRITE_ERROR
    assert capsys.readouterr().err == (
        "grpo-desktop score: error: cannot write the output (Input/output error)\n"
    )


def test_an_error_about_another_file_still_raises():
    def command() -> int:
        raise FileNotFoundError(2, "No such file or directory", "missing.json")

    with pytest.raises(FileNotFoundError):
        run_command("grpo-desktop loss", command)
