"""``grpo-desktop score``: scores a group of rewards in the terminal, with no Qt import.

Practitioners use it to check a trainer's numbers quickly, so it must start fast and must work on
a machine with no display: this module imports only the standard library, numpy and ``core``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO

from grpo_desktop import core
from grpo_desktop.core.formatting import ascii_fallback, number, signed


class OneLineArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one readable line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parse_rewards(tokens: Sequence[str]) -> list[float]:
    """Rewards from ``1 0 0 1`` or ``1,0,0,1`` (or a mix); ValueError names the bad token."""
    rewards: list[float] = []
    for token in tokens:
        for part in token.replace(",", " ").split():
            try:
                rewards.append(float(part.replace("\u2212", "-")))
            except ValueError:
                raise ValueError(f"reward {part!r} is not a number") from None
    return rewards


#: Options of ``score`` that take a value (the next argument is never a reward).
_VALUE_OPTIONS = ("--convention", "-c")


def _is_reward_token(token: str) -> bool:
    """Whether ``token`` reads as rewards (``-1``, ``-1e-3``, ``-1,0,0,1``), not an option."""
    try:
        return bool(parse_rewards([token]))
    except ValueError:
        return False


def _takes_value(token: str) -> bool:
    """``-c`` or ``--convention`` (or an abbreviation argparse accepts, ``--conv``) without
    ``=value``: the next argument is the option's value."""
    if "=" in token:
        return False
    return token in _VALUE_OPTIONS or (len(token) > 2 and _VALUE_OPTIONS[0].startswith(token))


def split_rewards_from_options(argv: Sequence[str]) -> list[str]:
    """``argv`` with every reward moved after ``--``, in order, so argparse never mistakes a
    negative reward (``-1e-3``, ``-1,0,0,1``) for an option it does not know."""
    options: list[str] = []
    rewards: list[str] = []
    tokens = list(argv)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "--":
            rewards.extend(tokens[index + 1 :])
            break
        if token.startswith("-") and not _is_reward_token(token):
            options.append(token)
            if _takes_value(token) and index + 1 < len(tokens):
                options.append(tokens[index + 1])
                index += 1
        else:
            rewards.append(token)
        index += 1
    return [*options, "--", *rewards] if rewards else options


def build_score_parser(prog: str = "grpo-desktop score") -> argparse.ArgumentParser:
    parser = OneLineArgumentParser(
        prog=prog,
        description="Score one group of rewards as GRPO does and print each answer's advantage.",
        epilog="Conventions: "
        + "; ".join(f"{c.name}: {c.formula} ({c.source})" for c in core.CONVENTIONS.values()),
    )
    parser.add_argument(
        "rewards", nargs="+", metavar="REWARD", help="the group's rewards, e.g. 1 0 0 1 or 1,0,0,1"
    )
    parser.add_argument(
        "--convention",
        "-c",
        default=core.DEFAULT_CONVENTION,
        choices=core.convention_names(),
        metavar="NAME",
        help="how advantages are computed: "
        + ", ".join(core.convention_names())
        + f" (default: {core.DEFAULT_CONVENTION})",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a table"
    )
    return parser


def stats_as_json(stats: core.GroupStats) -> str:
    return json.dumps(
        {
            "rewards": stats.rewards.tolist(),
            "mean": stats.mean,
            "std": stats.std,
            "advantages": stats.advantages.tolist(),
            "pushed_up": stats.pushed_up,
            "pushed_down": stats.pushed_down,
            "degenerate": stats.degenerate,
            "convention": stats.convention,
        },
        allow_nan=False,  # strict JSON: a value that is not finite is an error, never "Infinity"
    )


def push_word(advantage: float) -> str:
    if advantage > 0:
        return "▲ up"
    if advantage < 0:
        return "▼ down"
    return "none"


def stats_as_table(stats: core.GroupStats) -> str:
    convention = core.get_convention(stats.convention)
    lines = [f"{'#':>3}  {'reward':>8}  {'advantage':>11}  push"]
    for index, (reward, advantage) in enumerate(zip(stats.rewards, stats.advantages), start=1):
        lines.append(
            f"{index:>3}  {number(reward):>8}  {signed(advantage, 6):>11}  {push_word(advantage)}"
        )
    lines.append("")
    lines.append(
        f"group: G = {stats.group_size}, mean = {number(stats.mean)}, std = {number(stats.std)}, "
        f"degenerate = {'yes' if stats.degenerate else 'no'}"
    )
    lines.append(
        f"pushed up {stats.pushed_up}, pushed down {stats.pushed_down}, no signal {stats.no_signal}"
    )
    lines.append(f"convention: {convention.name}: {convention.formula} ({convention.source})")
    if stats.degenerate and stats.pushed_up == stats.pushed_down == 0:
        lines.append("All rewards are equal: every advantage is 0 and this group teaches nothing.")
    return "\n".join(lines)


def write_text(text: str, stream: TextIO) -> None:
    """Write text, falling back to ASCII where the terminal's encoding lacks − ▲ ▼."""
    try:
        text.encode(stream.encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        text = ascii_fallback(text)
    stream.write(text + "\n")


def run_score(argv: Sequence[str]) -> int:
    """Entry point of ``grpo-desktop score``; returns the process exit status."""
    parser = build_score_parser()
    args = parser.parse_args(split_rewards_from_options(argv))
    try:
        rewards = parse_rewards(args.rewards)
        stats = core.group_stats(rewards, args.convention)
        text = stats_as_json(stats) if args.json else stats_as_table(stats)
    except ValueError as error:
        write_text(f"{parser.prog}: error: {error}", sys.stderr)
        return 2
    write_text(text, sys.stdout)
    return 0
