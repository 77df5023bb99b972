"""The one atomic write: a file is replaced whole or not at all, keeps its mode, never writes through
a symlink, and a write that fails leaves the old file and no temporary file behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from gitgarden import atomic
from gitgarden.atomic import atomic_write, tmp_beside


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder of the test's own (tmp_path also holds the isolated home)."""
    made = tmp_path / "folder"
    made.mkdir()
    return made


def test_a_file_is_replaced_whole_and_keeps_its_mode(folder: Path) -> None:
    path = folder / "notes.md"
    path.write_text("old\n")
    path.chmod(0o640)
    atomic_write(path, "new ü\n")
    assert path.read_bytes() == "new ü\n".encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert _listing(folder) == ["notes.md"]


def test_a_mode_is_exact_from_the_first_byte_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        atomic_write(tmp_path / "hook", "#!/bin/sh\n", mode=0o755)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "hook").stat().st_mode) == 0o755


def test_a_symlink_is_replaced_and_its_target_left_alone(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("theirs\n")
    inside = tmp_path / "project"
    inside.mkdir()
    (inside / "config.toml").symlink_to(outside)
    atomic_write(inside / "config.toml", "ours\n")
    assert not (inside / "config.toml").is_symlink()
    assert (inside / "config.toml").read_text() == "ours\n"
    assert outside.read_text() == "theirs\n"


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = folder / "state.json"
    path.write_text('{"kept": true}\n')

    def disk_full(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        atomic_write(path, '{"kept": false}\n')
    assert path.read_text() == '{"kept": true}\n'
    assert _listing(folder) == ["state.json"]


def test_what_a_killed_write_left_is_written_over_and_a_symlink_there_is_not_followed(folder: Path) -> None:
    path = folder / "read.json"
    elsewhere = folder / "elsewhere"
    elsewhere.write_text("untouched\n")
    tmp_beside(path).symlink_to(elsewhere)  # left by a killed write, or planted
    atomic_write(path, "{}\n")
    assert path.read_text() == "{}\n"
    assert elsewhere.read_text() == "untouched\n"
    assert _listing(folder) == ["elsewhere", "read.json"]
