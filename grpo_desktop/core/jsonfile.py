"""Reading the app's small JSON files (problems, lessons) safely, with errors a person reads.

Shared by ``problems`` and ``lessons``: the same size cap, encoding, duplicate-key and syntax
checks, each failing with one sentence that names the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # importlib.resources.abc is 3.11+; 3.10 spells it importlib.abc
    from importlib.resources.abc import Traversable


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
