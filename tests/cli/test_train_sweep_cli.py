"""``grpo-desktop train --sweep NAME=V1,V2,…``: an experiment as a table, as JSON
(``{"config", "sweep": {"name", "values", "results": [...]}}``) and as CSV."""

from __future__ import annotations

import json

import pytest

from grpo_desktop.app import main

SMALL = ["--steps", "8", "--seeds", "2", "--batch", "4"]


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["train", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_group_size_experiment_as_json(capsys):
    status, out, _ = run(capsys, *SMALL, "--sweep", "group-size=4,16,32", "--json")
    assert status == 0
    data = json.loads(out, parse_constant=lambda name: pytest.fail(name))
    sweep = data["sweep"]
    assert (sweep["name"], sweep["values"]) == ("group-size", [4, 16, 32])
    keys = {
        "value",
        "final_pass_rate_mean",
        "final_pass_rate_min",
        "final_pass_rate_max",
        "degenerate_fraction_step1",
    }
    assert all(keys <= set(row) for row in sweep["results"])
    assert [row["value"] for row in sweep["results"]] == [4, 16, 32]
    assert data["config"]["algorithms"] == ["grpo"] and data["config"]["seeds"] == 2


def test_the_table_and_the_csv(capsys, tmp_path):
    target = tmp_path / "experiment.csv"
    status, out, _ = run(capsys, *SMALL, "--sweep", "lr=1,4", "--csv", str(target))
    assert status == 0
    assert "Experiment: lr over 2 seeds" in out
    assert target.read_text(encoding="utf-8").splitlines()[0].startswith("lr,final_pass_rate")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--sweep", "seeds=1,2"), "NAME one of"),
        (("--target", "0.5"), "go with --sweep"),
        (("--sweep", "lr=1,2", "-a", "grpo", "-a", "rloo"), "one algorithm"),
        (("--sweep", "lr=1,2", "--target", "2"), "target pass rate"),
    ],
)
def test_a_bad_experiment_is_one_line_and_status_2(capsys, args, words):
    status, out, err = run(capsys, *SMALL, *args)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_a_csv_that_cannot_be_written_is_one_line_and_status_1(capsys, tmp_path):
    status, _, err = run(capsys, *SMALL, "--sweep", "lr=1,2", "--csv", str(tmp_path / "no" / "x"))
    assert status == 1 and "cannot write" in err and len(err.strip().splitlines()) == 1
