"""``grpo-desktop lm``: the tiny language model in the terminal. ``eval`` gives the held-out
numbers ``evaluate()`` gives; ``sample`` is seeded and its log-probabilities are the model's;
``train`` prints every step, evaluations at step 0 and the last step, and ``--save`` writes a
checkpoint ``eval --checkpoint`` reads back; every hostile input is one line and status 2; no Qt."""

from __future__ import annotations

import io
import json
import os
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from grpo_desktop.cli.lm import EVAL_KEYS, STEP_KEYS, run_lm
from grpo_desktop.core.tinylm import (
    LMTrainingConfig,
    LMTrainingRun,
    evaluate,
    get_task,
    load_model,
)

SHORT = ["--steps", "3", "--batch", "4", "--group-size", "4", "--eval-every", "2"]
RUN_LM = "import sys; from grpo_desktop.cli.lm import run_lm; sys.exit(run_lm(sys.argv[1:]))"


def lm(capsys, *args: str) -> tuple[int, str, str]:
    status = run_lm(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def strict_json(text: str) -> dict:
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))


def assert_one_line_error(status: int, out: str, err: str, prefix: str) -> str:
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(prefix), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def shipped():
    return load_model()


# --- lm eval -----------------------------------------------------------------------------------


def test_eval_json_is_evaluate_on_the_held_out_prompts(capsys, shipped):
    status, out, err = lm(capsys, "eval", "--json")
    assert (status, err) == (0, "")
    data = strict_json(out)
    assert set(data) == {"task", "n", "pass_rate", "greedy_accuracy"}
    task = get_task("add")
    assert data["task"] == "add" and data["n"] == len(task.held_out_prompts()) == 500
    assert 0.15 <= data["pass_rate"] <= 0.60
    assert 0.0 <= data["greedy_accuracy"] <= 1.0
    expected = evaluate(shipped, task)
    assert data["pass_rate"] == expected.pass_rate
    assert data["greedy_accuracy"] == expected.greedy_accuracy


def test_eval_takes_another_task_and_prints_a_readable_table(capsys, shipped):
    status, out, _ = lm(capsys, "eval", "--task", "sort", "--json")
    assert status == 0
    data = strict_json(out)
    assert data["task"] == "sort"
    assert data["pass_rate"] == evaluate(shipped, get_task("sort")).pass_rate
    status, out, err = lm(capsys, "eval")
    assert (status, err) == (0, "")
    assert f"{shipped.n_params:,} parameters" in out
    assert "exact pass rate  0." in out and "greedy accuracy  0." in out
    assert "500 held-out prompts" in out


# --- lm sample ---------------------------------------------------------------------------------


def test_sample_is_seeded_and_its_logprobs_are_the_models(capsys, shipped):
    args = ("sample", "23+45=", "-n", "6", "--seed", "11", "--json")
    status, out, err = lm(capsys, *args)
    assert (status, err) == (0, "")
    data = strict_json(out)
    assert set(data) == {"prompt", "answer", "n", "seed", "temperature", "completions"}
    assert (data["prompt"], data["answer"], data["n"], data["seed"]) == ("23+45=", "68.", 6, 11)
    assert len(data["completions"]) == 6
    drawn = shipped.sample_with_logprobs("23+45=", 6, 11)
    for entry, (text, logprobs) in zip(data["completions"], drawn):
        assert set(entry) == {"text", "tokens", "logprobs", "logprob", "ended", "correct"}
        assert entry["text"] == text and "".join(entry["tokens"]) == text
        assert entry["logprobs"] == logprobs.tolist()
        assert len(entry["logprobs"]) == len(entry["tokens"])
        assert entry["logprob"] == pytest.approx(sum(entry["logprobs"]))
        teacher_forced = shipped.token_logprobs("23+45=", text)
        np.testing.assert_allclose(entry["logprobs"], teacher_forced, rtol=1e-4, atol=1e-5)
        assert entry["ended"] == text.endswith(".")
        assert entry["correct"] == (text == "68.")
    assert lm(capsys, *args)[1] == out  # the same seed: the same completions, to the bit
    other = strict_json(lm(capsys, "sample", "23+45=", "-n", "6", "--seed", "12", "--json")[1])
    assert other["completions"] != data["completions"]


def test_sample_temperature_max_new_and_a_prompt_of_no_task(capsys):
    status, out, _ = lm(capsys, "sample", "hello ", "-n", "3", "--max-new", "2", "--json")
    assert status == 0
    data = strict_json(out)
    assert data["answer"] is None
    assert all(entry["correct"] is None for entry in data["completions"])
    assert all(len(entry["tokens"]) <= 2 for entry in data["completions"])
    status, out, _ = lm(capsys, "sample", "sort 5203=", "--temperature", "0.5", "--json")
    assert status == 0
    data = strict_json(out)
    assert data["answer"] == "0235." and data["temperature"] == 0.5 and data["n"] == 8


def test_sample_table_shows_each_token_with_its_logprob(capsys):
    status, out, err = lm(capsys, "sample", "23+45=", "-n", "2")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("prompt '23+45=' (right completion '68.'): 2 completions")
    rows = [line for line in lines if line.lstrip().startswith(("1 ", "2 "))]
    assert len(rows) == 2 and all("'.' -0.0" in row for row in rows)


# --- lm train ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def short_run_json():
    """``lm train`` with SHORT settings and --json, run once for the module (capsys is per test)."""
    out = io.StringIO()
    saved = sys.stdout
    sys.stdout = out
    try:
        status = run_lm(["train", *SHORT, "--json"])
    finally:
        sys.stdout = saved
    assert status == 0
    return strict_json(out.getvalue())


def test_train_json_has_every_documented_key(short_run_json):
    data = short_run_json
    assert set(data) == {"config", "start", "steps", "eval", "seconds", "saved"}
    assert set(data["config"]) == set(LMTrainingConfig.__dataclass_fields__)
    config = data["config"]
    assert (config["steps"], config["batch"], config["group_size"], config["eval_every"]) == (
        3,
        4,
        4,
        2,
    )
    assert config["algorithm"] == "grpo" and config["task"] == "add"
    assert data["start"] is None and data["saved"] is None
    assert [step["step"] for step in data["steps"]] == [1, 2, 3]
    for step in data["steps"]:
        assert list(step) == list(STEP_KEYS)
        assert {"step", "reward_mean", "degenerate_fraction", "kl", "entropy", "loss"} <= set(step)
        assert "seconds" not in step
        assert 0 <= step["reward_mean"] <= 1 and 0 <= step["degenerate_fraction"] <= 1
        assert step["kl"] >= 0 and step["entropy"] >= 0 and isinstance(step["loss"], float)
    assert [entry["step"] for entry in data["eval"]] == [0, 2, 3]  # the start, every 2, the last
    for entry in data["eval"]:
        assert list(entry) == list(EVAL_KEYS)
        assert 0 <= entry["pass_rate"] <= 1 and 0 <= entry["greedy_accuracy"] <= 1
    assert len(data["seconds"]) == 3 and all(s > 0 for s in data["seconds"])


def test_train_json_is_the_core_run_and_reproducible(capsys, short_run_json):
    run = LMTrainingRun(LMTrainingConfig(steps=3, batch=4, group_size=4, eval_every=2))
    run.run()
    assert [m.reward_mean for m in run.metrics] == [
        s["reward_mean"] for s in short_run_json["steps"]
    ]
    assert [e.as_dict() for e in run.evals] == short_run_json["eval"]
    status, out, _ = lm(capsys, "train", *SHORT, "--json")
    assert status == 0
    again = strict_json(out)
    assert again["steps"] == short_run_json["steps"] and again["eval"] == short_run_json["eval"]


def test_train_options_reach_the_config(capsys):
    status, out, _ = lm(
        capsys,
        "train",
        "--task", "sort", "-a", "dapo", "--steps", "2", "-G", "3", "--batch", "2",
        "--lr", "1e-3", "--beta", "0.05", "--seed", "4", "--eval-every", "0",
        "--epochs", "2", "--weight", "format=0.5", "--json",
    )  # fmt: skip
    assert status == 0
    data = strict_json(out)
    config = data["config"]
    assert (config["task"], config["algorithm"], config["group_size"], config["seed"]) == (
        "sort",
        "dapo",
        3,
        4,
    )
    assert (config["learning_rate"], config["beta"], config["epochs"]) == (1e-3, 0.05, 2)
    assert config["reward_weights"]["format"] == 0.5
    assert [entry["step"] for entry in data["eval"]] == [0, 2]  # --eval-every 0: start and end


def test_train_table_prints_a_row_per_evaluation(capsys):
    status, out, err = lm(capsys, "train", *SHORT)
    assert (status, err) == (0, "")  # stderr is not a terminal here: no progress line
    lines = out.splitlines()
    assert "107,820 parameters" in out and "grpo on add" in out
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["step", "pass", "rate"])
    rows = [line.split() for line in lines[header + 1 : header + 4]]
    assert [row[0] for row in rows] == ["0", "2", "3"]
    assert rows[0][3:7] == ["-", "-", "-", "-"]  # step 0: nothing sampled yet
    assert lines[-1].startswith("held-out exact pass rate ")


def test_save_then_eval_checkpoint_reproduces_the_saved_models_numbers(capsys, tmp_path):
    path = tmp_path / "trained.npz"
    status, out, _ = lm(capsys, "train", *SHORT, "--task", "add", "--save", str(path), "--json")
    assert status == 0
    data = strict_json(out)
    assert data["saved"] == str(path)
    assert path.is_file() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    status, out, _ = lm(capsys, "eval", "--checkpoint", str(path), "--json")
    assert status == 0
    reread = strict_json(out)
    last = data["eval"][-1]
    assert reread["pass_rate"] == pytest.approx(last["pass_rate"], rel=1e-12)
    assert reread["greedy_accuracy"] == last["greedy_accuracy"]
    model = load_model(path)
    assert model.info["grpo"]["steps_done"] == 3
    assert reread["pass_rate"] == evaluate(model, get_task("add")).pass_rate
    status, out, _ = lm(capsys, "eval", "--checkpoint", str(path))
    assert "then grpo 3 steps on add" in out
    # training on from the saved checkpoint starts where it ended
    status, out, _ = lm(
        capsys, "train", "--checkpoint", str(path), "--steps", "1", "--batch", "2", "--json"
    )
    assert status == 0
    more = strict_json(out)
    assert more["start"] == str(path)
    assert more["eval"][0]["pass_rate"] == pytest.approx(last["pass_rate"], rel=1e-12)


def test_a_trained_sort_checkpoint_is_evaluated_on_sort_by_default(capsys, tmp_path):
    path = tmp_path / "sort.npz"
    assert run_lm(["train", "--task", "sort", "--steps", "1", "--batch", "2", "--save",
                   str(path), "--json"]) == 0  # fmt: skip
    capsys.readouterr()
    status, out, _ = lm(capsys, "eval", "--checkpoint", str(path), "--json")
    assert status == 0 and strict_json(out)["task"] == "sort"


def test_a_save_that_fails_at_the_end_is_one_line_and_status_1(capsys, tmp_path, monkeypatch):
    def full_disk(self, path):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(LMTrainingRun, "save", full_disk)
    status, out, err = lm(capsys, "train", *SHORT, "--save", str(tmp_path / "m.npz"), "--json")
    assert status == 1 and out == ""
    assert err.splitlines() == [
        f"grpo-desktop lm train: error: cannot save the model to {tmp_path / 'm.npz'}: "
        "No space left on device"
    ]


# --- hostile input -----------------------------------------------------------------------------


def _shipped_arrays() -> dict[str, np.ndarray]:
    from importlib import resources

    shipped = resources.files("grpo_desktop.resources").joinpath("tinylm/add.npz")
    with resources.as_file(shipped) as path, np.load(path, allow_pickle=False) as npz:
        return {name: npz[name] for name in npz.files}


def _npz(path, arrays) -> str:
    np.savez(path, **arrays)
    return str(path)


def _hostile(kind: str, folder) -> str:
    """The path of a file that is not a usable checkpoint, of the given kind."""
    path = folder / f"{kind}.npz"
    arrays = _shipped_arrays()
    if kind == "missing":
        return str(path)
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)
        path.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    elif kind == "foreign":
        _npz(path, {"weights": np.zeros((3, 3))})
    elif kind == "pickled_param":  # a real checkpoint with one weight swapped for an object
        arrays["param/wte"] = np.array([{"__reduce__": "os.system"}], dtype=object)
        _npz(path, arrays)
    elif kind == "pickle_file":
        path.write_bytes(pickle.dumps({"wte": [1.0, 2.0]}))
    elif kind == "wrong_shape":
        arrays["param/wte"] = np.zeros((3, 3), dtype=np.float32)
        _npz(path, arrays)
    elif kind == "nan_weight":
        arrays["param/wte"] = np.full_like(arrays["param/wte"], np.nan)
        _npz(path, arrays)
    elif kind == "other_format":
        meta = json.loads(str(arrays["meta"][()]))
        meta["format"] = "someone-elses-model"
        arrays["meta"] = np.array(json.dumps(meta))
        _npz(path, arrays)
    elif kind == "zip_of_text":  # a zip whose members are not .npy arrays
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("meta.npy", "not an array")
    elif kind == "weight_not_npy":  # a real checkpoint with one weight's member replaced by text
        _npz(path, arrays)
        with zipfile.ZipFile(path) as archive:
            members = {name: archive.read(name) for name in archive.namelist()}
        members["param/wte.npy"] = b"not an array"
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in members.items():
                archive.writestr(name, data)
    return str(path)


HOSTILE = [
    "missing", "folder", "fifo", "empty", "truncated", "foreign", "pickled_param",
    "pickle_file", "wrong_shape", "nan_weight", "other_format", "zip_of_text", "weight_not_npy",
]  # fmt: skip


@pytest.mark.parametrize("kind", HOSTILE)
@pytest.mark.parametrize(
    "command",
    [["eval"], ["sample", "1+1="], ["train", "--steps", "1", "--batch", "1"]],
    ids=["eval", "sample", "train"],
)
def test_a_bad_checkpoint_is_one_line_naming_the_file_and_status_2(capsys, tmp_path, kind, command):
    path = _hostile(kind, tmp_path)
    status, out, err = lm(capsys, *command, "--checkpoint", path)
    line = assert_one_line_error(status, out, err, f"grpo-desktop lm {command[0]}: error: ")
    assert path in line
    if kind == "pickled_param":
        assert "pickled objects, which are never loaded" in line


def test_a_bad_save_path_is_refused_before_training(capsys, tmp_path):
    os.mkfifo(tmp_path / "pipe")
    for target, words in [
        (tmp_path / "pipe", "named pipe (FIFO)"),
        (tmp_path, "a folder"),
        (tmp_path / "no" / "such.npz", "does not exist"),
    ]:
        status, out, err = lm(capsys, "train", *SHORT, "--save", str(target))
        line = assert_one_line_error(status, out, err, "grpo-desktop lm train: error: --save ")
        assert words in line


@pytest.mark.parametrize(
    ("prompt", "named"),
    [
        ("23+45=?", "'?'"),
        ("Héllo €", "'H', 'é', '€'"),
        ("\x1b[31m1+1=", "'\\x1b', '['"),
        ("1+1=\u202e", "'\\u202e'"),
    ],
)
def test_a_prompt_outside_the_vocabulary_names_its_characters(capsys, prompt, named):
    status, out, err = lm(capsys, "sample", prompt)
    line = assert_one_line_error(status, out, err, "grpo-desktop lm sample: error: prompt ")
    assert f"cannot read: {named}" in line
    assert "\x1b" not in err and "\u202e" not in err  # shown escaped, never obeyed


@pytest.mark.parametrize(
    ("args", "prefix", "words"),
    [
        ([], "grpo-desktop lm: error: ", "COMMAND"),
        (["fly"], "grpo-desktop lm: error: ", "invalid choice"),
        (["eval", "--bogus"], "grpo-desktop lm: error: ", "--bogus"),
        (["eval", "--task", "nope"], "grpo-desktop lm eval: error: ", "choose from"),
        (["sample"], "grpo-desktop lm sample: error: ", "PROMPT"),
        (["sample", ""], "grpo-desktop lm sample: error: ", "empty"),
        (["sample", "1" * 40], "grpo-desktop lm sample: error: ", "at most"),
        (["sample", "1+1=", "-n", "0"], "grpo-desktop lm sample: error: -n: ", "1 to 4096"),
        (["sample", "1+1=", "-n", "x"], "grpo-desktop lm sample: error: ", "invalid int"),
        (["sample", "1+1=", "--seed", "-1"], "grpo-desktop lm sample: error: --seed: ", "from 0"),
        (["sample", "1+1=", "--temperature", "nan"], "grpo-desktop lm sample: error: ", "finite"),
        (["sample", "1+1=", "--temperature", "0"], "grpo-desktop lm sample: error: ", "above 0"),
        (["sample", "1+1=", "--max-new", "0"], "grpo-desktop lm sample: error: ", "from 1"),
        (["train", "--steps", "0"], "grpo-desktop lm train: error: --steps: ", "1 to 5000"),
        (["train", "--group-size", "1"], "grpo-desktop lm train: error: --group-size: ", "2 to"),
        (["train", "--batch", "9999"], "grpo-desktop lm train: error: --batch: ", "1 to 256"),
        (["train", "--lr", "inf"], "grpo-desktop lm train: error: --lr: ", "from 0 to 1"),
        (["train", "--beta", "-1"], "grpo-desktop lm train: error: --beta: ", "from 0 to 10"),
        (["train", "--eval-every", "-1"], "grpo-desktop lm train: error: --eval-every: ", "0 to"),
        (["train", "--seed", "-3"], "grpo-desktop lm train: error: --seed: ", "from 0"),
        (["train", "-a", "ppo_critic"], "grpo-desktop lm train: error: ", "choose from"),
        (["train", "--weight", "bogus=1"], "grpo-desktop lm train: error: --weight: ", "bogus"),
        (["train", "--steps", "1.5"], "grpo-desktop lm train: error: ", "invalid int"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(capsys, args, prefix, words):
    try:
        status = run_lm(args)
    except SystemExit as exit_:  # argparse's usage errors exit, as in every other command
        status = exit_.code
    captured = capsys.readouterr()
    line = assert_one_line_error(status, captured.out, captured.err, prefix)
    assert words in line


# --- in a process of its own -------------------------------------------------------------------


def run_process(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", RUN_LM, *args],
        cwd=os.environ["HOME"],  # the installed package, not the repository's source folder
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        **kwargs,
    )


def test_lm_runs_in_a_process_and_loads_no_qt():
    probe = (
        "import sys\nfrom grpo_desktop.cli.lm import run_lm\n"
        "status = [run_lm(['eval', '--json']), run_lm(['sample', '1+2=', '-n', '2']),\n"
        "          run_lm(['train', '--steps', '1', '--batch', '2', '--json'])]\n"
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
    assert result.stdout.splitlines()[-1] == "STATUS [0, 0, 0] QT []"
    assert result.stderr == ""

    result = run_process("eval", "--json", check=True)
    assert set(strict_json(result.stdout)) == {"task", "n", "pass_rate", "greedy_accuracy"}


def test_hostile_input_in_a_process_is_one_line_without_a_traceback(tmp_path):
    for args in (
        ["eval", "--checkpoint", _hostile("pickled_param", tmp_path)],
        ["eval", "--checkpoint", _hostile("fifo", tmp_path)],
        ["sample", "2+2=€"],
        ["train", "--steps", "zero"],
    ):
        result = run_process(*args)
        assert result.returncode == 2, args
        assert result.stdout == "" and len(result.stderr.splitlines()) == 1, result.stderr
        assert "Traceback" not in result.stderr


def test_the_help_prints_on_an_ascii_terminal():
    for args in (["--help"], ["train", "--help"], ["sample", "--help"], ["eval", "--help"]):
        result = subprocess.run(
            [sys.executable, "-c", RUN_LM, *args],
            cwd=os.environ["HOME"],
            capture_output=True,
            env={**os.environ, "PYTHONIOENCODING": "ascii"},
            timeout=60,
        )
        assert (result.returncode, result.stderr) == (0, b""), args
        result.stdout.decode("ascii")
    assert b'"completions"' in run_process("sample", "--help").stdout.encode()


@pytest.mark.slow
def test_the_default_run_lifts_the_held_out_pass_rate_by_020(capsys):
    status, out, _ = lm(capsys, "train", "--eval-every", "0", "--json")
    assert status == 0
    data = strict_json(out)
    assert len(data["steps"]) == 200
    assert data["eval"][-1]["pass_rate"] - data["eval"][0]["pass_rate"] >= 0.20


def test_the_app_dispatches_lm_and_its_help_names_it(capsys):
    """``grpo-desktop lm …`` reaches run_lm through the entry point, and ``--help`` says so."""
    from grpo_desktop.app import HEADLESS_COMMANDS, main

    assert "lm" in HEADLESS_COMMANDS
    assert main(["lm", "eval", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == {"task", "n", "pass_rate", "greedy_accuracy"}
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "grpo-desktop lm eval|sample|train" in " ".join(capsys.readouterr().out.split())
