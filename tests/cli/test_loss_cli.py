"""``grpo-desktop loss FILE.json``: each library's loss and per-answer gradient on the user's batch,
strict JSON, a "not applicable" line for an option a library lacks, and one clear line with status
2 on any bad input (a FIFO included, refused unread), all without loading Qt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest

from grpo_desktop.app import build_parser, main
from grpo_desktop.cli import loss as loss_cli
from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS

SHORT = [-0.3, -0.8, -0.1, -0.5]  # the short right answer: 4 tokens, A = +1
LONG = [-1.0 - 0.01 * t for t in range(40)]  # the long wrong answer: 40 tokens, A = −0.5


def length_bias_batch(**extra) -> dict:
    """The issue's batch: one short right answer and one long wrong one, on-policy."""
    logp = [[*SHORT, *([0.0] * 36)], LONG]
    return {
        "logp": logp,
        "old_logp": [row[:] for row in logp],
        "mask": [[1] * 4 + [0] * 36, [1] * 40],
        "advantages": [1.0, -0.5],
        **extra,
    }


def write(tmp_path: Path, data: object, name: str = "batch.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["loss", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def preset_block(out: str, name: str) -> str:
    """The lines the table prints for one preset (from its title to the next blank line)."""
    blocks = out.split("\n\n")
    return next(block for block in blocks if f"({name})" in block.splitlines()[0])


def strict_json(text: str) -> dict:
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))


def test_length_bias_batch_under_verl_token_mean_pushes_the_batch_down(tmp_path, capsys):
    status, out, err = run(capsys, write(tmp_path, length_bias_batch()))
    assert (status, err) == (0, "")
    block = preset_block(out, "verl/token-mean")
    assert "per answer: #1 −0.0909 ▲   #2 +0.4545 ▼" in block
    assert "net +0.364: this batch's likelihood is pushed down overall" in block
    assert 'source: verl actor.loss_agg_mode="token-mean"' in block


def test_length_bias_batch_under_verl_seq_mean_token_mean_pushes_the_batch_up(tmp_path, capsys):
    status, out, _ = run(capsys, write(tmp_path, length_bias_batch()))
    assert status == 0
    block = preset_block(out, "verl/seq-mean-token-mean")
    assert "per answer: #1 −0.5000 ▲   #2 +0.2500 ▼" in block
    assert "net −0.25: this batch's likelihood is pushed up overall" in block


def test_length_bias_batch_as_json_gives_the_same_totals(tmp_path, capsys):
    status, out, err = run(capsys, write(tmp_path, length_bias_batch()), "--json")
    assert (status, err) == (0, "")
    data = strict_json(out)
    by_name = {entry["preset"]: entry for entry in data["presets"]}
    token_mean = by_name["verl/token-mean"]
    assert token_mean["sequence_grad"] == pytest.approx([-1 / 11, 5 / 11])
    assert token_mean["net_grad"] == pytest.approx(4 / 11)
    seq_mean = by_name["verl/seq-mean-token-mean"]
    assert seq_mean["sequence_grad"] == pytest.approx([-0.5, 0.25])
    assert seq_mean["net_grad"] == pytest.approx(-0.25)
    assert data["batch"] == {"answers": 2, "tokens": 44}


def test_every_preset_appears_in_the_default_table(tmp_path, capsys):
    status, out, _ = run(capsys, write(tmp_path, length_bias_batch()))
    assert status == 0
    for preset in LOSS_PRESETS.values():
        assert f"{preset.label}  ({preset.name})" in out
    assert out.count("  net ") == len(LOSS_PRESETS)
    assert out.startswith("batch.json: 2 answers, 44 real tokens; eps_low 0.2, eps_high 0.2")


def test_json_has_the_documented_keys_and_types(tmp_path, capsys):
    batch = length_bias_batch(
        beta=0.04, ref_logp=[[x - 0.1 for x in row] for row in length_bias_batch()["logp"]]
    )
    status, out, _ = run(capsys, write(tmp_path, batch), "--json")
    assert status == 0
    data = strict_json(out)
    assert set(data) == {"presets", "batch"}
    assert [entry["preset"] for entry in data["presets"]] == list(LOSS_PRESETS)
    for entry in data["presets"]:
        assert set(entry) == {
            "preset",
            "label",
            "source",
            "loss",
            "pg_loss",
            "kl_loss",
            "clip_fraction",
            "kl_mean",
            "sequence_grad",
            "net_grad",
        }
        assert isinstance(entry["label"], str) and isinstance(entry["source"], str)
        for key in ("loss", "pg_loss", "kl_loss", "clip_fraction", "kl_mean", "net_grad"):
            assert isinstance(entry[key], float), key
        assert entry["loss"] == pytest.approx(entry["pg_loss"] + entry["kl_loss"])
        assert entry["kl_loss"] != 0.0 and entry["kl_mean"] > 0.0
        assert len(entry["sequence_grad"]) == 2
        assert entry["net_grad"] == pytest.approx(sum(entry["sequence_grad"]))


def test_kl_mean_is_null_and_the_table_shows_no_kl_when_beta_is_zero(tmp_path, capsys):
    path = write(tmp_path, length_bias_batch())
    assert main(["loss", path, "--json", "--preset", "openrlhf/ppo_token"]) == 0
    entry = strict_json(capsys.readouterr().out)["presets"][0]
    assert entry["kl_mean"] is None and entry["kl_loss"] == 0.0
    status, out, _ = run(capsys, path, "--preset", "openrlhf/ppo_token")
    assert status == 0 and "mean KL" not in out and "policy" not in out


def test_beta_shows_the_policy_and_kl_parts_and_the_mean_kl(tmp_path, capsys):
    batch = length_bias_batch(
        beta=0.1, ref_logp=[[x + 0.2 for x in row] for row in length_bias_batch()["logp"]]
    )
    status, out, _ = run(capsys, write(tmp_path, batch), "--preset", "verl/token-mean")
    assert status == 0
    assert "= policy 0.363636 + KL " in out and "mean KL 0.0214028 over real tokens" in out


def test_a_library_lacking_an_option_is_not_applicable_in_the_table(tmp_path, capsys):
    batch = length_bias_batch(
        beta=0.04,
        kl_estimator="k1",
        ref_logp=[[x - 0.1 for x in row] for row in length_bias_batch()["logp"]],
    )
    path = write(tmp_path, batch)
    status, out, err = run(capsys, path)
    assert (status, err) == (0, "")
    block = preset_block(out, "trl/grpo")
    assert "  not applicable: TRL offers the KL estimator k3 only; got 'k1'" in block
    assert "net " in preset_block(out, "verl/token-mean")

    status, out, _ = run(capsys, path, "--json")
    entries = {entry["preset"]: entry for entry in strict_json(out)["presets"]}
    assert set(entries["trl/dapo"]) == {"preset", "error"}
    assert "k3 only" in entries["trl/dapo"]["error"]
    assert entries["openrlhf/ppo_token"]["kl_mean"] == pytest.approx(0.1)


def test_the_same_option_is_an_error_under_that_one_preset(tmp_path, capsys):
    batch = length_bias_batch(kl_estimator="k2")
    status, out, err = run(capsys, write(tmp_path, batch), "--preset", "trl/grpo")
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("grpo-desktop loss: error: batch.json: trl/grpo cannot take")


def test_an_overflowing_ratio_prints_null_in_json_not_infinity(tmp_path, capsys):
    batch = length_bias_batch()
    batch["logp"][0][0] = 800.0  # TRL does not clamp log(ratio): exp(800) overflows
    status, out, err = run(capsys, write(tmp_path, batch), "--json", "-p", "trl/bnpo")
    assert (status, err) == (0, "")
    entry = strict_json(out)["presets"][0]
    assert entry["sequence_grad"][0] is None and entry["net_grad"] is None


def test_null_and_nan_at_padding_are_fine(tmp_path, capsys):
    batch = length_bias_batch()
    batch["logp"][0][10] = None
    batch["old_logp"][0][20] = None
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(batch).replace("null", "NaN", 1), encoding="utf-8")
    status, out, _ = run(capsys, str(path), "--json", "-p", "verl/token-mean")
    assert status == 0
    assert strict_json(out)["presets"][0]["net_grad"] == pytest.approx(4 / 11)


def _with(**changes) -> dict:
    batch = length_bias_batch()
    batch.update(changes)
    return batch


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "invalid JSON at line 1"),
        (json.dumps([1, 2]), "the top level must be a JSON object"),
        (json.dumps(_with(dual_clip=True, seed=1)), "unknown fields 'dual_clip', 'seed'"),
        (json.dumps({"logp": [[0.0]]}), "missing fields old_logp, mask, advantages"),
        (json.dumps(_with(logp=[[0.0, 0.0], [0.0]])), "row 2 has 1 values but row 1 has 2"),
        (json.dumps(_with(old_logp=[[0.0] * 40])), "old_logp has shape (1, 40)"),
        (json.dumps(_with(advantages=[1.0])), "advantages must have shape (2,)"),
        (json.dumps(_with(mask=[[1] * 4 + [0.5] * 36, [1] * 40])), "mask must hold only 0 and 1"),
        (
            json.dumps(_with(logp=[[float("nan"), *SHORT[1:], *([0.0] * 36)], LONG])),
            "field 'logp' row 1 item 1 is null or NaN at a real token (mask 1)",
        ),
        (json.dumps(_with(logp=[["x"] * 40, LONG])), "row 1 item 1 must be a number"),
        (json.dumps(_with(beta=0.1)), "beta > 0 needs ref_logp"),
        (json.dumps(_with(kl_estimator="k7")), "'kl_estimator' must be one of k1, k2, k3"),
        (json.dumps(_with(eps_low=-1)), "eps_low must be a finite number >= 0"),
        (json.dumps(_with(max_completion_length=2.5)), "must be a whole number"),
        (json.dumps(_with(mask=[[0] * 40, [0] * 40])), "mask has no real tokens"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_bad_files_exit_2_with_one_line_on_stderr(tmp_path, capsys, content, message):
    path = tmp_path / "batch.json"
    path.write_text(content, encoding="utf-8")
    status, out, err = run(capsys, str(path))
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("grpo-desktop loss: error: ")
    assert message in lines[0]


def test_a_missing_file_or_a_folder_exits_2(tmp_path, capsys):
    for path, message in (
        (tmp_path / "absent.json", "No such file or directory"),
        (tmp_path, "it is a folder, not a regular file"),
    ):
        status, out, err = run(capsys, str(path))
        assert (status, out) == (2, "")
        assert len(err.splitlines()) == 1 and message in err


def test_a_file_name_with_a_newline_still_gives_one_line(tmp_path, capsys):
    status, out, err = run(capsys, str(tmp_path / "bad\nname.json"))
    assert (status, out) == (2, "")
    assert len(err.splitlines()) == 1 and "bad\\nname.json" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX only")
def test_a_fifo_is_refused_unread_and_never_hangs(tmp_path):
    fifo = tmp_path / "batch.json"
    os.mkfifo(fifo)
    result = subprocess.run(  # a subprocess with a timeout: a regression fails, it never hangs
        [sys.executable, "-m", "grpo_desktop", "loss", str(fifo)],
        cwd=os.environ["HOME"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (2, "")
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "named pipe (FIFO), not a regular file" in lines[0]


def test_an_unknown_preset_exits_2_and_lists_the_valid_ones(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["loss", write(tmp_path, length_bias_batch()), "--preset", "verl/bogus"])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "invalid choice: 'verl/bogus'" in lines[0]
    assert all(name in lines[0] for name in LOSS_PRESETS)


def test_the_main_help_mentions_the_loss_command():
    assert "'grpo-desktop loss FILE.json'" in " ".join(build_parser().format_help().split())


def test_loss_runs_as_a_module_and_loads_no_qt(tmp_path):
    path = write(tmp_path, length_bias_batch())
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "loss", path, "--json"],
        cwd=os.environ["HOME"],  # the installed package, not the repository's source folder
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=60,
    )
    first = strict_json(result.stdout)["presets"][0]
    assert first["preset"] == "verl/token-mean" and first["net_grad"] == pytest.approx(4 / 11)

    probe = (
        "import sys\nfrom grpo_desktop.app import main\n"
        f"status = main(['loss', {path!r}])\n"
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
        timeout=60,
    )
    assert result.stdout.splitlines()[-1] == "STATUS 0 QT []"


def test_a_terminal_that_cannot_print_the_minus_sign_gets_ascii(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "loss", write(tmp_path, length_bias_batch())],
        cwd=os.environ["HOME"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        timeout=60,
    )
    assert result.returncode == 0
    out = result.stdout.decode("ascii")
    assert "#1 -0.0909 ^   #2 +0.4545 v" in out and "net -0.25:" in out


def test_the_help_prints_on_an_ascii_terminal_too():
    result = subprocess.run(
        [sys.executable, "-m", "grpo_desktop", "loss", "--help"],
        cwd=os.environ["HOME"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        timeout=60,
    )
    assert (result.returncode, result.stderr) == (0, b"")
    assert b"sum_t dloss/dlogp" in result.stdout and b"trl/dr_grpo" in result.stdout


# --- large batches: memory bounded by the work -------------------------------------------------


def random_file_batch(answers: int, width: int, seed: int = 3) -> dict:
    """An off-policy batch with a reference, ragged lengths and an empty answer, as JSON lists."""
    rng = np.random.default_rng(seed)
    logp = rng.normal(-1.0, 0.5, (answers, width))
    mask = (np.arange(width) < rng.integers(1, width + 1, (answers, 1))).astype(int)
    mask[1] = 0
    return {
        "logp": logp.tolist(),
        "old_logp": (logp + rng.normal(0, 0.4, logp.shape)).tolist(),
        "ref_logp": (logp + rng.normal(0, 0.4, logp.shape)).tolist(),
        "mask": mask.tolist(),
        "advantages": rng.normal(0, 1, answers).tolist(),
        "beta": 0.1,
        "kl_estimator": "k2",
    }


def test_a_batch_scored_in_blocks_of_rows_gives_the_same_numbers(tmp_path):
    batch = loss_cli.batch_from_json(random_file_batch(30, 50), "batch.json")
    presets = [p for p in LOSS_PRESETS.values() if "k2" in p.kl_estimators]
    whole = loss_cli.score_presets(batch, presets)
    blocked = loss_cli.score_presets(batch, presets, block_positions=120)  # 2 rows a block
    for one, other in zip(whole, blocked):
        np.testing.assert_array_equal(one.result.sequence_grad, other.result.sequence_grad)
        assert other.result.loss == pytest.approx(one.result.loss, rel=1e-13)
        assert other.result.clip_fraction == pytest.approx(one.result.clip_fraction, rel=1e-13)
        assert other.result.kl_mean == pytest.approx(one.result.kl_mean, rel=1e-13)


def test_scoring_every_preset_keeps_memory_for_one_block_not_per_preset():
    batch = loss_cli.batch_from_json(random_file_batch(100, 400), "batch.json")  # 40,000
    array_bytes = batch.logp.nbytes
    tracemalloc.start()
    try:
        loss_cli.score_presets(batch, list(LOSS_PRESETS.values()), block_positions=2_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Before: every preset's 13 (B, T) arrays were kept, some 140 times one input array.
    assert peak < 2 * array_bytes


def test_reading_frees_each_fields_lists_once_it_is_an_array():
    data = random_file_batch(4, 6)
    fields = dict(data)
    loss_cli._take_batch(fields, "batch.json")
    assert set(fields) == {"beta", "kl_estimator"}  # the arrays' lists are gone
    assert set(data) >= {"logp", "old_logp", "mask"}  # batch_from_json leaves its input alone
    loss_cli.batch_from_json(data, "batch.json")
    assert set(data) >= {"logp", "old_logp", "mask"}


def test_rows_of_plain_numbers_read_as_item_by_item():
    batch = length_bias_batch()
    batch["logp"][0][4:7] = [None, 2, -1]  # null = NaN at padding, an integer
    batch["mask"][0][:4] = [True, 1, 1.0, True]
    read = loss_cli.batch_from_json(batch, "batch.json")
    assert np.isnan(read.logp[0, 4]) and read.logp[0, 5:7].tolist() == [2.0, -1.0]
    assert read.mask[0, :5].tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]
    assert read.logp[1].tolist() == LONG


def test_answers_wider_than_the_supported_width_are_refused_naming_the_limit(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(loss_cli, "MAX_WIDTH", 39)  # the length-bias batch is 40 wide
    status, out, err = run(capsys, write(tmp_path, length_bias_batch()))
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        "grpo-desktop loss: error: batch.json: field 'logp' row 1 has 40 token positions; "
        "at most 39 per answer (the padded length T) are supported"
    ]


# --- hostile numbers ---------------------------------------------------------------------------


def write_text_file(tmp_path: Path, text: str, name: str = "batch.json") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_an_integer_beyond_the_digit_limit_names_the_file_and_the_place(tmp_path, capsys):
    text = json.dumps(length_bias_batch(), indent=1).replace("-0.8", "1" + "0" * 5000, 1)
    status, out, err = run(capsys, write_text_file(tmp_path, text))
    assert (status, out) == (2, "")
    start = text.index("1" + "0" * 5000)
    line, column = text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)
    assert (line, column) == (5, 4)  # json.dumps(indent=1): row 1 of logp, item 2
    assert err.splitlines() == [
        f"grpo-desktop loss: error: batch.json: line {line} column {column}: an integer of 5,001 "
        "digits, far beyond what a float64 holds (1.8e308)"
    ]
    assert "set_int_max_str_digits" not in err


def test_a_401_digit_integer_is_named_by_field_row_and_item(tmp_path, capsys):
    text = json.dumps(length_bias_batch()).replace("-0.8", "1" + "0" * 400, 1)
    status, out, err = run(capsys, write_text_file(tmp_path, text))
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        "grpo-desktop loss: error: batch.json: field 'logp' row 1 item 2 is too large for a float64"
    ]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("-0.8", "Infinity", "field 'logp' row 1 item 2 is Infinity (or a number too large"),
        ("-0.8", "-Infinity", "field 'logp' row 1 item 2 is -Infinity"),
        ("-0.8", "1e999", "field 'logp' row 1 item 2 is Infinity (or a number too large"),
        ("-0.5]", "NaN]", "field 'advantages' item 2 is null or NaN, for an answer with real"),
        ('"eps_low": 0.2', '"eps_low": Infinity', "eps_low must be a finite number >= 0"),
    ],
)
def test_infinity_and_nan_literals_at_real_tokens_name_the_place(
    tmp_path, capsys, old, new, message
):
    text = json.dumps(length_bias_batch(eps_low=0.2)).replace(old, new, 1)
    status, out, err = run(capsys, write_text_file(tmp_path, text))
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("grpo-desktop loss: error: batch.json: ")
    assert message in lines[0]


def test_deep_nesting_inside_a_field_is_one_line(tmp_path, capsys):
    text = '{"logp": ' + "[" * 100_000 + "]" * 100_000 + "}"
    status, out, err = run(capsys, write_text_file(tmp_path, text))
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        "grpo-desktop loss: error: batch.json: the JSON is nested too deeply"
    ]


def test_huge_gradients_are_written_in_scientific_notation(tmp_path, capsys):
    batch = length_bias_batch(advantages=[1e300, -1e300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy RuntimeWarning fails the test
        status, out, err = run(capsys, write(tmp_path, batch), "--preset", "verl/token-mean")
    assert (status, err) == (0, "")
    assert "per answer: #1 −9.0909e+298 ▲   #2 +9.0909e+299 ▼" in out
    assert max(len(word) for word in out.split()) < 40  # no 300-digit numbers


def test_a_preset_whose_numbers_overflow_says_so_instead_of_printing_inf(tmp_path, capsys):
    batch = length_bias_batch()
    batch["logp"][0][0] = 800.0  # TRL does not clamp log(ratio): exp(800) overflows
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        status, out, err = run(capsys, write(tmp_path, batch))
    assert (status, err) == (0, "")
    block = preset_block(out, "trl/bnpo")
    assert "  overflow: the loss or an answer's gradient is beyond float64 (TRL does not clamp" in (
        block
    )
    assert "inf" not in out.replace("info", "") and "nan" not in out
    assert "net " in preset_block(out, "verl/token-mean")  # verl clamps: its numbers stand


def test_sums_that_overflow_are_reported_not_printed(tmp_path, capsys):
    batch = length_bias_batch(advantages=[1e308, -1e308])
    batch["mask"][0] = [1] * 40
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        status, out, err = run(capsys, write(tmp_path, batch), "-p", "verl/seq-mean-token-sum")
    assert (status, err) == (0, "")
    assert "overflow:" in out and "inf" not in out


# --- outside text reaches the terminal escaped -------------------------------------------------


HOSTILE_NAME = "ev\u202eil\x1b[31m\u200b.json"
HOSTILE_SHOWN = "ev\\u202eil\\x1b[31m\\u200b.json"


def test_a_hostile_file_name_is_escaped_in_the_table(tmp_path, capsys):
    status, out, err = run(capsys, write(tmp_path, length_bias_batch(), HOSTILE_NAME))
    assert (status, err) == (0, "")
    assert out.startswith(f"{HOSTILE_SHOWN}: 2 answers")
    assert not any(char in out for char in "\x1b\u202e\u200b")


def test_a_hostile_file_name_is_escaped_in_an_error(tmp_path, capsys):
    for path in (tmp_path / HOSTILE_NAME, write_text_file(tmp_path, "{", HOSTILE_NAME)):
        status, out, err = run(capsys, str(path))
        assert (status, out) == (2, "")
        assert len(err.splitlines()) == 1 and HOSTILE_SHOWN in err
        assert not any(char in err for char in "\x1b\u202e\u200b")


def test_a_hostile_preset_name_is_escaped_in_the_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["loss", write(tmp_path, length_bias_batch()), "--preset", "\x1b]0;title\x07"])
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "invalid choice" in err


def test_the_help_states_the_file_and_width_limits(capsys):
    with pytest.raises(SystemExit):
        main(["loss", "--help"])
    assert "Limits: 64 MiB per file, 1,048,576 token positions per answer (T)." in (
        capsys.readouterr().out
    )


def test_the_help_says_verls_default_actor_ignores_loss_scale_factor(capsys):
    """verl b178a3c: the legacy ``dp_actor.py`` calls the policy loss with
    ``config.global_batch_info`` empty, so ``agg_loss`` divides by T; only
    ``verl/workers/utils/losses.py`` ``ppo_loss`` (``use_legacy_worker_impl=disable``) sets
    ``global_batch_info["loss_scale_factor"]``."""
    with pytest.raises(SystemExit):
        main(["loss", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "verl's default (legacy FSDP) actor never passes it to the policy loss: it takes effect "
        "only with trainer.use_legacy_worker_impl=disable." in text
    )
    preset = LOSS_PRESETS["verl/seq-mean-token-sum-norm"]
    assert "only with use_legacy_worker_impl=disable" in preset.formula
    assert "it takes effect only with trainer.use_legacy_worker_impl=disable" in preset.description


def test_gspos_clip_fraction_is_labelled_a_share_of_the_answers(tmp_path, capsys):
    """TRL ``_compute_loss`` with ``importance_sampling_level="sequence"``: one ratio per answer,
    and ``clip_ratio/region_mean`` is a mean over the answers (``x.shape[1] == 1``)."""
    batch = {
        "logp": [[-1.0, -1.0], [-1.0, -1.0], [-1.0, -1.0], [-1.0, -1.0]],
        "old_logp": [[-1.5, -1.5], [-1.0, -1.0], [-1.0, -1.0], [-1.0, -1.0]],
        "mask": [[1, 1], [1, 1], [1, 0], [1, 0]],
        "advantages": [1.0, 1.0, -1.0, 1.0],
    }
    status, out, _ = run(capsys, write(tmp_path, batch), "--preset", "trl/gspo")
    assert status == 0
    assert "; clip fraction 0.25 (a share of the answers)" in out  # 1 answer of 4, not 2 tokens
    status, out, _ = run(capsys, write(tmp_path, batch), "--preset", "trl/grpo")
    assert "share of the answers" not in out
