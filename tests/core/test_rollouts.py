"""Reading a real run's rollouts: verl's {step}.jsonl dumps and TRL's completions parquet files.

Every file is generated here, shaped as the libraries write them (verl's ``rollout_data_dir``
lines; TRL's ``log_completions`` columns with advantages from TRL's own formula), so the tests say
what a real run's files look like. Bad inputs fail with one RolloutError naming the file.
"""

from __future__ import annotations

import builtins
import json
import os
import sys
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from rollout_files import (
    needs_pyarrow,
    pa,
    pq,
    trl_advantages,
    verl_prompt,
    write_trl,
    write_verl,
)

from grpo_desktop.core.rollouts import (
    INSTALL_HINT,
    PROMPT_CHARS,
    RolloutError,
    open_rollouts,
)


def test_verl_folder_groups_answers_by_shared_input_per_step(tmp_path):
    source = open_rollouts(write_verl(tmp_path / "rollouts"))
    assert source.format == "verl"
    assert [s.step for s in source.steps] == [1, 2]
    first = source.steps[0]
    assert first.source == "1.jsonl"
    assert [g.size for g in first.groups] == [4, 4, 4]
    assert [g.rewards for g in first.groups] == [(1, 1, 1, 1), (1, 0, 0, 1), (0, 0, 0, 1)]
    assert [g.mean for g in first.groups] == [1.0, 0.5, 0.25]
    assert [g.degenerate for g in first.groups] == [True, False, False]
    assert first.degenerate_fraction == pytest.approx(1 / 3)
    assert source.steps[1].degenerate_fraction == pytest.approx(2 / 3)
    assert first.groups[0].prompt == verl_prompt(1, 0)
    assert first.convention_match is None and first.max_abs_diff is None  # verl logs none
    assert first.problems == () and source.problems == ()
    assert first.reward_quantiles[0] == 0 and first.reward_quantiles[-1] == 1
    assert sum(first.reward_histogram) == 12 and first.reward_histogram[-1] == 7


def test_verl_group_answers_are_read_back_with_their_reward_components(tmp_path):
    source = open_rollouts(write_verl(tmp_path))
    answers = source.group_answers(1, 1)
    assert [a.text for a in answers] == [
        f"step 1 q 1 answer {k}: {2 if k in (0, 3) else 0}" for k in range(4)
    ]
    assert [a.reward for a in answers] == [1, 0, 0, 1]
    assert answers[0].components == {"score": 1.0, "acc": 1.0, "format_reward": 0.5}
    assert all(a.advantage is None for a in answers)
    with pytest.raises(RolloutError, match="no group 3"):
        source.group_answers(1, 3)
    with pytest.raises(RolloutError, match=r"no step 7; the steps are 1, 2"):
        source.group_answers(7, 0)


def test_a_file_changed_after_reading_is_said_so_when_a_group_is_read_back(tmp_path):
    source = open_rollouts(write_verl(tmp_path))
    (tmp_path / "1.jsonl").write_text("x" * 5000, encoding="utf-8")
    with pytest.raises(RolloutError, match=r"1\.jsonl: the file changed since it was read"):
        source.group_answers(1, 2)


def test_one_verl_file_opens_alone_and_a_long_prompt_is_cut_for_display(tmp_path):
    long_prompt = "x" * 1000
    path = tmp_path / "5.jsonl"
    rows = [{"input": long_prompt, "output": "a", "score": s, "step": 5} for s in (0, 1)]
    rows += [{"input": long_prompt + "y", "output": "b", "score": 1} for _ in range(2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (step,) = open_rollouts(path).steps
    assert step.step == 5  # the step field, or the file's name when a line has none
    assert [g.size for g in step.groups] == [2, 2]  # grouped by the whole prompt, not its start
    assert step.groups[0].prompt == "x" * PROMPT_CHARS + " … " + "x" * PROMPT_CHARS
    assert step.groups[1].prompt.endswith("xy")  # the end, where real prompts differ, is kept


def test_progress_is_reported_from_zero_to_one(tmp_path):
    calls: list[float] = []
    open_rollouts(write_verl(tmp_path), progress=calls.append)
    assert calls[-1] == 1.0 and all(0 <= c <= 1 for c in calls) and calls == sorted(calls)


# --- bad inputs --------------------------------------------------------------------------------


def write_lines(tmp_path: Path, lines: list[str], name: str = "3.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = json.dumps({"input": "q", "output": "a", "score": 1.0, "step": 3})


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([GOOD, "{not json", GOOD], r"3\.jsonl: line 2 is not valid JSON"),
        ([GOOD, "[1, 2]"], r"3\.jsonl: line 2 is not a JSON object"),
        ([GOOD, json.dumps({"input": "q", "output": "a"})], r"line 2 has no 'score'"),
        ([json.dumps({"output": "a", "score": 1})], r"line 1 has no 'input'"),
        ([GOOD, GOOD.replace("1.0", '"1"')], r"line 2: 'score' must be a finite number"),
        ([GOOD, GOOD.replace("1.0", "NaN")], r"line 2: 'score' must be a finite number, got nan"),
        ([GOOD, GOOD.replace("1.0", "true")], r"line 2: 'score' must be a finite number"),
        (["", "  "], r"3\.jsonl: the file is empty"),
    ],
)
def test_a_bad_verl_file_is_one_error_naming_the_file_and_line(tmp_path, lines, message):
    with pytest.raises(RolloutError, match=message):
        open_rollouts(write_lines(tmp_path, lines))


def test_an_empty_file_and_an_empty_folder_are_refused(tmp_path):
    empty = tmp_path / "1.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(RolloutError, match=r"1\.jsonl: the file is empty"):
        open_rollouts(empty)
    folder = tmp_path / "nothing"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(RolloutError, match=r"nothing: the folder has no verl step files"):
        open_rollouts(folder)
    with pytest.raises(RolloutError, match=r"missing: cannot read it"):
        open_rollouts(tmp_path / "missing")
    unknown = tmp_path / "data.bin"
    unknown.write_bytes(b"\x00\x01binary")
    with pytest.raises(RolloutError, match=r"data\.bin: neither a verl rollout file"):
        open_rollouts(unknown)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_fifo_is_refused_unread_without_hanging(tmp_path):
    fifo = tmp_path / "1.jsonl"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def attempt() -> None:
        try:
            open_rollouts(fifo)
        except BaseException as error:  # handed to the test thread
            outcome.append(error)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the reader so the process can exit, then fail
        with open(fifo, "w"):
            pass
        pytest.fail("open_rollouts blocked on a FIFO")
    assert len(outcome) == 1 and isinstance(outcome[0], RolloutError)
    assert "1.jsonl: cannot read the file (it is a named pipe (FIFO)" in str(outcome[0])
    # A FIFO inside a folder is refused the same way.
    with pytest.raises(RolloutError, match="named pipe"):
        open_rollouts(tmp_path)


def test_the_same_step_in_two_files_is_an_error(tmp_path):
    write_lines(tmp_path, [GOOD], name="3.jsonl")
    write_lines(tmp_path, [GOOD], name="4.jsonl")  # its lines say step 3 too
    with pytest.raises(RolloutError, match=r"4\.jsonl: step 3 is also in 3\.jsonl"):
        open_rollouts(tmp_path)


def test_a_group_of_another_size_is_reported_not_guessed(tmp_path):
    scores = {1: [[1, 0, 0, 1], [1, 1, 0], [0, 0, 0, 1]]}
    (step,) = open_rollouts(write_verl(tmp_path, scores)).steps
    assert [g.size for g in step.groups] == [4, 3, 4]
    assert step.problems == (
        "step 1: group sizes differ: most groups have 4 answers, but #2 has 3",
    )


# --- streaming ---------------------------------------------------------------------------------


def test_a_large_jsonl_file_is_summarised_in_a_fraction_of_its_size(tmp_path):
    """200,000 answers (groups of 8, 700-byte completions): the file is never held in memory."""
    path = tmp_path / "1.jsonl"
    completion = "Let me think step by step. " * 25
    group_size = 8
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(200_000):
            q = i // group_size
            record = {
                "input": f"Problem {q}: compute {q} * 7 + 3.",
                "output": f"{completion} The answer is {i % 3}.",
                "gts": str(q * 7 + 3),
                "score": float(i % 3 == 0),
                "step": 1,
            }
            handle.write(json.dumps(record) + "\n")
    size = path.stat().st_size
    assert size > 100_000_000
    tracemalloc.start()
    try:
        source = open_rollouts(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    (step,) = source.steps
    assert len(step.groups) == 25_000 and step.answers == 200_000
    assert peak < size / 3, f"peak {peak:,} bytes for a {size:,}-byte file"
    answers = source.group_answers(1, 24_999)  # read back from the end of the file
    assert len(answers) == 8 and answers[-1].text.endswith(f"The answer is {199_999 % 3}.")


# --- TRL parquet -------------------------------------------------------------------------------


@needs_pyarrow
def test_trl_advantages_from_trls_formula_match_the_trl_convention(tmp_path):
    source = open_rollouts(write_trl(tmp_path))
    assert source.format == "trl"
    (step,) = source.steps
    assert step.step == 10
    assert [g.rewards for g in step.groups] == [
        (1.5, 0.5, 0.0, 1.5),
        (1.5, 1.5, 1.5, 1.5),
        (0.0, 1.5, 0.5, 0.5),  # NaN accuracy: the answer keeps its format reward only
    ]
    assert [g.degenerate for g in step.groups] == [False, True, False]
    assert step.convention_match == "trl"
    assert step.max_abs_diff < 1e-6
    assert step.problems == ()


@needs_pyarrow
@pytest.mark.parametrize("convention", ["dr_grpo", "textbook", "trl_batch", "rloo"])
def test_advantages_of_another_convention_are_recognised(tmp_path, convention):
    (step,) = open_rollouts(write_trl(tmp_path, convention=convention)).steps
    assert step.convention_match == convention
    assert step.max_abs_diff < 1e-6


@needs_pyarrow
def test_advantages_no_convention_reproduces_are_reported_with_the_closest_difference(tmp_path):
    path = write_trl(tmp_path)
    table = pq.read_table(path)
    doubled = pa.array(np.asarray(table.column("advantage")) * 2)
    pq.write_table(
        table.set_column(table.schema.get_field_index("advantage"), "advantage", doubled), path
    )
    (step,) = open_rollouts(path).steps
    assert step.convention_match is None
    assert step.max_abs_diff > 0.1
    assert "no convention reproduces the logged advantages" in step.problems[0]


@needs_pyarrow
def test_trl_group_answers_carry_each_reward_function_and_the_logged_advantage(tmp_path):
    source = open_rollouts(write_trl(tmp_path, row_group_size=5))  # groups straddle row groups
    answers = source.group_answers(10, 2)
    assert [a.text for a in answers] == [f"completion 2.{k}" for k in range(4)]
    assert [a.reward for a in answers] == [0.0, 1.5, 0.5, 0.5]
    assert answers[1].components == {"accuracy_reward": 1.0, "format_reward": 0.5}
    assert np.isnan(answers[2].components["accuracy_reward"])
    expected = trl_advantages(np.array([1.5, 0.5, 0.0, 1.5, 1.5, 1.5, 1.5, 1.5, 0, 1.5, 0.5, 0.5]))
    assert [a.advantage for a in answers] == pytest.approx(expected[8:].tolist())


@needs_pyarrow
def test_a_trl_group_of_another_size_is_reported_and_advantages_not_checked(tmp_path):
    accuracy = [[1, 0, 0, 1], [1, 0, 1], [0, 1, 0, 0]]
    fmt = [[0.5] * 4, [0.5] * 3, [0.5] * 4]
    (step,) = open_rollouts(write_trl(tmp_path, accuracy=accuracy, fmt=fmt, convention=None)).steps
    assert [g.size for g in step.groups] == [4, 3, 4]
    assert step.convention_match is None and step.max_abs_diff is None
    assert (
        step.problems[0] == "step 10: group sizes differ: most groups have 4 answers, but #2 has 3"
    )
    assert "no 'advantage' column" in step.problems[1]


@needs_pyarrow
def test_rows_of_one_prompt_that_are_not_consecutive_are_reported(tmp_path):
    path = tmp_path / "completions_00001.parquet"
    prompts = ["a", "a", "b", "b", "a", "a"]
    pq.write_table(
        pa.table(
            {
                "step": [1] * 6,
                "prompt": prompts,
                "completion": ["x"] * 6,
                "reward": [1.0, 0, 1, 0, 1, 0],
                "advantage": [0.0] * 6,
            }
        ),
        path,
    )
    (step,) = open_rollouts(path).steps
    assert [g.size for g in step.groups] == [4, 2]
    assert any("'a' are not consecutive" in p for p in step.problems)
    assert step.convention_match is None


@needs_pyarrow
def test_a_trl_folder_and_the_runs_output_folder_both_open(tmp_path):
    completions = tmp_path / "run" / "completions"
    write_trl(completions, step=10)
    write_trl(completions, step=20, convention="dr_grpo")
    for path in (completions, tmp_path / "run"):
        source = open_rollouts(path)
        assert [s.step for s in source.steps] == [10, 20]
        assert [s.convention_match for s in source.steps] == ["trl", "dr_grpo"]


@needs_pyarrow
@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"prompt": ["p"], "reward": [1.0]}, r"no 'completion' column"),
        ({"prompt": ["p"], "completion": ["c"], "note": ["n"]}, r"no reward column"),
        ({"prompt": [None], "completion": ["c"], "reward": [1.0]}, r"row 1 has no prompt"),
        ({"prompt": ["p"], "completion": ["c"], "reward": [float("inf")]}, r"'reward' is infinite"),
    ],
)
def test_a_bad_trl_file_is_one_error_naming_the_file(tmp_path, columns, message):
    path = tmp_path / "completions_00003.parquet"
    pq.write_table(pa.table(columns), path)
    with pytest.raises(RolloutError, match=rf"completions_00003\.parquet: .*{message}"):
        open_rollouts(path)


@needs_pyarrow
def test_a_file_named_parquet_that_is_not_parquet_is_refused(tmp_path):
    path = tmp_path / "completions_00001.parquet"
    path.write_text("not parquet at all", encoding="utf-8")
    with pytest.raises(RolloutError, match=r"completions_00001\.parquet: not a readable parquet"):
        open_rollouts(path)


@needs_pyarrow
def test_without_pyarrow_a_parquet_path_says_what_to_install(tmp_path, monkeypatch):
    path = write_trl(tmp_path)
    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    for where in (path, tmp_path):
        with pytest.raises(RolloutError) as caught:
            open_rollouts(where)
        assert str(caught.value) == (
            f"{path.name}: reading TRL's parquet files needs pyarrow: {INSTALL_HINT}"
        )
    assert 'pip install "grpo-desktop[rollouts]"' in INSTALL_HINT


@needs_pyarrow
def test_a_large_batch_checks_trl_batch_std_in_linear_memory(tmp_path):
    """40,000 answers: the batch std is taken over the whole step without a batch² matrix."""
    groups, size = 5_000, 8
    rewards = (np.arange(groups * size) % 3 == 0).astype(np.float64).reshape(groups, size)
    centered = rewards - rewards.mean(axis=1, keepdims=True)
    advantages = (centered / (rewards.std(ddof=1) + 1e-4)).astype(np.float32).reshape(-1)
    path = tmp_path / "completions_00002.parquet"
    table = pa.table(
        {
            "step": np.full(groups * size, 2),
            "prompt": [f"prompt {i // size}" for i in range(groups * size)],
            "completion": ["c"] * (groups * size),
            "accuracy_reward": rewards.reshape(-1),
            "advantage": advantages,
        }
    )
    pq.write_table(table, path, row_group_size=10_000)
    (step,) = open_rollouts(path).steps
    assert len(step.groups) == groups
    assert step.convention_match == "trl_batch" and step.max_abs_diff < 1e-6
