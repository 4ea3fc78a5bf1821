"""Atomic writes: the old file survives a failed write, and no temporary file is left over."""

from __future__ import annotations

import os
import stat
import time

import pytest

from grpo_desktop.core.common import atomic
from grpo_desktop.core.common.jsonfile import NotARegularFileError


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


def test_saving_over_a_symlink_updates_its_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "shared" / "lesson.grpo.json"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.grpo.json"
    link.symlink_to(real)
    atomic.write_text_atomically(link, "new")
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.grpo.json", "shared"]


def test_a_dangling_symlink_creates_the_file_it_points_to(tmp_path):
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "made.csv")
    atomic.write_text_atomically(link, "x")
    assert link.is_symlink() and (tmp_path / "made.csv").read_text(encoding="utf-8") == "x"


def test_a_symlink_loop_is_an_error_and_writes_nothing(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(OSError):
        atomic.write_text_atomically(tmp_path / "a", "x")
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]


def test_stale_temporaries_of_a_killed_save_are_removed_on_the_next_write(tmp_path):
    import os

    stale = tmp_path / ".lesson.grpo.json.k3j_9a0z.tmp"
    fresh = tmp_path / ".other.csv.ab12cd34.tmp"  # a save running right now
    unlike_ours = [tmp_path / ".notes.tmp", tmp_path / "lesson.abcdefgh.tmp"]
    for path in (stale, fresh, *unlike_ours):
        path.write_text("partial", encoding="utf-8")
    old = time.time() - atomic.STALE_SECONDS - 60
    for path in (stale, *unlike_ours):
        os.utime(path, (old, old))
    atomic.write_text_atomically(tmp_path / "group.csv", "a\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["group.csv", fresh.name, *(p.name for p in unlike_ours)]
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_not_replaced(tmp_path):
    pipe = tmp_path / "out.grpo.json"
    os.mkfifo(pipe)
    with pytest.raises(NotARegularFileError, match="named pipe"):
        atomic.write_text_atomically(pipe, "{}")
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert os.listdir(tmp_path) == ["out.grpo.json"]  # no temporary left either


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_symlink_to_a_named_pipe_is_refused_too(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    (tmp_path / "link.png").symlink_to(pipe)
    with pytest.raises(NotARegularFileError):
        atomic.write_bytes_atomically(tmp_path / "link.png", b"png")
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def test_a_folder_is_refused_with_what_it_is(tmp_path):
    (tmp_path / "folder").mkdir()
    with pytest.raises(NotARegularFileError, match="it is a folder, not a regular file"):
        atomic.write_text_atomically(tmp_path / "folder", "{}")


def _dead_process_id() -> int:
    """The id of a process that has exited (and been reaped), so no process has it now."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.skipif(os.name != "posix", reason="a process is asked after only on POSIX")
def test_a_killed_writers_temporary_goes_at_once_a_live_ones_stays(tmp_path):
    dead = tmp_path / f".lesson.grpo.json.{_dead_process_id()}.k3j_9a0z.tmp"
    live = tmp_path / f".other.csv.{os.getppid()}.ab12cd34.tmp"  # a save running right now
    for path in (dead, live):
        path.write_text("partial", encoding="utf-8")
    assert atomic.remove_left_temporaries([tmp_path, tmp_path]) == [dead.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == [live.name]


def test_a_temporary_names_its_writer(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: seen.append(a) or real_replace(a, b))
    atomic.write_text_atomically(tmp_path / "group.csv", "a\n")
    assert os.path.basename(seen[0]).startswith(f".group.csv.{os.getpid()}.")
