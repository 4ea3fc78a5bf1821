"""core.trace_display: the typeset form of a trace agrees with what the checker grades."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grpo_desktop.core.lab.checker import extract_final_answer
from grpo_desktop.core.lab.trace_display import Run, display_lines, display_runs, unescape

PROBLEMS = Path(__file__).resolve().parents[3] / "resources" / "problems"


def test_a_boxed_answer_is_its_own_run():
    assert display_runs("= 940 + 141 \\boxed{1081}") == (Run("= 940 + 141 "), Run("1081", True))


def test_percent_and_dollar_escapes_typeset_as_their_characters():
    assert display_runs("\\boxed{25\\%}") == (Run("25%", True),)
    assert unescape("costs \\$12 \\& 5\\% more") == "costs $12 & 5% more"


def test_a_fraction_reads_as_the_checker_reads_it():
    assert display_runs("\\boxed{\\frac{3}{4}}") == (Run("3/4", True),)


def test_an_unclosed_box_stays_as_written_like_the_checker_sees_no_box():
    assert display_runs("\\boxed{1081") == (Run("\\boxed{1081"),)
    assert extract_final_answer("\\boxed{1081") == "1081"  # by its last number, not a box


def test_commands_are_not_cut_inside_longer_names():
    assert unescape("\\left( 3 \\times 4 \\right) \\le 12") == "( 3 × 4 ) ≤ 12"


def test_lines_keep_their_count_and_empty_lines():
    assert display_lines("a\n\n\\boxed{2}") == ((Run("a"),), (), (Run("2", True),))


def shipped_traces():
    for path in sorted(PROBLEMS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for trace in data.get("traces", []):
            for version in ("correct", "wrong"):
                if version in trace:
                    yield pytest.param(trace[version], id=f"{path.stem}-{version}")


@pytest.mark.parametrize("text", list(shipped_traces()))
def test_no_shipped_trace_shows_a_backslash_and_the_last_box_is_the_checkers_answer(text):
    lines = display_lines(text)
    shown = [run for line in lines for run in line]
    assert not any("\\" in run.text for run in shown)
    boxes = [run.text for run in shown if run.boxed]
    if boxes:
        final = extract_final_answer(text)
        # The checker keeps what follows the last "=" of a box (\boxed{x = 6} grades 6).
        assert boxes[-1].split("=")[-1].strip() == final
