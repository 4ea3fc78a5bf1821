"""What the headless commands share: one-line argument errors, ASCII output where the terminal
needs it, ``NAME=VALUE`` options, a progress line, JSON's null for non-finite numbers, and how a
command ends when its output or its user goes away, the Unix way.

``grpo-desktop score 1 0 0 1 | head -1`` closes the pipe early: the command stops quietly
(status 141, as if killed by SIGPIPE). A full disk or a failing device is one line on stderr
and status 1. Ctrl-C is status 130 with no traceback. Nothing else changes how a command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import math
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from typing import NoReturn, TextIO

from grpo_desktop.core.common.formatting import ascii_fallback
from grpo_desktop.core.common.unsafe_text import unsafe_character, visible

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERRUPTED",
    "EXIT_WRITE_ERROR",
    "AsciiArgumentParser",
    "OneLineArgumentParser",
    "ProgressLine",
    "finite_or_none",
    "name_and_value",
    "parse_number",
    "parse_weights",
    "run_command",
    "shown",
    "write_text",
]

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


class OneLineArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one readable line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        # argparse quotes an unknown option as typed: escape what would drive the terminal.
        self.exit(2, f"{self.prog}: error: {visible(message)} (see {self.prog} --help)\n")


#: An argument longer than this is cut in messages (a 401-digit number is one line, not four).
_SHOWN_CHARS = 40
_INFINITY_SPELLINGS = ("inf", "infinity")


def shown(token: str) -> str:
    """``token`` quoted for a one-line message: escaped, and cut when long."""
    text = visible(token)
    if len(text) <= _SHOWN_CHARS:
        return f"'{text}'"
    return f"'{text[: _SHOWN_CHARS - 1]}…' ({len(token):,} characters)"


def parse_number(token: str) -> float:
    """``token`` as a float (the real minus sign too); ValueError when it is not a number, or a
    finite number too large for float64 (``1e400``, a 401-digit integer), which float() reads
    as inf."""
    value = float(token.replace("\u2212", "-"))
    if math.isinf(value) and token.strip().lstrip("+-\u2212").lower() not in _INFINITY_SPELLINGS:
        raise OverflowError(token)
    return value


def name_and_value(kind: str, text: str, example: str) -> tuple[str, str]:
    """``NAME=VALUE`` split at the first ``=``; ValueError for a missing ``=`` or name."""
    name, equals, value = text.partition("=")
    name = name.strip()
    if not equals or not name:
        raise ValueError(f"{kind} {shown(text)} must read NAME=VALUE, e.g. {example}")
    unsafe = unsafe_character(name)
    if unsafe is not None:
        raise ValueError(
            f"{kind} name {shown(name)} holds {unsafe}: a reward function's name is plain text "
            "on one line"
        )
    return name, value


def parse_weights(texts: Sequence[str]) -> dict[str, float]:
    """``--weight`` values (``format=0.5``) as name -> weight."""
    weights: dict[str, float] = {}
    for text in texts:
        name, value = name_and_value("weight", text, "format=0.5")
        if name in weights:
            raise ValueError(f"weight of {name!r} is given twice")
        try:
            weights[name] = parse_number(value.strip())
        except OverflowError:
            raise ValueError(
                f"weight of {name!r}: {shown(value)} is too large: a weight must be a finite number"
            ) from None
        except ValueError:
            raise ValueError(f"weight of {name!r}: {shown(value)} is not a number") from None
    return weights


#: What ``write_text`` writes for characters an ASCII terminal lacks, after ``ascii_fallback``'s
#: − ▲ ▼ (the longer spelling first).
_ASCII_EXTRA = (
    ("Σ_t", "sum_t"),
    ("Σ", "sum"),
    ("∂", "d"),
    ("β", "beta"),
    ("→", "->"),
    ("–", "-"),
    ("…", "..."),
    ("≈", "~"),
)


def write_text(text: str, stream: TextIO) -> None:
    """Write a line of text, in ASCII where the terminal's encoding lacks − ▲ ▼ Σ ∂ β → – … ≈
    (anything else it lacks as a backslash escape)."""
    try:
        text.encode(stream.encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        text = ascii_fallback(text)
        for char, stand_in in _ASCII_EXTRA:
            text = text.replace(char, stand_in)
        text = text.encode("ascii", "backslashreplace").decode("ascii")
    stream.write(text + "\n")


class AsciiArgumentParser(OneLineArgumentParser):
    """The one-line parser whose help and errors also fall back to ASCII; a message that quotes
    the user's text (an unrecognised argument, an invalid choice) is escaped, never obeyed."""

    def _print_message(self, message: str, file: TextIO | None = None) -> None:
        if message:
            write_text(visible(message.rstrip("\n"), multiline=True), file or sys.stderr)


def finite_or_none(value):
    """``value`` with NaN and infinities as None (JSON's null), through nested lists."""
    if isinstance(value, list):
        return [finite_or_none(item) for item in value]
    return value if value is not None and math.isfinite(value) else None


#: The progress line is redrawn at most this often (a terminal need not repaint every step).
PROGRESS_INTERVAL_S = 0.1


class ProgressLine:
    """One line on a terminal's stderr, redrawn in place (carriage return) and wiped when done.

    Only when ``stream`` is a terminal: a pipe, a file or a test's capture gets nothing, so
    ``train > out.txt`` and ``train 2> log`` stay clean. Wiped on any exit (Ctrl-C included),
    so the next thing printed never lands on half a progress line.
    """

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream if stream is not None and _is_terminal(stream) else None
        self._shown = 0  # characters on the line now
        self._last = -math.inf

    @property
    def active(self) -> bool:
        return self._stream is not None

    def show(self, text: str, force: bool = False) -> None:
        """Replace the line with ``text`` (cut to the terminal's width; at most every
        PROGRESS_INTERVAL_S unless ``force``)."""
        if self._stream is None:
            return
        now = time.monotonic()
        if not force and now - self._last < PROGRESS_INTERVAL_S:
            return
        self._last = now
        width = max(shutil.get_terminal_size(fallback=(80, 24)).columns - 1, 1)
        text = text[:width]
        pad = " " * max(self._shown - len(text), 0)  # what a longer line left behind
        self._stream.write("\r" + text + pad)
        self._stream.flush()
        self._shown = len(text) + len(pad)

    def clear(self) -> None:
        """Wipe the line and leave the cursor at its start."""
        if self._stream is None or not self._shown:
            return
        try:
            self._stream.write("\r" + " " * self._shown + "\r")
            self._stream.flush()
        except (OSError, ValueError):  # stderr went away: nothing left to wipe
            pass
        self._shown = 0


def _is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (a closed or odd stream is not)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False
