"""``grpo-desktop step``: one GRPO step on a group, each answer's probability before and after.

The Lab's "Take one step" in the terminal, with no Qt: the toy policy (a softmax over the
problem's written answers, as the Training run's toy), the group's advantages under a
convention, one gradient step of a loss preset at a stated learning rate
(:func:`grpo_desktop.core.training.one_step.toy_one_step`).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence

from grpo_desktop.cli.common import AsciiArgumentParser, parse_number, shown, write_text
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.formulas.advantages import DEFAULT_CONVENTION, convention_names
from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS
from grpo_desktop.core.lab.lab_limits import check_group_size
from grpo_desktop.core.lab.problems import DEFAULT_PROBLEM_ID, get_problem
from grpo_desktop.core.training.one_step import DEFAULT_STEP_LR, OneStep, toy_one_step

PROG = "grpo-desktop step"
DEFAULT_REWARDS = "1,0,0,1"


def build_step_parser() -> AsciiArgumentParser:
    parser = AsciiArgumentParser(
        prog=PROG,
        description=(
            "One GRPO step on a group of answers to a shipped problem: each answer's probability "
            "under the toy policy (a softmax over the problem's written answers) before and "
            "after one gradient step of the loss. Answers above the group's mean become more "
            "likely, those below less."
        ),
    )
    parser.add_argument("--problem", default=DEFAULT_PROBLEM_ID, help="a shipped problem's id")
    parser.add_argument(
        "--rewards",
        default=DEFAULT_REWARDS,
        help="one 0 or 1 per answer, comma-separated: 1 is the trace's right version, 0 its "
        f"wrong one (default {DEFAULT_REWARDS})",
    )
    parser.add_argument(
        "--convention", default=DEFAULT_CONVENTION, choices=convention_names(), metavar="NAME"
    )
    parser.add_argument(
        "--preset", default="verl/token-mean", choices=tuple(LOSS_PRESETS), metavar="NAME"
    )
    parser.add_argument(
        "--lr",
        default=str(DEFAULT_STEP_LR),
        help=f"the step's learning rate on the toy's logits (default {DEFAULT_STEP_LR:g}, the "
        "Training run's)",
    )
    parser.add_argument("--json", action="store_true", help="print the step as JSON")
    return parser


def parse_flags(text: str) -> list[bool]:
    """``1,0,0,1`` as right/wrong flags; ValueError naming a token that is not 0 or 1."""
    flags = []
    for token in text.replace(",", " ").split():
        try:
            value = parse_number(token)
        except (ValueError, OverflowError):
            raise ValueError(f"reward {shown(token)} is not a number") from None
        if value not in (0.0, 1.0):
            raise ValueError(
                f"reward {shown(token)} must be 0 or 1 (the answer is a trace's wrong or right "
                "version)"
            )
        flags.append(value == 1.0)
    check_group_size(len(flags))
    return flags


def step_as_table(step: OneStep, problem_title: str) -> str:
    lines = [
        f"problem: {visible(problem_title)}",
        f"one step of {step.preset} at learning rate {step.lr:g}, advantages under "
        f"{step.convention}; toy policy (a softmax over the problem's written answers)",
        "    #  reward  advantage  p before  p after  next time",
    ]
    for answer in step.answers:
        lines.append(
            f"{answer.index + 1:5d}  {answer.reward:6g}  {answer.advantage:+9.3f}  "
            f"{answer.p_before:8.4f}  {answer.p_after:7.4f}  {answer.change}"
        )
    return "\n".join(lines)


def run_step(argv: Sequence[str]) -> int:
    """Entry point of ``grpo-desktop step``; returns the process exit status."""
    parser = build_step_parser()
    args = parser.parse_args(list(argv))
    try:
        problem = get_problem(args.problem)
        flags = parse_flags(args.rewards)
        try:
            lr = parse_number(args.lr)
        except (ValueError, OverflowError):
            raise ValueError(f"--lr {shown(args.lr)} is not a number") from None
        if not math.isfinite(lr) or lr < 0:
            raise ValueError(f"--lr must be a finite number ≥ 0; got {shown(args.lr)}")
        step = toy_one_step(
            problem,
            flags,
            [float(flag) for flag in flags],
            convention=args.convention,
            preset=args.preset,
            lr=lr,
        )
    except ValueError as error:
        write_text(f"{PROG}: error: {visible(str(error))}", sys.stderr)
        return 2
    if args.json:
        write_text(json.dumps(step.as_dict(), allow_nan=False), sys.stdout)
    else:
        write_text(step_as_table(step, problem.title), sys.stdout)
    return 0
