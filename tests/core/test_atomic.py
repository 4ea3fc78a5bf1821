"""Atomic writes: the old file survives a failed write, and no temporary file is left over."""

from __future__ import annotations

import pytest

from grpo_desktop.core import atomic


def test_writes_the_text_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "group.csv"
    atomic.write_text_atomically(target, "a,b\n1,−1\n")
    assert target.read_text(encoding="utf-8") == "a,b\n1,−1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["group.csv"]


def test_a_failed_write_keeps_the_old_file_intact(tmp_path, monkeypatch):
    target = tmp_path / "lesson.grpo.json"
    target.write_text("old", encoding="utf-8")

    def crash(*_args):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        atomic.write_text_atomically(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["lesson.grpo.json"]


def test_new_files_get_the_usual_permissions_not_private_ones(tmp_path):
    import os

    umask = os.umask(0o022)
    try:
        target = tmp_path / "shared.grpo.json"
        atomic.write_text_atomically(target, "{}")
        assert target.stat().st_mode & 0o777 == 0o644
        target.chmod(0o600)
        atomic.write_text_atomically(target, "{}")
        assert target.stat().st_mode & 0o777 == 0o600  # a replaced file keeps its permissions
    finally:
        os.umask(umask)
