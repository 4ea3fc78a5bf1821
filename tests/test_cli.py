"""``grpo-desktop score``: readable table, JSON, and one clear line with status 2 on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

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
