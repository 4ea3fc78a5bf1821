"""The lab's group as a table a lecturer can open in a spreadsheet, and export file names.

Pure Python (no Qt): ``export_actions`` renders images with Qt; this module only turns a
``LabSnapshot`` into CSV text and picks default file names, so both are easy to test.

CSV choices:

- One row per card; ``index`` is 1-based, as the cards are labelled on screen.
- The trace keeps its line breaks inside one quoted field (the ``csv`` module quotes it).
- Numbers are written with full float precision (``repr``) and the ASCII minus sign, so a
  spreadsheet or ``float()`` reads them back exactly; the on-screen ``−`` (U+2212) is not a number
  to a spreadsheet.
- ``r_minus_mean`` (the advantage before any scaling) sits between ``reward`` and ``advantage``.
- Text cells that a spreadsheet would run as a formula (``=…``, ``+…``, ``@…``, or ``-`` followed
  by something that is not a number) get a leading apostrophe, the OWASP advice against CSV
  injection: problem files are shared between lecturers.
- ``group_csv_bytes`` is UTF-8 *with* a byte order mark. Excel reads a BOM-less CSV in the
  system's legacy code page, so the traces' ``×`` and ``−`` would turn into mojibake; with the BOM
  Excel, LibreOffice and Numbers all read UTF-8, and Python reads it with ``encoding="utf-8-sig"``.
"""

from __future__ import annotations

import csv
import io
import re

from grpo_desktop.core.lab.lab_snapshot import LabSnapshot

__all__ = [
    "CSV_COLUMNS",
    "default_file_stem",
    "group_csv",
    "group_csv_bytes",
]

CSV_COLUMNS = (
    "index",
    "trace",
    "final_answer",
    "reward",
    "r_minus_mean",
    "advantage",
    "convention",
)
UTF8_BOM = "\ufeff"
MAX_REWARDS_IN_NAME = 16  # beyond this the name says "G64" instead of listing every reward

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def _spreadsheet_safe(text: str) -> str:
    """``text``, with a leading apostrophe if a spreadsheet would otherwise run it as a formula."""
    if text.startswith(_FORMULA_STARTS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _reward_text(reward: float) -> str:
    """A whole reward as ``1`` (the checker's verdicts stay 0 and 1), any other exactly."""
    return str(int(reward)) if reward.is_integer() else repr(reward)


def group_csv(snapshot: LabSnapshot) -> str:
    """The group as CSV text: a header row, then one row per card (see the module notes)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    convention = snapshot.convention.name
    for card in snapshot.cards:
        writer.writerow(
            (
                card.index + 1,
                _spreadsheet_safe(card.text),
                _spreadsheet_safe(card.final_answer or ""),
                _reward_text(card.reward),
                repr(float(card.centered)),
                repr(float(card.advantage)),
                convention,
            )
        )
    return buffer.getvalue()


def group_csv_bytes(snapshot: LabSnapshot) -> bytes:
    """``group_csv`` as UTF-8 with a byte order mark, so Excel shows ``×`` and ``−`` correctly."""
    return (UTF8_BOM + group_csv(snapshot)).encode("utf-8")


def default_file_stem(snapshot: LabSnapshot) -> str:
    """A file name (no suffix) that says what was exported: ``grpo-mult-23x47-1001``.

    The rewards are listed for groups of up to 16; a larger group is named by its size
    (``grpo-mult-23x47-G64``). A convention other than the textbook's is named too
    (``grpo-mult-23x47-1001-trl``). Only ASCII letters, digits, ``.``, ``_`` and ``-`` are kept.
    """
    rewards = snapshot.rewards
    if len(rewards) <= MAX_REWARDS_IN_NAME and snapshot.binary:
        group = "".join(str(int(r)) for r in rewards)
    else:
        group = f"G{len(rewards)}"
    problem = _UNSAFE_NAME.sub("-", snapshot.problem.id).strip("-") or "group"
    convention = snapshot.convention.name
    suffix = "" if convention == "textbook" else "-" + _UNSAFE_NAME.sub("-", convention)
    return f"grpo-{problem}-{group}{suffix}"
