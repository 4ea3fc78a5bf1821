"""The group as CSV: one row per card, full precision, formulas defused, a readable name."""

from __future__ import annotations

import csv
import io

import pytest

from grpo_desktop.core.files.group_csv import (
    CSV_COLUMNS,
    default_file_stem,
    group_csv,
    group_csv_bytes,
)
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem

SEED = [True, False, False, True]  # rewards [1, 0, 0, 1]: the seeds' ±1.00


@pytest.fixture
def seed_snapshot():
    return build_snapshot(get_problem("mult-23x47"), SEED, "textbook")


def rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


# --- group_csv (pure) ------------------------------------------------------------------------


def test_group_csv_has_one_row_per_card_with_header(seed_snapshot):
    text = group_csv(seed_snapshot)
    assert text.splitlines()[0] == ",".join(CSV_COLUMNS)
    assert CSV_COLUMNS[:4] == ("index", "trace", "final_answer", "reward")
    assert CSV_COLUMNS[-2:] == ("advantage", "convention")
    rows = rows_of(text)
    assert [row["index"] for row in rows] == ["1", "2", "3", "4"]
    assert [int(row["reward"]) for row in rows] == [1, 0, 0, 1]
    assert [float(row["advantage"]) for row in rows] == [1.0, -1.0, -1.0, 1.0]
    assert [float(row["r_minus_mean"]) for row in rows] == [0.5, -0.5, -0.5, 0.5]
    assert {row["convention"] for row in rows} == {"textbook"}
    assert rows[0]["final_answer"] == "1081"
    assert "\r" not in text


def test_group_csv_keeps_each_multi_line_trace_in_one_field(seed_snapshot):
    rows = rows_of(group_csv(seed_snapshot))
    for card, row in zip(seed_snapshot.cards, rows):
        assert row["trace"] == card.text
    assert rows[0]["trace"] == "20 × 47 = 940\n3 × 47 = 141\n940 + 141 = 1081"
    assert rows[1]["trace"].count("\n") == 3 and "−" in rows[1]["trace"]


def test_group_csv_writes_advantages_at_full_precision_with_ascii_minus():
    snapshot = build_snapshot(get_problem("mult-23x47"), SEED, "trl")  # ≈ ±0.866, not ±1
    rows = rows_of(group_csv(snapshot))
    for card, row in zip(snapshot.cards, rows):
        assert float(row["advantage"]) == card.advantage  # exact round trip
        assert row["advantage"] == repr(card.advantage)
    assert rows[1]["advantage"].startswith("-0.8658")  # std 0.577 + eps 1e-4
    assert {row["convention"] for row in rows} == {"trl"}


def test_group_csv_bytes_is_utf8_with_a_bom_for_spreadsheets(seed_snapshot):
    data = group_csv_bytes(seed_snapshot)
    assert data.startswith(b"\xef\xbb\xbf")
    assert data.decode("utf-8-sig") == group_csv(seed_snapshot)
    assert "×".encode() in data


def test_group_csv_defuses_spreadsheet_formulas_but_not_numbers(seed_snapshot):
    from dataclasses import replace

    cards = (
        replace(seed_snapshot.cards[0], text="=HYPERLINK(1)", final_answer="-12"),
        replace(seed_snapshot.cards[1], text="@SUM(A1)", final_answer="+5"),
        *seed_snapshot.cards[2:],
    )
    rows = rows_of(group_csv(replace(seed_snapshot, cards=cards)))
    assert rows[0]["trace"] == "'=HYPERLINK(1)"
    assert rows[0]["final_answer"] == "-12"  # a number stays a number
    assert rows[1]["trace"] == "'@SUM(A1)"
    assert rows[1]["final_answer"] == "+5"


def test_default_file_stem_names_problem_rewards_and_convention(seed_snapshot):
    assert default_file_stem(seed_snapshot) == "grpo-mult-23x47-1001"
    trl = build_snapshot(get_problem("mult-23x47"), SEED, "trl")
    assert default_file_stem(trl) == "grpo-mult-23x47-1001-trl"
    big = build_snapshot(get_problem("mult-23x47"), [True, False] * 16, "textbook")
    assert default_file_stem(big) == "grpo-mult-23x47-G32"
