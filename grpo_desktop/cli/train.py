"""``grpo-desktop train``: the toy training run of the Training workspace, in the terminal.

Runs :class:`grpo_desktop.core.training.run.TrainingRun` (the chosen algorithms side by side, over
seeds, with the same random numbers) and prints a short table, or with ``--json`` every step of
every seed. The toy is a softmax over each problem's written answers, not a language model: what
carries over to real runs is which groups carry signal and how each algorithm uses them.

Like ``score`` and ``loss`` it starts fast and works with no display: it imports only the
standard library, numpy, ``core`` and the Qt-free ``cli`` helpers, never Qt.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, TextIO

import numpy as np

from grpo_desktop.cli.common import (
    AsciiArgumentParser,
    ProgressLine,
    finite_or_none,
    parse_weights,
    write_text,
)
from grpo_desktop.core.common.atomic import write_text_atomically
from grpo_desktop.core.common.formatting import number
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.formulas.advantages import DEFAULT_CONVENTION, convention_names
from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS
from grpo_desktop.core.lab.lab_rewards import REWARD_COMPONENTS, RewardWeights
from grpo_desktop.core.training.run import (
    ALGORITHM_INFO,
    ALGORITHMS,
    METRICS,
    TrainingConfig,
    TrainingRun,
    check_training_config,
)
from grpo_desktop.core.training.sweep import (
    DEFAULT_TARGET,
    SWEEPS,
    SweepResult,
    parse_sweep,
    run_sweep,
    sweep_csv,
)
from grpo_desktop.core.training.training_config import (
    TRAINING_LIMITS,
    check_convention,
    largest_stored_value,
    weights_from_dict,
)

PROG = "grpo-desktop train"

WHAT_IT_IS = (
    "A toy run: the policy is a softmax over each problem's written answers, not a language model."
)

#: Metrics measured on the groups a step samples: there are none before the first step.
SAMPLED_METRICS = (
    "degenerate_fraction",
    "groups_sampled",
    "groups_used",
    "grad_norm",
    "correct_length",
    "wrong_length",
)

#: TrainingConfig field → the option that sets it (for error messages that name the option).
_OPTION_OF = {
    "algorithms": "--algorithm",
    "steps": "--steps",
    "seeds": "--seeds",
    "group_size": "--group-size",
    "batch": "--batch",
    "learning_rate": "--lr",
    "seed": "--seed",
    "convention": "--convention",
    "preset": "--preset",
    "beta": "--beta",
    "epochs": "--epochs",
}


#: Marks an algorithm that diverged in the table; its summary line says where.
DIVERGED_MARK = "*"


# --- the run -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainRequest:
    """What the options ask for: the run's config and what the run is given beside it."""

    config: TrainingConfig
    convention: str = DEFAULT_CONVENTION
    reward_weights: RewardWeights = field(default_factory=RewardWeights)


def config_from_args(args: argparse.Namespace) -> TrainRequest:
    """The checked run of the parsed options; ValueError with check_training_config's words."""
    algorithms: tuple[str, ...] = ALGORITHMS
    if args.algorithm:
        names = [part.strip() for item in args.algorithm for part in item.split(",")]
        algorithms = tuple(name for name in names if name)
    defaults = TrainingConfig()
    try:
        weights = weights_from_dict(parse_weights(args.weight or []))
    except ValueError as error:
        raise ValueError(f"--weight: {str(error).removeprefix('reward_weights: ')}") from None
    config = TrainingConfig(
        algorithms=algorithms,
        steps=defaults.steps if args.steps is None else args.steps,
        seeds=defaults.seeds if args.seeds is None else args.seeds,
        group_size=defaults.group_size if args.group_size is None else args.group_size,
        batch=defaults.batch if args.batch is None else args.batch,
        learning_rate=defaults.learning_rate if args.lr is None else args.lr,
        seed=defaults.seed if args.seed is None else args.seed,
        preset=defaults.preset if args.preset is None else args.preset,
        beta=defaults.beta if args.beta is None else args.beta,
        epochs=defaults.epochs if args.epochs is None else args.epochs,
    )
    convention = DEFAULT_CONVENTION if args.convention is None else args.convention
    try:
        check_training_config(config)
        check_convention(convention)
        return TrainRequest(config, convention, weights)
    except ValueError as error:
        message = str(error)
        field = message.split(" ", 1)[0]
        if field in _OPTION_OF:
            message = f"{_OPTION_OF[field]}: {message}"
        elif message.startswith(("unknown algorithm", "each algorithm", "choose at least")):
            message = f"--algorithm: {message}"
        elif message.startswith("unknown convention"):
            message = f"--convention: {message}"
        elif message.startswith("unknown loss preset"):
            message = f"--preset: {message}"
        elif message.startswith("this run would keep"):
            message += _what_fits(config)
        raise ValueError(message) from None


def _what_fits(config: TrainingConfig) -> str:
    """`` (at most --steps 1027, --seeds 8 or --batch 16 with the others as given)``: each
    option's largest value that the run can keep, so the user need not search for it."""
    limits = [
        f"{_OPTION_OF[name]} {most}"
        for name in ("steps", "seeds", "batch", "group_size")
        if (most := largest_stored_value(config, name)) >= TRAINING_LIMITS[name][0]
    ]
    if not limits:
        return ""
    listed = limits[0] if len(limits) == 1 else f"{', '.join(limits[:-1])} or {limits[-1]}"
    return f" (at most {listed} with the others as given)"


def progress_text(step: int, total: int, elapsed: float) -> str:
    """``grpo-desktop train: step 120 of 200 (60 %), about 40 s left`` (ASCII: any terminal)."""
    text = f"{PROG}: step {step} of {total} ({100 * step // total} %)"
    if 0 < step < total and elapsed >= 1.0:
        left = elapsed / step * (total - step)
        text += f", about {left:.0f} s left" if left < 120 else f", about {left / 60:.0f} min left"
    return text


def train(
    config: TrainingConfig,
    progress: TextIO | None = None,
    convention: str = DEFAULT_CONVENTION,
    reward_weights: RewardWeights | None = None,
) -> TrainingRun:
    """Run ``config`` (given ``convention`` and ``reward_weights``) to the end; a progress line
    on ``progress`` when it is a terminal."""
    run = TrainingRun(config, convention, reward_weights)
    line = ProgressLine(progress)
    if not line.active:
        run.run()
        return run
    start = time.monotonic()
    try:
        line.show(progress_text(0, config.steps, 0.0), force=True)
        while not run.finished:
            run.step()
            line.show(progress_text(run.step_count, config.steps, time.monotonic() - start))
    finally:
        line.clear()
    return run


# --- output ------------------------------------------------------------------------------------


def config_as_dict(run: TrainingRun) -> dict[str, Any]:
    """Every TrainingConfig field of ``run``, tuples as lists, with the convention (after the
    seed) and reward weights (last) the run was given, as the JSON has always listed them."""
    config = run.config
    data: dict[str, Any] = {}
    for item in fields(config):
        value = getattr(config, item.name)
        data[item.name] = list(value) if isinstance(value, tuple) else value
        if item.name == "seed":
            data["convention"] = run.convention
    data["reward_weights"] = asdict(run.reward_weights)
    return data


def seed_steps(run: TrainingRun, name: str, seed: int) -> list[dict[str, Any]]:
    """One seed's run of ``name``: a STEP object per recorded step, step 0 the initial policy."""
    history = run.history(name)
    metrics = {metric: finite_or_none(history[metric][:, seed].tolist()) for metric in METRICS}
    per_problem = finite_or_none(run.pass_rates(name)[:, seed, :].tolist())
    problem_ids = run.library.problem_ids
    steps = []
    for step in range(run.step_count + 1):
        entry: dict[str, Any] = {
            "step": step,
            "pass_rate": metrics["pass_rate"][step],
            "pass_rate_per_problem": dict(zip(problem_ids, per_problem[step])),
        }
        for metric in METRICS:
            if metric != "pass_rate":
                entry[metric] = metrics[metric][step]
        steps.append(entry)
    return steps


def diverged_at_steps(run: TrainingRun, name: str) -> list[int | None]:
    """Per seed, the step its logits overflowed at (from then on its numbers are null), or
    None when it never diverged."""
    return list(run.divergence(name).steps)


def run_as_dict(run: TrainingRun) -> dict[str, Any]:
    """``{"config": {...}, "algorithms": {NAME: {"runs": [[STEP, ...] per seed],
    "diverged_at_step": [STEP or null per seed]}}}``."""
    return {
        "config": config_as_dict(run),
        "algorithms": {
            name: {
                "runs": [seed_steps(run, name, seed) for seed in range(run.config.seeds)],
                "diverged_at_step": diverged_at_steps(run, name),
            }
            for name in run.config.algorithms
        },
    }


def iter_json(run: TrainingRun) -> Iterator[str]:
    """:func:`run_as_dict` as strict JSON, one seed's run at a time: a 5000-step run of 32 seeds
    is never held in memory as one object (ASCII only, so any terminal can print it)."""

    def dump(value: object) -> str:
        return json.dumps(value, allow_nan=False)  # strict: NaN was written as null

    yield '{"config": ' + dump(config_as_dict(run)) + ', "algorithms": {'
    for index, name in enumerate(run.config.algorithms):
        yield (", " if index else "") + dump(name) + ': {"runs": ['
        for seed in range(run.config.seeds):
            steps = ", ".join(dump(step) for step in seed_steps(run, name, seed))
            yield (", " if seed else "") + "[" + steps + "]"
        yield '], "diverged_at_step": ' + dump(diverged_at_steps(run, name)) + "}"
    yield "}}"


def run_as_json(run: TrainingRun) -> str:
    return "".join(iter_json(run))


def _rate(value: float) -> str:
    return f"{value:.3f}" if math.isfinite(value) else "n/a"


def _settings_line(run: TrainingRun) -> str:
    config = run.config
    problems = len(run.library.problems)
    line = (
        f"{problems} problems, {config.steps} steps, {config.seeds} seed"
        f"{'s' if config.seeds != 1 else ''} (seed {config.seed}), G = {config.group_size}, "
        f"batch {config.batch}, lr {number(config.learning_rate)}, "
        f"convention {run.convention}, loss {config.preset}, beta {number(config.beta)}, "
        f"epochs {config.epochs}"
    )
    weights = run.reward_weights
    if weights.plain:
        return line
    return (
        f"{line}\nreward {weights.formula} (TRL's weighted nansum; the pass rate still counts "
        "what the checker calls right)"
    )


def _no_signal(run: TrainingRun) -> str:
    """What a degenerate group is under this run's reward, in words."""
    return "all right or all wrong" if run.reward_weights.plain else "all-equal rewards"


def _seed_mean(values: np.ndarray) -> float:
    """The mean over the seeds that have a value (NaN when none has: every seed diverged)."""
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else math.nan


def _seed_extreme(values: np.ndarray, pick) -> float:
    finite = values[np.isfinite(values)]
    return float(pick(finite)) if finite.size else math.nan


def _summary(run: TrainingRun, name: str) -> dict[str, float]:
    """The last step's numbers over the seeds that have them (a diverged seed has none)."""
    history = run.history(name)
    rates = history["pass_rate"]
    return {
        "start": _seed_mean(rates[0]),
        "end": _seed_mean(rates[-1]),
        "end_min": _seed_extreme(rates[-1], np.min),
        "end_max": _seed_extreme(rates[-1], np.max),
        "degenerate": _seed_mean(history["degenerate_fraction"][-1]),
        "used": _seed_mean(history["groups_used"][-1]),
        "sampled": _seed_mean(history["groups_sampled"][-1]),
        "kl": _seed_mean(history["kl"][-1]),
    }


def _number_or_dash(value: float, spec: str) -> str:
    """``value`` formatted, or "–" where there is no number (never "nan")."""
    return format(value, spec) if math.isfinite(value) else "–"


def _summary_line(run: TrainingRun, name: str, stats: dict[str, float]) -> str:
    info = ALGORITHM_INFO[name]
    config = run.config
    subject = f"{info.label} ({info.advantage})"
    divergence = run.divergence(name)
    if not math.isfinite(stats["end"]):  # every seed diverged: no end to compare
        return divergence.sentence(subject)
    change = stats["end"] - stats["start"]
    if abs(change) < 5e-4:
        moved = f"stayed at {_rate(stats['end'])}"
    else:
        moved = f"went {'up' if change > 0 else 'down'} {abs(change):.3f} to {_rate(stats['end'])}"
    line = f"{subject}: the pass rate {moved} in {run.step_count} steps"
    if math.isfinite(stats["degenerate"]) and math.isfinite(stats["used"]):
        sampled = ""
        if math.isfinite(stats["sampled"]) and stats["sampled"] != config.batch:
            sampled = f" ({stats['sampled']:.1f} drawn)"
        line += (
            f"; at the last step {stats['degenerate']:.0%} of its groups had {_no_signal(run)} "
            f"and {stats['used']:.1f} of {config.batch} groups were used{sampled}"
        )
    line += "."
    if divergence.diverged:
        line += " " + divergence.sentence("It")
    return line


def run_as_table(run: TrainingRun) -> str:
    config = run.config
    lines = [WHAT_IT_IS, _settings_line(run), ""]
    header = (
        f"{'algorithm':<13}  {'pass rate start → end (min–max)':<31}  "
        f"{'degenerate':>10}  {'groups used':>11}  {'KL':>7}"
    )
    lines.append(header)
    summaries = {name: _summary(run, name) for name in config.algorithms}
    diverged = [name for name in config.algorithms if run.divergence(name).diverged]
    for name, stats in summaries.items():
        if math.isfinite(stats["end"]):
            rates = (
                f"{_rate(stats['start'])} → {_rate(stats['end'])} "
                f"({_rate(stats['end_min'])}–{_rate(stats['end_max'])})"
            )
        else:
            rates = (
                f"{_rate(stats['start'])} → diverged from step {run.divergence(name).first_step}"
            )
        used = "–"
        if math.isfinite(stats["used"]):
            used = f"{stats['used']:.1f}/{config.batch}"
        label = ALGORITHM_INFO[name].label + (DIVERGED_MARK if name in diverged else "")
        lines.append(
            f"{label:<13}  {rates:<31}  {_number_or_dash(stats['degenerate'], '.3f'):>10}  "
            f"{used:>11}  {_number_or_dash(stats['kl'], '.3f'):>7}"
        )
    lines.append("")
    lines.append(
        "pass rate: exact, mean over problems and seeds (min–max: the seeds' end values); "
        f"degenerate: share of the last step's groups with {_no_signal(run)}; "
        "KL: to the initial policy, nats."
    )
    if diverged:
        lines.append(
            f"{DIVERGED_MARK} diverged: its logits overflowed in one or more seeds, which have "
            "no numbers from then on; the row counts the seeds that still have numbers, and its "
            "summary below says from which step."
        )
    lines.append("")
    lines.extend(_summary_line(run, name, stats) for name, stats in summaries.items())
    return "\n".join(lines)


# --- the command -------------------------------------------------------------------------------


def build_train_parser(prog: str = PROG) -> argparse.ArgumentParser:
    defaults = TrainingConfig()
    parser = AsciiArgumentParser(
        prog=prog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Run the toy training of the Training workspace: every chosen algorithm over the\n"
            "problem library, side by side on the same seeds, and print how each one learned.\n"
            + WHAT_IT_IS
        ),
        epilog=(
            "algorithms:\n"
            + "\n".join(
                f"  {info.name:<11} {info.label}: {info.advantage}"
                for info in ALGORITHM_INFO.values()
            )
            + "\n\nrewards: each answer's reward is TRL's weighted nansum of the reward functions\n"
            f"{', '.join(REWARD_COMPONENTS)} (--weight; default accuracy only, the checker's 0/1);"
            "\nthe pass rate always counts the answers the checker calls right."
            + '\n\n--json prints one object: {"config": {...}, "algorithms": {NAME: {"runs": '
            '[[STEP, ...] per seed], "diverged_at_step": [STEP or null per seed]}}};\nstep 0 is '
            "the initial policy (sampled metrics are null there); a seed that diverged (its\n"
            "logits overflowed) has null numbers from its diverged_at_step on."
        ),
    )
    parser.add_argument(
        "--algorithm",
        "-a",
        action="append",
        metavar="NAME",
        help=f"an algorithm to run; repeat for more (default: all: {', '.join(ALGORITHMS)})",
    )
    parser.add_argument(
        "--steps", type=int, metavar="N", help=f"update steps (default {defaults.steps})"
    )
    parser.add_argument(
        "--seeds", type=int, metavar="K", help=f"runs per algorithm (default {defaults.seeds})"
    )
    parser.add_argument(
        "--group-size",
        "-G",
        type=int,
        metavar="G",
        help=f"answers sampled per problem (default {defaults.group_size})",
    )
    parser.add_argument(
        "--batch", type=int, metavar="B", help=f"groups per step (default {defaults.batch})"
    )
    parser.add_argument(
        "--lr", type=float, metavar="X", help=f"learning rate (default {defaults.learning_rate:g})"
    )
    parser.add_argument(
        "--seed", type=int, metavar="S", help=f"the first random seed (default {defaults.seed})"
    )
    parser.add_argument(
        "--convention",
        metavar="NAME",
        help=f"GRPO's and DAPO's advantage convention: {', '.join(convention_names())} "
        f"(default {DEFAULT_CONVENTION})",
    )
    parser.add_argument(
        "--preset",
        metavar="NAME",
        help="the loss of REINFORCE, PPO, GRPO and RLOO (Dr. GRPO and DAPO keep their own): "
        f"{', '.join(LOSS_PRESETS)} (default {defaults.preset})",
    )
    parser.add_argument(
        "--beta", type=float, metavar="X", help=f"KL penalty weight (default {defaults.beta:g})"
    )
    parser.add_argument(
        "--epochs",
        type=int,
        metavar="N",
        help=f"gradient steps per batch (default {defaults.epochs})",
    )
    parser.add_argument(
        "--weight",
        action="append",
        metavar="NAME=W",
        help="weight of a reward function (repeatable): "
        f"{', '.join(REWARD_COMPONENTS)}, e.g. format=0.5 (default accuracy=1, the others 0)",
    )
    parser.add_argument(
        "--sweep",
        metavar="NAME=V1,V2,...",
        help="an experiment: run one algorithm once per value of one setting, over the seeds, "
        f"and print a table: {', '.join(SWEEPS)} (e.g. group-size=4,16,32)",
    )
    parser.add_argument(
        "--target",
        type=float,
        metavar="P",
        help=f"with --sweep: the pass rate 'steps to reach' counts to (default {DEFAULT_TARGET:g})",
    )
    parser.add_argument(
        "--csv",
        metavar="PATH",
        help="with --sweep: also write the table as CSV to PATH (atomically)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print every step of every seed as one JSON object"
    )
    return parser


def run_train(argv: Sequence[str]) -> int:
    """Entry point of ``grpo-desktop train``; returns the process exit status."""
    parser = build_train_parser()
    args = parser.parse_args(list(argv))
    try:
        request = config_from_args(args)
    except ValueError as error:
        write_text(f"{parser.prog}: error: {visible(str(error))}", sys.stderr)
        return 2
    if args.sweep is not None or args.target is not None or args.csv is not None:
        return run_sweep_command(parser, args, request)
    run = train(request.config, sys.stderr, request.convention, request.reward_weights)
    if args.json:
        for chunk in iter_json(run):
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
    else:
        write_text(run_as_table(run), sys.stdout)
    return 0


# --- experiments -------------------------------------------------------------------------------


def run_sweep_command(
    parser: argparse.ArgumentParser, args: argparse.Namespace, request: TrainRequest
) -> int:
    """``--sweep NAME=V1,V2,…``: one run per value, a table (or ``{"config", "sweep"}``)."""
    config = request.config
    try:
        if args.sweep is None:
            raise ValueError("--target and --csv go with --sweep")
        name, values = parse_sweep(args.sweep)
        if name != "algorithm" and not args.algorithm:
            config = replace(config, algorithms=("grpo",))  # the default experiment's algorithm
        target = DEFAULT_TARGET if args.target is None else args.target
        line = ProgressLine(sys.stderr)
        result = run_sweep(
            config,
            name,
            values,
            request.convention,
            request.reward_weights,
            target,
            progress=lambda done, total: line.show(f"{PROG}: value {done} of {total}"),
        )
        line.clear()
        if args.csv is not None:
            write_text_atomically(args.csv, sweep_csv(result))
    except ValueError as error:
        write_text(f"{parser.prog}: error: {visible(str(error))}", sys.stderr)
        return 2
    except OSError as error:
        reason = error.strerror or str(error)
        write_text(
            f"{parser.prog}: error: --csv: cannot write {visible(args.csv)}: {visible(reason)}",
            sys.stderr,
        )
        return 1
    if args.json:
        data = {
            "config": _config_dict(config, request),
            "sweep": result.as_dict(),
        }
        write_text(json.dumps(data, allow_nan=False), sys.stdout)
    else:
        write_text(sweep_as_table(result, config, request.convention), sys.stdout)
    return 0


def _config_dict(config: TrainingConfig, request: TrainRequest) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for item in fields(config):
        value = getattr(config, item.name)
        data[item.name] = list(value) if isinstance(value, tuple) else value
        if item.name == "seed":
            data["convention"] = request.convention
    data["reward_weights"] = asdict(request.reward_weights)
    return data


def sweep_as_table(result: SweepResult, config: TrainingConfig, convention: str) -> str:
    who = "each algorithm" if result.name == "algorithm" else ALGORITHM_INFO[result.algorithm].label
    lines = [
        WHAT_IT_IS,
        f"Experiment: {result.name} over {result.seeds} seed{'s' if result.seeds != 1 else ''} "
        f"(seed {config.seed} on), {result.steps} steps each, {who}, convention {convention}; "
        "every other setting the same.",
        "",
        f"{result.name:>12}  {'final pass rate (min–max)':<26}  "
        f"{'steps to ' + format(result.target, 'g'):>13}  {'degenerate at step 1':>20}",
    ]
    for row in result.results:
        rates = (
            f"{_rate(row.final_pass_rate_mean)} ({_rate(row.final_pass_rate_min)}–"
            f"{_rate(row.final_pass_rate_max)})"
        )
        if row.steps_to_target is None:
            steps = "not reached"
        else:
            steps = f"{row.steps_to_target:.1f}"
            if row.reached < result.seeds:
                steps += f" ({row.reached}/{result.seeds})"
        lines.append(
            f"{row.value!s:>12}  {rates:<26}  {steps:>13}  "
            f"{_number_or_dash(row.degenerate_fraction_step1, '.3f'):>20}"
        )
    lines += [
        "",
        "final pass rate: exact, mean over problems, mean over seeds (min–max: the seeds'); "
        f"steps to {result.target:g}: the first step each seed's pass rate reached it, averaged "
        "over the seeds that did; degenerate: the share of step 1's groups whose rewards were "
        "all equal (no signal).",
    ]
    return "\n".join(lines)
