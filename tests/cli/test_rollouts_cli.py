"""``grpo-desktop rollouts PATH``: a real run's groups in the terminal, as a table or strict JSON,
one clear line with status 2 on any bad input (nothing on stdout), and no Qt loaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from grpo_desktop.app import build_parser, main

SCORES = {1: [[1, 1, 1, 1], [1, 0, 0, 1]], 2: [[0, 1, 1, 1], [0, 0, 0, 0]]}


def write_verl(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for step, groups in SCORES.items():
        with open(folder / f"{step}.jsonl", "w", encoding="utf-8") as handle:
            for q, rewards in enumerate(groups):
                for k, score in enumerate(rewards):
                    record = {
                        "input": f"Question {q}:\nwhat is {q} + {step}?",
                        "output": f"answer {k}",
                        "gts": str(q + step),
                        "score": float(score),
                        "step": step,
                        "acc": float(score),
                    }
                    handle.write(json.dumps(record) + "\n")
    return folder


try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:  # pip install ".[test]" brings it; the verl tests run without
    pa = pq = None

needs_pyarrow = pytest.mark.skipif(pa is None, reason="TRL's parquet files need pyarrow")


def write_trl(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rewards = np.array([[1.0, 0, 0, 1], [1, 1, 0, 1]])
    mean = rewards.mean(axis=1, keepdims=True)
    std = rewards.std(axis=1, ddof=1, keepdims=True)
    advantages = ((rewards - mean) / (std + 1e-4)).astype(np.float32).reshape(-1)
    table = pa.table(
        {
            "step": [7] * 8,
            "prompt": [f"prompt {i // 4}" for i in range(8)],
            "completion": [f"completion {i}" for i in range(8)],
            "accuracy_reward": rewards.reshape(-1),
            "advantage": advantages,
        }
    )
    path = folder / "completions_00007.parquet"
    pq.write_table(table, path)
    return path


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["rollouts", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def strict_json(text: str) -> dict:
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))


def test_json_of_a_verl_folder_is_the_documented_object(tmp_path, capsys):
    status, out, err = run(capsys, str(write_verl(tmp_path / "dump")), "--json")
    assert (status, err) == (0, "")
    data = strict_json(out)
    assert data == {
        "format": "verl",
        "steps": [
            {
                "step": 1,
                "groups": [
                    {
                        "prompt": "Question 0:\nwhat is 0 + 1?",
                        "size": 4,
                        "mean": 1.0,
                        "degenerate": True,
                    },
                    {
                        "prompt": "Question 1:\nwhat is 1 + 1?",
                        "size": 4,
                        "mean": 0.5,
                        "degenerate": False,
                    },
                ],
                "degenerate_fraction": 0.5,
                "convention_match": None,
                "max_abs_diff": None,
            },
            {
                "step": 2,
                "groups": [
                    {
                        "prompt": "Question 0:\nwhat is 0 + 2?",
                        "size": 4,
                        "mean": 0.75,
                        "degenerate": False,
                    },
                    {
                        "prompt": "Question 1:\nwhat is 1 + 2?",
                        "size": 4,
                        "mean": 0.0,
                        "degenerate": True,
                    },
                ],
                "degenerate_fraction": 0.5,
                "convention_match": None,
                "max_abs_diff": None,
            },
        ],
    }


def test_the_table_shows_each_step_and_group_on_one_line(tmp_path, capsys):
    status, out, err = run(capsys, str(write_verl(tmp_path / "dump")))
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "dump: verl rollouts, 2 steps"
    assert lines[2] == "step 1 (1.jsonl): 2 groups, 8 answers, 50 % degenerate"
    assert lines[3] == "  rewards: min 0, quartiles 0.75 / 1 / 1, max 1"
    assert lines[4].split() == ["#", "size", "mean", "degenerate", "prompt"]
    assert lines[5].split() == [
        "1",
        "4",
        "1",
        "yes",
        "Question",
        "0:",
        "what",
        "is",
        "0",
        "+",
        "1?",
    ]
    assert lines[6].split()[:4] == ["2", "4", "0.5", "Question"]
    assert "step 2 (2.jsonl): 2 groups, 8 answers, 50 % degenerate" in lines


def test_step_limits_the_output_and_an_absent_step_lists_the_available_ones(tmp_path, capsys):
    folder = str(write_verl(tmp_path / "dump"))
    status, out, _ = run(capsys, folder, "--step", "2", "--json")
    assert status == 0 and [s["step"] for s in strict_json(out)["steps"]] == [2]
    status, out, err = run(capsys, folder, "--step", "9")
    assert (status, out) == (2, "")
    assert err == "grpo-desktop rollouts: error: dump: no step 9; the steps are 1, 2\n"


@needs_pyarrow
def test_a_trl_file_names_the_convention_of_its_advantages(tmp_path, capsys):
    path = write_trl(tmp_path)
    status, out, err = run(capsys, str(path), "--json")
    assert (status, err) == (0, "")
    (step,) = strict_json(out)["steps"]
    assert strict_json(out)["format"] == "trl"
    assert step["convention_match"] == "trl" and step["max_abs_diff"] < 1e-6
    assert [g["size"] for g in step["groups"]] == [4, 4]
    status, out, err = run(capsys, str(path))
    assert (
        'logged advantages: the trl convention, TRL scale_rewards="group" (max |difference| ' in out
    )


@needs_pyarrow
def test_without_pyarrow_a_parquet_file_says_what_to_install(tmp_path, capsys, monkeypatch):
    path = write_trl(tmp_path)
    for name in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)  # import pyarrow now fails
    status, out, err = run(capsys, str(path))
    assert (status, out) == (2, "")
    assert err == (
        "grpo-desktop rollouts: error: completions_00007.parquet: reading TRL's parquet files "
        'needs pyarrow: pip install "grpo-desktop[rollouts]" (or pip install pyarrow)\n'
    )


def test_problems_are_warnings_on_stderr_with_json_and_lines_in_the_table(tmp_path, capsys):
    path = tmp_path / "4.jsonl"
    rows = [("a", 1), ("a", 0), ("b", 1)]
    path.write_text(
        "".join(json.dumps({"input": p, "output": "x", "score": s}) + "\n" for p, s in rows),
        encoding="utf-8",
    )
    status, out, err = run(capsys, str(path), "--json")
    assert status == 0 and strict_json(out)["steps"][0]["groups"][1]["size"] == 1
    assert err.startswith("grpo-desktop rollouts: warning: step 4: group sizes differ")
    status, out, err = run(capsys, str(path))
    assert (status, err) == (0, "")
    assert "  problem: step 4: group sizes differ: most groups have 2 answers, but #2 has 1" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "bad.jsonl: the file is empty (no rollouts)"),
        (b'{"input": "q", "output": "a", "score": 1, "step": 1}\n{oops\n', "bad.jsonl: line 2 is"),
        (b'{"input": "q", "output": "a", "score": 1}\n', "bad.jsonl: line 1 has no whole-number"),
        (b'{"input": "q", "score": 1}\n', "bad.jsonl: line 1 has no 'output'"),
    ],
)
def test_a_bad_file_is_one_line_on_stderr_and_status_2(tmp_path, capsys, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    status, out, err = run(capsys, str(path))
    assert (status, out) == (2, "")
    assert err.startswith(f"grpo-desktop rollouts: error: {message}")
    assert err.count("\n") == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_fifo_is_refused_unread(tmp_path, capsys):
    fifo = tmp_path / "1.jsonl"
    os.mkfifo(fifo)
    status, out, err = run(capsys, str(fifo))
    assert (status, out) == (2, "")
    assert "1.jsonl: cannot read the file (it is a named pipe (FIFO), not a regular file)" in err


def test_bad_arguments_are_one_line_and_status_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["rollouts"])
    assert caught.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1


def test_the_main_help_mentions_the_rollouts_command():
    assert "'grpo-desktop rollouts PATH'" in " ".join(build_parser().format_help().split())


def test_rollouts_runs_as_a_module_and_loads_no_qt(tmp_path):
    folder = write_verl(tmp_path / "dump")
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "rollouts", str(folder), "--json"],
        cwd=os.environ["HOME"],  # the installed package, not the repository's source folder
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=120,
    )
    assert strict_json(result.stdout)["format"] == "verl"
    probe = (
        "import sys\nfrom grpo_desktop.app import main\n"
        f"status = main(['rollouts', {str(folder)!r}])\n"
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


def test_an_ascii_terminal_gets_ascii(tmp_path):
    path = tmp_path / "1.jsonl"
    path.write_text(
        json.dumps({"input": "é" * 100, "output": "x", "score": -1.5}) + "\n", encoding="utf-8"
    )
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "rollouts", str(path)],
        cwd=os.environ["HOME"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        timeout=120,
    )
    assert (result.returncode, result.stderr) == (0, b"")
    out = result.stdout.decode("ascii")
    assert "-1.5" in out and "..." in out


def verl_line(**fields: str) -> str:
    """A verl line with the given values written as JSON literals."""
    values = {"input": '"q"', "output": '"a"', "score": "1.0", "step": "1", **fields}
    return "{" + ", ".join(f'"{key}": {value}' for key, value in values.items()) + "}\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (verl_line(score="9" * 401), "1.jsonl: line 2: 'score' is too large"),
        (verl_line(step="Infinity"), "1.jsonl: line 2: 'step' must be a whole number"),
        (verl_line(step="NaN"), "1.jsonl: line 2: 'step' must be a whole number"),
        (
            verl_line(output="[" * 50_000 + "]" * 50_000),
            "1.jsonl: line 2 is not valid JSON (nested",
        ),
        (verl_line(score="1e308"), "1.jsonl: line 2: 'score' is 1e+308; rewards beyond ±1e+100"),
    ],
)
def test_a_valid_looking_line_is_one_line_naming_file_and_line_without_a_traceback(
    tmp_path, line, message
):
    path = tmp_path / "1.jsonl"
    path.write_text(verl_line() + line, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-W", "error", "-m", "grpo_desktop", "rollouts", str(path)],
        cwd=os.environ["HOME"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"grpo-desktop rollouts: error: {message}")
    assert result.stderr.count("\n") == 1  # one line: no traceback, no RuntimeWarning


def test_large_rewards_print_in_scientific_notation_without_nan_or_warnings(tmp_path):
    path = tmp_path / "1.jsonl"
    path.write_text("".join(verl_line(score=s) for s in ("1e99", "-1e99")), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-W", "error", "-m", "grpo_desktop", "rollouts", str(path)],
        cwd=os.environ["HOME"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert "rewards: min −1e+99, quartiles −5e+98 / 0 / 5e+98, max 1e+99" in result.stdout
    assert "nan" not in result.stdout and "inf" not in result.stdout


HOSTILE = "evil\u202eexe.txt\u200b\u2066\ufeff\x1b]0;title\x07"
ESCAPED = "evil\\u202eexe.txt\\u200b\\u2066\\ufeff\\x1b]0;title\\x07"


def test_file_folder_and_prompt_text_reach_the_terminal_escaped(tmp_path, capsys):
    folder = tmp_path / f"run{HOSTILE}"
    folder.mkdir()
    (folder / "1.jsonl").write_text(
        json.dumps({"input": f"What is\n2 + 2?{HOSTILE}", "output": "4", "score": 1, "step": 1})
        + "\n",
        encoding="utf-8",
    )
    status, out, err = run(capsys, str(folder))
    assert (status, err) == (0, "")
    assert out.startswith(f"run{ESCAPED}: verl rollouts, 1 step\n")
    assert f"What is 2 + 2?{ESCAPED}"[:59] in out  # the prompt cell, cut at 60 characters
    for raw in "\u202e\u200b\u2066\ufeff\x1b\x07":
        assert raw not in out


def test_an_error_naming_a_hostile_file_is_escaped(tmp_path, capsys):
    path = tmp_path / f"{HOSTILE}.jsonl"
    path.write_text("{oops\n", encoding="utf-8")
    status, out, err = run(capsys, str(path))
    assert (status, out) == (2, "")
    assert err == f"grpo-desktop rollouts: error: {ESCAPED}.jsonl: line 1 is not valid JSON " + (
        "(Expecting property name enclosed in double quotes)\n"
    )


@needs_pyarrow
def test_columns_left_unread_are_a_note_in_the_table_and_on_stderr_with_json(tmp_path, capsys):
    path = tmp_path / "completions_00001.parquet"
    pq.write_table(
        pa.table(
            {"prompt": ["p", "p"], "completion": ["a", "b"], "r": [1.0, 0.0], "ok": [True, False]}
        ),
        path,
    )
    note = (
        "step 1: column not read as rewards: 'ok' (true/false) (a reward function's column holds "
        "float or integer scores)"
    )
    status, out, err = run(capsys, str(path))
    assert status == 0 and f"  note: {note}" in out
    status, out, err = run(capsys, str(path), "--json")
    assert status == 0 and f"grpo-desktop rollouts: note: {note}\n" in err


@needs_pyarrow
def test_a_parquet_declaring_an_extension_type_is_one_line_and_status_2(tmp_path, capsys):
    metadata = {
        b"ARROW:extension:name": b"arrow.py_extension_type",
        b"ARROW:extension:metadata": b"x",
    }
    schema = pa.schema(
        [
            pa.field("prompt", pa.string()),
            pa.field("completion", pa.string()),
            pa.field("reward", pa.float64()),
            pa.field("payload", pa.binary(), metadata=metadata),
        ]
    )
    path = tmp_path / "completions_00001.parquet"
    pq.write_table(
        pa.table({"prompt": ["p"], "completion": ["c"], "reward": [1.0], "payload": [b"x"]}).cast(
            schema
        ),
        path,
    )
    status, out, err = run(capsys, str(path))
    assert (status, out) == (2, "")
    assert err.startswith(
        "grpo-desktop rollouts: error: completions_00001.parquet: refused unread: its schema "
        "declares an Arrow extension type"
    )
    assert err.count("\n") == 1


def test_a_step_whose_degenerate_fraction_the_file_cannot_tell_is_null_and_unknown(
    tmp_path, capsys
):
    """verl's ``_dump_generations`` writes no ``uid`` and ``_balance_batch`` reorders rows: a
    prompt drawn twice in one step has answers of two groups that cannot be told apart."""
    from library_writers import write_verl_dump

    inputs = ["Twice"] * 4 + ["Once"] * 4 + ["Twice"] * 4
    scores = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    infos = [{"acc": s} for s in scores]
    path = write_verl_dump(tmp_path, 3, inputs, ["o"] * 12, ["1"] * 12, scores, infos)
    status, out, err = run(capsys, str(path), "--json")
    assert status == 0 and "degenerate fraction is unknown" in err
    (step,) = strict_json(out)["steps"]
    assert step["degenerate_fraction"] is None
    status, out, _ = run(capsys, str(path))
    assert "step 3 (3.jsonl): 2 groups, 12 answers, unknown degenerate" in out


@needs_pyarrow
def test_the_prompt_column_shows_the_part_of_chat_prompts_that_differs(tmp_path, capsys):
    """TRL logs conversational prompts as lists of ``{role, content}`` (commit de62232, "Show
    conversations (not decoded text) in the completions table"); a shared system prompt is said
    once and each row shows its own question, as chat turns, never JSON."""
    from library_writers import chat, trl_table, write_trl_completions

    system = "You are a careful math tutor. Reason step by step, then box the final answer."
    questions = ["What is 2 + 2?", "What is 3 + 5?", "Name a prime above 10."]
    prompts = [chat(system, q) for q in questions for _ in range(2)]
    table = trl_table(1, prompts, ["a"] * 6, {"acc": [1.0, 0.0] * 3}, 2)
    status, out, _ = run(capsys, str(write_trl_completions(tmp_path, table)))
    assert status == 0
    lines = out.splitlines()
    assert "  every prompt starts with: system: You are a careful math tutor." in "\n".join(lines)
    cells = [line.split("  ")[-1] for line in lines[-3:]]
    assert cells == [f"… {q}" for q in questions]
    assert "role" not in out and "{" not in out
