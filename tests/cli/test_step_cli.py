"""``grpo-desktop step``: one GRPO step in the terminal, each answer's probability before and
after, as JSON or a table; one clear line and status 2 on a bad argument; no Qt."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from grpo_desktop.app import build_parser, main
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.core.training.one_step import toy_one_step


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["step", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_json_has_each_answers_before_and_after_and_what_made_them(capsys):
    status, out, err = run(
        capsys,
        *("--problem", "easy-add-17-25", "--rewards", "1,0,0,1", "--convention", "verl"),
        *("--preset", "trl/dr_grpo", "--lr", "2", "--json"),
    )
    assert status == 0 and err == ""
    data = json.loads(out, parse_constant=lambda name: pytest.fail(name))
    assert set(data) >= {"answers", "convention", "preset", "lr"}
    assert (data["convention"], data["preset"], data["lr"]) == ("verl", "trl/dr_grpo", 2.0)
    assert [set(a) for a in data["answers"]] == [
        {"index", "reward", "advantage", "p_before", "p_after"}
    ] * 4
    expected = toy_one_step(
        get_problem("easy-add-17-25"),
        [True, False, False, True],
        [1.0, 0.0, 0.0, 1.0],
        convention="verl",
        preset="trl/dr_grpo",
        lr=2.0,
    )
    assert data["answers"] == [answer.as_dict() for answer in expected.answers]


def test_the_table_says_which_answers_become_more_likely(capsys):
    status, out, _ = run(capsys)
    assert status == 0
    lines = out.splitlines()
    assert "toy policy" in lines[1]
    assert [line.split()[-2] for line in lines[3:]] == ["more", "less", "less", "more"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--rewards", "1,2"), "must be 0 or 1"),
        (("--rewards", "1"), "group"),
        (("--rewards", "1,x"), "'x' is not a number"),
        (("--problem", "nope"), "unknown problem id 'nope'"),
        (("--lr", "nan"), "finite number"),
        (("--lr", "1e400"), "not a number"),
    ],
)
def test_a_bad_argument_is_one_line_and_status_2(capsys, args, words):
    status, out, err = run(capsys, *args)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_an_unknown_convention_is_argparses_one_line(capsys):
    with pytest.raises(SystemExit) as info:
        main(["step", "--convention", "bogus"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and len(err.strip().splitlines()) == 1 and "bogus" in err


def test_the_main_help_mentions_the_step_command():
    assert "'grpo-desktop step" in " ".join(build_parser().format_help().split())


def test_step_loads_no_qt():
    probe = (
        "import sys\nfrom grpo_desktop.app import main\n"
        "status = main(['step', '--json'])\n"
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
