"""Reading the app's small JSON files (problems, lessons) safely, with errors a person reads.

Shared by ``problems`` and ``lessons``: the same size cap, encoding, duplicate-key and syntax
checks, each failing with one sentence that names the file, and the two error classes their own
errors derive from (:class:`ResourceFileError`, :class:`UnknownResourceError`), so a message about
a problem file and one about a lesson file read alike.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # importlib.resources.abc is 3.11+; 3.10 spells it importlib.abc
    from importlib.resources.abc import Traversable

__all__ = [
    "ResourceFileError",
    "UnknownResourceError",
    "json_type_name",
    "read_json_file",
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
    source = file.name
    try:
        with file.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
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
    return data, source
