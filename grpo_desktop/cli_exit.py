"""How a headless command ends when its output or its user goes away, the Unix way.

``grpo-desktop score 1 0 0 1 | head -1`` closes the pipe early: the command stops quietly
(status 141, as if killed by SIGPIPE). A full disk or a failing device is one line on stderr
and status 1. Ctrl-C is status 130 with no traceback. Nothing else changes how a command runs.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Callable

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "EXIT_WRITE_ERROR", "run_command"]

EXIT_WRITE_ERROR = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _say(prog: str, message: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # stderr gone too: the status says it
        print(f"{prog}: {message}", file=sys.stderr, flush=True)


def run_command(prog: str, command: Callable[[], int]) -> int:
    """Run ``command`` (which prints its result) and flush; its status, or the one above."""
    try:
        status = command()
        sys.stdout.flush()
        return status
    except KeyboardInterrupt:
        _say(prog, "interrupted")
        _silence_stdout()
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as error:
        if error.errno == errno.EPIPE:
            _silence_stdout()
            return EXIT_BROKEN_PIPE
        if error.filename is not None:  # not a write to stdout: an unexpected file error
            raise
        _silence_stdout()
        reason = error.strerror or str(error)
        _say(prog, f"error: cannot write the output ({reason})")
        return EXIT_WRITE_ERROR
