"""``grpo-desktop lm worker``: the Training workspace's run in a process of its own, spoken to in
JSON lines (settings, then play / pause / step / quit; records back)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from grpo_desktop.cli.lm_worker import run_lm_worker

CONFIG = {"steps": 2, "batch": 4, "group_size": 4, "eval_every": 1}


def talk(*commands: dict) -> list[dict]:
    lines = [json.dumps({"config": CONFIG, "checkpoint": None})]
    lines += [json.dumps(command) for command in commands]
    out = io.StringIO()
    assert run_lm_worker(io.StringIO("\n".join(lines) + "\n"), out) == 0
    return [json.loads(text) for text in out.getvalue().splitlines()]


def test_it_loads_steps_and_says_when_it_is_idle():
    messages = talk({"do": "step", "id": 1}, {"do": "play", "id": 2})
    kinds = [next(iter(message)) for message in messages]
    assert kinds == ["loaded", "stepped", "idle", "stepped", "idle"]
    assert messages[0]["loaded"]["facts"]["parameters"] == 107_820
    assert [m["stepped"]["metrics"]["step"] for m in messages if "stepped" in m] == [1, 2]
    assert messages[-1] == {"idle": True, "after": 2}
    assert len(messages[1]["stepped"]["groups"]) == 4


def test_a_finished_run_answers_play_with_idle():
    messages = talk({"do": "play", "id": 1}, {"do": "step", "id": 2})
    assert messages[-1] == {"idle": True, "after": 2}


def test_a_bad_checkpoint_is_one_failed_sentence(tmp_path):
    bad = tmp_path / "notes.npz"
    bad.write_text("no", encoding="utf-8")
    out = io.StringIO()
    first = json.dumps({"config": CONFIG, "checkpoint": str(bad)})
    run_lm_worker(io.StringIO(first + "\n"), out)
    (message,) = [json.loads(text) for text in out.getvalue().splitlines()]
    assert message["failed"].startswith("The tiny model could not be loaded: ")


def test_settings_that_are_not_a_run_are_refused():
    out = io.StringIO()
    assert run_lm_worker(io.StringIO('{"config": {"steps": -1}, "checkpoint": null}\n'), out) == 2
    assert json.loads(out.getvalue())["failed"].startswith("The tiny model's run was not started")


def test_the_command_runs_as_a_module_and_ends_with_its_input(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "lm", "worker"],
        cwd=tmp_path,  # the installed package, not the repository's source folder
        input=json.dumps({"config": CONFIG, "checkpoint": None}) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(result.stdout.splitlines()[0])["loaded"]["evaluation"]["step"] == 0
