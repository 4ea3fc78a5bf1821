"""``grpo-desktop score``: readable table, JSON, and one clear line with status 2 on bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

from grpo_desktop.app import main


def test_score_prints_a_table_with_signed_advantages_and_the_group_line(capsys):
    assert main(["score", "1", "0", "0", "1"]) == 0
    out = capsys.readouterr().out
    assert "+1.000000  ▲ up" in out
    assert "−1.000000  ▼ down" in out
    assert "mean = 0.5, std = 0.5, degenerate = no" in out


def test_score_accepts_comma_separated_rewards_and_a_convention(capsys):
    assert main(["score", "1,0,0,1", "--convention", "trl"]) == 0
    assert "+0.865875" in capsys.readouterr().out


def test_score_json_has_the_documented_keys(capsys):
    assert main(["score", "1", "1", "1", "1", "0", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {
        "rewards",
        "mean",
        "std",
        "advantages",
        "pushed_up",
        "pushed_down",
        "degenerate",
        "convention",
    }
    assert data["mean"] == pytest.approx(0.8)
    assert data["std"] == pytest.approx(0.4)
    assert data["advantages"] == pytest.approx([0.5, 0.5, 0.5, 0.5, -2.0])
    assert (data["pushed_up"], data["pushed_down"], data["degenerate"]) == (4, 1, False)
    assert data["convention"] == "textbook"


def test_score_explains_a_degenerate_group(capsys):
    assert main(["score", "0", "0", "0", "0"]) == 0
    out = capsys.readouterr().out
    assert "degenerate = yes" in out and "every advantage is 0" in out


def test_score_accepts_negative_rewards(capsys):
    assert main(["score", "-1", "1"]) == 0
    assert "−1.000000" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["1", "x"], "reward 'x' is not a number"),
        (["1", "nan"], "must be a finite number"),
        (["1", "--convention", "trl"], "undefined for a group of 1"),
        (["1", "0", "--convention", "bogus"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_input_exits_2_with_one_clear_line_on_stderr(capsys, args, message):
    with pytest.raises(SystemExit) as exit_info:
        status = main(["score", *args])
        raise SystemExit(status)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_score_runs_as_a_module_from_the_command_line():
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "score", "1", "0", "0", "0", "0", "--json"],
        cwd=os.environ["HOME"],  # the installed package, not the repository's source folder
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    assert json.loads(result.stdout)["advantages"][0] == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("args", "rewards"),
    [
        (["1", "-1e-3"], [1.0, -0.001]),
        (["-1,0,0,1"], [-1.0, 0.0, 0.0, 1.0]),
        (["--json", "-2", "-1e-3", "--convention", "dr_grpo", "-.5"], [-2.0, -0.001, -0.5]),
        (["-c", "trl", "-1", "-1E+2"], [-1.0, -100.0]),
    ],
)
def test_score_takes_negative_rewards_in_any_spelling_for_rewards_not_options(
    capsys, args, rewards
):
    assert main(["score", *args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rewards"] == rewards


def test_score_json_of_huge_rewards_is_valid_json_with_the_true_mean(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["score", "1.7e308", "1.7e308", "0", "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))
    assert data["mean"] == pytest.approx(1.7e308 / 3 * 2)
    assert captured.err == ""


def test_score_json_never_prints_infinity_for_a_spread_too_wide_for_float64(capsys):
    assert main(["score", "1.7e308", "-1.7e308", "--convention", "trl", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "too large" in captured.err


# --- several reward functions: --component NAME=... and --weight NAME=W ------------------------

R1_EXAMPLE = [
    "--component",
    "accuracy=1,0,0,1",
    "--component",
    "format=1,1,0,1",
    "--weight",
    "format=0.5",
]


def test_score_combines_deepseek_r1_style_accuracy_and_format_rewards(capsys):
    assert main(["score", *R1_EXAMPLE]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["#", "accuracy", "format", "reward", "advantage", "push"]
    # accuracy + 0.5 * format = 1.5, 0.5, 0, 1.5; mean 0.875, population std 0.649519
    assert lines[1].split() == ["1", "1", "1", "1.5", "+0.962250", "▲", "up"]
    assert lines[3].split() == ["3", "0", "0", "0", "−1.347151", "▼", "down"]
    out = "\n".join(lines)
    assert "weights: accuracy 1, format 0.5" in out
    assert "reward = accuracy + 0.5 × format" in out
    assert "mean = 0.875, std = 0.649519" in out


def test_score_json_of_components_has_the_combined_rewards_components_and_weights(capsys):
    assert main(["score", *R1_EXAMPLE, "--convention", "trl", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {
        "rewards",
        "mean",
        "std",
        "advantages",
        "pushed_up",
        "pushed_down",
        "degenerate",
        "convention",
        "components",
        "weights",
        "unscored",
    }
    assert data["rewards"] == [1.5, 0.5, 0.0, 1.5]
    assert data["components"] == {"accuracy": [1, 0, 0, 1], "format": [1, 1, 0, 1]}
    assert data["weights"] == {"accuracy": 1.0, "format": 0.5}
    assert data["mean"] == pytest.approx(0.875)
    assert data["convention"] == "trl"


def trl_advantages(rewards_per_func: np.ndarray, scale_rewards: str, since_1_6: bool) -> list:
    """TRL's ``GRPOTrainer._generate_and_score_completions`` (trl/trainer/grpo_trainer.py, f2cd577,
    ``multi_objective_aggregation="sum_then_normalize"``) for one group, weights 1, in float64:
    ``nansum`` per answer; from TRL 1.6 (commit 1c7c7f9) ``rewards[unscorable_mask] = nan``, then
    ``nanmean``, ``nanstd`` (trl/trainer/utils.py: Bessel-corrected, NaN for one value),
    ``/ (std + 1e-4)`` unless ``scale_rewards="none"``, and ``nan_to_num(advantages, nan=0.0)``."""
    rewards = np.nansum(rewards_per_func, axis=1)
    if since_1_6:
        rewards[np.isnan(rewards_per_func).all(axis=1)] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(rewards)
        count = int((~np.isnan(rewards)).sum())
        std = (
            np.sqrt(np.nanmean((rewards - mean) ** 2) * count / (count - 1))
            if count > 1
            else np.nan
        )
    advantages = rewards - mean
    if scale_rewards != "none":
        advantages = advantages / (std + 1e-4)
    return np.nan_to_num(advantages, nan=0.0).tolist()


def test_score_leaves_an_answer_no_component_scored_out_as_trl_1_6_does(capsys):
    """TRL >= 1.6: an answer every reward function scored None has no reward, is left out of its
    group's mean and std, and gets advantage 0 (see ``trl_advantages``), not nansum's 0."""
    args = ["--component", "math=1,none,0,NaN", "--component", "code=none,-1,0.5,none", "--json"]
    assert main(["score", *args, "-c", "trl"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))
    assert data["rewards"] == [1.0, -1.0, 0.5, None]  # the last answer has no reward
    assert data["components"]["math"] == [1.0, None, 0.0, None]
    assert data["unscored"] == "missing"
    per_func = np.array([[1, np.nan], [np.nan, -1], [0, 0.5], [np.nan, np.nan]])
    assert data["advantages"] == pytest.approx(trl_advantages(per_func, "group", True), abs=1e-15)
    assert data["advantages"][3] == 0.0
    assert data["mean"] == pytest.approx(1 / 6) and data["std"] == pytest.approx(1.0408329997)
    assert (data["pushed_up"], data["pushed_down"]) == (2, 1)
    assert main(["score", *args[:-1]]) == 0
    table = capsys.readouterr().out
    assert (
        "answer 4: no component scored it: no reward, left out of the group's mean and std, "
        "advantage 0\n(TRL >= 1.6; --unscored zero gives TRL <= 1.5's reward 0)" in table
    )
    assert "group: G = 4 (3 scored), mean = " in table
    assert re.search(r"\n  4 +none +none +none +0\.000000  none\n", table)


def test_score_unscored_zero_keeps_trl_1_5s_nansum_to_zero(capsys):
    """TRL <= 1.5: ``nansum`` of an all-None answer is 0 and it counts in the mean and std."""
    args = ["--component", "math=1,none,0,NaN", "--component", "code=none,-1,0.5,none"]
    assert main(["score", *args, "--unscored", "zero", "-c", "trl", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rewards"] == [1.0, -1.0, 0.5, 0.0]
    assert data["unscored"] == "zero"
    per_func = np.array([[1, np.nan], [np.nan, -1], [0, 0.5], [np.nan, np.nan]])
    assert data["advantages"] == pytest.approx(trl_advantages(per_func, "group", False), abs=1e-15)
    assert data["advantages"][3] != 0.0
    assert main(["score", *args, "--unscored", "zero"]) == 0
    assert (
        "so the reward is 0 and counts in the mean and std\n(--unscored zero: TRL <= 1.5's "
        "nansum; TRL >= 1.6 leaves it out)" in capsys.readouterr().out
    )


@pytest.mark.parametrize("scale_rewards, convention", [("group", "trl"), ("none", "dr_grpo")])
@pytest.mark.parametrize("seed", range(6))
def test_score_of_components_with_unscored_answers_matches_trl_on_random_groups(
    capsys, seed, scale_rewards, convention
):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 7))
    per_func = rng.normal(0, 1, (size, 2)).round(3)
    per_func[rng.random((size, 2)) < 0.4] = np.nan
    args = ["-c", convention, "--json"]
    for name, column in zip(("a", "b"), per_func.T):
        args += [
            "--component",
            name + "=" + ",".join("none" if np.isnan(v) else repr(float(v)) for v in column),
        ]
    assert main(["score", *args]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = trl_advantages(per_func, scale_rewards, True)
    assert data["advantages"] == pytest.approx(expected, abs=1e-12)


def test_score_with_one_or_no_scored_answer_gives_every_advantage_zero_under_trl(capsys):
    assert main(["score", "--component", "a=1,none,none", "-c", "trl"]) == 0
    table = capsys.readouterr().out
    assert "G = 3 (1 scored), mean = 1, std = undefined, degenerate = yes" in table
    assert "TRL's std of one value is undefined (NaN), so every advantage is 0" in table
    assert main(["score", "--component", "a=none,none", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rewards"] == [None, None] and data["advantages"] == [0.0, 0.0]
    assert data["mean"] is None and data["std"] is None and data["degenerate"] is True
    assert main(["score", "--component", "a=1,none", "-c", "rloo"]) == 2
    assert "undefined for 1 scored answer" in capsys.readouterr().err


def test_score_help_says_which_trl_version_does_what_with_an_unscored_answer(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        "missing (the default, TRL >= 1.6: no reward, left out of the group's mean and std, "
        "advantage 0) or zero (TRL <= 1.5: nansum gives it reward 0" in help_text
    )


def test_score_refuses_unscored_without_components(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["score", "1", "0", "--unscored", "zero"])
    assert exit_info.value.code == 2
    assert "--unscored applies to --component rewards" in capsys.readouterr().err


def test_score_takes_negative_component_values_and_weights_and_the_short_convention(capsys):
    args = ["--component=a=-1,0", "--component", "b=−2,1", "--weight", "b=-1", "--c", "trl"]
    assert main(["score", *args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rewards"] == [1.0, -1.0]
    assert data["convention"] == "trl"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["1", "0", "--component", "a=1,0"], "not both"),
        (["--component", "a=1,0", "--weight", "b=2"], "weight for unknown component 'b'"),
        (["--component", "a=1,0", "--component", "b=1,0,1"], "'b' has 3 rewards but 'a' has 2"),
        (["--component", "a=1,x"], "component 'a': reward 'x' is not a number"),
        (["--component", "a"], "must read NAME=VALUE"),
        (["--component", "=1,0"], "must read NAME=VALUE"),
        (["--component", "a=1,0", "--weight", "a"], "must read NAME=VALUE"),
        (["--component", "a=1,0", "--weight", "a=big"], "weight of 'a': 'big' is not a number"),
        (["--component", "a=1,0", "--weight", "a=nan"], "a weight must be a finite number"),
        (["--component", "a=1,0", "--component", "a=0,1"], "given twice"),
        (["--component", "a="], "has no rewards"),
        (["--component", "a=1,inf"], "a reward must be finite"),
        (["1", "0", "--weight", "a=1"], "--weight applies to --component"),
        (["--component", "a=1", "-c", "trl"], "undefined for a group of 1"),
    ],
)
def test_bad_component_input_exits_2_with_one_clear_line_on_stderr(capsys, args, message):
    with pytest.raises(SystemExit) as exit_info:
        status = main(["score", *args])
        raise SystemExit(status)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


# --- words that agree with the numbers; outside text and absurd numbers (issue 24) ---------------


def test_score_of_a_lone_answer_under_verl_is_pushed_and_not_degenerate(capsys):
    # verl gives a lone answer mean 0 and std 1: "degenerate = yes" sat beside "pushed up 1".
    assert main(["score", "1", "-c", "verl"]) == 0
    out = capsys.readouterr().out
    assert "degenerate = no" in out and "pushed up 1, pushed down 0, no signal 0" in out
    assert "teaches nothing" not in out


def test_score_of_a_lone_zero_under_verl_is_degenerate_for_verls_own_reason(capsys):
    assert main(["score", "0", "-c", "verl"]) == 0
    out = capsys.readouterr().out
    assert "degenerate = yes" in out and "no signal 1" in out
    assert "verl gives a lone answer mean 0 and std 1" in out
    assert "All rewards are equal" not in out


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("a\x1b[31mred", "\\x1b"),
        ("t\x1b]0;owned\x07", "\\x1b"),
        ("\x1b]8;;http://x.example/\x1b\\link", "\\x1b"),
        ("two\nlines", "\\n"),
        ("evil\u202eexe.txt", "\\u202e"),
    ],
)
@pytest.mark.parametrize("option", ["--component", "--weight"])
def test_score_refuses_a_component_name_that_would_drive_the_terminal(capsys, name, shown, option):
    # The name was printed raw in the table header: colours, window titles, links, U+202E.
    args = ["--component", f"{name}=1,0"] if option == "--component" else []
    args += ["--component", "a=1,0"] if option == "--weight" else []
    args += ["--weight", f"{name}=2"] if option == "--weight" else []
    assert main(["score", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "plain text on one line" in lines[0] and shown in lines[0]
    assert not any(char in captured.err for char in "\x1b\x07\u202e")


def test_score_escapes_an_unknown_option_in_its_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["score", "1", "0", "--\x1b]0;owned\x07"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b]0;owned\\x07" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["1e400", "0"], "reward '1e400' is too large"),
        (["1" * 401, "0"], "(401 characters) is too large"),
        (["--component", "a=1,1e999"], "component 'a': reward '1e999' is too large"),
        (["--component", "a=1,0", "--weight", "a=-1e999"], "weight of 'a': '-1e999' is too large"),
    ],
)
def test_score_refuses_numbers_too_large_for_float64_in_one_short_line(capsys, args, message):
    assert main(["score", *args]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1 and message in lines[0]
    assert len(lines[0]) < 200


def test_score_writes_huge_advantages_in_scientific_notation(capsys):
    # Dr. GRPO's advantage of 1e200 printed as 201 digits and six decimals.
    assert main(["score", "1e200", "-1e200", "-c", "dr_grpo"]) == 0
    out = capsys.readouterr().out
    assert "+1.000000e+200  ▲ up" in out and "−1.000000e+200  ▼ down" in out
    assert max(len(line) for line in out.splitlines()) < 120


def test_score_writes_a_tiny_advantage_so_that_it_is_not_zero_beside_pushed_up(capsys):
    assert main(["score", "1e-10", "0", "-c", "dr_grpo"]) == 0
    out = capsys.readouterr().out
    assert "+5.000000e−11  ▲ up" in out and "0.000000  ▲" not in out


@pytest.mark.parametrize("convention", ["textbook", "trl", "verl", "dr_grpo", "rloo"])
def test_score_prints_no_nan_inf_or_long_digit_runs_for_extreme_finite_rewards(capsys, convention):
    for rewards in (["1e200", "-1e200", "1e200"], ["1e308", "0", "0"], ["1e-300", "0"]):
        status = main(["score", *rewards, "-c", convention])
        captured = capsys.readouterr()
        text = captured.out + captured.err
        assert status in (0, 2) and not re.search(r"\binf\b|\bnan\b|\d{16}", text), text


def test_score_names_the_textbook_convention_after_the_seeds_and_dr_grpo_after_trl(capsys):
    assert main(["score", "1", "0", "0", "1"]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last == (
        "convention: textbook: A = (r − mean) / std (the seeds' worked examples, population std)"
    )
    assert main(["score", "1", "0", "-c", "dr_grpo"]) == 0
    assert 'TRL GRPOTrainer, scale_rewards="none")' in capsys.readouterr().out


def test_the_readme_states_the_libraries_facts_of_issue_26():
    """TRL decodes logged prompts with ``skip_special_tokens=True`` (before v1.15) or logs the
    dataset's prompts (v1.15+: chat as {role, content} lists): never ``<|im_start|>``; nansum's 0
    for an unscored answer holds only up to TRL 1.5; the textbook convention is the seeds'."""
    from pathlib import Path

    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text().split())
    assert "<|im_start|>user" not in readme
    assert (
        "an answer that no function scored gets reward 0 up to TRL 1.5, and since TRL 1.6" in readme
    )
    assert "then the numeric columns a reward function logged with `log_extra` (v1.0+)" in readme
    assert "from v1.15 a chat dataset's are stored as lists of `{role, content}` messages" in readme
    assert "DeepSeekMath GRPO" not in readme
    assert 'Dr. GRPO: no std division; TRL `scale_rewards="none"` (or `False`)' in readme
    assert "it takes effect only with `trainer.use_legacy_worker_impl=disable`" in readme
