"""A training run as CSV: one row per algorithm, seed and step; numbers read back exactly."""

from __future__ import annotations

import csv
import io

import pytest

from grpo_desktop.core.files.training_csv import training_csv, training_csv_bytes
from grpo_desktop.core.training.run import METRICS, TrainingConfig, TrainingRun


@pytest.fixture(scope="module")
def run() -> TrainingRun:
    run = TrainingRun(TrainingConfig(algorithms=("grpo", "dapo"), steps=10, seeds=2))
    run.run(4)
    return run


def test_every_algorithm_seed_and_recorded_step_is_a_row(run):
    rows = list(csv.DictReader(io.StringIO(training_csv(run))))
    assert len(rows) == 2 * 2 * 5
    assert {(r["algorithm"], r["seed"]) for r in rows} == {
        ("grpo", "1"),
        ("grpo", "2"),
        ("dapo", "1"),
        ("dapo", "2"),
    }
    header = list(rows[0])
    assert header[:4] == ["algorithm", "seed", "step", "diverged"]
    assert header[4 : 4 + len(METRICS)] == list(METRICS)
    assert header[-1] == f"pass_rate:{run.library.problem_ids[-1]}"


def test_numbers_read_back_exactly_and_step_zero_sampling_is_empty(run):
    rows = list(csv.DictReader(io.StringIO(training_csv(run))))
    first = next(r for r in rows if r["algorithm"] == "grpo" and r["seed"] == "2")
    assert first["step"] == "0" and first["degenerate_fraction"] == ""
    last = next(
        r for r in rows if r["algorithm"] == "grpo" and r["seed"] == "2" and r["step"] == "4"
    )
    assert float(last["pass_rate"]) == run.history("grpo")["pass_rate"][4, 1]
    problem = run.library.problem_ids[0]
    assert float(last[f"pass_rate:{problem}"]) == run.pass_rates("grpo")[4, 1, 0]


def test_the_file_is_utf8_with_a_byte_order_mark(run):
    assert training_csv_bytes(run).startswith("\ufeff".encode())


def test_a_diverged_seed_is_marked_from_its_step_on_and_has_no_numbers_there():
    run = TrainingRun(TrainingConfig(algorithms=("dapo",), steps=10, seeds=8, beta=10.0, epochs=8))
    run.run(6)
    steps = run.divergence("dapo").steps
    seed = next(index for index, step in enumerate(steps) if step is not None)
    rows = [r for r in csv.DictReader(io.StringIO(training_csv(run))) if r["seed"] == str(seed + 1)]
    for row in rows:
        after = int(row["step"]) >= steps[seed]
        assert row["diverged"] == ("1" if after else "0")
        assert (row["pass_rate"] == "") == after  # the policy at that step is not a number
