"""Reading the app's small JSON files (problems, lessons) safely, with errors a person reads.

Shared by ``problems`` and ``lessons``: the same size cap, encoding, duplicate-key and syntax
checks, each failing with one sentence that names the file, and the two error classes their own
errors derive from (:class:`ResourceFileError`, :class:`UnknownResourceError`), so a message about
a problem file and one about a lesson file read alike.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from grpo_desktop.core.common.unsafe_text import unsafe_character, visible

if TYPE_CHECKING:  # importlib.resources.abc is 3.11+; 3.10 spells it importlib.abc
    from importlib.resources.abc import Traversable

__all__ = [
    "NotARegularFileError",
    "ResourceFileError",
    "UnknownResourceError",
    "check_regular_file",
    "json_type_name",
    "kind_of_file",
    "read_json_file",
    "read_regular_file",
    "unsafe_character",
    "unsafe_character_problem",
]

_Error = TypeVar("_Error", bound="ResourceFileError")
_Unknown = TypeVar("_Unknown", bound="UnknownResourceError")


class ResourceFileError(ValueError):
    """A shipped file (a problem, a lesson) or an id is unusable; the message names the file and
    the field, so a broken file fails at load time with one sentence rather than on stage."""

    @classmethod
    def for_field(cls: type[_Error], source: str, field: str, problem: str) -> _Error:
        """``"<source>: field '<field>' <problem>"``, the one shape of a bad-field message."""
        return cls(f"{source}: field '{field}' {problem}")


class UnknownResourceError(ResourceFileError, KeyError):
    """No shipped resource has this id (also a ``KeyError``, for dict-like callers)."""

    def __str__(self) -> str:  # KeyError would repr() the message; keep it readable
        return str(self.args[0]) if self.args else ""

    @classmethod
    def for_id(
        cls: type[_Unknown], kind: str, resource_id: str, valid_ids: Iterable[str]
    ) -> _Unknown:
        """``"unknown <kind> id '<id>'; valid ids: a, b"``: the fix is in the message."""
        return cls(f"unknown {kind} id {resource_id!r}; valid ids: {', '.join(valid_ids)}")


class NotARegularFileError(OSError):
    """The path names a folder, a named pipe (FIFO), a device or a socket, not a file: reading
    it could block forever (a FIFO) or never end (``/dev/zero``), so it is refused unread."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"it is {kind}, not a regular file")
        self.kind = kind


def kind_of_file(mode: int) -> str:
    """What a path that is not a regular file is, in words, for a message."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_regular_file(path: str | os.PathLike[str]) -> os.stat_result:
    """``os.stat`` of ``path`` (through symlinks); :class:`NotARegularFileError` unless it is a
    regular file. Any other ``OSError`` (missing, a symlink loop, no permission) passes through."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotARegularFileError(kind_of_file(info.st_mode))
    return info


def read_regular_file(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """At most ``max_bytes + 1`` bytes of ``path`` (so the caller sees "too large"), read only
    if it is a regular file: never blocks on a FIFO, even one swapped in after the check."""
    check_regular_file(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags)  # O_NONBLOCK: opening a FIFO does not wait for a writer
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFileError(kind_of_file(info.st_mode))
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(descriptor, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def unsafe_character_problem(text: str, multiline: bool = False) -> str | None:
    """``"contains U+202E (RIGHT-TO-LEFT OVERRIDE); …"`` for a field message, or ``None``."""
    found = unsafe_character(text, multiline)
    if found is None:
        return None
    return f"contains the control character {found}, which can disguise text; remove it"


def _too_many_digits(text: str, error: ValueError) -> str:
    """Where the integer longer than Python converts (``sys.set_int_max_str_digits``, 4,300
    digits by default) is, for json's own message, which names neither the file nor the place."""
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if not limit or "digits" not in str(error):
        return f"cannot read a number in the file ({error})"
    match = re.search(rf"(?<!\d)-?\d{{{limit + 1},}}", text)  # from a run's first digit
    if match is None:
        return f"an integer has more than {limit:,} digits, far beyond a float64 (1.8e308)"
    start = match.start()
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    digits = len(match.group().lstrip("-"))
    return (
        f"line {line} column {column}: an integer of {digits:,} digits, far beyond what a "
        "float64 holds (1.8e308)"
    )


def json_type_name(value: object) -> str:
    """How a JSON value's type reads in an error message ("a list", "null", …)."""
    return {
        type(None): "null",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def read_json_file(
    path: str | os.PathLike[str] | Traversable, error: type[ValueError], max_bytes: int
) -> tuple[Any, str]:
    """The parsed JSON and the file's name; ``error("<name>: <reason>")`` for any failure."""
    file: Path | Traversable = Path(path) if isinstance(path, (str, os.PathLike)) else path
    source = visible(file.name)  # it reaches messages: a terminal must not obey its ESC codes
    try:
        if isinstance(file, Path):
            raw = read_regular_file(file, max_bytes)
        else:  # a packaged resource (maybe inside a zip): not a path the OS can stat
            with file.open("rb") as handle:
                raw = handle.read(max_bytes + 1)
    except NotARegularFileError as exc:
        raise error(f"{source}: cannot read the file ({exc})") from exc
    except OSError as exc:
        raise error(f"{source}: cannot read the file ({exc.strerror or exc})") from exc
    if len(raw) > max_bytes:
        raise error(f"{source}: the file is larger than {max_bytes:,} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{source}: the file is not UTF-8 text ({exc.reason})") from exc

    def reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise error(f"{source}: field '{key}' appears twice")
            result[key] = value
        return result

    try:
        data = json.loads(text, object_pairs_hook=reject_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise error(
            f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    except RecursionError:
        raise error(f"{source}: the JSON is nested too deeply") from None
    except ValueError as exc:
        if isinstance(exc, error):
            raise
        # json's plain ValueError for an integer past Python's digit limit names no place
        raise error(f"{source}: {_too_many_digits(text, exc)}") from None
    return data, source
