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
import warnings
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

from grpo_desktop.core.runs.rollouts import (
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


@pytest.mark.slow  # writes and reads a file of over 100 MB
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
def test_trl_rows_of_one_prompt_that_are_not_consecutive_are_separate_groups(tmp_path):
    """TRL groups by position (``rewards.view(-1, num_generations)`` in
    ``GRPOTrainer._generate_and_score_completions``): a prompt that comes back later in the
    batch was drawn again, and is another group."""
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
    assert [(g.prompt, g.size) for g in step.groups] == [("a", 2), ("b", 2), ("a", 2)]
    assert not any("not consecutive" in p for p in step.problems)
    assert step.convention_match is None  # the logged zeros are no convention's


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


# --- hostile parquet: extension types are refused before pyarrow opens the file ------------------

HARMLESS_EXTENSION = {
    # What CVE-2023-47248's files declare, with bytes that are no pickle at all: pyarrow before
    # 14.0.1 would hand them to pickle.loads; the app must refuse the file before that.
    b"ARROW:extension:name": b"arrow.py_extension_type",
    b"ARROW:extension:metadata": b"harmless bytes, not a pickle",
}


def extension_field(where: str):
    plain = pa.field("payload", pa.binary(), metadata=HARMLESS_EXTENSION)
    if where == "column":
        return plain, [b"x"]
    if where == "struct child":
        return pa.field("payload", pa.struct([plain])), [{"payload": b"x"}]
    return pa.field("payload", pa.list_(plain)), [[b"x"]]  # a list's item


@needs_pyarrow
@pytest.mark.parametrize("where", ["column", "struct child", "list item"])
def test_a_parquet_declaring_an_extension_type_is_refused_before_pyarrow_opens_it(
    tmp_path, monkeypatch, where
):
    field, values = extension_field(where)
    schema = pa.schema(
        [
            pa.field("prompt", pa.string()),
            pa.field("completion", pa.string()),
            pa.field("reward", pa.float64()),
            field,
        ]
    )
    table = pa.table({"prompt": ["p"], "completion": ["c"], "reward": [1.0], "payload": values})
    path = tmp_path / "completions_00001.parquet"
    pq.write_table(table.cast(schema), path)

    def never(*args, **kwargs):
        raise AssertionError("pyarrow opened a file declaring an extension type")

    monkeypatch.setattr(pq, "ParquetFile", never)
    for opened in (path, tmp_path):  # the file, and the folder holding it
        with pytest.raises(RolloutError) as caught:
            open_rollouts(opened)
        message = str(caught.value)
        assert message.startswith("completions_00001.parquet: refused unread: its schema declares")
        assert "extension type" in message and "14.0.1" in message and "\n" not in message


@needs_pyarrow
def test_a_stored_arrow_schema_that_is_not_base64_is_refused_unopened(tmp_path, monkeypatch):
    path = tmp_path / "completions_00001.parquet"
    table = pa.table({"prompt": ["p"], "completion": ["c"], "reward": [1.0]})
    garbage = {b"ARROW:schema": b"not base64 at all!"}  # how pyarrow would decode it is unknown
    pq.write_table(table.replace_schema_metadata(garbage), path)  # kept as written
    monkeypatch.setattr(pq, "ParquetFile", lambda *a, **k: pytest.fail("pyarrow opened it"))
    with pytest.raises(
        RolloutError,
        match=r"^completions_00001\.parquet: not a readable parquet file \(its "
        r"stored Arrow schema is not base64\)$",
    ):
        open_rollouts(path)


def parquet_with_footer(tmp_path: Path, footer: bytes) -> Path:
    """A file with parquet's markers around a hand-written Thrift footer."""
    path = tmp_path / "completions_00001.parquet"
    path.write_bytes(b"PAR1" + footer + len(footer).to_bytes(4, "little") + b"PAR1")
    return path


@needs_pyarrow
@pytest.mark.parametrize(
    ("footer", "reason"),
    [
        (b"\x59\xfc\xff\xff\xff\x0f", "the footer declares more elements than it holds"),
        (b"\x1c" * 200, "the footer is nested too deeply"),
        (b"\x1e", "the footer holds an unknown Thrift type 14"),
        (b"\x18\x80\x80", "the footer ends inside a value"),
        (b"\x59\x18", "its key-value metadata is not a list of pairs"),
    ],
)
def test_a_parquet_footer_the_walk_does_not_understand_is_refused_unopened(
    tmp_path, monkeypatch, footer, reason
):
    monkeypatch.setattr(pq, "ParquetFile", lambda *a, **k: pytest.fail("pyarrow opened it"))
    with pytest.raises(RolloutError) as caught:
        open_rollouts(parquet_with_footer(tmp_path, footer))
    assert str(caught.value) == f"completions_00001.parquet: not a readable parquet file ({reason})"


def thrift_binary(data: bytes) -> bytes:
    size, out = len(data), bytearray()
    while size > 0x7F:
        out.append(size & 0x7F | 0x80)
        size >>= 7
    return bytes(out) + bytes([size]) + data


@needs_pyarrow
def test_an_extension_type_in_a_repeated_metadata_list_is_found(tmp_path, monkeypatch):
    """A footer whose key-value list appears twice: whichever copy a reader keeps, it is checked."""
    import base64

    schema = base64.b64encode(
        b"\x00flatbuffer ... ARROW:extension:name ... arrow.py_extension_type"
    )

    def pair(key: bytes, value: bytes) -> bytes:  # a KeyValue struct
        return b"\x18" + thrift_binary(key) + b"\x18" + thrift_binary(value) + b"\x00"

    harmless = b"\x49\x1c" + pair(b"pandas", b"{}")  # field 1 + 4 = 5: a list of one struct
    hostile = b"\x09\x0a" + b"\x1c" + pair(b"ARROW:schema", schema)  # field 5 again (long form)
    monkeypatch.setattr(pq, "ParquetFile", lambda *a, **k: pytest.fail("pyarrow opened it"))
    with pytest.raises(RolloutError, match="refused unread: its schema declares an Arrow ext"):
        open_rollouts(parquet_with_footer(tmp_path, b"\x15\x04" + harmless + hostile + b"\x00"))


@needs_pyarrow
def test_an_ordinary_trl_file_passes_the_footer_check_unchanged(tmp_path):
    """TRL's files (pandas metadata and pyarrow's stored schema) open as before."""
    table = pa.table({"step": [1, 1], "prompt": ["p", "p"], "completion": ["a", "b"]})
    table = table.append_column("reward", pa.array([1.0, 0.0]))
    path = tmp_path / "completions_00001.parquet"
    pq.write_table(table.replace_schema_metadata({b"pandas": b'{"columns": []}'}), path)
    (step,) = open_rollouts(path).steps
    assert step.groups[0].rewards == (1.0, 0.0)


# --- valid-looking lines that used to raise tracebacks ------------------------------------------


def line_with(**fields) -> str:
    """A verl line whose values are written as given (JSON literals, not Python values)."""
    values = {"input": '"q"', "output": '"a"', "score": "1.0", "step": "3", **fields}
    return "{" + ", ".join(f'"{key}": {value}' for key, value in values.items()) + "}"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (line_with(score="9" * 401), r"line 2: 'score' is too large \(an integer of more than 19"),
        (
            line_with(step="Infinity"),
            r"line 2: 'step' must be a whole number from 0 to 2\*\*63 − 1, got inf",
        ),
        (line_with(step="NaN"), r"line 2: 'step' must be a whole number .*, got nan"),
        (line_with(step="-1"), r"line 2: 'step' must be a whole number .*, got -1"),
        (line_with(step="2.5"), r"line 2: 'step' must be a whole number .*, got 2\.5"),
        (line_with(step='"3"'), r"line 2: 'step' must be a whole number .*, got '3'"),
        (line_with(step="9" * 30), r"line 2: 'step' must be .*, got an integer of more than 19"),
        (line_with(output="[" * 100_000 + "]" * 100_000), r"line 2 is not valid JSON \(nested too"),
        (line_with(score="1" * 5000), r"line 2 is not valid JSON \(a number has too many digits\)"),
    ],
)
def test_a_valid_looking_verl_line_is_one_error_naming_the_file_and_line(tmp_path, line, message):
    with pytest.raises(RolloutError, match=rf"^3\.jsonl: {message}"):
        open_rollouts(write_lines(tmp_path, [GOOD, line]))


def test_a_line_that_is_not_utf8_says_so(tmp_path):
    path = tmp_path / "3.jsonl"
    path.write_bytes(GOOD.encode() + b"\n" + GOOD.encode().replace(b'"q"', b'"\xff"') + b"\n")
    with pytest.raises(
        RolloutError, match=r"^3\.jsonl: line 2 is not valid JSON \(not valid UTF-8\)$"
    ):
        open_rollouts(path)


# --- absurd numbers ----------------------------------------------------------------------------


@pytest.mark.parametrize("score", ["1e308", "-1e101", "1" + "0" * 120])
def test_a_reward_beyond_1e100_is_refused_naming_the_line(tmp_path, score):
    with pytest.raises(RolloutError, match=r"^3\.jsonl: line 2: 'score' is .*beyond ±1e\+100"):
        open_rollouts(write_lines(tmp_path, [GOOD, line_with(score=score)]))


def test_large_rewards_within_range_give_finite_statistics_without_warnings(tmp_path):
    lines = [line_with(score=s) for s in ("1e100", "-1e100", "1e100", "-1e100")]
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        (step,) = open_rollouts(write_lines(tmp_path, lines)).steps
    assert step.reward_quantiles == (-1e100, -1e100, 0.0, 1e100, 1e100)
    assert step.groups[0].mean == 0 and sum(step.reward_histogram) == 4


@needs_pyarrow
def test_a_parquet_whose_rewards_would_sum_past_float64_is_refused(tmp_path):
    path = tmp_path / "completions_00001.parquet"
    rows = 20
    table = pa.table({"prompt": ["p"] * rows, "completion": ["c"] * rows, "reward": [1e307] * rows})
    pq.write_table(table, path)
    with pytest.raises(
        RolloutError,
        match=r"^completions_00001\.parquet: row 1: reward 'reward' "
        r"is 1e\+307; rewards beyond ±1e\+100 are refused",
    ):
        open_rollouts(path)


@needs_pyarrow
def test_logged_advantages_that_overflow_the_comparison_match_no_convention_quietly(tmp_path):
    path = tmp_path / "completions_00001.parquet"
    table = pa.table(
        {
            "prompt": ["p"] * 4,
            "completion": ["c"] * 4,
            "reward": [1.0, 0.0, 0.0, 1e100],
            "advantage": [1.7e308, -1.7e308, 1.7e308, -1.7e308],
        }
    )
    pq.write_table(table, path)
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        (step,) = open_rollouts(path).steps
    assert step.convention_match is None and np.isfinite(step.max_abs_diff)


def test_an_extra_key_too_large_for_a_float_is_left_out_of_the_components(tmp_path):
    line = line_with(acc="1" + "0" * 400, fmt="0.5", flag="true")
    source = open_rollouts(write_lines(tmp_path, [line, GOOD]))
    answers = source.group_answers(3, 0)
    assert answers[0].components == {"score": 1.0, "fmt": 0.5}


# --- the public API checks its arguments ----------------------------------------------------------


def test_open_rollouts_refuses_what_is_not_a_path_with_a_message(tmp_path):
    with pytest.raises(TypeError, match=r"path must be a str or os\.PathLike .*, not NoneType"):
        open_rollouts(None)
    with pytest.raises(TypeError, match=r"not bytes"):
        open_rollouts(b"1.jsonl")
    with pytest.raises(TypeError, match=r"progress must be callable \(or None\), not int"):
        open_rollouts(write_verl(tmp_path), progress=5)


def test_steps_and_groups_are_asked_for_by_int(tmp_path):
    source = open_rollouts(write_verl(tmp_path))
    with pytest.raises(TypeError, match=r"^step must be an int, not str$"):
        source.step("1")
    with pytest.raises(TypeError, match=r"^group_index must be an int, not float$"):
        source.group_answers(1, 1.0)
    with pytest.raises(TypeError, match=r"^step must be an int, not bool$"):
        source.group_answers(True, 0)


# --- files that changed after they were read -----------------------------------------------------


@needs_pyarrow
def test_a_trl_file_with_rows_removed_after_reading_says_it_changed(tmp_path):
    path = write_trl(tmp_path)
    source = open_rollouts(path)
    table = pq.read_table(path)
    pq.write_table(table.slice(0, 4), path)  # only the first group is left
    with pytest.raises(RolloutError, match=r"^completions_00010\.parquet: the file changed since"):
        source.group_answers(10, 2)


def test_a_file_rewritten_with_the_same_size_and_time_is_caught_by_its_prompts(tmp_path):
    path = write_verl(tmp_path) / "1.jsonl"
    source = open_rollouts(path)
    before = path.stat()
    path.write_bytes(path.read_bytes().replace(b"question", b"QUESTION"))  # same length
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    with pytest.raises(RolloutError, match=r"^1\.jsonl: the file changed since it was read; open"):
        source.group_answers(1, 0)


# --- steps a file's name and its rows disagree on ------------------------------------------------


def step_lines(blocks: list[tuple[int, int]]) -> list[str]:
    """Lines in blocks of (step, answers), all answering prompt 'q'."""
    return [
        json.dumps({"input": "q", "output": f"a{i}", "score": float(i % 2), "step": step})
        for step, count in blocks
        for i in range(count)
    ]


def test_a_file_named_for_one_step_holding_others_says_so_and_keeps_them_apart(tmp_path):
    path = write_lines(tmp_path, step_lines([(2, 4), (7, 4)]), name="3.jsonl")
    source = open_rollouts(path)
    assert [(s.step, [g.size for g in s.groups]) for s in source.steps] == [(2, [4]), (7, [4])]
    for step in source.steps:
        assert step.problems == (
            f"step {step.step}: 3.jsonl is named for step 3 but its rows say steps 2 and 7; "
            "each step is shown as its rows say",
        )


def test_a_step_whose_rows_come_back_after_another_step_is_refused_not_merged(tmp_path):
    path = write_lines(tmp_path, step_lines([(7, 4), (2, 4), (7, 4)]), name="3.jsonl")
    with pytest.raises(
        RolloutError,
        match=r"^3\.jsonl: line 9 is step 7 again, after rows of "
        r"step 2: the file joins separate dumps",
    ):
        open_rollouts(path)


def test_a_file_whose_rows_all_say_its_own_step_has_no_problem(tmp_path):
    (step,) = open_rollouts(write_lines(tmp_path, step_lines([(3, 4)]), name="3.jsonl")).steps
    assert step.problems == () and step.notes == ()


@needs_pyarrow
def test_trl_rows_of_a_step_that_comes_back_are_refused(tmp_path):
    path = tmp_path / "completions_00007.parquet"
    steps = [7, 7, 2, 2, 7, 7]
    pq.write_table(
        pa.table({"step": steps, "prompt": ["p"] * 6, "completion": ["c"] * 6, "r": [1.0] * 6}),
        path,
    )
    with pytest.raises(RolloutError, match=r"row 5 is step 7 again, after rows of step 2"):
        open_rollouts(path)


@needs_pyarrow
def test_columns_that_are_not_read_as_rewards_are_noted_with_why(tmp_path):
    from decimal import Decimal

    path = tmp_path / "completions_00001.parquet"
    pq.write_table(
        pa.table(
            {
                "step": [1, 1],
                "prompt": ["p", "p"],
                "completion": ["a", "b"],
                "accuracy": [1.0, 0.0],
                "passed": [True, False],
                "judge_score": ["1", "0"],
                "cost": pa.array([Decimal("0.5"), Decimal("1.5")], pa.decimal128(4, 2)),
            }
        ),
        path,
    )
    (step,) = open_rollouts(path).steps
    assert step.groups[0].rewards == (1.0, 0.0)  # accuracy only
    assert step.notes == (
        "step 1: columns not read as rewards: 'passed' (true/false), 'judge_score' (text), "
        "'cost' (decimal) (a reward function's column holds float or integer scores)",
    )


@needs_pyarrow
def test_a_file_with_only_unreadable_reward_columns_names_them(tmp_path):
    path = tmp_path / "completions_00001.parquet"
    pq.write_table(pa.table({"prompt": ["p"], "completion": ["c"], "passed": [True]}), path)
    with pytest.raises(
        RolloutError, match=r"no reward column .*; not read: 'passed' \(true/false\)"
    ):
        open_rollouts(path)


@needs_pyarrow
@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([1.0, float("nan")], r"row 2: 'step' must be a whole number .*, got nan"),
        ([1.0, float("inf")], r"row 2: 'step' must be a whole number .*, got inf"),
    ],
)
def test_a_trl_step_that_is_not_a_whole_number_names_the_row(tmp_path, steps, message):
    path = tmp_path / "completions_00001.parquet"
    pq.write_table(
        pa.table({"step": steps, "prompt": ["p"] * 2, "completion": ["c"] * 2, "r": [1.0] * 2}),
        path,
    )
    with pytest.raises(RolloutError, match=rf"^completions_00001\.parquet: {message}"):
        open_rollouts(path)


@needs_pyarrow
def test_a_footer_is_walked_once_while_unchanged_and_again_when_rewritten(tmp_path, monkeypatch):
    from grpo_desktop.core.runs import rollouts

    walks: list[int] = []
    real_walk = rollouts._key_values
    monkeypatch.setattr(
        rollouts, "_key_values", lambda footer: walks.append(1) or real_walk(footer)
    )
    path = write_trl(tmp_path, step=11)
    source = open_rollouts(path)  # row counts, then rows: one walk
    source.group_answers(11, 0)
    assert len(walks) == 1
    field, values = extension_field("column")
    table = pq.read_table(path)
    pq.write_table(table.append_column(field, pa.array(values * table.num_rows)), path)
    with pytest.raises(RolloutError, match="refused unread"):
        open_rollouts(path)
    assert len(walks) > 1  # the new footer is walked, not taken for the one checked before
