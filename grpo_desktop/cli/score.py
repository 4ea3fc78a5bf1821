"""``grpo-desktop score``: scores a group of rewards in the terminal, with no Qt import.

Practitioners use it to check a trainer's numbers quickly, so it must start fast and must work on
a machine with no display: this module imports only the standard library, numpy and ``core``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

import numpy as np

from grpo_desktop import core
from grpo_desktop.cli.common import (
    OneLineArgumentParser,
    name_and_value,
    parse_number,
    parse_weights,
    shown,
    write_text,
)
from grpo_desktop.core.common.formatting import MINUS, number, signed
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.formulas.advantages import ScoredGroupStats, scored_group_stats
from grpo_desktop.core.formulas.reward_functions import UNSCORED_RULES, combine_rewards


def parse_rewards(tokens: Sequence[str]) -> list[float]:
    """Rewards from ``1 0 0 1`` or ``1,0,0,1`` (or a mix); ValueError names the bad token."""
    rewards: list[float] = []
    for token in tokens:
        for part in token.replace(",", " ").split():
            try:
                rewards.append(parse_number(part))
            except OverflowError:
                raise ValueError(
                    f"reward {shown(part)} is too large: every reward must be a finite number "
                    "within float64's range (±1.8e308)"
                ) from None
            except ValueError:
                raise ValueError(f"reward {shown(part)} is not a number") from None
    return rewards


#: Options of ``score`` that take a value (the next argument is never a reward).
_VALUE_OPTIONS = ("--convention", "-c", "--component", "--weight", "--unscored")

#: Abbreviations that argparse would now find ambiguous (``--component``) but that always meant
#: ``--convention``.
_CONVENTION_ABBREVIATIONS = ("--c", "--co")

#: Spellings of a missing reward in ``--component`` (TRL: the reward function returned None).
_MISSING = ("none", "nan")

#: Below this, six decimals round a non-zero advantage to 0.000000.
_SMALLEST_SIX_DECIMALS = 5e-7


def _is_reward_token(token: str) -> bool:
    """Whether ``token`` reads as rewards (``-1``, ``-1e-3``, ``-1,0,0,1``), not an option."""
    try:
        return bool(parse_rewards([token]))
    except ValueError:
        return False


def _takes_value(token: str) -> bool:
    """``-c``, ``--convention``, ``--component``, ``--weight`` or ``--unscored`` (or an
    abbreviation argparse accepts, ``--conv``, ``--w``) without ``=value``: the next argument is
    the option's value."""
    if "=" in token:
        return False
    return token in _VALUE_OPTIONS or (
        token.startswith("--")
        and len(token) > 2
        and any(option.startswith(token) for option in _VALUE_OPTIONS if option.startswith("--"))
    )


def parse_components(texts: Sequence[str]) -> dict[str, list[float | None]]:
    """``--component`` values (``accuracy=1,0,none,1``) as name -> rewards, None when missing."""
    components: dict[str, list[float | None]] = {}
    for text in texts:
        name, value = name_and_value("component", text, "accuracy=1,0,0,1")
        if name in components:
            raise ValueError(f"component {name!r} is given twice")
        rewards: list[float | None] = []
        for part in value.replace(",", " ").split():
            if part.lower() in _MISSING:
                rewards.append(None)
                continue
            try:
                rewards.append(parse_number(part))
            except OverflowError:
                raise ValueError(
                    f"component {name!r}: reward {shown(part)} is too large: a reward must be "
                    "finite, within float64's range (±1.8e308)"
                ) from None
            except ValueError:
                raise ValueError(
                    f"component {name!r}: reward {shown(part)} is not a number "
                    "(or none for missing)"
                ) from None
        if not rewards:
            raise ValueError(f"component {name!r} has no rewards")
        if components:
            first, first_rewards = next(iter(components.items()))
            if len(rewards) != len(first_rewards):
                raise ValueError(
                    f"component {name!r} has {len(rewards)} rewards but {first!r} has "
                    f"{len(first_rewards)}: every component scores the same answers"
                )
        components[name] = rewards
    return components


def split_rewards_from_options(argv: Sequence[str]) -> list[str]:
    """``argv`` with every reward moved after ``--``, in order, so argparse never mistakes a
    negative reward (``-1e-3``, ``-1,0,0,1``) for an option it does not know."""
    options: list[str] = []
    rewards: list[str] = []
    tokens = list(argv)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        name, equals, value = token.partition("=")
        if name in _CONVENTION_ABBREVIATIONS:  # --c meant --convention before --component existed
            token = f"--convention{equals}{value}"
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
        "rewards",
        nargs="*",
        metavar="REWARD",
        help="the group's rewards, e.g. 1 0 0 1 or 1,0,0,1 (or give --component instead)",
    )
    parser.add_argument(
        "--component",
        action="append",
        default=[],
        metavar="NAME=R1,R2,...",
        help="one reward function's rewards for the group (repeatable), e.g. "
        "accuracy=1,0,0,1; none marks an answer it did not score. The reward of each answer "
        "is the weighted sum of the components, missing ones skipped (TRL's nansum); an answer "
        "no component scored follows --unscored",
    )
    parser.add_argument(
        "--weight",
        action="append",
        default=[],
        metavar="NAME=W",
        help="weight of a component (repeatable; default 1), e.g. format=0.5",
    )
    parser.add_argument(
        "--unscored",
        default="missing",
        choices=tuple(UNSCORED_RULES),
        help="what an answer no component scored (none in every --component) gets: missing "
        "(the default, TRL >= 1.6: no reward, left out of the group's mean and std, advantage 0) "
        "or zero (TRL <= 1.5: nansum gives it reward 0, and it counts in the mean and std)",
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


def stats_as_json(
    stats: core.GroupStats | ScoredGroupStats,
    components: dict[str, list[float | None]] | None = None,
    weights: dict[str, float] | None = None,
    unscored: str = "missing",
) -> str:
    """One JSON object; with components, ``"rewards"`` holds ``null`` for an answer no component
    scored (TRL >= 1.6), and ``"mean"``/``"std"`` are ``null`` where they are undefined."""
    extra: dict[str, object] = {}
    if components is not None:
        extra = {"components": components, "weights": weights or {}, "unscored": unscored}
    rewards = [None if math.isnan(r) else r for r in stats.rewards.tolist()]
    return json.dumps(
        {
            "rewards": rewards,
            "mean": stats.mean,
            "std": stats.std,
            "advantages": stats.advantages.tolist(),
            "pushed_up": stats.pushed_up,
            "pushed_down": stats.pushed_down,
            "degenerate": stats.degenerate,
            "convention": stats.convention,
            **extra,
        },
        allow_nan=False,  # strict JSON: a value that is not finite is an error, never "Infinity"
    )


def advantage_cell(advantage: float) -> str:
    """An advantage with six decimals (+0.866025), and in scientific notation where six decimals
    would show a non-zero advantage as 0.000000 beside "▲ up"."""
    if advantage != 0 and abs(advantage) < _SMALLEST_SIX_DECIMALS:
        sign = "+" if advantage > 0 else MINUS
        return sign + f"{abs(advantage):.6e}".replace("-", MINUS)
    return signed(advantage, 6)


def push_word(advantage: float) -> str:
    if advantage > 0:
        return "▲ up"
    if advantage < 0:
        return "▼ down"
    return "none"


def _component_cell(value: float | None) -> str:
    return "none" if value is None else number(value)


def _weighted_sum_text(weights: dict[str, float]) -> str:
    """``accuracy + 0.5 × format``: the sum each answer's reward is."""
    terms = []
    for position, (name, weight) in enumerate(weights.items()):
        sign = MINUS if weight < 0 else "+"
        size = abs(weight)
        term = name if size == 1 else f"{number(size)} × {name}"
        if position == 0:
            terms.append(term if weight >= 0 else f"{MINUS}{term}")
        else:
            terms.append(f"{sign} {term}")
    return " ".join(terms)


def _reward_cell(reward: float) -> str:
    return "none" if math.isnan(reward) else number(reward)


def _unscored_sentence(unscored: list[str], rule: str) -> str:
    """What the answers no component scored get, and which TRL version does that."""
    them = "it" if len(unscored) == 1 else "them"
    which = f"answer {', '.join(unscored)}: no component scored {them}"
    if rule == "zero":
        return (
            f"{which}, so the reward is 0 and counts in the mean and std\n"
            "(--unscored zero: TRL <= 1.5's nansum; TRL >= 1.6 leaves it out)"
        )
    return (
        f"{which}: no reward, left out of the group's mean and std, advantage 0\n"
        "(TRL >= 1.6; --unscored zero gives TRL <= 1.5's reward 0)"
    )


def _group_line(stats: core.GroupStats | ScoredGroupStats) -> str:
    size = f"G = {stats.group_size}"
    if isinstance(stats, ScoredGroupStats) and stats.scored_count < stats.group_size:
        size += f" ({stats.scored_count} scored)"
    mean = "undefined" if stats.mean is None else number(stats.mean)
    std = "undefined" if stats.std is None else number(stats.std)
    return (
        f"group: {size}, mean = {mean}, std = {std}, "
        f"degenerate = {'yes' if stats.degenerate else 'no'}"
    )


def stats_as_table(
    stats: core.GroupStats | ScoredGroupStats,
    components: dict[str, list[float | None]] | None = None,
    weights: dict[str, float] | None = None,
    unscored_rule: str = "missing",
) -> str:
    convention = core.get_convention(stats.convention)
    components = components or {}
    widths = {name: max(8, len(name)) for name in components}
    header = "".join(f"  {name:>{widths[name]}}" for name in components)
    lines = [f"{'#':>3}{header}  {'reward':>8}  {'advantage':>11}  push"]
    for index, (reward, advantage) in enumerate(zip(stats.rewards, stats.advantages), start=1):
        cells = "".join(
            f"  {_component_cell(values[index - 1]):>{widths[name]}}"
            for name, values in components.items()
        )
        lines.append(
            f"{index:>3}{cells}  {_reward_cell(reward):>8}  {advantage_cell(advantage):>11}  "
            f"{push_word(advantage)}"
        )
    lines.append("")
    if components:
        weights = weights or {}
        lines.append("weights: " + ", ".join(f"{name} {number(w)}" for name, w in weights.items()))
        lines.append(
            f"reward = {_weighted_sum_text(weights)}; a none is skipped (TRL's weighted nansum)"
        )
        unscored = [
            str(index)
            for index in range(1, stats.group_size + 1)
            if all(values[index - 1] is None for values in components.values())
        ]
        if unscored:
            lines.append(_unscored_sentence(unscored, unscored_rule))
    lines.append(_group_line(stats))
    lines.append(
        f"pushed up {stats.pushed_up}, pushed down {stats.pushed_down}, no signal {stats.no_signal}"
    )
    lines.append(f"convention: {convention.name}: {convention.formula} ({convention.source})")
    if stats.degenerate and stats.pushed_up == stats.pushed_down == 0:
        lines.append(_degenerate_sentence(stats))
    return "\n".join(lines)


def _degenerate_sentence(stats: core.GroupStats | ScoredGroupStats) -> str:
    """Why a degenerate group teaches nothing, in the terms of its own convention."""
    if isinstance(stats, ScoredGroupStats):
        if stats.scored_count == 0:
            return "No answer has a reward: every advantage is 0 and this group teaches nothing."
        if stats.stats is None:  # one scored answer under TRL's conventions
            return (
                "One answer has a reward: TRL's std of one value is undefined (NaN), so every "
                "advantage is 0 and this group teaches nothing."
            )
        stats = stats.stats
    if stats.convention == "verl" and stats.group_size == 1:
        return (
            "verl gives a lone answer mean 0 and std 1, so it is pushed by its own reward; "
            "a reward of 0 is no signal and this group teaches nothing."
        )
    return "All rewards are equal: every advantage is 0 and this group teaches nothing."


def run_score(argv: Sequence[str]) -> int:
    """Entry point of ``grpo-desktop score``; returns the process exit status."""
    parser = build_score_parser()
    args = parser.parse_args(split_rewards_from_options(argv))
    if args.rewards and args.component:
        parser.error("give either plain rewards or --component NAME=..., not both")
    if not args.rewards and not args.component:
        parser.error("the following arguments are required: REWARD (or --component NAME=...)")
    if args.weight and not args.component:
        parser.error("--weight applies to --component rewards; plain rewards have no weights")
    if args.unscored != "missing" and not args.component:
        parser.error("--unscored applies to --component rewards; a plain reward is always scored")
    try:
        if args.component:
            components = parse_components(args.component)
            given = parse_weights(args.weight)
            combined = combine_rewards(components, given, unscored=args.unscored)
            weights = {name: given.get(name, 1.0) for name in components}
            scored: core.GroupStats | ScoredGroupStats
            if np.isnan(combined).any():  # --unscored missing, and an answer no component scored
                scored = scored_group_stats(combined, args.convention)
            else:
                scored = core.group_stats(combined, args.convention)
            if args.json:
                text = stats_as_json(scored, components, weights, args.unscored)
            else:
                text = stats_as_table(scored, components, weights, args.unscored)
        else:
            rewards = parse_rewards(args.rewards)
            stats = core.group_stats(rewards, args.convention)
            text = stats_as_json(stats) if args.json else stats_as_table(stats)
    except (TypeError, ValueError) as error:
        write_text(f"{parser.prog}: error: {visible(error)}", sys.stderr)
        return 2
    write_text(text, sys.stdout)
    return 0
