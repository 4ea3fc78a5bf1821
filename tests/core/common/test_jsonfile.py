"""read_json_file: a hostile problem or lesson file is one sentence naming it, never a traceback."""

from __future__ import annotations

import pytest

from grpo_desktop.core.common.jsonfile import ResourceFileError, read_json_file


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[" * 100_000 + "]" * 100_000, "the JSON is nested too deeply"),
        (
            '{\n  "pass_rate": ' + "9" * 5001 + "}",
            "line 2 column 16: an integer of 5,001 digits, far beyond what a float64 holds "
            "(1.8e308)",
        ),
    ],
    ids=["deep", "digits"],
)
def test_json_that_python_reads_badly_is_one_sentence_naming_the_file(tmp_path, text, reason):
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ResourceFileError) as raised:
        read_json_file(path, ResourceFileError, 10_000_000)
    assert str(raised.value) == f"hostile.json: {reason}"


def test_a_duplicate_key_is_still_named(tmp_path):
    path = tmp_path / "twice.json"
    path.write_text('{"id": "a", "id": "b"}', encoding="utf-8")
    with pytest.raises(ResourceFileError, match=r"twice\.json: field 'id' appears twice"):
        read_json_file(path, ResourceFileError, 1000)


def test_a_file_name_with_control_characters_is_escaped_in_the_message(tmp_path):
    path = tmp_path / "\x1b]0;title\x07\u202eevil.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ResourceFileError) as raised:
        read_json_file(path, ResourceFileError, 1000)
    assert str(raised.value).startswith("\\x1b]0;title\\x07\\u202eevil.json: invalid JSON")
