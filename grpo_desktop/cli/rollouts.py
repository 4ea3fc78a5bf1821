"""``grpo-desktop rollouts PATH``: a real run's groups, step by step, in the terminal.

PATH is a verl rollout dump (``{step}.jsonl``, or the ``trainer.rollout_data_dir`` folder) or TRL's
``completions_*.parquet`` (or the folder, or the run's output folder holding ``completions/``).
For each step it prints the groups (prompt, size, mean reward, degenerate or not), the fraction of
degenerate groups ("unknown", ``null`` in ``--json``, where the file cannot tell) and, for TRL
files, which advantage convention reproduces the logged advantages. The prompt column shows the
part of each prompt that differs: a beginning every prompt shares (a system prompt, a chat
template) is said once above the table.

Like ``score`` and ``loss`` it works with no display: only the standard library, numpy, ``core``
and the Qt-free ``cli`` helpers, never Qt. Errors are one line on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from grpo_desktop.cli.common import OneLineArgumentParser, finite_or_none, write_text
from grpo_desktop.core.common.formatting import number
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.runs.rollout_checks import TRL_SETTINGS
from grpo_desktop.core.runs.rollout_text import shared_prefix
from grpo_desktop.core.runs.rollouts import RolloutSource, StepSummary, open_rollouts

PROG = "grpo-desktop rollouts"
PROMPT_WIDTH = 60  # characters of a prompt in the table


def build_rollouts_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = OneLineArgumentParser(
        prog=prog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Summarise a real run's rollouts, group by group: verl's {step}.jsonl dumps\n"
            "(trainer.rollout_data_dir) or TRL's completions_*.parquet (log_completions=True)."
        ),
        epilog=(
            "A group is the answers to one prompt drawn once: verl's answers sharing an input\n"
            "(a prompt drawn twice cannot be split: its step's degenerate fraction may be\n"
            "unknown), TRL's num_generations consecutive rows. For TRL files the logged\n"
            "advantages are recomputed under every convention (the reward functions' columns\n"
            "summed with weight 1, NaN skipped, log_extra columns left out; an answer no\n"
            "function scored left out as TRL >= 1.6 does, or 0 as TRL <= 1.5 did) and the one\n"
            "that reproduces them is named.\n"
            'Parquet files need pyarrow: pip install "grpo-desktop[rollouts]".'
        ),
    )
    parser.add_argument("path", metavar="PATH", help="a rollout file, or a folder of them")
    parser.add_argument("--step", type=int, metavar="N", help="only step N")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a table"
    )
    return parser


def summary_as_json(source: RolloutSource, steps: Sequence[StepSummary]) -> str:
    entries: list[dict[str, Any]] = []
    for step in steps:
        entries.append(
            {
                "step": step.step,
                "groups": [
                    {
                        "prompt": group.prompt,
                        "size": group.size,
                        "mean": finite_or_none(group.mean),
                        "degenerate": group.degenerate,
                    }
                    for group in step.groups
                ],
                "degenerate_fraction": step.degenerate_fraction,
                "convention_match": step.convention_match,
                "max_abs_diff": finite_or_none(step.max_abs_diff),
            }
        )
    return json.dumps({"format": source.format, "steps": entries}, allow_nan=False)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _prompt_cell(prompt: str, prefix: str = "") -> str:
    """The prompt on one line without the ``prefix`` every prompt shares, cut to PROMPT_WIDTH:
    whitespace runs (newlines too) become one space, and what could drive the terminal or
    reorder the line (ESC, U+202E, zero-width characters) is written as an escape."""
    text = _one_line(prompt)
    if prefix:
        text = "… " + text[len(prefix) :]
    text = visible(text)
    return text if len(text) <= PROMPT_WIDTH else text[: PROMPT_WIDTH - 1] + "…"


def _percent(fraction: float | None) -> str:
    return "unknown" if fraction is None else f"{100 * fraction:.0f} %"


def _convention(name: str) -> str:
    setting = TRL_SETTINGS.get(name)
    return f"the {name} convention, {setting}" if setting else f"the {name} convention"


def _advantage_line(step: StepSummary) -> str | None:
    if step.max_abs_diff is None:
        return None
    if step.convention_match is not None:
        return (
            f"  logged advantages: {_convention(step.convention_match)} "
            f"(max |difference| {step.max_abs_diff:.2g})"
        )
    return (
        "  logged advantages: no convention reproduces them "
        f"(closest max |difference| {step.max_abs_diff:.3g})"
    )


def summary_as_table(source: RolloutSource, steps: Sequence[StepSummary]) -> str:
    name = "verl" if source.format == "verl" else "TRL"
    total = len(source.steps)
    where = visible(source.path.name or str(source.path))
    lines = [f"{where}: {name} rollouts, {total} step{'s' * (total != 1)}"]
    for step in steps:
        low, q1, median, q3, high = step.reward_quantiles
        lines.append("")
        lines.append(
            f"step {step.step} ({visible(step.source)}): {len(step.groups)} groups, "
            f"{step.answers} answers, "
            f"{_percent(step.degenerate_fraction)} degenerate"
        )
        prefix = shared_prefix([_one_line(group.prompt) for group in step.groups])
        lines.append(
            f"  rewards: min {number(low)}, quartiles {number(q1)} / {number(median)} / "
            f"{number(q3)}, max {number(high)}"
        )
        advantage = _advantage_line(step)
        if advantage:
            lines.append(advantage)
        if prefix:
            start = visible(prefix.strip())
            start = start if len(start) <= PROMPT_WIDTH else start[: PROMPT_WIDTH - 1] + "…"
            lines.append(f"  every prompt starts with: {start} (left out below)")
        lines.append(f"  {'#':>4}  {'size':>4}  {'mean':>8}  {'degenerate':<10}  prompt")
        for i, group in enumerate(step.groups, start=1):
            lines.append(
                f"  {i:>4}  {group.size:>4}  {number(group.mean, 4):>8}  "
                f"{'yes' if group.degenerate else '':<10}  {_prompt_cell(group.prompt, prefix)}"
            )
        lines.extend(f"  problem: {visible(problem)}" for problem in step.problems)
        lines.extend(f"  note: {visible(note)}" for note in step.notes)
    return "\n".join(lines)


def run_rollouts(argv: Sequence[str]) -> int:
    """Entry point of ``grpo-desktop rollouts``; returns the process exit status."""
    parser = build_rollouts_parser()
    args = parser.parse_args(list(argv))
    try:
        source = open_rollouts(args.path)
        steps = source.steps if args.step is None else (source.step(args.step),)
        text = summary_as_json(source, steps) if args.json else summary_as_table(source, steps)
    except ValueError as error:
        write_text(f"{parser.prog}: error: {visible(error)}", sys.stderr)
        return 2
    if args.json:  # the JSON keeps its exact shape; what could not be checked goes to stderr
        for step in steps:
            for problem in step.problems:
                write_text(f"{parser.prog}: warning: {visible(problem)}", sys.stderr)
            for note in step.notes:
                write_text(f"{parser.prog}: note: {visible(note)}", sys.stderr)
    write_text(text, sys.stdout)
    return 0
