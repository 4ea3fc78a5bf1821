"""``grpo-desktop train``: the toy training run in the terminal. Strict JSON with every step of
every seed (step 0 the initial policy, its sampled metrics null), a short table naming what the
toy is, a repeatable --algorithm, one clear line and status 2 on any bad argument, and no Qt."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from grpo_desktop.app import build_parser, main
from grpo_desktop.cli.train import SAMPLED_METRICS, WHAT_IT_IS
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.training.run import (
    ALGORITHM_INFO,
    ALGORITHMS,
    METRICS,
    TrainingConfig,
    TrainingRun,
    build_library,
)

SMALL = ["--steps", "6", "--seeds", "2", "--batch", "4", "--group-size", "4"]
STEP_KEYS = {"step", "pass_rate", "pass_rate_per_problem", *METRICS}


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["train", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def strict_json(text: str) -> dict:
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))


def test_json_has_every_step_of_every_seed_with_the_documented_keys(capsys):
    status, out, err = run(capsys, *SMALL, "--json")
    assert (status, err) == (0, "")
    data = strict_json(out)
    assert set(data) == {"config", "algorithms"}
    assert list(data["algorithms"]) == list(ALGORITHMS)
    problem_ids = build_library().problem_ids
    for name, entry in data["algorithms"].items():
        assert set(entry) == {"runs", "diverged_at_step"}
        assert entry["diverged_at_step"] == [None, None], name
        runs = entry["runs"]
        assert len(runs) == 2, name
        for steps in runs:
            assert [step["step"] for step in steps] == list(range(7))
            for step in steps:
                assert set(step) == STEP_KEYS
                assert isinstance(step["pass_rate"], float) and 0 < step["pass_rate"] < 1
                assert list(step["pass_rate_per_problem"]) == list(problem_ids)
                assert all(isinstance(v, float) for v in step["pass_rate_per_problem"].values())
                assert step["pass_rate"] == pytest.approx(
                    np.mean(list(step["pass_rate_per_problem"].values()))
                )
                for metric in ("entropy", "kl"):
                    assert isinstance(step[metric], float)
                if name == "ppo_critic":
                    assert isinstance(step["critic_error"], float)
                else:
                    assert step["critic_error"] is None
            initial = steps[0]
            for metric in SAMPLED_METRICS:
                assert initial[metric] is None, (name, metric)
            assert initial["kl"] == pytest.approx(0.0, abs=1e-12)
            for step in steps[1:]:
                for metric in ("degenerate_fraction", "groups_sampled", "groups_used"):
                    assert isinstance(step[metric], float), (name, metric)
                assert 0 <= step["degenerate_fraction"] <= 1
                assert step["groups_used"] <= 4
                assert isinstance(step["grad_norm"], float)


def test_json_config_holds_every_training_config_field(capsys):
    status, out, _ = run(capsys, *SMALL, "--lr", "2.5", "--seed", "7", "--beta", "0.1", "--json")
    assert status == 0
    config = strict_json(out)["config"]
    assert set(config) == {*TrainingConfig.__dataclass_fields__, "convention", "reward_weights"}
    assert config["steps"] == 6 and config["seeds"] == 2 and config["batch"] == 4
    assert config["group_size"] == 4 and config["learning_rate"] == 2.5 and config["seed"] == 7
    assert config["beta"] == 0.1 and config["algorithms"] == list(ALGORITHMS)
    assert config["convention"] == "textbook" and config["preset"] == "verl/token-mean"


def test_json_matches_the_core_run_exactly(capsys):
    status, out, _ = run(capsys, *SMALL, "-a", "grpo", "--json")
    assert status == 0
    runs = strict_json(out)["algorithms"]["grpo"]["runs"]
    core = TrainingRun(
        TrainingConfig(algorithms=("grpo",), steps=6, seeds=2, batch=4, group_size=4)
    )
    core.run()
    history = core.history("grpo")
    for seed, steps in enumerate(runs):
        assert [s["pass_rate"] for s in steps] == history["pass_rate"][:, seed].tolist()
        assert [s["groups_used"] for s in steps[1:]] == history["groups_used"][1:, seed].tolist()


def test_the_algorithm_option_repeats_and_takes_commas(capsys):
    status, out, _ = run(capsys, *SMALL, "--algorithm", "dapo", "-a", "grpo", "--json")
    assert status == 0
    assert list(strict_json(out)["algorithms"]) == ["dapo", "grpo"]
    status, out, _ = run(capsys, *SMALL, "-a", "rloo,reinforce", "--json")
    assert status == 0
    assert list(strict_json(out)["algorithms"]) == ["rloo", "reinforce"]


def test_the_table_names_the_toy_and_has_one_row_and_one_summary_per_algorithm(capsys):
    status, out, err = run(capsys, *SMALL)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == WHAT_IT_IS
    assert "a softmax over each problem's written answers, not a language model" in lines[0]
    assert "6 steps, 2 seeds (seed 0), G = 4, batch 4" in lines[1]
    header = next(line for line in lines if line.startswith("algorithm"))
    for title in ("pass rate start → end", "degenerate", "groups used", "KL"):
        assert title in header
    for info in ALGORITHM_INFO.values():
        row = [line for line in lines if line.startswith(f"{info.label:<13}  0.554 → ")]
        assert len(row) == 1, info.label
        summary = [line for line in lines if line.startswith(f"{info.label} ({info.advantage})")]
        assert len(summary) == 1, info.label
        assert "in 6 steps" in summary[0] and "of 4 groups were used" in summary[0]


def test_the_table_row_shows_start_end_and_the_seeds_range(capsys):
    status, out, _ = run(capsys, *SMALL, "-a", "grpo")
    assert status == 0
    core = TrainingRun(
        TrainingConfig(algorithms=("grpo",), steps=6, seeds=2, batch=4, group_size=4)
    )
    core.run()
    rates = core.history("grpo")["pass_rate"]
    row = next(line for line in out.splitlines() if line.startswith("GRPO "))
    expected = (
        f"{rates[0].mean():.3f} → {rates[-1].mean():.3f} "
        f"({rates[-1].min():.3f}–{rates[-1].max():.3f})"
    )
    assert expected in row
    assert f"{core.history('grpo')['kl'][-1].mean():.3f}" in row.split()[-1]


def test_learning_rate_zero_reads_as_no_change(capsys):
    status, out, _ = run(capsys, *SMALL, "-a", "grpo", "--lr", "0")
    assert status == 0
    assert "the pass rate stayed at 0.554 in 6 steps" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-a", "ppo"],
            "--algorithm: unknown algorithm 'ppo'; choose from: " + ", ".join(ALGORITHMS),
        ),
        (["-a", "grpo", "-a", "grpo"], "--algorithm: each algorithm may be chosen once"),
        (["-a", ","], "--algorithm: choose at least one algorithm"),
        (["--steps", "0"], "--steps: steps must be from 1 to 5000; got 0"),
        (["--steps", "5001"], "--steps: steps must be from 1 to 5000; got 5001"),
        (["--seeds", "-1"], "--seeds: seeds must be from 1 to 32; got -1"),
        (["--group-size", "1"], "--group-size: group_size must be from 2 to 64; got 1"),
        (["--batch", "0"], "--batch: batch must be from 1 to 64; got 0"),
        (["--seed", "-3"], "--seed: seed must be from 0 to 4294967295; got -3"),
        (["--epochs", "9"], "--epochs: epochs must be from 1 to 8; got 9"),
        (["--lr", "-1"], "--lr: learning_rate must be from 0 to 100; got -1.0"),
        (["--lr", "nan"], "--lr: learning_rate must be from 0 to 100; got nan"),
        (["--beta", "inf"], "--beta: beta must be from 0 to 10; got inf"),
        (["--convention", "bogus"], "--convention: unknown convention 'bogus'; choose from: "),
        (["--preset", "verl/bogus"], "--preset: unknown loss preset 'verl/bogus'; choose from: "),
        (
            ["--weight", "fromat=0.5"],
            "--weight: unknown reward function(s) 'fromat'; the functions are accuracy, format, "
            "partial",
        ),
        (["--weight", "format=20"], "--weight: weight of 'format' must be between"),
        (["--weight", "format=nan"], "--weight: weight of 'format' must be between"),
        (["--weight", "format=lots"], "--weight: weight of 'format': 'lots' is not a number"),
        (["--weight", "format"], "--weight: weight 'format' must read NAME=VALUE"),
        (["--weight", "format=1", "--weight", "format=2"], "weight of 'format' is given twice"),
    ],
)
def test_bad_arguments_exit_2_with_one_line_and_nothing_on_stdout(capsys, args, message):
    status, out, err = run(capsys, *args)
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("grpo-desktop train: error: ")
    assert message in lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--steps", "x"], "argument --steps: invalid int value: 'x'"),
        (["--lr", "fast"], "argument --lr: invalid float value: 'fast'"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--seeds"], "argument --seeds: expected one argument"),
    ],
)
def test_unparseable_arguments_exit_2_with_one_line(capsys, args, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["train", *args])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("grpo-desktop train: error: ")
    assert message in lines[0]


def test_the_main_help_mentions_the_train_command():
    assert "'grpo-desktop train'" in " ".join(build_parser().format_help().split())


def test_train_runs_as_a_module_and_loads_no_qt():
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "train", *SMALL, "-a", "grpo", "--json"],
        cwd=os.environ["HOME"],  # the installed package, not the repository's source folder
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=120,
    )
    assert list(strict_json(result.stdout)["algorithms"]) == ["grpo"]

    probe = (
        "import sys\nfrom grpo_desktop.app import main\n"
        f"status = main(['train', *{SMALL!r}])\n"
        "qt = [m for m in sys.modules\n"
        "      if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph')]\n"
        "print('STATUS', status, 'QT', qt)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=os.environ["HOME"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=120,
    )
    assert result.stdout.splitlines()[-1] == "STATUS 0 QT []"


def test_a_terminal_that_cannot_print_arrows_gets_ascii():
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "train", *SMALL, "-a", "ppo_critic"],
        cwd=os.environ["HOME"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        timeout=120,
    )
    assert (result.returncode, result.stderr) == (0, b"")
    out = result.stdout.decode("ascii")
    assert " -> " in out and "A = r - V(problem)" in out


def test_the_help_prints_on_an_ascii_terminal_too():
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "train", "--help"],
        cwd=os.environ["HOME"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        timeout=60,
    )
    assert (result.returncode, result.stderr) == (0, b"")
    assert b"not a language model" in result.stdout and b"dr_grpo" in result.stdout


def test_the_streamed_json_is_the_documented_object():
    from grpo_desktop.cli.train import run_as_dict, run_as_json, train

    run = train(TrainingConfig(algorithms=("ppo_critic", "dapo"), steps=3, seeds=2, batch=2))
    text = run_as_json(run)
    assert text.isascii()
    assert strict_json(text) == run_as_dict(run)


# --- reward weights ---------------------------------------------------------------------------


def test_weights_run_the_weighted_reward_and_the_json_config_records_them(capsys):
    status, out, _ = run(
        capsys, *SMALL, "-a", "grpo", "--weight", "format=0.5", "--weight", "partial=1", "--json"
    )
    assert status == 0
    data = strict_json(out)
    assert data["config"]["reward_weights"] == {"accuracy": 1.0, "format": 0.5, "partial": 1.0}
    weights = RewardWeights(format=0.5, partial=1.0)
    config = TrainingConfig(algorithms=("grpo",), steps=6, seeds=2, batch=4, group_size=4)
    core = TrainingRun(config, reward_weights=weights)
    core.run()
    history = core.history("grpo")
    for seed, steps in enumerate(data["algorithms"]["grpo"]["runs"]):
        assert [s["pass_rate"] for s in steps] == history["pass_rate"][:, seed].tolist()
    plain = TrainingRun(config, reward_weights=RewardWeights())
    plain.run()
    assert not np.array_equal(plain.history("grpo")["pass_rate"], history["pass_rate"])


def test_the_json_config_records_the_default_weights_too(capsys):
    status, out, _ = run(capsys, *SMALL, "-a", "grpo", "--json")
    assert status == 0
    weights = strict_json(out)["config"]["reward_weights"]
    assert weights == {"accuracy": 1.0, "format": 0.0, "partial": 0.0}


def test_the_table_states_a_weighted_reward_and_only_then(capsys):
    status, out, _ = run(capsys, *SMALL, "-a", "grpo", "--weight", "format=0.5")
    assert status == 0
    lines = out.splitlines()
    assert lines[2].startswith("reward r = 1 × accuracy + 0.5 × format (TRL's weighted nansum")
    assert "all-equal rewards" in out and "all right or all wrong" not in out
    status, out, _ = run(capsys, *SMALL, "-a", "grpo")
    assert "reward r =" not in out and "all right or all wrong" in out


def test_the_help_lists_the_weight_option_and_the_reward_functions(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    assert "--weight NAME=W" in out and "accuracy, format, partial" in out


def test_a_run_too_large_to_keep_names_each_options_largest_value_that_fits(capsys):
    status, out, err = run(capsys, "--steps", "2000", "--seeds", "16", "--batch", "32")
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        "grpo-desktop train: error: this run would keep 498 MB of sampled groups (at most "
        "256 MB): use fewer steps, seeds or algorithms, or a smaller batch or G (at most "
        "--steps 1028, --seeds 8, --batch 16 or --group-size 3 with the others as given)"
    ]


# --- a run that diverges (issue 24, item 7) --------------------------------------------------

#: β 10 with 8 epochs overflows DAPO's logits: every seed by step 4, the first at step 1.
DIVERGING = ["--beta", "10", "--epochs", "8", "--seeds", "3", "-a", "grpo,dapo"]


def test_a_diverged_run_names_the_algorithm_and_its_step_and_prints_no_nan(capsys):
    status, out, err = run(capsys, *DIVERGING, "--steps", "8")  # every seed gone by step 7
    assert (status, err) == (0, "")
    assert "nan" not in out.lower() and "n/a" not in out
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith(("DAPO", "GRPO"))}
    assert "0.554 → diverged from step 1" in rows["DAPO*"]
    assert rows["DAPO*"].split()[-3:] == ["–", "–", "–"]
    assert "GRPO" in rows and "diverged" not in rows["GRPO"]
    summary = next(line for line in out.splitlines() if line.startswith("DAPO ("))
    assert " diverged in every seed, the first at step 1 " in summary
    assert "* diverged: its logits overflowed" in out


def test_a_partly_diverged_run_reports_the_other_seeds_and_says_which_diverged(capsys):
    status, out, _ = run(capsys, *DIVERGING, "--steps", "2")
    assert status == 0 and "nan" not in out.lower()
    row = next(line for line in out.splitlines() if line.startswith("DAPO*"))
    assert "diverged" not in row and "–" not in row.split("  ")[-1]
    summary = next(line for line in out.splitlines() if line.startswith("DAPO ("))
    assert "It diverged in 2 of 3 seeds, the first at step 1" in summary


def test_the_json_of_a_diverged_run_has_null_numbers_and_each_seeds_diverged_at_step(capsys):
    status, out, _ = run(capsys, *DIVERGING, "--steps", "8", "--json")
    assert status == 0
    algorithms = strict_json(out)["algorithms"]  # strict: no NaN anywhere
    assert algorithms["grpo"]["diverged_at_step"] == [None, None, None]
    diverged = algorithms["dapo"]["diverged_at_step"]
    assert min(diverged) == 1 and all(isinstance(step, int) for step in diverged)
    for steps, at in zip(algorithms["dapo"]["runs"], diverged):
        assert all(step["pass_rate"] is None for step in steps[at:])
        assert all(isinstance(step["pass_rate"], float) for step in steps[:at])


# --- progress on a terminal (issue 24, item 20) ---------------------------------------------


class FakeTerminal(io.StringIO):
    """A stderr that says it is a terminal, and keeps what was written."""

    def isatty(self) -> bool:
        return True


def test_a_run_on_a_terminal_shows_its_progress_in_place_and_wipes_it(monkeypatch, capsys):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr("grpo_desktop.cli.common.PROGRESS_INTERVAL_S", 0.0)  # every step
    assert main(["train", *SMALL, "-a", "grpo"]) == 0
    written = terminal.getvalue()
    assert "\n" not in written, "one line, redrawn in place"
    assert written.startswith("\rgrpo-desktop train: step 0 of 6 (0 %)")
    assert "\rgrpo-desktop train: step 6 of 6 (100 %)" in written
    last = written.rsplit("\r", 2)
    assert last[-1] == "" and last[-2].strip() == "", "wiped at the end"
    assert "GRPO" in capsys.readouterr().out


def test_a_run_prints_no_progress_when_stderr_is_not_a_terminal(capsys):
    status, out, err = run(capsys, *SMALL, "-a", "grpo")
    assert (status, err) == (0, "")
    assert "\r" not in out


def test_ctrl_c_during_a_run_wipes_the_progress_line_before_saying_interrupted(monkeypatch):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr("grpo_desktop.cli.common.PROGRESS_INTERVAL_S", 0.0)
    real_step = TrainingRun.step

    def step_then_interrupt(self):
        if self.step_count == 2:
            raise KeyboardInterrupt
        real_step(self)

    monkeypatch.setattr(TrainingRun, "step", step_then_interrupt)
    assert main(["train", *SMALL, "-a", "grpo"]) == 130
    progress, said = terminal.getvalue().rsplit("\r", 1)
    assert said == "grpo-desktop train: interrupted\n"
    assert progress.rsplit("\r", 1)[-1].strip() == "", "the progress line was wiped first"


def test_the_progress_text_counts_steps_and_estimates_what_is_left():
    from grpo_desktop.cli.train import progress_text

    assert progress_text(0, 200, 0.0) == "grpo-desktop train: step 0 of 200 (0 %)"
    assert progress_text(50, 200, 10.0) == (
        "grpo-desktop train: step 50 of 200 (25 %), about 30 s left"
    )
    assert progress_text(20, 200, 60.0).endswith(", about 9 min left")
    assert progress_text(200, 200, 90.0) == "grpo-desktop train: step 200 of 200 (100 %)"


# --- text from outside ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--bogus\x1b]0;pwned\x07"],
        ["-a", "\u202eevil\x1b[31m"],
        ["--weight", "f\x1b[2Jormat=1"],
        ["--convention", "text\u2066book\x9b"],
    ],
)
def test_argument_text_reaches_the_terminal_escaped(capsys, args):
    with contextlib.suppress(SystemExit):  # argparse exits; our own checks return 2
        main(["train", *args])
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert not set(err) & {"\x1b", "\x07", "\u202e", "\u2066", "\x9b"}, repr(err)
    assert "\\x1b" in err or "\\u202e" in err or "\\u2066" in err
