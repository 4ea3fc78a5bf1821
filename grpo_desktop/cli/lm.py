"""``grpo-desktop lm``: the tiny language model in the terminal: evaluate it, sample it, train it.

Three subcommands over :mod:`grpo_desktop.core.tinylm` (a 2-layer character transformer in numpy):

* ``lm eval`` — the held-out exact pass rate and greedy accuracy of a checkpoint;
* ``lm sample PROMPT`` — N completions, each with its tokens' log-probabilities;
* ``lm train`` — a GRPO run on the network (``LMTrainingRun``), a table as it trains or one JSON
  object at the end, and ``--save`` for a checkpoint that ``lm eval --checkpoint`` opens.

Like ``score``, ``loss`` and ``train`` it works with no display: the standard library, numpy,
``core`` and the Qt-free CLI helpers, never Qt. A bad checkpoint (missing, a folder or a FIFO,
truncated, foreign, holding pickled objects), a prompt with characters the model cannot read or a
bad option is one line on stderr and exit status 2; nothing in a checkpoint is ever unpickled.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grpo_desktop.cli.common import (
    AsciiArgumentParser,
    ProgressLine,
    finite_or_none,
    parse_weights,
    write_text,
)
from grpo_desktop.core.common.atomic import write_target
from grpo_desktop.core.common.jsonfile import kind_of_file
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.tinylm import (
    DEFAULT_TASK,
    END,
    TASKS,
    CheckpointError,
    TinyLM,
    UnknownCharactersError,
    get_task,
    load_model,
    task_names,
)
from grpo_desktop.core.tinylm.grpo_config import LM_ALGORITHMS, LMTrainingConfig
from grpo_desktop.core.tinylm.model import DEFAULT_CHECKPOINT, MAX_SAMPLES

PROG = "grpo-desktop lm"
EXIT_USAGE = 2
EXIT_SAVE_FAILED = 1  # the run finished but its checkpoint could not be written (disk full…)

#: Keys of each entry of ``lm train --json``'s "steps": every StepMetrics field but the wall time,
#: so two runs with the same seed give equal "steps" (the times are in "seconds").
STEP_KEYS = (
    "step",
    "reward_mean",
    "degenerate_fraction",
    "kl",
    "entropy",
    "loss",
    "completion_length",
    "groups_sampled",
    "groups_used",
    "clip_fraction",
    "grad_norm",
)
EVAL_KEYS = ("step", "pass_rate", "greedy_accuracy")

#: LMTrainingConfig field → the option that sets it, for messages that name the option.
_OPTION_OF = {
    "steps": "--steps",
    "group_size": "--group-size",
    "batch": "--batch",
    "learning_rate": "--lr",
    "beta": "--beta",
    "seed": "--seed",
    "eval_every": "--eval-every",
    "epochs": "--epochs",
    "reward_weights": "--weight",
}

WHAT_IT_IS = (
    "A real neural network, tiny: a causal character transformer in numpy,\n"
    "pretrained on addition and digit sorting."
)


class LMUsageError(ValueError):
    """A bad option, checkpoint or prompt: one line, exit status 2."""


# --- shared ------------------------------------------------------------------------------------


def _dump(value: object) -> str:
    return json.dumps(value, allow_nan=False)


def open_model(path: str | None) -> TinyLM:
    """The checkpoint at ``path`` (the shipped one when None); LMUsageError with one line."""
    if path is None:
        return load_model()
    try:
        return load_model(path)
    except CheckpointError as error:
        raise LMUsageError(str(error)) from None
    except (OSError, ValueError) as error:  # a path os.stat refuses outright
        raise LMUsageError(f"{path}: cannot open a model: {error}") from None
    except Exception as error:  # a hostile file the reader did not foresee
        # (a zip member that is not a .npy reads as bytes): still one line, never a traceback
        raise LMUsageError(
            f"{path}: not a tiny-model checkpoint: it cannot be read ({type(error).__name__})"
        ) from None


def checkpoint_name(path: str | None) -> str:
    return f"the shipped checkpoint ({DEFAULT_CHECKPOINT})" if path is None else path


def describe_model(model: TinyLM) -> str:
    """``107,820 parameters (2 layers, d_model 64, 44 tokens); pretrained (supervised) 400 steps
    on add, add3, sort; then GRPO (grpo) 200 steps on add``: what the weights are, from ``info``."""
    config = model.config
    text = (
        f"{model.n_params:,} parameters ({config.n_layers} layer{'s' * (config.n_layers != 1)}, "
        f"d_model {config.d_model}, {config.vocab_size} tokens, context {config.n_ctx})"
    )
    info = model.info
    pretrain = info.get("pretrain")
    if isinstance(pretrain, dict):
        mixture = pretrain.get("mixture")
        tasks = ", ".join(map(str, mixture)) if isinstance(mixture, dict) else "?"
        text += f"; pretrained (supervised) {pretrain.get('steps', '?')} steps on {tasks}"
    elif isinstance(info.get("trained_on"), str):
        text += f"; {info['trained_on']}"
    grpo = info.get("grpo")
    if isinstance(grpo, dict):
        text += (
            f"; then {grpo.get('algorithm', '?')} {grpo.get('steps_done', '?')} steps "
            f"on {grpo.get('task', '?')}"
        )
    return visible(text)


def _trained_task(model: TinyLM) -> str:
    """The task a GRPO-trained checkpoint learned (its info says), else the default task."""
    grpo = model.info.get("grpo")
    task = grpo.get("task") if isinstance(grpo, dict) else None
    return task if isinstance(task, str) and task in TASKS else DEFAULT_TASK


# --- lm eval -----------------------------------------------------------------------------------


def eval_result(model: TinyLM, task_name: str) -> dict[str, Any]:
    """``{"task", "n", "pass_rate", "greedy_accuracy"}`` on the task's held-out prompts."""
    from grpo_desktop.core.tinylm.evaluation import evaluate

    task = get_task(task_name)
    result = evaluate(model, task)
    return {
        "task": task.name,
        "n": int(result.pass_rates.size),
        "pass_rate": result.pass_rate,
        "greedy_accuracy": result.greedy_accuracy,
    }


def eval_table(model: TinyLM, path: str | None, result: dict[str, Any]) -> str:
    task = get_task(result["task"])
    return "\n".join(
        [
            f"model: {visible(checkpoint_name(path))}",
            f"  {describe_model(model)}",
            f"task: {task.name} ({task.description}), {result['n']} held-out prompts",
            f"exact pass rate  {result['pass_rate']:.3f}  (mean probability, at temperature 1, "
            "of writing exactly the right answer)",
            f"greedy accuracy  {result['greedy_accuracy']:.3f}  (share answered right when the "
            "most likely token is taken every time)",
        ]
    )


def run_eval(args: argparse.Namespace) -> int:
    model = open_model(args.checkpoint)
    result = eval_result(model, args.task or _trained_task(model))
    if args.json:
        write_text(_dump(result), sys.stdout)
    else:
        write_text(eval_table(model, args.checkpoint, result), sys.stdout)
    return 0


# --- lm sample ---------------------------------------------------------------------------------


def right_completion(prompt: str) -> str | None:
    """The right completion when ``prompt`` is a prompt of one of the tasks, else None."""
    for name in task_names():
        try:
            return TASKS[name].target(prompt)
        except ValueError:
            continue
    return None


def sample_result(
    model: TinyLM, prompt: str, n: int, seed: int, temperature: float, max_new: int | None
) -> dict[str, Any]:
    """The documented ``lm sample --json`` object."""
    try:
        drawn = model.sample_with_logprobs(prompt, n, seed, temperature, max_new)
    except UnknownCharactersError as error:
        raise LMUsageError(str(error)) from None
    except ValueError as error:
        message = str(error)
        for name, option in (("n ", "-n"), ("seed", "--seed"), ("temperature", "--temperature")):
            if message.startswith(name):
                message = f"{option}: {message}"
        raise LMUsageError(message) from None
    answer = right_completion(prompt)
    completions = []
    for text, logprobs in drawn:
        values = [float(v) for v in logprobs]
        completions.append(
            {
                "text": text,
                "tokens": list(text),
                "logprobs": values,
                "logprob": float(sum(values)),
                "ended": text.endswith(END),
                "correct": None if answer is None else text == answer,
            }
        )
    return {
        "prompt": prompt,
        "answer": answer,
        "n": n,
        "seed": seed,
        "temperature": temperature,
        "completions": completions,
    }


def sample_table(result: dict[str, Any]) -> str:
    prompt, answer = result["prompt"], result["answer"]
    count = len(result["completions"])
    head = f"prompt {visible(repr(prompt))}"
    head += f" (right completion {answer!r})" if answer is not None else " (not a task's prompt)"
    head += (
        f": {count} completion{'s' * (count != 1)} at temperature {result['temperature']:g}, "
        f"seed {result['seed']}"
    )
    lines = [
        head,
        "log p: under the model at temperature 1; the end token is "
        f"{END!r}; an answer without it was cut at the length limit",
        f"  {'#':>3}  {'completion':<10}  {'log p':>8}  {'p':>6}  {'right':<5}  each token: log p",
    ]
    for index, entry in enumerate(result["completions"], start=1):
        right = "" if entry["correct"] is None else ("yes" if entry["correct"] else "no")
        tokens = "  ".join(
            f"{token!r} {logprob:.3f}" for token, logprob in zip(entry["tokens"], entry["logprobs"])
        )
        lines.append(
            f"  {index:>3}  {entry['text']:<10}  {entry['logprob']:>8.3f}  "
            f"{math.exp(entry['logprob']):>6.3f}  {right:<5}  {tokens}"
        )
    return "\n".join(lines)


def run_sample(args: argparse.Namespace) -> int:
    model = open_model(args.checkpoint)
    result = sample_result(model, args.prompt, args.n, args.seed, args.temperature, args.max_new)
    write_text(_dump(result) if args.json else sample_table(result), sys.stdout)
    return 0


# --- lm train ----------------------------------------------------------------------------------


def train_config(args: argparse.Namespace) -> LMTrainingConfig:
    """The checked config of the options; LMUsageError naming the option otherwise."""
    from grpo_desktop.core.tinylm.grpo_config import check_lm_config
    from grpo_desktop.core.training.training_config import weights_from_dict

    defaults = LMTrainingConfig()
    try:
        weights = weights_from_dict(parse_weights(args.weight or []))
    except ValueError as error:
        raise LMUsageError(f"--weight: {str(error).removeprefix('reward_weights: ')}") from None
    chosen = {
        "task": args.task,
        "algorithm": args.algorithm,
        "steps": args.steps,
        "group_size": args.group_size,
        "batch": args.batch,
        "learning_rate": args.lr,
        "beta": args.beta,
        "seed": args.seed,
        "eval_every": args.eval_every,
        "epochs": args.epochs,
    }
    values = {name: getattr(defaults, name) if v is None else v for name, v in chosen.items()}
    config = LMTrainingConfig(**values, reward_weights=weights)
    try:
        return check_lm_config(config)
    except ValueError as error:
        message = str(error)
        field = message.split(" ", 1)[0]
        if field in _OPTION_OF:
            message = f"{_OPTION_OF[field]}: {message}"
        raise LMUsageError(message) from None


def check_save_path(path: str) -> None:
    """Refuse, before a run starts, a ``--save`` target that could never be written: a folder,
    a FIFO or a device, or a name in a folder that does not exist."""
    try:
        target = write_target(path)
        try:
            mode: int | None = os.stat(target).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise LMUsageError(
                f"--save {visible(path)}: it is {kind_of_file(mode)}, not a regular file"
            )
        folder = target.parent if str(target.parent) else Path(".")
        if not folder.is_dir():
            raise LMUsageError(
                f"--save {visible(path)}: the folder {visible(folder)} does not exist"
            )
        if not os.access(folder, os.W_OK | os.X_OK):
            raise LMUsageError(f"--save {visible(path)}: cannot write in {visible(folder)}")
    except OSError as error:
        raise LMUsageError(f"--save {visible(path)}: {error.strerror or error}") from None


def step_entry(metrics) -> dict[str, Any]:
    data = metrics.as_dict()
    return {
        key: finite_or_none(data[key]) if isinstance(data[key], float) else data[key]
        for key in STEP_KEYS
    }


def eval_entry(evaluation) -> dict[str, Any]:
    return {
        key: finite_or_none(value) if isinstance(value, float) else value
        for key, value in evaluation.as_dict().items()
    }


def train_result(run, start: str | None, saved: str | None, seconds: list[float]) -> dict[str, Any]:
    """The documented ``lm train --json`` object."""
    return {
        "config": run.config.as_dict(),
        "start": start,
        "steps": [step_entry(m) for m in run.metrics],
        "eval": [eval_entry(e) for e in run.evals],
        "seconds": [round(s, 6) for s in seconds],
        "saved": saved,
    }


_HEADER = (
    f"{'step':>5}  {'pass rate':>9}  {'greedy':>6}  {'reward':>6}  {'degenerate':>10}  "
    f"{'KL':>7}  {'entropy':>7}  {'seconds':>7}"
)


def _row(run, since: int, elapsed: float) -> str:
    """A table row at the run's latest evaluation: reward and degenerate are means over the
    steps since the row above; KL and entropy are the latest step's."""
    evaluation = run.evals[-1]
    recent = run.metrics[since:]
    if recent:
        reward = f"{sum(m.reward_mean for m in recent) / len(recent):.3f}"
        degenerate = f"{sum(m.degenerate_fraction for m in recent) / len(recent):.3f}"
        kl, entropy = f"{recent[-1].kl:.4f}", f"{recent[-1].entropy:.3f}"
    else:
        reward = degenerate = kl = entropy = "-"
    return (
        f"{evaluation.step:>5}  {evaluation.pass_rate:>9.3f}  {evaluation.greedy_accuracy:>6.3f}  "
        f"{reward:>6}  {degenerate:>10}  {kl:>7}  {entropy:>7}  {elapsed:>7.1f}"
    )


def _settings(run, start: str | None) -> str:
    config = run.config
    task = run.task
    return "\n".join(
        [
            WHAT_IT_IS,
            f"start: {visible(checkpoint_name(start))}",
            f"  {describe_model(run.model)}",
            f"{config.algorithm} on {task.name} ({task.description})",
            f"  {config.steps} steps of {config.batch} prompts x {config.group_size} answers, "
            f"lr {config.learning_rate:g}, beta {config.beta:g}, epochs {config.epochs}, "
            f"seed {config.seed}; held-out: {len(task.held_out_prompts())} prompts, "
            + (
                f"evaluated every {config.eval_every} steps"
                if config.eval_every
                else "evaluated at the start and the end"
            ),
            "",
            "pass rate: held-out exact pass rate; greedy: held-out greedy accuracy; reward and "
            "degenerate: means over the steps since the row above; KL (to the start) and "
            "entropy: the row's step",
        ]
    )


def run_train(args: argparse.Namespace) -> int:
    from grpo_desktop.core.tinylm.grpo import LMTrainingRun

    config = train_config(args)
    if args.save is not None:
        check_save_path(args.save)
    start = open_model(args.checkpoint)
    began = time.perf_counter()
    run = LMTrainingRun(config, start)
    table = not args.json
    if table:
        write_text(_settings(run, args.checkpoint), sys.stdout)
        write_text(_HEADER, sys.stdout)
        write_text(_row(run, 0, time.perf_counter() - began), sys.stdout)
        sys.stdout.flush()
    progress = ProgressLine(sys.stderr)
    seconds: list[float] = []
    row_from = 0
    try:
        while not run.finished:
            evaluations = len(run.evals)
            metrics = run.step()
            seconds.append(metrics.seconds)
            if table and len(run.evals) > evaluations:
                progress.clear()
                write_text(_row(run, row_from, time.perf_counter() - began), sys.stdout)
                sys.stdout.flush()
                row_from = len(run.metrics)
            progress.show(
                f"{PROG} train: step {run.step_count} of {config.steps}, "
                f"reward {metrics.reward_mean:.3f}"
            )
    finally:
        progress.clear()
    saved = None
    if args.save is not None:
        try:
            run.save(args.save)
        except OSError as error:
            write_text(
                f"{PROG} train: error: cannot save the model to {visible(args.save)}: "
                f"{visible(error.strerror or error)}",
                sys.stderr,
            )
            return EXIT_SAVE_FAILED
        saved = args.save
    if args.json:
        write_text(_dump(train_result(run, args.checkpoint, saved, seconds)), sys.stdout)
        return 0
    first, last = run.evals[0], run.evals[-1]
    change = last.pass_rate - first.pass_rate
    write_text(
        f"\nheld-out exact pass rate {first.pass_rate:.3f} -> {last.pass_rate:.3f} "
        f"({change:+.3f}) in {run.step_count} steps, {time.perf_counter() - began:.1f} s; "
        f"greedy accuracy {first.greedy_accuracy:.3f} -> {last.greedy_accuracy:.3f}",
        sys.stdout,
    )
    if saved is not None:
        write_text(
            f"saved {visible(saved)} (open it with: {PROG} eval --checkpoint PATH)", sys.stdout
        )
    return 0


# --- the command -------------------------------------------------------------------------------


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1, got {text!r}")
    return value


def build_lm_parser(prog: str = PROG) -> argparse.ArgumentParser:
    defaults = LMTrainingConfig()
    parser = AsciiArgumentParser(
        prog=prog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "The tiny language model: evaluate a checkpoint, sample completions with their\n"
            "log-probabilities, or train it by GRPO, with no display.\n" + WHAT_IT_IS
        ),
        epilog=(
            f"{prog} eval: held-out exact pass rate and greedy accuracy\n"
            f"{prog} sample PROMPT: completions with their tokens' log-probabilities\n"
            f"{prog} train: GRPO on the network, optionally --save a checkpoint\n"
            "tasks:\n"
            + "".join(f"  {name:<5} {TASKS[name].description}\n" for name in task_names())
            + "A bad checkpoint, prompt or option is one line on stderr and exit status 2."
        ),
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    checkpoint_help = "a .npz checkpoint (default: the shipped starting checkpoint)"

    evaluate = commands.add_parser(
        "eval",
        help="held-out exact pass rate and greedy accuracy",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Evaluate a checkpoint on a task's held-out prompts (never used in training):\n"
            "the exact pass rate is the mean, over prompts, of the probability of writing\n"
            "exactly the right answer at temperature 1 (one teacher-forced pass, no sampling\n"
            "noise); greedy accuracy is the share answered right by taking the most likely\n"
            "token every time."
        ),
        epilog='--json prints {"task": NAME, "n": PROMPTS, "pass_rate": X, "greedy_accuracy": X}.',
    )
    evaluate.add_argument("--checkpoint", metavar="PATH", help=checkpoint_help)
    evaluate.add_argument(
        "--task",
        choices=task_names(),
        metavar="NAME",
        help=f"{', '.join(task_names())} (default: the task a GRPO-trained checkpoint learned, "
        f"else {DEFAULT_TASK})",
    )
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")

    sample = commands.add_parser(
        "sample",
        help="completions of a prompt with their tokens' log-probabilities",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Draw N completions of PROMPT (e.g. '23+45='), each with every token's\n"
            "log-probability under the model at temperature 1 (the numbers GRPO's ratio uses,\n"
            "whatever --temperature the tokens were drawn at). A completion ends with the end\n"
            f"token {END!r}, or is cut at --max-new tokens. The same --seed gives the same\n"
            "completions. The model reads digits, + - = *, space, a-z and '.'."
        ),
        epilog=(
            '--json prints {"prompt": TEXT, "answer": RIGHT COMPLETION or null (when PROMPT is\n'
            'not a task\'s prompt), "n": N, "seed": S, "temperature": T, "completions": [{"text":\n'
            'TEXT, "tokens": [CHARACTER, ...], "logprobs": [LOG P per token], "logprob": SUM,\n'
            '"ended": true if it ends with the end token, "correct": true/false or null}]}.'
        ),
    )
    sample.add_argument("prompt", metavar="PROMPT", help="the text the model continues")
    sample.add_argument(
        "-n", type=int, default=8, metavar="N", help=f"completions, 1 to {MAX_SAMPLES} (default 8)"
    )
    sample.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    sample.add_argument(
        "--temperature",
        type=float,
        default=1.0,
        metavar="T",
        help="sampling temperature (default 1)",
    )
    sample.add_argument(
        "--max-new",
        type=_positive,
        metavar="K",
        help="at most K tokens per completion (default 8, or what the context leaves)",
    )
    sample.add_argument("--checkpoint", metavar="PATH", help=checkpoint_help)
    sample.add_argument("--json", action="store_true", help="print one JSON object")

    train = commands.add_parser(
        "train",
        help="GRPO on the network",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Train the tiny model by GRPO with the project's own advantage and loss code: each\n"
            "step samples G answers for each of B training prompts, grades them (accuracy, and\n"
            "format if weighted), and takes an Adam step on every weight. Prints a table row at\n"
            "step 0 and at every evaluation (every --eval-every steps and the last step)."
        ),
        epilog=(
            "algorithms: "
            + ", ".join(LM_ALGORITHMS)
            + '\n--json prints, at the end, {"config": {...every setting}, "start": PATH or null\n'
            '(the shipped checkpoint), "steps": [{"step", "reward_mean", "degenerate_fraction",\n'
            '"kl", "entropy", "loss", "completion_length", "groups_sampled", "groups_used",\n'
            '"clip_fraction", "grad_norm"} per step], "eval": [{"step", "pass_rate",\n'
            '"greedy_accuracy"}: step 0, every --eval-every steps and the last], "seconds":\n'
            '[wall time of each step, its evaluation included], "saved": PATH or null}.\n'
            "Runs with the same options and seed give the same steps and eval."
        ),
    )
    train.add_argument(
        "--task",
        choices=task_names(),
        metavar="NAME",
        help=f"{', '.join(task_names())} (default {defaults.task})",
    )
    train.add_argument(
        "--algorithm",
        "-a",
        choices=LM_ALGORITHMS,
        metavar="NAME",
        help=f"{', '.join(LM_ALGORITHMS)} (default {defaults.algorithm})",
    )
    train.add_argument("--steps", type=int, metavar="N", help=f"steps (default {defaults.steps})")
    train.add_argument(
        "--group-size",
        "-G",
        type=int,
        metavar="G",
        help=f"answers per prompt (default {defaults.group_size})",
    )
    train.add_argument(
        "--batch", type=int, metavar="B", help=f"prompts per step (default {defaults.batch})"
    )
    train.add_argument(
        "--lr",
        type=float,
        metavar="X",
        help=f"Adam learning rate (default {defaults.learning_rate:g})",
    )
    train.add_argument(
        "--beta",
        type=float,
        metavar="X",
        help=f"KL penalty to the starting checkpoint (default {defaults.beta:g})",
    )
    train.add_argument(
        "--epochs",
        type=int,
        metavar="N",
        help=f"optimiser steps per batch, against its old log-probs (default {defaults.epochs})",
    )
    train.add_argument(
        "--seed", type=int, metavar="S", help=f"random seed (default {defaults.seed})"
    )
    train.add_argument(
        "--eval-every",
        type=int,
        metavar="K",
        help=f"evaluate on the held-out prompts every K steps; 0: only at the start and the end "
        f"(default {defaults.eval_every})",
    )
    train.add_argument(
        "--weight",
        action="append",
        metavar="NAME=W",
        help="weight of a reward function (repeatable): accuracy, format, e.g. format=0.5 "
        "(default accuracy=1, format=0)",
    )
    train.add_argument(
        "--checkpoint", metavar="PATH", help="start from this checkpoint (default: the shipped one)"
    )
    train.add_argument(
        "--save", metavar="PATH", help="write the trained model to PATH (.npz, atomically)"
    )
    train.add_argument("--json", action="store_true", help="print one JSON object at the end")
    return parser


def run_lm(argv: Sequence[str]) -> int:
    """Entry point of ``grpo-desktop lm``; returns the process exit status."""
    if list(argv) == ["worker"]:  # the Training workspace's run, in a process of its own
        from grpo_desktop.cli.lm_worker import run_lm_worker

        return run_lm_worker()
    parser = build_lm_parser()
    args = parser.parse_args(list(argv))
    command = {"eval": run_eval, "sample": run_sample, "train": run_train}[args.command]
    try:
        return command(args)
    except LMUsageError as error:
        write_text(f"{PROG} {args.command}: error: {visible(error)}", sys.stderr)
        return EXIT_USAGE
