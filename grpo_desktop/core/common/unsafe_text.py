"""Characters that make text read differently from what it is, found and made visible.

Control characters (C0, DEL, C1) drive a terminal (ESC colours, OSC titles and hyperlinks);
bidirectional overrides, isolates and marks reorder what follows (U+202E shows "evil.exe" as
"exe.live"); zero-width characters and line separators hide or break text. Files we read refuse
them in titles, prompts and traces (:func:`unsafe_character`); text from outside that we only
show — a column name, a path, a reward function's name — goes out through :func:`visible`, which
spells each one as an escape instead.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["unsafe_character", "visible"]

_INVISIBLE = "\u061c\u200b\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff"
_UNSAFE_ONE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_INVISIBLE}]")
_UNSAFE_MULTILINE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}]")
_SPELLED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def unsafe_character(text: str, multiline: bool = False) -> str | None:
    """The first control or bidi character in ``text``, described for a message
    (``"U+202E (RIGHT-TO-LEFT OVERRIDE)"``), or ``None``. ``multiline`` text may hold
    newlines and tabs."""
    match = (_UNSAFE_MULTILINE if multiline else _UNSAFE_ONE_LINE).search(text)
    if match is None:
        return None
    char = match.group(0)
    name = unicodedata.name(char, "")
    if not name:
        name = {"\n": "a line break", "\t": "a tab", "\r": "a carriage return"}.get(
            char, "a control character"
        )
    return f"U+{ord(char):04X} ({name})"


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _SPELLED:
        return _SPELLED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: object, multiline: bool = False) -> str:
    """``text`` as a terminal or a label can show it safely: every control, bidi and zero-width
    character written as a Python-style escape (``\\x1b``, ``\\u202e``, ``\\n``). ``multiline``
    keeps newlines and tabs. Anything that is not a string is shown with ``str()`` first."""
    pattern = _UNSAFE_MULTILINE if multiline else _UNSAFE_ONE_LINE
    return pattern.sub(_escape, str(text))
