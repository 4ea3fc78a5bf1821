"""How a run's logged prompts and completions read as text: chat turns, and the part that differs.

TRL logs conversational prompts and completions as lists of messages (``{role, content}``, an
assistant turn may carry ``tool_calls`` instead of content): since its "Show conversations (not
decoded text) in the completions table" change the completions table holds ``prompts`` and
``completions`` themselves, not ``batch_decode(...)`` text. A conversation is shown as one line
per turn, ``role: content``, plain text — never as raw JSON.

:func:`shared_prefix` finds the beginning every prompt shares (a chat template or a system
prompt), so a list of groups can show the part that tells them apart (the CLI's table and the
GUI browser both use it).

Pure Python; no Qt.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

__all__ = ["MIN_SHARED_PREFIX", "chat_text", "is_chat", "logged_text", "shared_prefix"]

#: A shared beginning shorter than this is left in place (it is not a template worth hiding).
MIN_SHARED_PREFIX = 12


def is_chat(value: object) -> bool:
    """Whether a logged value is a conversation: a list of messages, each a mapping."""
    return (
        isinstance(value, (list, tuple))
        and bool(value)
        and all(isinstance(message, Mapping) for message in value)
    )


def _arguments(raw: object) -> str:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):
            return raw
    if isinstance(raw, Mapping):
        return ", ".join(f"{key}={value!r}" for key, value in raw.items() if value is not None)
    return "" if raw is None else str(raw)


def _tool_call(call: object) -> str:
    """``name(key=value, …)``, as TRL's own completions printout writes a tool call."""
    if not isinstance(call, Mapping):
        return str(call)
    function = call.get("function")
    if not isinstance(function, Mapping):
        function = call
    return f"{function.get('name') or '?'}({_arguments(function.get('arguments'))})"


def chat_text(messages: Sequence[Mapping[str, object]]) -> str:
    """A conversation as plain text, one turn per line: ``role: content``.

    A turn's tool calls follow its content as ``name(arguments)``; a line break inside a turn's
    content stays (the cards show it); nothing is interpreted as markup."""
    lines = []
    for message in messages:
        role = message.get("role")
        role_text = str(role) if role not in (None, "") else "?"
        parts: list[str] = []
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif is_chat(content):  # content as a list of parts ({type: text, text: ...})
            parts.extend(str(part.get("text")) for part in content if part.get("text") is not None)
        elif content is not None:
            parts.append(str(content))
        calls = message.get("tool_calls")
        if isinstance(calls, (list, tuple)):
            parts.extend(_tool_call(call) for call in calls)
        lines.append(f"{role_text}: {' '.join(part for part in parts if part)}".rstrip())
    return "\n".join(lines)


def logged_text(value: object) -> str:
    """A logged prompt or completion as text: text as it is, a conversation as its turns,
    anything else as JSON (a fallback for shapes no library writes)."""
    if isinstance(value, str):
        return value
    if is_chat(value):
        return chat_text(value)  # type: ignore[arg-type]
    return json.dumps(value, ensure_ascii=False, default=str)


def shared_prefix(prompts: Sequence[str]) -> str:
    """The beginning every prompt shares (a chat template, a system prompt), cut at a space.

    Empty when there is one prompt, when the shared part is short, or when removing it would
    leave a prompt with nothing to read: then the prompts are shown whole.
    """
    if len(prompts) < 2:
        return ""
    low, high = min(prompts), max(prompts)  # what these two share, every prompt shares
    shared = 0
    while shared < len(low) and low[shared] == high[shared]:
        shared += 1
    prefix = low[:shared]
    if len(prefix) < MIN_SHARED_PREFIX:
        return ""
    if any(len(prompt) == len(prefix) for prompt in prompts):
        cut = prefix.rfind(" ")  # one prompt is all prefix: keep its last word visible
        prefix = prefix[: cut + 1] if cut > 0 else ""
    if len(prefix) < MIN_SHARED_PREFIX or any(not p[len(prefix) :].strip() for p in prompts):
        return ""
    return prefix
